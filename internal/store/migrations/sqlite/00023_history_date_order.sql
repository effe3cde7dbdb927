-- +goose Up
-- The date filters (date_before_unix, date_after_unix) of a history list ordered by seq. A page of
-- the rows dated before a day in the middle of a million walked the half million newer rows, each
-- tested and dropped (2.4 s). Rows are inserted with their date and seq from the same clock, so
-- date order is seq order for nearly every row; a row for which it is not — a row whose seq was
-- not above every seq of its workspace when it was inserted, or whose date was below the date of
-- a row in order — is marked date_out_of_order. The rows in order of a workspace then have seqs
-- that rise with their dates, and a date range of them is a seq range: its two ends are found in
-- history_date_order, and the page is read in seq order between them; the few rows out of order
-- are read from their own index and tested one by one (store.ListHistory).
-- Rows never change workspace, seq or date (moving a member's rows to the owner changes only
-- user_id, which the order does not depend on).
ALTER TABLE history ADD COLUMN date_out_of_order BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE history SET date_out_of_order = TRUE WHERE rowid IN (
    SELECT rowid FROM (
        SELECT rowid, seq, date_unix, MAX(seq) OVER w AS seq_before, MAX(date_unix) OVER w AS date_before
        FROM history
        WINDOW w AS (PARTITION BY workspace_id ORDER BY seq, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
    WHERE seq <= seq_before OR date_unix < date_before);
CREATE INDEX history_date_order ON history(workspace_id, date_unix, seq) WHERE date_out_of_order = FALSE;
CREATE INDEX history_date_out_of_order ON history(workspace_id, user_id, seq DESC) WHERE date_out_of_order = TRUE;

-- +goose StatementBegin
CREATE TRIGGER history_mark_date_out_of_order AFTER INSERT ON history
WHEN EXISTS (SELECT 1 FROM history WHERE workspace_id = new.workspace_id AND seq >= new.seq AND rowid <> new.rowid)
    OR EXISTS (SELECT 1 FROM history WHERE workspace_id = new.workspace_id AND date_out_of_order = FALSE AND date_unix > new.date_unix)
BEGIN
    UPDATE history SET date_out_of_order = TRUE WHERE rowid = new.rowid;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER history_mark_date_out_of_order;
DROP INDEX history_date_out_of_order;
DROP INDEX history_date_order;
ALTER TABLE history DROP COLUMN date_out_of_order;
