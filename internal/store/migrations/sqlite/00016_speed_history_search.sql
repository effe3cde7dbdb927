-- +goose Up
-- History search is a case-insensitive substring match on the text and the voice name. A trigram
-- full-text index answers it without reading every row. It indexes history's own rows by rowid
-- (external content: the text is not stored twice); Timbre never runs VACUUM, which could
-- renumber them.
CREATE VIRTUAL TABLE history_fts USING fts5(text, voice_name, content='history', content_rowid='rowid', tokenize='trigram');
INSERT INTO history_fts(rowid, text, voice_name) SELECT rowid, text, voice_name FROM history;

-- +goose StatementBegin
CREATE TRIGGER history_fts_insert AFTER INSERT ON history BEGIN
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER history_fts_delete AFTER DELETE ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER history_fts_update AFTER UPDATE OF text, voice_name ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd

-- One index per list filter, under the member's own page (history is personal: the list reads a
-- member's own items from (workspace_id, user_id, …, seq)), so a filtered page is read in order.
CREATE INDEX history_user_voice ON history(workspace_id, user_id, voice_id, seq DESC);
CREATE INDEX history_user_model ON history(workspace_id, user_id, model_id, seq DESC);
CREATE INDEX history_user_source ON history(workspace_id, user_id, source, seq DESC);

-- +goose Down
DROP INDEX history_user_source;
DROP INDEX history_user_model;
DROP INDEX history_user_voice;
DROP TRIGGER history_fts_update;
DROP TRIGGER history_fts_delete;
DROP TRIGGER history_fts_insert;
DROP TABLE history_fts;
