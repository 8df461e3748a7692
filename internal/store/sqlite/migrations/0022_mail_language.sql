-- Mail in the reader's language (issue 19, "Nobody left waiting"): the
-- language each user reads the dashboard in (the wait alerts are written
-- in it) and the widget's language when a visitor left a contact (the
-- reply mail is written in it). '' means not known: the mail falls back
-- (docs/dashboard.md).
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE visitor_contacts ADD COLUMN language TEXT NOT NULL DEFAULT '';
