package store

import "context"

// VoicePreview is one preview of a voice design or remix: the parametric voice a description
// produced (Params, JSON) and the text it reads. Its audio is synthesised again when streamed.
type VoicePreview struct {
	ID, WorkspaceID, UserID string
	SourceVoiceID           string // the remixed voice, empty for a design
	Description             string
	Params                  string // JSON voicedesign.Params
	Text, Language          string
	CreatedAt, ExpiresAt    int64
}

const voicePreviewCols = `id, workspace_id, user_id, source_voice_id, description, params, text, language, created_at_unix, expires_at_unix`

// InsertVoicePreview adds a preview (in the transaction that charges for it).
func (tx *Tx) InsertVoicePreview(ctx context.Context, p *VoicePreview) error {
	_, err := tx.exec(ctx, `INSERT INTO voice_previews (`+voicePreviewCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.WorkspaceID, p.UserID, p.SourceVoiceID, p.Description, p.Params, p.Text, p.Language, p.CreatedAt, p.ExpiresAt)
	return err
}

// VoicePreview returns a preview of the workspace that has not expired by nowUnix (ErrNotFound otherwise).
func (db *DB) VoicePreview(ctx context.Context, workspaceID, id string, nowUnix int64) (*VoicePreview, error) {
	p := &VoicePreview{}
	err := db.queryRow(ctx, `SELECT `+voicePreviewCols+` FROM voice_previews WHERE workspace_id = ? AND id = ? AND expires_at_unix > ?`,
		workspaceID, id, nowUnix).Scan(&p.ID, &p.WorkspaceID, &p.UserID, &p.SourceVoiceID, &p.Description, &p.Params, &p.Text, &p.Language, &p.CreatedAt, &p.ExpiresAt)
	if err != nil {
		return nil, notFound(err)
	}
	return p, nil
}
