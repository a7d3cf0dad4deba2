-- API tokens: only a SHA-256 hash of each token is kept, so a copy of the database does
-- not hand out access. Revoked tokens stay, for the audit trail.
CREATE TABLE ms4_tokens (
  token_id BIGSERIAL PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('analyst', 'inspector', 'planner', 'admin')),
  subject TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
);
