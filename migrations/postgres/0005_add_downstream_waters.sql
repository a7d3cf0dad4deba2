-- Downstream waters (AMB-07): the water each receiving water flows to, and the waters a
-- TMDL covers (water ids, comma-separated). Both optional; existing rows get NULL.
ALTER TABLE receiving_waters ADD COLUMN flows_to TEXT;
ALTER TABLE tmdl_areas ADD COLUMN waters TEXT;
