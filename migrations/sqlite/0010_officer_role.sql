-- The officer role (the illicit discharge programme's cases, notices and closings).
-- SQLite cannot change a CHECK constraint in place: the table is copied into one with the
-- new constraint, ids kept, so the AUTOINCREMENT sequence goes on from the same number.
CREATE TABLE ms4_tokens_next (
  token_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('analyst', 'inspector', 'officer', 'planner', 'admin')),
  subject TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
INSERT INTO ms4_tokens_next (token_id, hash, role, subject, created_at, expires_at, revoked_at)
  SELECT token_id, hash, role, subject, created_at, expires_at, revoked_at FROM ms4_tokens;
DROP TABLE ms4_tokens;
ALTER TABLE ms4_tokens_next RENAME TO ms4_tokens;
