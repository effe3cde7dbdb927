-- +goose Up
-- Settling a history item sets its text again (the delivered part of it, usually all of it): the
-- full-text index is re-indexed only when the text or the voice name really changed. Every
-- finished request did it before, the largest part of the settling transaction's work.
DROP TRIGGER history_fts_update;
-- +goose StatementBegin
CREATE TRIGGER history_fts_update AFTER UPDATE OF text, voice_name ON history
WHEN old.text IS NOT new.text OR old.voice_name IS NOT new.voice_name
BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER history_fts_update;
-- +goose StatementBegin
CREATE TRIGGER history_fts_update AFTER UPDATE OF text, voice_name ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd
