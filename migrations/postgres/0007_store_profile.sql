-- The registry's jurisdiction profile, whole: the TOML text as given and its SHA-256, so a
-- town's own profile travels with its registry and every later command reads it from here
-- rather than from a folder or the profiles built into the binary. One row only.
CREATE TABLE ms4_profile (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  profile_id TEXT NOT NULL,
  toml TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  -- 'builtin' when the text is one compiled into ms4, else the file name it came from:
  -- only a built-in copy is compared with the binary's newer built-in text.
  source TEXT NOT NULL,
  stored_at TIMESTAMPTZ NOT NULL,
  stored_by TEXT NOT NULL
);
