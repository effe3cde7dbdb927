-- +goose Up
-- Workspace voices (cloned, generated, professional) carry the voiceprint they were made from (JSON,
-- voiceprint.Print: pitch, rate, formants, speaker embedding) and the member who made them.
ALTER TABLE voices ADD COLUMN voiceprint TEXT NOT NULL DEFAULT '';
ALTER TABLE voices ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
CREATE INDEX voices_workspace_category ON voices(workspace_id, category);

-- +goose Down
DROP INDEX voices_workspace_category;
ALTER TABLE voices DROP COLUMN created_by;
ALTER TABLE voices DROP COLUMN voiceprint;
