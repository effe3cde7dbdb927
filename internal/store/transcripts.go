package store

import (
	"context"
	"fmt"
)

// Transcript states.
const (
	TranscriptProcessing = "processing"
	TranscriptCompleted  = "completed"
	TranscriptFailed     = "failed"
)

// Transcript is one speech-to-text transcription of a workspace. Result is the finished
// transcript as the API returns it (JSON). AudioKey names the uploaded audio in the blob store
// ("" when it was not kept). EditedResult (JSON, "" = unedited) and SpeakerNames (a JSON object
// from speaker id to name, "" = none) are a person's edits in the web app; Preview is the
// first words of the (edited) text, for lists.
type Transcript struct {
	ID, WorkspaceID, UserID, APIKeyID string
	ModelID, LanguageCode, FileName   string
	State                             string
	DurationSecs                      float64
	Result, Error                     string
	WebhookMetadata                   string
	CreatedAt, CompletedAt            int64
	AudioKey, AudioContentType        string
	Preview                           string
	EditedResult, SpeakerNames        string
	EditedAt                          int64
}

const transcriptCols = `id, workspace_id, user_id, api_key_id, model_id, language_code, file_name, state, duration_secs,
	result, error, webhook_metadata, created_at_unix, completed_at_unix, audio_key, audio_content_type, preview,
	edited_result, speaker_names, edited_at_unix`

// transcriptSummaryCols are transcriptCols with the large JSON columns left empty (lists).
const transcriptSummaryCols = `id, workspace_id, user_id, api_key_id, model_id, language_code, file_name, state, duration_secs,
	'', error, webhook_metadata, created_at_unix, completed_at_unix, audio_key, audio_content_type, preview,
	'', speaker_names, edited_at_unix`

func scanTranscript(row interface{ Scan(...any) error }) (*Transcript, error) {
	t := &Transcript{}
	err := row.Scan(&t.ID, &t.WorkspaceID, &t.UserID, &t.APIKeyID, &t.ModelID, &t.LanguageCode, &t.FileName, &t.State,
		&t.DurationSecs, &t.Result, &t.Error, &t.WebhookMetadata, &t.CreatedAt, &t.CompletedAt, &t.AudioKey,
		&t.AudioContentType, &t.Preview, &t.EditedResult, &t.SpeakerNames, &t.EditedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return t, nil
}

// InsertTranscript adds a transcription (in the transaction that charges for it).
func (tx *Tx) InsertTranscript(ctx context.Context, t *Transcript) error {
	_, err := tx.exec(ctx, `INSERT INTO transcripts (`+transcriptCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.WorkspaceID, t.UserID, t.APIKeyID, t.ModelID, t.LanguageCode, t.FileName, t.State, t.DurationSecs,
		t.Result, t.Error, t.WebhookMetadata, t.CreatedAt, t.CompletedAt, t.AudioKey, t.AudioContentType, t.Preview,
		t.EditedResult, t.SpeakerNames, t.EditedAt)
	return err
}

// SetTranscriptPreview records the first words of a transcription's text (with FinishTranscript).
func (tx *Tx) SetTranscriptPreview(ctx context.Context, workspaceID, id, preview string) error {
	return affected(tx.exec(ctx, `UPDATE transcripts SET preview = ? WHERE workspace_id = ? AND id = ?`, preview, workspaceID, id))
}

// EditTranscript stores a person's edits of a completed transcription: the edited transcript
// (JSON), the speaker names (JSON object) and the preview of the edited text. ErrNotFound when
// there is no completed transcription id in the workspace.
func (db *DB) EditTranscript(ctx context.Context, workspaceID, id, editedResult, speakerNames, preview string, at int64) error {
	return affected(db.exec(ctx, `UPDATE transcripts SET edited_result = ?, speaker_names = ?, preview = ?, edited_at_unix = ?
		WHERE workspace_id = ? AND id = ? AND state = ?`,
		editedResult, speakerNames, preview, at, workspaceID, id, TranscriptCompleted))
}

// TranscriptCursor is where a page of ListTranscripts ends: the last row's creation time and id.
type TranscriptCursor struct {
	CreatedAt int64
	ID        string
}

// String is the cursor as the API passes it.
func (c TranscriptCursor) String() string { return fmt.Sprintf("%d_%s", c.CreatedAt, c.ID) }

// ParseTranscriptCursor reads a cursor made by String.
func ParseTranscriptCursor(s string) (TranscriptCursor, bool) {
	var c TranscriptCursor
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			_, err := fmt.Sscanf(s[:i], "%d", &c.CreatedAt)
			c.ID = s[i+1:]
			return c, err == nil && c.ID != "" && c.CreatedAt >= 0
		}
	}
	return c, false
}

// ListTranscripts returns a page of the workspace's transcriptions, newest first (without their
// Result and EditedResult), after the cursor when one is given, and whether more follow.
func (db *DB) ListTranscripts(ctx context.Context, workspaceID string, after *TranscriptCursor, limit int) ([]Transcript, bool, error) {
	q := `SELECT ` + transcriptSummaryCols + ` FROM transcripts WHERE workspace_id = ?`
	args := []any{workspaceID}
	if after != nil {
		q += ` AND (created_at_unix < ? OR (created_at_unix = ? AND id < ?))`
		args = append(args, after.CreatedAt, after.CreatedAt, after.ID)
	}
	q += ` ORDER BY created_at_unix DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []Transcript
	for rows.Next() {
		t, err := scanTranscript(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, *t)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
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
