-- +goose Up
-- Account extras (issue 3): onboarding survey and checklist, CCPA opt-out, BIPA terms, alpha
-- access, public user name, notifications.
ALTER TABLE users ADD COLUMN is_onboarding_completed BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE users ADD COLUMN onboarding_survey TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN onboarding_checklist_id TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN onboarding_checklist_hidden BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN is_onboarding_checklist_completed BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE users ADD COLUMN ccpa_opt_out BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN accepted_bipa_terms BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN bipa_accepted_at_unix BIGINT;
ALTER TABLE users ADD COLUMN has_alpha_access BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN alpha_requested_at_unix BIGINT;
ALTER TABLE users ADD COLUMN public_user_name TEXT NOT NULL DEFAULT '';

CREATE TABLE onboarding_checklist_items (
    user_id           TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    item_id           TEXT NOT NULL,
    completed_at_unix BIGINT NOT NULL,
    PRIMARY KEY (user_id, item_id)
);

CREATE TABLE messages (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    severity            TEXT NOT NULL,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    needs_attention     BOOLEAN NOT NULL DEFAULT FALSE,
    create_date_unix_ms BIGINT NOT NULL,
    read_at_unix_ms     BIGINT
);
CREATE INDEX messages_user ON messages(user_id, create_date_unix_ms DESC);

-- +goose Down
DROP TABLE messages;
DROP TABLE onboarding_checklist_items;
ALTER TABLE users DROP COLUMN public_user_name;
ALTER TABLE users DROP COLUMN alpha_requested_at_unix;
ALTER TABLE users DROP COLUMN has_alpha_access;
ALTER TABLE users DROP COLUMN bipa_accepted_at_unix;
ALTER TABLE users DROP COLUMN accepted_bipa_terms;
ALTER TABLE users DROP COLUMN ccpa_opt_out;
ALTER TABLE users DROP COLUMN is_onboarding_checklist_completed;
ALTER TABLE users DROP COLUMN onboarding_checklist_hidden;
ALTER TABLE users DROP COLUMN onboarding_checklist_id;
ALTER TABLE users DROP COLUMN onboarding_survey;
ALTER TABLE users DROP COLUMN is_onboarding_completed;
