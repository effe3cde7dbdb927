-- +goose Up
-- What the speech-to-text page needs beside the API's transcript: the uploaded audio (a blob,
-- deleted with the row), the first words of the text for the list, and the person's edits
-- (the edited transcript with re-timed words, and names for the speaker ids). The API's
-- GET /v1/speech-to-text/transcripts/{id} keeps returning the recogniser's result.
ALTER TABLE transcripts ADD COLUMN audio_key TEXT NOT NULL DEFAULT '';
ALTER TABLE transcripts ADD COLUMN audio_content_type TEXT NOT NULL DEFAULT '';
ALTER TABLE transcripts ADD COLUMN preview TEXT NOT NULL DEFAULT '';
ALTER TABLE transcripts ADD COLUMN edited_result TEXT NOT NULL DEFAULT '';
ALTER TABLE transcripts ADD COLUMN speaker_names TEXT NOT NULL DEFAULT '';
ALTER TABLE transcripts ADD COLUMN edited_at_unix BIGINT NOT NULL DEFAULT 0;
-- The list pages newest first with the id breaking ties.
DROP INDEX transcripts_workspace;
CREATE INDEX transcripts_workspace_page ON transcripts(workspace_id, created_at_unix, id);

-- +goose Down
DROP INDEX transcripts_workspace_page;
CREATE INDEX transcripts_workspace ON transcripts(workspace_id, created_at_unix);
ALTER TABLE transcripts DROP COLUMN edited_at_unix;
ALTER TABLE transcripts DROP COLUMN speaker_names;
ALTER TABLE transcripts DROP COLUMN edited_result;
ALTER TABLE transcripts DROP COLUMN preview;
ALTER TABLE transcripts DROP COLUMN audio_content_type;
ALTER TABLE transcripts DROP COLUMN audio_key;
