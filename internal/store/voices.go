package store

import (
	"context"
	"errors"
	"strings"
)

// Voice is a voice in the catalogue: premade voices have an empty WorkspaceID and are visible to
// every workspace; others belong to one workspace.
type Voice struct {
	ID          string
	WorkspaceID string
	Name        string
	Category    string
	Description string
	Labels      string // JSON object
	Engine      string
	EngineVoice string
	Language    string
	Prosody     string // JSON: the voice's base prosody
	PreviewKey  string // blob key of the preview audio, empty until generated
	SortOrder   int
	CreatedAt   int64
	Voiceprint  string // JSON voiceprint.Print of a cloned or designed voice, empty for premade ones
	CreatedBy   string // user id of the member who made a workspace voice
	PVC         string // JSON cloning state of a professional voice (voice.PVCState), empty for others
	// SafetyControl is the operator's control on the voice (voice_safety; read only, "" = NONE).
	SafetyControl string
}

const voiceCols = `id, workspace_id, name, category, description, labels, engine, engine_voice, language, prosody, preview_key, sort_order, created_at_unix, voiceprint, created_by, pvc`

// voiceSelect is what reads of a voice select: its columns and its safety control.
const voiceSelect = voiceCols + `, COALESCE((SELECT control FROM voice_safety WHERE voice_safety.voice_id = voices.id), '')`

func scanVoice(row interface{ Scan(...any) error }) (*Voice, error) {
	v := &Voice{}
	if err := row.Scan(&v.ID, &v.WorkspaceID, &v.Name, &v.Category, &v.Description, &v.Labels, &v.Engine, &v.EngineVoice, &v.Language, &v.Prosody, &v.PreviewKey, &v.SortOrder, &v.CreatedAt, &v.Voiceprint, &v.CreatedBy, &v.PVC, &v.SafetyControl); err != nil {
		return nil, notFound(err)
	}
	return v, nil
}

// UpsertPremadeVoice inserts or refreshes a premade voice, keeping its generated preview.
func (db *DB) UpsertPremadeVoice(ctx context.Context, v Voice) error {
	_, err := db.exec(ctx, `INSERT INTO voices (`+voiceCols+`) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, '', '', '')
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, category = excluded.category, description = excluded.description,
		labels = excluded.labels, engine = excluded.engine, engine_voice = excluded.engine_voice, language = excluded.language,
		prosody = excluded.prosody, sort_order = excluded.sort_order,
		preview_key = CASE WHEN voices.engine_voice = excluded.engine_voice AND voices.prosody = excluded.prosody THEN voices.preview_key ELSE '' END`,
		v.ID, v.Name, v.Category, v.Description, v.Labels, v.Engine, v.EngineVoice, v.Language, v.Prosody, v.SortOrder, v.CreatedAt)
	return err
}

// DeletePremadeVoicesExcept removes premade voices no longer offered by any engine.
func (db *DB) DeletePremadeVoicesExcept(ctx context.Context, keep []string) error {
	if len(keep) == 0 {
		_, err := db.exec(ctx, `DELETE FROM voices WHERE workspace_id = ''`)
		return err
	}
	args := make([]any, len(keep))
	for i, id := range keep {
		args[i] = id
	}
	_, err := db.exec(ctx, `DELETE FROM voices WHERE workspace_id = '' AND id NOT IN (`+placeholders(len(keep))+`)`, args...)
	return err
}

// SetVoicePreview records the blob key of a voice's generated preview.
func (db *DB) SetVoicePreview(ctx context.Context, voiceID, key string) error {
	return affected(db.exec(ctx, `UPDATE voices SET preview_key = ? WHERE id = ?`, key, voiceID))
}

// Voice finds a voice visible to the workspace (its own or premade).
func (db *DB) Voice(ctx context.Context, workspaceID, id string) (*Voice, error) {
	return scanVoice(db.queryRow(ctx, `SELECT `+voiceSelect+` FROM voices WHERE id = ? AND (workspace_id = ? OR workspace_id = '')`, id, workspaceID))
}

// VoiceFilter narrows ListVoices.
type VoiceFilter struct {
	Search    string
	Category  string // premade, cloned, generated, professional
	VoiceType string // personal, community, default, workspace, non-default
	Sort      string // name or created_at_unix
	Desc      bool
	Offset    int
	Limit     int // 0 = all
	IDs       []string
	// CollectionID keeps the voices of one of the workspace's collections.
	CollectionID string
}

