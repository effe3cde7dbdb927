-- +goose Up
-- The date filters (date_before_unix, date_after_unix) of a history list ordered by seq. A page of
-- the rows dated before a day in the middle of a million walked the half million newer rows, each
-- tested and dropped. Rows are inserted with their date and seq from the same clock, so date order
-- is seq order for nearly every row; a row for which it is not — a row whose seq was not above
-- every seq of its workspace when it was inserted, or whose date was below the date of a row in
-- order — is marked date_out_of_order. The rows in order of a workspace then have seqs that rise
-- with their dates, and a date range of them is a seq range: its two ends are found in
-- history_date_order, and the page is read in seq order between them; the few rows out of order
-- are read from their own index and tested one by one (store.ListHistory).
-- Rows never change workspace, seq or date (moving a member's rows to the owner changes only
-- user_id, which the order does not depend on).
ALTER TABLE history ADD COLUMN date_out_of_order BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE history SET date_out_of_order = TRUE WHERE id IN (
    SELECT id FROM (
        SELECT id, seq, date_unix, MAX(seq) OVER w AS seq_before, MAX(date_unix) OVER w AS date_before
        FROM history
        WINDOW w AS (PARTITION BY workspace_id ORDER BY seq, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) AS t
    WHERE seq <= seq_before OR date_unix < date_before);
CREATE INDEX history_date_order ON history(workspace_id, date_unix, seq) WHERE date_out_of_order = FALSE;
CREATE INDEX history_date_out_of_order ON history(workspace_id, user_id, seq DESC) WHERE date_out_of_order = TRUE;

-- The mark is decided before the row is written. Locking the workspace's row makes concurrent
-- inserts into one workspace decide one after the other, each seeing the rows committed before it;
-- a generation's transaction already holds that lock (its charge updated the row), so this costs
-- it nothing (an advisory lock taken here made a million-row insert ~5 times slower). The two
-- lookups read the newest seq and the latest date in order, as ORDER BY … LIMIT 1 on history_page
-- and history_date_order, with enable_seqscan = off: the plans cached while the table was still
-- empty stay on those indexes (written as EXISTS tests, a 20,000-row insert into an empty table
-- took 10 s instead of 1.5 s).
-- +goose StatementBegin
CREATE FUNCTION history_mark_date_out_of_order() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
    last_seq BIGINT;
    last_date BIGINT;
BEGIN
    PERFORM 1 FROM workspaces WHERE id = NEW.workspace_id FOR NO KEY UPDATE;
    SELECT seq INTO last_seq FROM history WHERE workspace_id = NEW.workspace_id ORDER BY seq DESC LIMIT 1;
    SELECT date_unix INTO last_date FROM history WHERE workspace_id = NEW.workspace_id AND date_out_of_order = FALSE ORDER BY date_unix DESC LIMIT 1;
    IF last_seq >= NEW.seq OR last_date > NEW.date_unix THEN
        NEW.date_out_of_order := TRUE;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER history_mark_date_out_of_order BEFORE INSERT ON history
    FOR EACH ROW EXECUTE FUNCTION history_mark_date_out_of_order();

-- +goose Down
DROP TRIGGER history_mark_date_out_of_order ON history;
DROP FUNCTION history_mark_date_out_of_order();
DROP INDEX history_date_out_of_order;
DROP INDEX history_date_order;
ALTER TABLE history DROP COLUMN date_out_of_order;
