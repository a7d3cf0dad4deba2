-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

CREATE TABLE parcels (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiPolygon),
  parcel_id TEXT NOT NULL UNIQUE,
  land_use TEXT,
  address TEXT,
  owner TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX parcels_geom_gist ON parcels USING GIST (geom);

CREATE TABLE catch_basins (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Point),
  asset_id TEXT NOT NULL UNIQUE,
  status TEXT,
  owner TEXT,
  rim_elev DOUBLE PRECISION,
  installed_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX catch_basins_geom_gist ON catch_basins USING GIST (geom);

CREATE TABLE manholes (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Point),
  asset_id TEXT NOT NULL UNIQUE,
  status TEXT,
  owner TEXT,
  rim_elev DOUBLE PRECISION,
  installed_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX manholes_geom_gist ON manholes USING GIST (geom);

CREATE TABLE outfalls (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Point),
  asset_id TEXT NOT NULL UNIQUE,
  receiving_water_id TEXT,
  diameter_in DOUBLE PRECISION,
  status TEXT,
  owner TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX outfalls_geom_gist ON outfalls USING GIST (geom);

CREATE TABLE pipes (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiLineString),
  asset_id TEXT NOT NULL UNIQUE,
  from_id TEXT,
  to_id TEXT,
  kind TEXT,
  diameter_in DOUBLE PRECISION,
  material TEXT,
  from_invert DOUBLE PRECISION,
  to_invert DOUBLE PRECISION,
  status TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX pipes_geom_gist ON pipes USING GIST (geom);

CREATE TABLE connections (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Geometry),
  connection_id TEXT NOT NULL UNIQUE,
  discharge_kind TEXT,
  parcel_id TEXT,
  status TEXT,
  installed_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX connections_geom_gist ON connections USING GIST (geom);

CREATE TABLE connection_records (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Point),
  record_id TEXT NOT NULL UNIQUE,
  connection_id TEXT,
  parcel_id TEXT,
  plan_ref TEXT,
  approved BOOLEAN,
  approved_by TEXT,
  approved_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX connection_records_geom_gist ON connection_records USING GIST (geom);

CREATE TABLE smps (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Geometry),
  asset_id TEXT NOT NULL UNIQUE,
  practice_type TEXT,
  structural BOOLEAN,
  owner_kind TEXT,
  status TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX smps_geom_gist ON smps USING GIST (geom);

CREATE TABLE easements (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Geometry),
  easement_id TEXT NOT NULL UNIQUE,
  purpose TEXT,
  recorded_on DATE,
  instrument TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX easements_geom_gist ON easements USING GIST (geom);

CREATE TABLE receiving_waters (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Geometry),
  water_id TEXT NOT NULL UNIQUE,
  name TEXT,
  listed_303d BOOLEAN,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX receiving_waters_geom_gist ON receiving_waters USING GIST (geom);

CREATE TABLE impairments (
  fid BIGSERIAL PRIMARY KEY,
  impairment_id TEXT NOT NULL UNIQUE,
  water_id TEXT,
  pollutant TEXT,
  sources TEXT,
  cycle BIGINT,
  extra JSONB,
  import_id BIGINT
);

CREATE TABLE watersheds (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiPolygon),
  watershed_id TEXT NOT NULL UNIQUE,
  name TEXT,
  drains_to TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX watersheds_geom_gist ON watersheds USING GIST (geom);

CREATE TABLE tmdl_areas (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiPolygon),
  tmdl_id TEXT NOT NULL UNIQUE,
  pollutant TEXT,
  stormwater_source BOOLEAN,
  approved_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX tmdl_areas_geom_gist ON tmdl_areas USING GIST (geom);

CREATE TABLE inspections (
  fid BIGSERIAL PRIMARY KEY,
  inspection_id TEXT NOT NULL UNIQUE,
  asset_id TEXT,
  inspected_on DATE,
  kind TEXT,
  inspector TEXT,
  result TEXT,
  findings TEXT,
  notes TEXT,
  extra JSONB,
  import_id BIGINT
);

CREATE TABLE boundary (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiPolygon),
  boundary_id TEXT NOT NULL UNIQUE,
  name TEXT,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX boundary_geom_gist ON boundary USING GIST (geom);
