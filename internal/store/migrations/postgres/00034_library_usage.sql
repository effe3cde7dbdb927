-- +goose Up
-- The library's usage counters sum the ledger over a voice's copies: find the copies by original.
CREATE INDEX voice_shares_copies ON voice_shares(original_voice_id, status);

-- +goose Down
DROP INDEX voice_shares_copies;
