-- +goose Up
-- Text to dialogue: a history item made from several lines keeps them (JSON list of
-- {text, voice_id, voice_name}); '' for every other item.
ALTER TABLE history ADD COLUMN dialogue TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE history DROP COLUMN dialogue;
