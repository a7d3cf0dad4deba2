-- Change tracking for writes by other programs (see src/store/outside.rs, which installs
-- the per-layer triggers from the domain's layer list when a registry is opened).

-- Each layer's change number: raised by every committed write to the layer, by ms4 or by
-- another program's triggers, and polled by a running server to reload just that layer.
CREATE SEQUENCE ms4_change_seq;
CREATE TABLE ms4_changes (
  layer TEXT PRIMARY KEY,
  seq BIGINT NOT NULL
);

-- Raises a layer's change number and tells listeners (`LISTEN ms4_changes`) its name.
CREATE FUNCTION ms4_bump(l text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO ms4_changes (layer, seq) VALUES (l, nextval('ms4_change_seq'))
    ON CONFLICT (layer) DO UPDATE SET seq = excluded.seq;
  SELECT pg_notify('ms4_changes', l);
$$;
