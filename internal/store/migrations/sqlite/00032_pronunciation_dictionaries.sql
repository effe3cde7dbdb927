-- +goose Up
-- Pronunciation dictionaries. Every change of rules makes a new version; old versions are kept,
-- since a request's locator may name one. rules is the version's JSON rule list.
CREATE TABLE pronunciation_dictionaries (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    created_by TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    latest_version_id TEXT NOT NULL,
    latest_rules_num INTEGER NOT NULL,
    created_at_unix INTEGER NOT NULL,
    archived_at_unix INTEGER
);
CREATE INDEX pronunciation_dictionaries_created ON pronunciation_dictionaries(workspace_id, created_at_unix, id);
CREATE INDEX pronunciation_dictionaries_name ON pronunciation_dictionaries(workspace_id, name, id);
CREATE TABLE pronunciation_dictionary_versions (
    id TEXT PRIMARY KEY,
    dictionary_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    rules TEXT NOT NULL,
    rules_num INTEGER NOT NULL,
    created_at_unix INTEGER NOT NULL
);
CREATE INDEX pronunciation_dictionary_versions_dict ON pronunciation_dictionary_versions(workspace_id, dictionary_id);

-- +goose Down
DROP TABLE pronunciation_dictionary_versions;
DROP TABLE pronunciation_dictionaries;
