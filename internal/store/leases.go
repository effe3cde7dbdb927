package store

import (
	"context"
	"time"
)

// Concurrency leases: the per-plan limit on simultaneous speech requests, held in the database so
// it holds across every server process. Expiry times come from the database's clock, not the
// process's, so servers with skewed clocks neither cut each other's leases short nor keep dead
// ones alive.

// dbNowMs is the database's current time in Unix milliseconds.
func (db *DB) dbNowMs() string {
	if db.Dialect == Postgres {
		return `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`
	}
	return `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`
}

// leaseTx runs fn in a write transaction that, on PostgreSQL, does not wait for its commit to
// reach the disk: leases are short-lived (the table is UNLOGGED there too), and a commit lost to a
// database crash costs at most one extra request or a slot held until its lease lapses, while
// waiting for the flush cost milliseconds on every speech request.
func (db *DB) leaseTx(ctx context.Context, fn func(tx *Tx) error) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if db.Dialect == Postgres {
			if _, err := tx.exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// leaseLockClass is the first key of the PostgreSQL advisory lock that serializes a workspace's
// lease acquisitions (the two-key form keeps clear of single-key locks such as River's).
const leaseLockClass = 7301

// AcquireLease takes one of a workspace's limit leases for holder, valid for ttl unless renewed.
// In one transaction it drops the workspace's lapsed leases, counts the live ones and inserts the
// new one only below the limit. It returns the lease id ("" when all limit leases are taken) and
// how many the workspace holds now (this one included).
func (db *DB) AcquireLease(ctx context.Context, workspaceID, holder string, limit int, ttl time.Duration) (id string, held int, err error) {
	now := db.dbNowMs()
	err = db.leaseTx(ctx, func(tx *Tx) error {
		if db.Dialect == Postgres {
			// Two acquisitions counting at once could both see room: queue them per workspace.
			// SQLite needs nothing: its transactions take the one write lock up front.
			if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, leaseLockClass, workspaceID); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `DELETE FROM concurrency_leases WHERE workspace_id = ? AND expires_at_ms <= `+now, workspaceID); err != nil {
			return err
		}
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM concurrency_leases WHERE workspace_id = ?`, workspaceID).Scan(&held); err != nil {
			return err
		}
		if held >= limit {
			return nil
		}
		id = NewID()
		held++
		_, err := tx.exec(ctx, `INSERT INTO concurrency_leases (id, workspace_id, holder, expires_at_ms) VALUES (?, ?, ?, `+now+` + ?)`,
			id, workspaceID, holder, ttl.Milliseconds())
		return err
	})
	if err != nil {
		return "", 0, err
	}
	return id, held, nil
}

// RenewLease pushes a lease's expiry to ttl from now; ErrNotFound when it is gone (it lapsed and
// another acquisition dropped it).
func (db *DB) RenewLease(ctx context.Context, id string, ttl time.Duration) error {
	return db.leaseTx(ctx, func(tx *Tx) error {
		return affected(tx.exec(ctx, `UPDATE concurrency_leases SET expires_at_ms = `+db.dbNowMs()+` + ? WHERE id = ?`, ttl.Milliseconds(), id))
	})
}

// ReleaseLease gives a lease back.
func (db *DB) ReleaseLease(ctx context.Context, id string) error {
	return db.leaseTx(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM concurrency_leases WHERE id = ?`, id)
		return err
	})
}

// LiveLeases counts a workspace's leases that have not lapsed.
func (db *DB) LiveLeases(ctx context.Context, workspaceID string) (int, error) {
	var n int
	err := db.queryRow(ctx, `SELECT COUNT(*) FROM concurrency_leases WHERE workspace_id = ? AND expires_at_ms > `+db.dbNowMs(), workspaceID).Scan(&n)
	return n, err
}
