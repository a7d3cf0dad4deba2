-- Change tracking for writes by other programs (see src/store/outside.rs, which installs
-- the per-layer triggers from the domain's layer list when a registry is opened).

-- Each layer's change number: raised by every committed write to the layer, by ms4 or by
-- another program's triggers, and polled by a running server to reload just that layer.
CREATE TABLE ms4_changes (
  layer TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
);

-- Holds one row only inside an ms4 write transaction (deleted again before it commits),
-- so the outside-edit triggers can tell ms4's own writes from everybody else's.
CREATE TABLE ms4_writer (
  actor TEXT NOT NULL
);

-- The GeoPackage extensions table, for the R-tree spatial index extension.
CREATE TABLE IF NOT EXISTS gpkg_extensions (
  table_name TEXT,
  column_name TEXT,
  extension_name TEXT NOT NULL,
  definition TEXT NOT NULL,
  scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
);
