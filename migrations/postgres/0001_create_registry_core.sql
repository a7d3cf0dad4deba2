-- The registry's bookkeeping tables. PostGIS itself is created when missing; the layer
-- tables follow in 0002 and `ms4 init` fixes their SRID.

CREATE EXTENSION IF NOT EXISTS postgis;

CREATE TABLE ms4_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE ms4_imports (
  import_id BIGSERIAL PRIMARY KEY,
  layer TEXT NOT NULL,
  source TEXT NOT NULL,
  actor TEXT NOT NULL,
  mode TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ,
  inserted BIGINT NOT NULL DEFAULT 0,
  updated BIGINT NOT NULL DEFAULT 0,
  deleted BIGINT NOT NULL DEFAULT 0,
  unchanged BIGINT NOT NULL DEFAULT 0,
  report JSONB
);

CREATE TABLE ms4_audit (
  audit_id BIGSERIAL PRIMARY KEY,
  at TIMESTAMPTZ NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  layer TEXT,
  feature_id TEXT,
  -- No foreign key: the import row is written in the same transaction, and a per-row
  -- check would double the cost of a million-row load.
  import_id BIGINT,
  before JSONB,
  after JSONB
);
CREATE INDEX ms4_audit_layer_feature ON ms4_audit(layer, feature_id);
