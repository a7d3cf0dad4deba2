-- The officer role (the illicit discharge programme's cases, notices and closings).
ALTER TABLE ms4_tokens DROP CONSTRAINT IF EXISTS ms4_tokens_role_check;
ALTER TABLE ms4_tokens ADD CONSTRAINT ms4_tokens_role_check
  CHECK (role IN ('analyst', 'inspector', 'officer', 'planner', 'admin'));
