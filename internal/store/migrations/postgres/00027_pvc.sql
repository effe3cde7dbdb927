-- +goose Up
-- Professional voice cloning. A professional voice keeps its whole cloning state (language,
-- captcha text, verification, manual review, fine_tuning state/progress per model) as one JSON
-- document in voices.pvc, read and written in the transactions that change it. Its samples
-- gain trimming (milliseconds; trim_end_ms 0 = to the end), speaker separation (status and the
-- speakers with their segments as JSON) and the speakers picked for training.
ALTER TABLE voices ADD COLUMN pvc TEXT NOT NULL DEFAULT '';
ALTER TABLE voice_samples ADD COLUMN trim_start_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE voice_samples ADD COLUMN trim_end_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE voice_samples ADD COLUMN separation_status TEXT NOT NULL DEFAULT 'not_started';
ALTER TABLE voice_samples ADD COLUMN speakers TEXT NOT NULL DEFAULT '';
ALTER TABLE voice_samples ADD COLUMN selected_speaker_ids TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE voice_samples DROP COLUMN selected_speaker_ids;
ALTER TABLE voice_samples DROP COLUMN speakers;
ALTER TABLE voice_samples DROP COLUMN separation_status;
ALTER TABLE voice_samples DROP COLUMN trim_end_ms;
ALTER TABLE voice_samples DROP COLUMN trim_start_ms;
ALTER TABLE voices DROP COLUMN pvc;
