package store

import (
	"context"
	"errors"
	"time"
)

// Operator commands (timbre admin): plan changes and the user list.

// SetPlan changes a workspace's tier and billing period (monthly_period or annual_period).
func (db *DB) SetPlan(ctx context.Context, workspaceID, tier, period string) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET tier = ?, billing_period = ? WHERE id = ?`, tier, period, workspaceID))
}

// UserSummary is a row of timbre admin list-users.
type UserSummary struct {
	Email, FirstName string
	Workspaces       int    // workspaces the user is a member of
	Workspace        string // the default workspace's name
	Tier, Period     string // the default workspace's plan
	CreatedAt        time.Time
}

// ListUsers lists every user (service accounts left out), oldest first.
func (db *DB) ListUsers(ctx context.Context) ([]UserSummary, error) {
	return collect(func(r rowScanner) (*UserSummary, error) {
		var u UserSummary
		var created int64
		err := r.Scan(&u.Email, &u.FirstName, &u.Workspaces, &u.Workspace, &u.Tier, &u.Period, &created)
		u.CreatedAt = time.Unix(created, 0).UTC()
		return &u, err
	})(db.query(ctx, `SELECT u.email, u.first_name, (SELECT COUNT(*) FROM workspace_members m WHERE m.user_id = u.id),
		w.name, w.tier, w.billing_period, u.created_at_unix
		FROM users u JOIN workspaces w ON w.id = u.workspace_id
		WHERE u.is_service_account = ? ORDER BY u.created_at_unix, u.email`, false))
}

// SnapshotSQLite writes a consistent copy of a SQLite database to path (which must not exist).
// VACUUM INTO reads one snapshot on a read connection, so writers go on meanwhile (WAL).
func (db *DB) SnapshotSQLite(ctx context.Context, path string) error {
	if db.Dialect != SQLite {
		return errors.New("store: SnapshotSQLite needs a SQLite database")
	}
	_, err := db.read.ExecContext(ctx, `VACUUM INTO ?`, path)
	return err
}
