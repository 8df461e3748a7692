-- A sync's outcome as codes as well as words (issue 16): error_reasons and
-- note_reasons hold what error and note say, as a JSON array of
-- {"code", "args"} (domain.Reason), so that the dashboard can say it in
-- the owner's language while the API keeps returning the English of error
-- and note. Rows from before hold [] and are shown in their English.
ALTER TABLE sources ADD COLUMN error_reasons TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(error_reasons) AND json_type(error_reasons) = 'array');
ALTER TABLE sources ADD COLUMN note_reasons TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(note_reasons) AND json_type(note_reasons) = 'array');
