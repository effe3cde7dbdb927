// Package testdb gives tests in any package a real, migrated, throw-away database: a SQLite file
// in a temporary directory, or a fresh PostgreSQL database created for the test and dropped after.
//
// PostgreSQL is reached through TIMBRE_TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); that URL names an administrative
// database from which CREATE DATABASE / DROP DATABASE are issued. When PostgreSQL cannot be reached
// the test is skipped, unless TIMBRE_REQUIRE_POSTGRES=1 (CI), in which case it fails.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"timbre/internal/store"
)

// DefaultPostgresURL is used when TIMBRE_TEST_POSTGRES_URL is unset.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// PostgresURL returns the administrative PostgreSQL URL tests use.
func PostgresURL() string {
	if u := os.Getenv("TIMBRE_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// RequirePostgres says whether an unreachable PostgreSQL must fail tests instead of skipping them.
func RequirePostgres() bool { return os.Getenv("TIMBRE_REQUIRE_POSTGRES") == "1" }

// SQLite returns a migrated store on a new SQLite file in a temporary directory, closed at cleanup.
func SQLite(tb testing.TB) *store.DB {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "timbre.db")
	db, err := store.Open(ctx, "", path)
	if err != nil {
		tb.Fatalf("testdb: open sqlite: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("testdb: migrate sqlite: %v", err)
	}
	return db
}

// Postgres returns a migrated store on a freshly created PostgreSQL database (timbre_t_<random>),
// dropped at cleanup. It skips the test when PostgreSQL is unreachable (fails under
// TIMBRE_REQUIRE_POSTGRES=1).
func Postgres(tb testing.TB) *store.DB {
	tb.Helper()
	db, _ := PostgresWithURL(tb)
	return db
}

// PostgresWithURL is Postgres that also returns the URL of the test database, for code that needs
// its own connections to it.
func PostgresWithURL(tb testing.TB) (*store.DB, string) {
	tb.Helper()
	ctx := context.Background()
	adminURL := PostgresURL()

	admin, err := connectAdmin(ctx, adminURL)
	if err != nil {
		msg := fmt.Sprintf("testdb: PostgreSQL unreachable at %s (set TIMBRE_TEST_POSTGRES_URL): %v", redact(adminURL), err)
		if RequirePostgres() {
			tb.Fatal(msg + " — TIMBRE_REQUIRE_POSTGRES=1, so this is a failure")
		}
		tb.Skip(msg)
	}
	name := "timbre_t_" + randomHex(8)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		_ = admin.Close(ctx)
		tb.Fatalf("testdb: create database %s: %v", name, err)
	}
	_ = admin.Close(ctx)

	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		tb.Fatalf("testdb: %v", err)
	}
	// Registered before the store's own cleanup so that it runs after it (cleanups are LIFO).
	tb.Cleanup(func() {
		if err := dropDatabase(adminURL, name); err != nil {
			tb.Errorf("testdb: drop database %s: %v", name, err)
		}
	})
	db, err := store.Open(ctx, dbURL, "")
	if err != nil {
		tb.Fatalf("testdb: open %s: %v", name, err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("testdb: migrate %s: %v", name, err)
	}
	return db, dbURL
}

// Each runs fn as a subtest per dialect ("sqlite", "postgres"), each with its own fresh database.
// The postgres subtest skips (or fails, under TIMBRE_REQUIRE_POSTGRES=1) without PostgreSQL.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run(string(store.SQLite), func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run(string(store.Postgres), func(t *testing.T) { fn(t, Postgres(t)) })
}

// Open returns a fresh migrated database of the given dialect.
func Open(tb testing.TB, d store.Dialect) *store.DB {
	tb.Helper()
	if d == store.Postgres {
		return Postgres(tb)
	}
	return SQLite(tb)
}

// Dialects lists the dialects Each runs, in order.
func Dialects() []store.Dialect { return []store.Dialect{store.SQLite, store.Postgres} }

func connectAdmin(ctx context.Context, adminURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(adminURL)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 5*time.Second {
		cfg.ConnectTimeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := conn.Ping(ctx); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

func dropDatabase(adminURL, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := connectAdmin(ctx, adminURL)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	// WITH (FORCE) (PostgreSQL 13+) terminates remaining sessions itself; older servers get an
	// explicit terminate first.
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err == nil {
		return nil
	}
	_, _ = admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name)
	_, err = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
	return err
}

func withDatabase(rawURL, name string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("parse TIMBRE_TEST_POSTGRES_URL: %w", err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable url)"
	}
	return u.Redacted()
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
