package store

import (
	"context"
	"database/sql"
	"strings"
)

// ResourcePronunciationDictionary is the share type of pronunciation dictionaries.
const ResourcePronunciationDictionary = "pronunciation_dictionary"

// PronunciationDictionary is a dictionary's metadata and its latest version.
type PronunciationDictionary struct {
	ID, WorkspaceID, CreatedBy string
	Name, Description          string
	LatestVersionID            string
	LatestRulesNum             int
	CreatedAt                  int64
	ArchivedAt                 *int64
}

// PronunciationVersion is one version of a dictionary's rules (Rules: JSON list).
type PronunciationVersion struct {
	ID, DictionaryID, WorkspaceID string
	Rules                         string
	RulesNum                      int
	CreatedAt                     int64
}

// DictionaryViewer is who is looking: workspace admins see every dictionary of the workspace,
// others those they created or that are shared with them (or the whole workspace).
type DictionaryViewer struct {
	UserID string
	Admin  bool
}

const dictCols = `d.id, d.workspace_id, d.created_by, d.name, d.description, d.latest_version_id, d.latest_rules_num, d.created_at_unix, d.archived_at_unix`

// dictVisible is the SQL condition "viewer may see d": admin flag, creator, or a grant that
// reaches them. Args: admin, user, user, user.
const dictVisible = `(? OR d.created_by = ? OR EXISTS (SELECT 1 FROM resource_shares s WHERE s.workspace_id = d.workspace_id
	AND s.resource_type = '` + ResourcePronunciationDictionary + `' AND s.resource_id = d.id AND ` + visibleShare + `))`

func scanDict(r rowScanner) (*PronunciationDictionary, error) {
	d := &PronunciationDictionary{}
	var archived sql.NullInt64
	if err := r.Scan(&d.ID, &d.WorkspaceID, &d.CreatedBy, &d.Name, &d.Description, &d.LatestVersionID, &d.LatestRulesNum, &d.CreatedAt, &archived); err != nil {
		return nil, notFound(err)
	}
	if archived.Valid {
		d.ArchivedAt = &archived.Int64
	}
	return d, nil
}

