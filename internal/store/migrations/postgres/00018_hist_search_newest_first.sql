-- +goose Up
-- The trigram indexes take each insert at once instead of through GIN's pending list: a search
-- reads the whole pending list (up to 4 MB of entries not yet merged), which cost ~20 ms a search
-- after a burst of inserts. The entries already pending are merged now.
ALTER INDEX history_text_trgm SET (fastupdate = off);
ALTER INDEX history_voice_name_trgm SET (fastupdate = off);
SELECT gin_clean_pending_list('history_text_trgm');
SELECT gin_clean_pending_list('history_voice_name_trgm');

-- +goose Down
ALTER INDEX history_voice_name_trgm RESET (fastupdate);
ALTER INDEX history_text_trgm RESET (fastupdate);
