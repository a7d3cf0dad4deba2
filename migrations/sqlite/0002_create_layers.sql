-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

CREATE TABLE parcels (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTIPOLYGON,
  parcel_id TEXT NOT NULL UNIQUE,
  land_use TEXT,
  address TEXT,
  owner TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE catch_basins (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  asset_id TEXT NOT NULL UNIQUE,
  status TEXT,
  owner TEXT,
  rim_elev REAL,
  installed_on DATE,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE manholes (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  asset_id TEXT NOT NULL UNIQUE,
  status TEXT,
  owner TEXT,
  rim_elev REAL,
  installed_on DATE,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE outfalls (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  asset_id TEXT NOT NULL UNIQUE,
  receiving_water_id TEXT,
  diameter_in REAL,
  status TEXT,
  owner TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE pipes (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTILINESTRING,
  asset_id TEXT NOT NULL UNIQUE,
  from_id TEXT,
  to_id TEXT,
  kind TEXT,
  diameter_in REAL,
  material TEXT,
  from_invert REAL,
  to_invert REAL,
  status TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE connections (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom GEOMETRY,
  connection_id TEXT NOT NULL UNIQUE,
  discharge_kind TEXT,
  parcel_id TEXT,
  status TEXT,
  installed_on DATE,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE connection_records (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom POINT,
  record_id TEXT NOT NULL UNIQUE,
  connection_id TEXT,
  parcel_id TEXT,
  plan_ref TEXT,
  approved BOOLEAN,
  approved_by TEXT,
  approved_on DATE,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE smps (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom GEOMETRY,
  asset_id TEXT NOT NULL UNIQUE,
  practice_type TEXT,
  structural BOOLEAN,
  owner_kind TEXT,
  status TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE easements (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom GEOMETRY,
  easement_id TEXT NOT NULL UNIQUE,
  purpose TEXT,
  recorded_on DATE,
  instrument TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE receiving_waters (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom GEOMETRY,
  water_id TEXT NOT NULL UNIQUE,
  name TEXT,
  listed_303d BOOLEAN,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE impairments (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  impairment_id TEXT NOT NULL UNIQUE,
  water_id TEXT,
  pollutant TEXT,
  sources TEXT,
  cycle INTEGER,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE watersheds (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTIPOLYGON,
  watershed_id TEXT NOT NULL UNIQUE,
  name TEXT,
  drains_to TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE tmdl_areas (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTIPOLYGON,
  tmdl_id TEXT NOT NULL UNIQUE,
  pollutant TEXT,
  stormwater_source BOOLEAN,
  approved_on DATE,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE inspections (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  inspection_id TEXT NOT NULL UNIQUE,
  asset_id TEXT,
  inspected_on DATE,
  kind TEXT,
  inspector TEXT,
  result TEXT,
  findings TEXT,
  notes TEXT,
  extra TEXT,
  import_id INTEGER
);

CREATE TABLE boundary (
  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  geom MULTIPOLYGON,
  boundary_id TEXT NOT NULL UNIQUE,
  name TEXT,
  extra TEXT,
  import_id INTEGER
);
