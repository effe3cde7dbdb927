package store

import (
	"context"
	"database/sql"
	"time"
)

// VoiceSample is one recording a workspace voice was made from (the audio is in the blob store).
type VoiceSample struct {
	ID                    string
	VoiceID               string
	WorkspaceID           string
	FileName              string
	MimeType              string
	SizeBytes             int64
	Hash                  string // sha256 of the uploaded file, hex
	DurationSecs          float64
	RemoveBackgroundNoise bool
	BlobKey               string
	Voiceprint            string // JSON voiceprint.Print of this recording alone
	Position              int    // order of addition within the voice
	CreatedAt             int64
	// Professional cloning: the part of the recording used (ms; TrimEndMS 0 = to the end), the
	// speaker separation's status and result (JSON), and the speakers picked (JSON list).
	TrimStartMS        int64
	TrimEndMS          int64
	SeparationStatus   string
	Speakers           string
	SelectedSpeakerIDs string
}

const sampleCols = `sample_id, voice_id, workspace_id, file_name, mime_type, size_bytes, hash, duration_secs, remove_background_noise, blob_key, voiceprint, position, created_at_unix, trim_start_ms, trim_end_ms, separation_status, speakers, selected_speaker_ids`

func scanSample(row interface{ Scan(...any) error }) (*VoiceSample, error) {
	s := &VoiceSample{}
	if err := row.Scan(&s.ID, &s.VoiceID, &s.WorkspaceID, &s.FileName, &s.MimeType, &s.SizeBytes, &s.Hash, &s.DurationSecs,
		&s.RemoveBackgroundNoise, &s.BlobKey, &s.Voiceprint, &s.Position, &s.CreatedAt,
		&s.TrimStartMS, &s.TrimEndMS, &s.SeparationStatus, &s.Speakers, &s.SelectedSpeakerIDs); err != nil {
		return nil, notFound(err)
	}
	return s, nil
}

// collectSamples reads sample rows; no samples is an empty list (the API's samples: []).
func collectSamples(rows *sql.Rows, err error) ([]VoiceSample, error) {
	out, err := collect(scanSample)(rows, err)
	if out == nil && err == nil {
		out = []VoiceSample{}
	}
	return out, err
}

const samplesOfVoice = `SELECT ` + sampleCols + ` FROM voice_samples WHERE workspace_id = ? AND voice_id = ? ORDER BY position, sample_id`

// VoiceSamples lists a workspace voice's samples, oldest first.
func (db *DB) VoiceSamples(ctx context.Context, workspaceID, voiceID string) ([]VoiceSample, error) {
	return collectSamples(db.query(ctx, samplesOfVoice, workspaceID, voiceID))
}

// VoiceSamplesOf lists the samples of several voices of a workspace (for voice lists), by voice.
func (db *DB) VoiceSamplesOf(ctx context.Context, workspaceID string, voiceIDs []string) (map[string][]VoiceSample, error) {
	out := map[string][]VoiceSample{}
	if len(voiceIDs) == 0 {
		return out, nil
	}
	args := []any{workspaceID}
	for _, id := range voiceIDs {
		args = append(args, id)
	}
	all, err := collectSamples(db.query(ctx, `SELECT `+sampleCols+` FROM voice_samples WHERE workspace_id = ? AND voice_id IN (`+
		placeholders(len(voiceIDs))+`) ORDER BY position, sample_id`, args...))
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		out[s.VoiceID] = append(out[s.VoiceID], s)
	}
	return out, nil
}

// VoiceSample finds one sample of a workspace voice.
func (db *DB) VoiceSample(ctx context.Context, workspaceID, voiceID, sampleID string) (*VoiceSample, error) {
	return scanSample(db.queryRow(ctx, `SELECT `+sampleCols+` FROM voice_samples WHERE workspace_id = ? AND voice_id = ? AND sample_id = ?`,
		workspaceID, voiceID, sampleID))
}

// VoiceSamples lists a voice's samples in the transaction that changes them.
func (tx *Tx) VoiceSamples(ctx context.Context, workspaceID, voiceID string) ([]VoiceSample, error) {
	return collectSamples(tx.query(ctx, samplesOfVoice, workspaceID, voiceID))
}

// InsertVoiceSample adds a sample to a voice (in the transaction that creates or edits the voice).
func (tx *Tx) InsertVoiceSample(ctx context.Context, s VoiceSample) error {
	_, err := tx.exec(ctx, `INSERT INTO voice_samples (`+sampleCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.VoiceID, s.WorkspaceID, s.FileName, s.MimeType, s.SizeBytes, s.Hash, s.DurationSecs, s.RemoveBackgroundNoise, s.BlobKey, s.Voiceprint, s.Position, s.CreatedAt,
		s.TrimStartMS, s.TrimEndMS, orDefault(s.SeparationStatus, "not_started"), s.Speakers, s.SelectedSpeakerIDs)
	return err
}

// DeleteVoiceSample removes one sample of a workspace voice; ErrNotFound when there is none.
func (tx *Tx) DeleteVoiceSample(ctx context.Context, workspaceID, voiceID, sampleID string) error {
	return affected(tx.exec(ctx, `DELETE FROM voice_samples WHERE workspace_id = ? AND voice_id = ? AND sample_id = ?`, workspaceID, voiceID, sampleID))
}

// DeleteVoiceSamples removes every sample of a voice (before the voice itself) and returns them,
// so that their audio can be removed from the blob store once the transaction committed.
func (tx *Tx) DeleteVoiceSamples(ctx context.Context, workspaceID, voiceID string) ([]VoiceSample, error) {
	gone, err := tx.VoiceSamples(ctx, workspaceID, voiceID)
	if err != nil {
		return nil, err
	}
	_, err = tx.exec(ctx, `DELETE FROM voice_samples WHERE workspace_id = ? AND voice_id = ?`, workspaceID, voiceID)
	return gone, err
}

// CountVoiceAddEdit counts one voice add or edit against the workspace's per-period allowance
// (max), rolling the period first. It reports false, changing nothing, when the allowance is
// used up. The UPDATE locks the workspace row, so a transaction that calls it first and then
// counts voices (CountVoices) sees every concurrent add that committed before it.
func (tx *Tx) CountVoiceAddEdit(ctx context.Context, workspaceID string, max int, now time.Time) (bool, error) {
	if err := tx.rollPeriod(ctx, workspaceID, now); err != nil {
		return false, err
	}
	err := affected(tx.exec(ctx, `UPDATE workspaces SET voice_add_edit_count = voice_add_edit_count + 1 WHERE id = ? AND voice_add_edit_count < ?`, workspaceID, max))
	if err == ErrNotFound {
		return false, nil
	}
	return err == nil, err
}

// CountWorkspaceVoices counts a workspace's own voices of the given categories (outside a
// transaction: for showing slots used).
func (db *DB) CountWorkspaceVoices(ctx context.Context, workspaceID string, categories ...string) (int, error) {
	q := `SELECT COUNT(*) FROM voices WHERE workspace_id = ? AND workspace_id <> ''`
	args := []any{workspaceID}
	if len(categories) > 0 {
		q += ` AND category IN (` + placeholders(len(categories)) + `)`
		for _, c := range categories {
			args = append(args, c)
		}
	}
	var n int
	err := db.queryRow(ctx, q, args...).Scan(&n)
	return n, err
}
