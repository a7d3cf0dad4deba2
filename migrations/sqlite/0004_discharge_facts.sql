-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

ALTER TABLE pipes ADD COLUMN owner TEXT;
ALTER TABLE connections ADD COLUMN removed_on DATE;
ALTER TABLE connections ADD COLUMN sampled_on DATE;
ALTER TABLE connections ADD COLUMN pollutants_found BOOLEAN;
ALTER TABLE connection_records ADD COLUMN permit_number TEXT;
ALTER TABLE connection_records ADD COLUMN permit_kind TEXT;
ALTER TABLE connection_records ADD COLUMN permit_holder TEXT;
ALTER TABLE connection_records ADD COLUMN ms4_approval BOOLEAN;
ALTER TABLE connection_records ADD COLUMN ms4_approved_on DATE;
ALTER TABLE inspections ADD COLUMN sewage_indicators BOOLEAN;

CREATE TABLE discharge_determinations (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  determination_id TEXT NOT NULL UNIQUE,
  scope TEXT,
  subject TEXT,
  determined_on DATE,
  determined_by TEXT,
  finding TEXT,
  notes TEXT,
  extra TEXT,
  import_id INTEGER
);
