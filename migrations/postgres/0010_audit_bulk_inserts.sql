-- A load into an empty layer records its new features in one `insert` row that lists
-- their ids in the order written (`feature_ids`), instead of a row per feature: a
-- million rows with their key and index entries were most of what such a load cost
-- beyond the copy itself. Rows of every other kind keep `feature_id`.
ALTER TABLE ms4_audit ADD COLUMN feature_ids TEXT[];
-- Written once, in the load's transaction, and read whole: compressing it is time spent
-- inside the load for little space.
ALTER TABLE ms4_audit ALTER COLUMN feature_ids SET STORAGE EXTERNAL;

-- The audit as one entry per feature, whichever way it was recorded: what ms4 itself
-- reads, and what another program should query.
CREATE VIEW ms4_audit_entries AS
  SELECT audit_id, 0::bigint AS entry, at, actor, action, layer, feature_id, import_id,
         before, after
    FROM ms4_audit
   WHERE feature_ids IS NULL
  UNION ALL
  SELECT a.audit_id, u.entry, a.at, a.actor, a.action, a.layer, u.feature_id, a.import_id,
         NULL::jsonb, NULL::jsonb
    FROM ms4_audit a
   CROSS JOIN LATERAL unnest(a.feature_ids) WITH ORDINALITY AS u(feature_id, entry)
   WHERE a.feature_ids IS NOT NULL;
