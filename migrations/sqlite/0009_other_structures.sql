-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.


CREATE TABLE structures (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  asset_id TEXT NOT NULL UNIQUE,
  structure_type TEXT,
  status TEXT,
  owner TEXT,
  rim_elev REAL,
  installed_on DATE,
  extra TEXT,
  import_id INTEGER
);
