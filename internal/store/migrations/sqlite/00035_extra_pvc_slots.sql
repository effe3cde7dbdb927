-- +goose Up
-- Professional voice slots bought on top of the plan's (spec: professional voice limit = the
-- plan's limit + extra slots).
ALTER TABLE workspaces ADD COLUMN extra_professional_voice_slots INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE workspaces DROP COLUMN extra_professional_voice_slots;
