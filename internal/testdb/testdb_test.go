package testdb_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestSQLiteIsMigrated(t *testing.T) {
	db := testdb.SQLite(t)
	if db.Dialect != store.SQLite {
		t.Fatalf("dialect %q", db.Dialect)
	}
	if _, err := db.ListMail(context.Background(), 1); err != nil {
		t.Fatalf("not migrated: %v", err)
	}
}

func TestPostgresDatabaseIsFreshAndDropped(t *testing.T) {
	var names []string
	for range 2 {
		t.Run("use", func(t *testing.T) {
			db, u := testdb.PostgresWithURL(t)
			if _, err := db.ListMail(context.Background(), 1); err != nil {
				t.Fatalf("not migrated: %v", err)
			}
			pu, _ := url.Parse(u)
			names = append(names, strings.TrimPrefix(pu.Path, "/"))
		})
	}
	if len(names) < 2 {
		t.Skip("PostgreSQL unavailable")
	}
	if names[0] == names[1] || !strings.HasPrefix(names[0], "timbre_t_") {
		t.Fatalf("database names %v", names)
	}
	conn, err := pgx.Connect(context.Background(), testdb.PostgresURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*) FROM pg_database WHERE datname = ANY($1)`, names).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d test databases left behind", n)
	}
}
