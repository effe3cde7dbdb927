-- +goose Up
-- History search is a case-insensitive substring match (LOWER(…) LIKE '%…%') on the text and the
-- voice name; trigram GIN indexes answer it without reading every row. pg_trgm is a trusted
-- extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX history_text_trgm ON history USING gin (LOWER(text) gin_trgm_ops);
CREATE INDEX history_voice_name_trgm ON history USING gin (LOWER(voice_name) gin_trgm_ops);

-- One index per list filter, under the member's own page (history is personal: the list reads a
-- member's own items from (workspace_id, user_id, …, seq)), so a filtered page is read in order.
CREATE INDEX history_user_voice ON history(workspace_id, user_id, voice_id, seq DESC);
CREATE INDEX history_user_model ON history(workspace_id, user_id, model_id, seq DESC);
CREATE INDEX history_user_source ON history(workspace_id, user_id, source, seq DESC);

-- +goose Down
DROP INDEX history_user_source;
DROP INDEX history_user_model;
DROP INDEX history_user_voice;
DROP INDEX history_voice_name_trgm;
DROP INDEX history_text_trgm;
