-- +goose Up
-- A search walks the trigram index's matches newest first (by rowid) and stops after a page. Rowid
-- order is seq order for every row whose seq was above all of its workspace's seqs when it was
-- inserted (the default: seq is the insertion time); a row that was not — an equal seq, a clock
-- that stepped back, an import — is marked out_of_order, and a search reads those few from their
-- own index instead.
ALTER TABLE history ADD COLUMN out_of_order INTEGER NOT NULL DEFAULT 0;
UPDATE history SET out_of_order = 1 WHERE rowid IN (
    SELECT rowid FROM (
        SELECT rowid, seq, MAX(seq) OVER (PARTITION BY workspace_id ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS seq_before
        FROM history)
    WHERE seq <= seq_before);
CREATE INDEX history_out_of_order ON history(workspace_id, seq DESC) WHERE out_of_order = 1;

-- +goose StatementBegin
CREATE TRIGGER history_mark_out_of_order AFTER INSERT ON history
WHEN EXISTS (SELECT 1 FROM history WHERE workspace_id = new.workspace_id AND seq >= new.seq AND rowid <> new.rowid)
BEGIN
    UPDATE history SET out_of_order = 1 WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER history_mark_out_of_order;
DROP INDEX history_out_of_order;
ALTER TABLE history DROP COLUMN out_of_order;
