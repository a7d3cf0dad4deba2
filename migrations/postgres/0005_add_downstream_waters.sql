-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.

ALTER TABLE receiving_waters ADD COLUMN flows_to TEXT;
ALTER TABLE tmdl_areas ADD COLUMN waters TEXT;
