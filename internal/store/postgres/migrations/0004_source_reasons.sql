-- A sync's outcome as codes as well as words (issue 16): error_reasons and
-- note_reasons hold what error and note say, as a JSON array of
-- {"code", "args"} (domain.Reason), so that the dashboard can say it in
-- the owner's language while the API keeps returning the English of error
-- and note. text, not jsonb, as agents.config: what was stored is what is
-- read. Rows from before hold [] and are shown in their English.
ALTER TABLE sources ADD COLUMN error_reasons text NOT NULL DEFAULT '[]' CHECK (json_typeof(error_reasons::json) = 'array');
ALTER TABLE sources ADD COLUMN note_reasons text NOT NULL DEFAULT '[]' CHECK (json_typeof(note_reasons::json) = 'array');
