package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestRebind(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT '?' FROM t WHERE b = ?`, `SELECT '?' FROM t WHERE b = $1`},
		{`SELECT 'it''s ?', ? FROM t`, `SELECT 'it''s ?', $1 FROM t`},
		{`SELECT "odd?col" FROM t WHERE x = ?`, `SELECT "odd?col" FROM t WHERE x = $1`},
		{"SELECT a -- why? because\nFROM t WHERE b = ?", "SELECT a -- why? because\nFROM t WHERE b = $1"},
		{`SELECT /* ? */ a FROM t WHERE b IN (?, ?, ?)`, `SELECT /* ? */ a FROM t WHERE b IN ($1, $2, $3)`},
		{`SELECT a FROM t WHERE b = ? -- trailing?`, `SELECT a FROM t WHERE b = $1 -- trailing?`},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
		{`SELECT 1`, `SELECT 1`},
	}
	for _, c := range cases {
		if got := store.Postgres.Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if got := store.SQLite.Rebind(c.in); got != c.in {
			t.Errorf("SQLite Rebind changed %q to %q", c.in, got)
		}
	}
}

// TestRebindLiteralsRun runs a query with '?' literals beside real placeholders on both databases.
func TestRebindLiteralsRun(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		rows := rawRows(t, db, `SELECT '?' AS q, 'a''?' AS r, CAST(? AS TEXT) AS n /* ? */`, "x")
		if len(rows) != 1 || rows[0]["q"] != "?" || rows[0]["r"] != "a'?" || rows[0]["n"] != "x" {
			t.Fatalf("rows = %v", rows)
		}
	})
}

// TestConstraintErrorsByCode: the unique check reads the drivers' codes, so a primary-key clash
// counts, a foreign-key failure does not, and an error that merely says the words does not.
func TestConstraintErrorsByCode(t *testing.T) {
	if store.IsUniqueViolation(errors.New("UNIQUE constraint failed: users.email")) ||
		store.IsUniqueViolation(errors.New(`duplicate key value violates unique constraint (SQLSTATE 23505)`)) {
		t.Fatal("an error that is not the driver's counted as a unique violation")
	}
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, _ := newUser(t, db, "codes@example.com")
		// The same primary key twice.
		_, err := db.CompleteOnboardingItem(ctx, u.ID, "first", t0)
		must(t, "complete", err)
		_, err = rawExecErr(db, `INSERT INTO onboarding_checklist_items (user_id, item_id, completed_at_unix) VALUES (?, ?, ?)`, u.ID, "first", t0.Unix())
		if !store.IsUniqueViolation(err) {
			t.Fatalf("primary key clash: %v, want a unique violation", err)
		}
		if !store.IsUniqueViolation(fmt.Errorf("wrapped: %w", err)) {
			t.Fatal("a wrapped unique violation was missed")
		}
		// A unique index (users' email).
		_, _, err = db.CreateUserWithWorkspace(ctx, "CODES@example.com", "h", false, "free", t0)
		if !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate email: %v, want a unique violation", err)
		}
		// A foreign key is something else: the store maps it to ErrNotFound here.
		_, err = rawExecErr(db, `INSERT INTO onboarding_checklist_items (user_id, item_id, completed_at_unix) VALUES (?, ?, ?)`, "nobody", "x", t0.Unix())
		if err == nil || store.IsUniqueViolation(err) {
			t.Fatalf("foreign key failure: %v, want an error that is not a unique violation", err)
		}
		if _, err := db.CompleteOnboardingItem(ctx, "nobody", "x", t0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("CompleteOnboardingItem(unknown user) = %v, want ErrNotFound", err)
		}
	})
}

// rawExecErr runs SQL straight on the database and returns its error (the driver's own type).
func rawExecErr(db *store.DB, q string, args ...any) (int64, error) {
	ctx := context.Background()
	if db.Dialect == store.Postgres {
		tag, err := db.PG.Exec(ctx, rebind(db, q), args...)
		return tag.RowsAffected(), err
	}
	res, err := db.SQLiteDB.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