// ListVoices lists voices visible to the workspace and the total that match.
func (db *DB) ListVoices(ctx context.Context, workspaceID string, f VoiceFilter) ([]Voice, int, error) {
	where := []string{"(workspace_id = ? OR workspace_id = '')"}
	args := []any{workspaceID}
	if f.Search != "" {
		pat := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
		where = append(where, "(LOWER(name) LIKE ? ESCAPE '\\' OR LOWER(description) LIKE ? ESCAPE '\\' OR LOWER(labels) LIKE ? ESCAPE '\\')")
		args = append(args, pat, pat, pat)
	}
	if f.Category != "" {
		where, args = append(where, "category = ?"), append(args, f.Category)
	}
	switch f.VoiceType {
	case "default":
		where = append(where, "workspace_id = ''")
	case "personal", "workspace", "non-default", "saved":
		where = append(where, "workspace_id <> ''")
	case "community": // copies of library voices
		where = append(where, "id IN (SELECT voice_id FROM voice_shares WHERE workspace_id = ? AND status = 'copied')")
		args = append(args, workspaceID)
	}
	if f.CollectionID != "" {
		where = append(where, "id IN (SELECT voice_id FROM voice_collection_voices WHERE workspace_id = ? AND collection_id = ?)")
		args = append(args, workspaceID, f.CollectionID)
	}
	if len(f.IDs) > 0 {
		where = append(where, "id IN ("+placeholders(len(f.IDs))+")")
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM voices WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := "sort_order, name, id"
	if f.Sort == "name" {
		order = "LOWER(name), id"
	} else if f.Sort == "created_at_unix" {
		order = "created_at_unix, id"
	}
	if f.Desc {
		order = strings.ReplaceAll(order, ",", " DESC,") + " DESC"
	}
	q := `SELECT ` + voiceSelect + ` FROM voices WHERE ` + cond + ` ORDER BY ` + order
	if f.Limit > 0 {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, f.Offset)
	}
	rows, err := db.query(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Voice
	for rows.Next() {
		v, err := scanVoice(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, *v)
	}
	return out, total, rows.Err()
}

// VoiceSettings returns the workspace's stored settings JSON for a voice, or ErrNotFound.
func (db *DB) VoiceSettings(ctx context.Context, workspaceID, voiceID string) (string, error) {
	var s string
	err := db.queryRow(ctx, `SELECT settings FROM voice_settings WHERE workspace_id = ? AND voice_id = ?`, workspaceID, voiceID).Scan(&s)
	return s, notFound(err)
}

// SetVoiceSettings stores the workspace's settings JSON for a voice.
func (db *DB) SetVoiceSettings(ctx context.Context, workspaceID, voiceID, settings string) error {
	_, err := db.exec(ctx, `INSERT INTO voice_settings (workspace_id, voice_id, settings) VALUES (?, ?, ?)
		ON CONFLICT (workspace_id, voice_id) DO UPDATE SET settings = excluded.settings`, workspaceID, voiceID, settings)
	return err
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// CreateVoice inserts a workspace voice (cloned, generated, professional) in the transaction, so a
// voice and its samples land together.
func (tx *Tx) CreateVoice(ctx context.Context, v Voice) error {
	if v.WorkspaceID == "" {
		return errors.New("store: a workspace voice needs a workspace")
	}
	_, err := tx.exec(ctx, `INSERT INTO voices (`+voiceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.WorkspaceID, v.Name, v.Category, v.Description, v.Labels, v.Engine, v.EngineVoice, v.Language, v.Prosody, v.PreviewKey, v.SortOrder, v.CreatedAt, v.Voiceprint, v.CreatedBy, v.PVC)
	return err
}

// UpdateVoice rewrites a workspace voice's editable fields and how it speaks (its preview is made
// again when the way it speaks changed).
func (tx *Tx) UpdateVoice(ctx context.Context, v Voice) error {
	return affected(tx.exec(ctx, `UPDATE voices SET name = ?, description = ?, labels = ?, engine = ?, engine_voice = ?, language = ?,
		prosody = ?, voiceprint = ?, preview_key = CASE WHEN engine_voice = ? AND prosody = ? THEN preview_key ELSE '' END
		WHERE id = ? AND workspace_id = ? AND workspace_id <> ''`,
		v.Name, v.Description, v.Labels, v.Engine, v.EngineVoice, v.Language, v.Prosody, v.Voiceprint, v.EngineVoice, v.Prosody, v.ID, v.WorkspaceID))
}

// DeleteVoice removes a workspace voice (premade voices cannot be deleted) and its settings.
func (tx *Tx) DeleteVoice(ctx context.Context, workspaceID, id string) error {
	if err := affected(tx.exec(ctx, `DELETE FROM voices WHERE id = ? AND workspace_id = ? AND workspace_id <> ''`, id, workspaceID)); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `DELETE FROM voice_collection_voices WHERE workspace_id = ? AND voice_id = ?`, workspaceID, id); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `DELETE FROM voice_settings WHERE workspace_id = ? AND voice_id = ?`, workspaceID, id)
	return err
}

// CountVoices counts a workspace's own voices of the given categories (all when none given), in
// the transaction that adds one, so a plan's voice limit holds under concurrent adds.
func (tx *Tx) CountVoices(ctx context.Context, workspaceID string, categories ...string) (int, error) {
	q := `SELECT COUNT(*) FROM voices WHERE workspace_id = ? AND workspace_id <> ''`
	args := []any{workspaceID}
	if len(categories) > 0 {
		q += ` AND category IN (` + placeholders(len(categories)) + `)`
		for _, c := range categories {
			args = append(args, c)
		}
	}
	var n int
	err := tx.queryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// VoicePrints lists a workspace's own voices that carry a voiceprint (made from recordings or a
// description): the speaker library speech to text matches diarized speakers against.
func (db *DB) VoicePrints(ctx context.Context, workspaceID string) ([]Voice, error) {
	return collect(scanVoice)(db.query(ctx, `SELECT `+voiceSelect+` FROM voices WHERE workspace_id = ? AND workspace_id <> '' AND voiceprint <> '' ORDER BY created_at_unix, id`, workspaceID))
}
