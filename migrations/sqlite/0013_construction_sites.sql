-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.


CREATE TABLE sites (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTIPOLYGON,
  site_id TEXT NOT NULL UNIQUE,
  opened_on DATE,
  status TEXT,
  name TEXT,
  parcels TEXT,
  owner TEXT,
  developer TEXT,
  operator TEXT,
  determination TEXT,
  disturbed_sqft REAL,
  phases TEXT,
  swppp_preparer TEXT,
  swppp_accepted_on DATE,
  swppp_accepted_by TEXT,
  noi_id TEXT,
  spdes_permit_id TEXT,
  start_on DATE,
  qualified_inspector TEXT,
  trained_contractor TEXT,
  rain_gauge TEXT,
  priority TEXT,
  milestones TEXT,
  actions TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE rainfall (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  rainfall_id TEXT NOT NULL UNIQUE,
  gauge_id TEXT,
  day DATE,
  inches REAL,
  source TEXT,
  extra TEXT,
  import_id INTEGER
);
