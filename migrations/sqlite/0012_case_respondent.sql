-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

ALTER TABLE cases ADD COLUMN respondent TEXT;

-- Hand-written below this line.
-- Who a case is against (src/idde/respondent.rs): JSON text, null on a case stored
-- before this migration (read as no respondent on record, of unknown kind). Numbered 12
-- on both stores, as the layer list numbers it: PostgreSQL's 0011 is taken.
