-- +goose Up
-- Voice safety: an operator's safety_control on a voice (BAN: no one may use it; CAPTCHA: each
-- workspace must read a sentence aloud before using it again), and each workspace's voice captcha
-- (the sentence issued, failed attempts, when it was passed). A captcha passed before the control
-- was (re)set does not count: set_at_unix is compared with passed_at_unix.
CREATE TABLE voice_safety (
    voice_id    TEXT PRIMARY KEY REFERENCES voices(id) ON DELETE CASCADE,
    control     TEXT NOT NULL,
    set_at_unix INTEGER NOT NULL
);

CREATE TABLE voice_captchas (
    workspace_id   TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    voice_id       TEXT NOT NULL REFERENCES voices(id) ON DELETE CASCADE,
    text           TEXT NOT NULL,
    issued_at_ns   INTEGER NOT NULL, -- nanoseconds: tells one sentence from the next
    attempts       INTEGER NOT NULL DEFAULT 0,
    passed_at_unix INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, voice_id)
);

-- +goose Down
DROP TABLE voice_captchas;
DROP TABLE voice_safety;
