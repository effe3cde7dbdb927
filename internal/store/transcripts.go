package store

import "context"

// Transcript states.
const (
	TranscriptProcessing = "processing"
	TranscriptCompleted  = "completed"
	TranscriptFailed     = "failed"
)

// Transcript is one speech-to-text transcription of a workspace. Result is the finished
// transcript as the API returns it (JSON); the audio itself is not kept.
type Transcript struct {
	ID, WorkspaceID, UserID, APIKeyID string
	ModelID, LanguageCode, FileName   string
	State                             string
	DurationSecs                      float64
	Result, Error                     string
	WebhookMetadata                   string
	CreatedAt, CompletedAt            int64
}

const transcriptCols = `id, workspace_id, user_id, api_key_id, model_id, language_code, file_name, state, duration_secs,
	result, error, webhook_metadata, created_at_unix, completed_at_unix`

func scanTranscript(row interface{ Scan(...any) error }) (*Transcript, error) {
	t := &Transcript{}
	err := row.Scan(&t.ID, &t.WorkspaceID, &t.UserID, &t.APIKeyID, &t.ModelID, &t.LanguageCode, &t.FileName, &t.State,
		&t.DurationSecs, &t.Result, &t.Error, &t.WebhookMetadata, &t.CreatedAt, &t.CompletedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return t, nil
}

// InsertTranscript adds a transcription (in the transaction that charges for it).
func (tx *Tx) InsertTranscript(ctx context.Context, t *Transcript) error {
	_, err := tx.exec(ctx, `INSERT INTO transcripts (`+transcriptCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.WorkspaceID, t.UserID, t.APIKeyID, t.ModelID, t.LanguageCode, t.FileName, t.State, t.DurationSecs,
		t.Result, t.Error, t.WebhookMetadata, t.CreatedAt, t.CompletedAt)
	return err
}

// FinishTranscript records the outcome of a processing transcription: completed with its result,
// or failed with a message. ErrNotFound when it is gone (deleted meanwhile) or already finished.
func (tx *Tx) FinishTranscript(ctx context.Context, workspaceID, id, state, languageCode, result, message string, at int64) error {
	return affected(tx.exec(ctx, `UPDATE transcripts SET state = ?, language_code = ?, result = ?, error = ?, completed_at_unix = ?
		WHERE workspace_id = ? AND id = ? AND state = ?`,
		state, languageCode, result, message, at, workspaceID, id, TranscriptProcessing))
}

// Transcript returns one transcription of the workspace.
func (db *DB) Transcript(ctx context.Context, workspaceID, id string) (*Transcript, error) {
	return scanTranscript(db.queryRow(ctx, `SELECT `+transcriptCols+` FROM transcripts WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}

// DeleteTranscript removes one transcription of the workspace (ErrNotFound if there is none).
func (db *DB) DeleteTranscript(ctx context.Context, workspaceID, id string) error {
	return affected(db.exec(ctx, `DELETE FROM transcripts WHERE workspace_id = ? AND id = ?`, workspaceID, id))
}
