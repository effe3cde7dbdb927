package store

import (
	"context"
	"time"
)

// RenameWorkspace sets a workspace's name.
func (db *DB) RenameWorkspace(ctx context.Context, workspaceID, name string) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET name = ? WHERE id = ?`, name, workspaceID))
}

// CreateWorkspace makes a new workspace on tier owned by the user, with them as its admin, unless
// they already own maxOwned workspaces (ErrLimitReached). The owner's row is locked first
// so two concurrent creations cannot both pass the count.
func (db *DB) CreateWorkspace(ctx context.Context, ownerID, name, tier string, maxOwned int, now time.Time) (*Workspace, error) {
	w := &Workspace{ID: NewID(), Name: name, OwnerID: ownerID, Tier: tier, PeriodStartUnix: now.Unix(), NextResetUnix: now.AddDate(0, 1, 0).Unix(), CreatedAt: now.Unix()}
	err := db.InTx(ctx, func(tx *Tx) error {
		// A no-op update takes the user's row lock in PostgreSQL; SQLite has one writer anyway.
		if err := affected(tx.exec(ctx, `UPDATE users SET id = id WHERE id = ?`, ownerID)); err != nil {
			return err
		}
		var owned int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM workspaces WHERE owner_id = ?`, ownerID).Scan(&owned); err != nil {
			return err
		}
		if owned >= maxOwned {
			return ErrLimitReached
		}
		if _, err := tx.exec(ctx, `INSERT INTO workspaces (id, name, owner_id, tier, character_count, period_start_unix, next_reset_unix, created_at_unix) VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
			w.ID, w.Name, w.OwnerID, w.Tier, w.PeriodStartUnix, w.NextResetUnix, w.CreatedAt); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES (?, ?, 'admin')`, w.ID, ownerID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}
