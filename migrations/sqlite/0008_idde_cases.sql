-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

ALTER TABLE inspections ADD COLUMN hours_since_rain REAL;
ALTER TABLE inspections ADD COLUMN dry_weather BOOLEAN;
ALTER TABLE inspections ADD COLUMN characterisation TEXT;

CREATE TABLE cases (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  case_id TEXT NOT NULL UNIQUE,
  opened_on DATE,
  origin TEXT,
  status TEXT,
  reported_by TEXT,
  opened_by TEXT,
  description TEXT,
  asset_id TEXT,
  inspection_id TEXT,
  connection_id TEXT,
  parcel_id TEXT,
  closed_on DATE,
  closure TEXT,
  closure_notes TEXT,
  referred_to TEXT,
  candidates TEXT,
  actions TEXT,
  extra TEXT,
  import_id INTEGER
);

-- Hand-written below this line.
-- Photos taken at an inspection, kept whole with their SHA-256 (the checksum an auditor
-- compares, and the address they are served back at). Not a layer: bytes, not features.
CREATE TABLE ms4_photos (
  photo_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  inspection_id TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  content_type TEXT NOT NULL,
  bytes BLOB NOT NULL,
  size INTEGER NOT NULL,
  taken_by TEXT NOT NULL,
  stored_at TEXT NOT NULL,
  UNIQUE (inspection_id, sha256)
);
CREATE INDEX ms4_photos_sha256 ON ms4_photos (sha256);
