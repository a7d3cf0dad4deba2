-- API tokens: only a SHA-256 hash of each token is kept, so a copy of the registry file
-- does not hand out access. Revoked tokens stay, for the audit trail.
CREATE TABLE ms4_tokens (
  token_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('analyst', 'inspector', 'planner', 'admin')),
  subject TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
