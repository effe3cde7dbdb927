-- +goose Up
-- The trigram index takes new history rows in batches instead of one by one: indexing a row on
-- its own cost about half of the charging transaction of every speech request (FTS5 writes a
-- segment per transaction and merges them as they pile up). A new row waits in
-- history_fts_pending; the insert that brings the queue to 64 rows indexes all of them at once.
-- Search reads the waiting rows with LIKE (history.go, searchNewestFirst). Every row is in exactly
-- one of the two, so a waiting row's text may change or the row go without touching the index.
CREATE TABLE history_fts_pending (rowid INTEGER PRIMARY KEY);

DROP TRIGGER history_fts_insert;
-- +goose StatementBegin
CREATE TRIGGER history_fts_insert AFTER INSERT ON history BEGIN
    INSERT INTO history_fts_pending(rowid) VALUES (new.rowid);
    INSERT INTO history_fts(rowid, text, voice_name)
        SELECT h.rowid, h.text, h.voice_name FROM history_fts_pending p CROSS JOIN history h ON h.rowid = p.rowid
        WHERE (SELECT COUNT(*) FROM history_fts_pending) >= 64;
    DELETE FROM history_fts_pending WHERE (SELECT COUNT(*) FROM history_fts_pending) >= 64;
END;
-- +goose StatementEnd

DROP TRIGGER history_fts_delete;
-- +goose StatementBegin
CREATE TRIGGER history_fts_delete AFTER DELETE ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name)
        SELECT 'delete', old.rowid, old.text, old.voice_name
        WHERE NOT EXISTS (SELECT 1 FROM history_fts_pending WHERE rowid = old.rowid);
    DELETE FROM history_fts_pending WHERE rowid = old.rowid;
END;
-- +goose StatementEnd

DROP TRIGGER history_fts_update;
-- +goose StatementBegin
CREATE TRIGGER history_fts_update AFTER UPDATE OF text, voice_name ON history
WHEN (old.text IS NOT new.text OR old.voice_name IS NOT new.voice_name)
    AND NOT EXISTS (SELECT 1 FROM history_fts_pending WHERE rowid = new.rowid)
BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER history_fts_insert;
DROP TRIGGER history_fts_delete;
DROP TRIGGER history_fts_update;
INSERT INTO history_fts(rowid, text, voice_name)
    SELECT h.rowid, h.text, h.voice_name FROM history_fts_pending p CROSS JOIN history h ON h.rowid = p.rowid;
DROP TABLE history_fts_pending;
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
CREATE TRIGGER history_fts_update AFTER UPDATE OF text, voice_name ON history
WHEN old.text IS NOT new.text OR old.voice_name IS NOT new.voice_name
BEGIN
    INSERT INTO history_fts(history_fts, rowid, text, voice_name) VALUES ('delete', old.rowid, old.text, old.voice_name);
    INSERT INTO history_fts(rowid, text, voice_name) VALUES (new.rowid, new.text, new.voice_name);
END;
-- +goose StatementEnd
