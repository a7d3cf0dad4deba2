-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.


CREATE TABLE sites (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(MultiPolygon),
  site_id TEXT NOT NULL UNIQUE,
  opened_on DATE,
  status TEXT,
  name TEXT,
  parcels TEXT,
  owner TEXT,
  developer TEXT,
  operator TEXT,
  determination TEXT,
  disturbed_sqft DOUBLE PRECISION,
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
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX sites_geom_gist ON sites USING GIST (geom);

CREATE TABLE rainfall (
  fid BIGSERIAL PRIMARY KEY,
  rainfall_id TEXT NOT NULL UNIQUE,
  gauge_id TEXT,
  day DATE,
  inches DOUBLE PRECISION,
  source TEXT,
  extra JSONB,
  import_id BIGINT
);