// InsertPronunciationDictionary adds a dictionary with its first version.
func (tx *Tx) InsertPronunciationDictionary(ctx context.Context, d *PronunciationDictionary, v *PronunciationVersion) error {
	if err := tx.insertPronunciationVersion(ctx, v); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `INSERT INTO pronunciation_dictionaries (id, workspace_id, created_by, name, description, latest_version_id,
		latest_rules_num, created_at_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.WorkspaceID, d.CreatedBy, d.Name, d.Description, v.ID, v.RulesNum, d.CreatedAt)
	return err
}

func (tx *Tx) insertPronunciationVersion(ctx context.Context, v *PronunciationVersion) error {
	_, err := tx.exec(ctx, `INSERT INTO pronunciation_dictionary_versions (id, dictionary_id, workspace_id, rules, rules_num, created_at_unix)
		VALUES (?, ?, ?, ?, ?, ?)`, v.ID, v.DictionaryID, v.WorkspaceID, v.Rules, v.RulesNum, v.CreatedAt)
	return err
}

// AddPronunciationVersion makes v the dictionary's latest version, provided the latest is still
// prevVersionID (a concurrent change makes it ErrNotFound: the caller retries on fresh rules).
func (tx *Tx) AddPronunciationVersion(ctx context.Context, v *PronunciationVersion, prevVersionID string) error {
	if err := tx.insertPronunciationVersion(ctx, v); err != nil {
		return err
	}
	res, err := tx.exec(ctx, `UPDATE pronunciation_dictionaries SET latest_version_id = ?, latest_rules_num = ?
		WHERE workspace_id = ? AND id = ? AND latest_version_id = ?`, v.ID, v.RulesNum, v.WorkspaceID, v.DictionaryID, prevVersionID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// PronunciationDictionary returns a dictionary of the workspace the viewer may see.
func (db *DB) PronunciationDictionary(ctx context.Context, workspaceID, id string, who DictionaryViewer) (*PronunciationDictionary, error) {
	return scanDict(db.queryRow(ctx, `SELECT `+dictCols+` FROM pronunciation_dictionaries d WHERE d.workspace_id = ? AND d.id = ? AND `+dictVisible,
		workspaceID, id, who.Admin, who.UserID, who.UserID, who.UserID))
}

// PronunciationVersion returns a version of a dictionary of the workspace.
func (db *DB) PronunciationVersion(ctx context.Context, workspaceID, dictionaryID, versionID string) (*PronunciationVersion, error) {
	v := &PronunciationVersion{}
	err := db.queryRow(ctx, `SELECT id, dictionary_id, workspace_id, rules, rules_num, created_at_unix FROM pronunciation_dictionary_versions
		WHERE workspace_id = ? AND dictionary_id = ? AND id = ?`, workspaceID, dictionaryID, versionID).
		Scan(&v.ID, &v.DictionaryID, &v.WorkspaceID, &v.Rules, &v.RulesNum, &v.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return v, nil
}

// UpdatePronunciationDictionary renames and/or archives (archivedAt set) or unarchives
// (unarchive) a dictionary of the workspace.
func (db *DB) UpdatePronunciationDictionary(ctx context.Context, workspaceID, id string, name *string, archivedAt *int64, unarchive bool) error {
	sets, args := []string{}, []any{}
	if name != nil {
		sets, args = append(sets, "name = ?"), append(args, *name)
	}
	if archivedAt != nil {
		// Archiving again keeps the first archive time.
		sets, args = append(sets, "archived_at_unix = COALESCE(archived_at_unix, ?)"), append(args, *archivedAt)
	} else if unarchive {
		sets = append(sets, "archived_at_unix = NULL")
	}
	if len(sets) == 0 {
		return nil
	}
	args = append(args, workspaceID, id)
	return affected(db.exec(ctx, `UPDATE pronunciation_dictionaries SET `+strings.Join(sets, ", ")+` WHERE workspace_id = ? AND id = ?`, args...))
}

// DictionaryPage selects a page of dictionaries: by creation time or name, ascending or not,
// after the (key, id) of the last row of the page before.
type DictionaryPage struct {
	ByName, Ascending bool
	IncludeArchived   bool
	AfterKey          *string // creation time (decimal) or name of the cursor row
	AfterID           string
	Limit             int
}

// ListPronunciationDictionaries lists the viewer's dictionaries of the workspace (Limit+1 rows
// at most, so the caller can tell whether there are more).
func (db *DB) ListPronunciationDictionaries(ctx context.Context, workspaceID string, who DictionaryViewer, p DictionaryPage) ([]PronunciationDictionary, error) {
	col := "d.created_at_unix"
	if p.ByName {
		col = "d.name"
	}
	dir, cmp := " DESC", "<"
	if p.Ascending {
		dir, cmp = " ASC", ">"
	}
	q := `SELECT ` + dictCols + ` FROM pronunciation_dictionaries d WHERE d.workspace_id = ? AND ` + dictVisible
	args := []any{workspaceID, who.Admin, who.UserID, who.UserID, who.UserID}
	if !p.IncludeArchived {
		q += ` AND d.archived_at_unix IS NULL`
	}
	if p.AfterKey != nil {
		q += ` AND (` + col + ` ` + cmp + ` ? OR (` + col + ` = ? AND d.id ` + cmp + ` ?))`
		var key any = *p.AfterKey
		if !p.ByName {
			var n int64
			for _, c := range *p.AfterKey {
				n = n*10 + int64(c-'0')
			}
			key = n
		}
		args = append(args, key, key, p.AfterID)
	}
	q += ` ORDER BY ` + col + dir + `, d.id` + dir + ` LIMIT ?`
	args = append(args, p.Limit+1)
	return collect(scanDict)(db.query(ctx, q, args...))
}
