-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.


CREATE TABLE programme_submissions (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  submission_id TEXT NOT NULL UNIQUE,
  item_id TEXT,
  for_due_on DATE,
  submitted_on DATE,
  submitted_by TEXT,
  reference TEXT,
  note TEXT,
  source TEXT,
  extra TEXT,
  import_id INTEGER
);
