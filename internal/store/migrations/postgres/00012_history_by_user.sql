-- +goose Up
-- History is personal (a member lists their own items and those shared with them): their own
-- page comes straight from this index.
CREATE INDEX history_user_page ON history(workspace_id, user_id, seq DESC);

-- +goose Down
DROP INDEX history_user_page;
