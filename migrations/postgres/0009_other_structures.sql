-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.


CREATE TABLE structures (
  fid BIGSERIAL PRIMARY KEY,
  geom geometry(Point),
  asset_id TEXT NOT NULL UNIQUE,
  structure_type TEXT,
  status TEXT,
  owner TEXT,
  rim_elev DOUBLE PRECISION,
  installed_on DATE,
  extra JSONB,
  import_id BIGINT
);
CREATE INDEX structures_geom_gist ON structures USING GIST (geom);
