package store

import "context"

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// VoiceForUpdate reads a workspace voice in the transaction that will rewrite its cloning state;
// on PostgreSQL the row is locked, so a training job's progress and a captcha check do not
// overwrite each other (SQLite has one writer at a time anyway).
func (tx *Tx) VoiceForUpdate(ctx context.Context, workspaceID, id string) (*Voice, error) {
	q := `SELECT ` + voiceSelect + ` FROM voices WHERE id = ? AND workspace_id = ? AND workspace_id <> ''`
	if tx.db.Dialect == Postgres {
		q += ` FOR UPDATE`
	}
	return scanVoice(tx.queryRow(ctx, q, id, workspaceID))
}

// SetVoicePVC writes a professional voice's cloning state.
func (tx *Tx) SetVoicePVC(ctx context.Context, workspaceID, id, pvc string) error {
	return affected(tx.exec(ctx, `UPDATE voices SET pvc = ? WHERE id = ? AND workspace_id = ? AND workspace_id <> ''`, pvc, id, workspaceID))
}

// UpdateVoiceSample rewrites a sample's editable fields: file name, trimming, noise removal,
// the speaker separation and the speakers picked.
func (tx *Tx) UpdateVoiceSample(ctx context.Context, s VoiceSample) error {
	return affected(tx.exec(ctx, `UPDATE voice_samples SET file_name = ?, remove_background_noise = ?, trim_start_ms = ?, trim_end_ms = ?,
		separation_status = ?, speakers = ?, selected_speaker_ids = ? WHERE workspace_id = ? AND voice_id = ? AND sample_id = ?`,
		s.FileName, s.RemoveBackgroundNoise, s.TrimStartMS, s.TrimEndMS, orDefault(s.SeparationStatus, "not_started"), s.Speakers, s.SelectedSpeakerIDs,
		s.WorkspaceID, s.VoiceID, s.ID))
}

// VoiceSample reads one sample in a transaction.
func (tx *Tx) VoiceSample(ctx context.Context, workspaceID, voiceID, sampleID string) (*VoiceSample, error) {
	return scanSample(tx.queryRow(ctx, `SELECT `+sampleCols+` FROM voice_samples WHERE workspace_id = ? AND voice_id = ? AND sample_id = ?`,
		workspaceID, voiceID, sampleID))
}
