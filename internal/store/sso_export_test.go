package store

import (
	"context"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// MigrateTo moves the schema up or down to version (tests of a migration on existing rows).
func (db *DB) MigrateTo(ctx context.Context, version int64) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(db.Dialect))
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	if db.Dialect == Postgres {
		dialect = goose.DialectPostgres
	}
	p, err := goose.NewProvider(dialect, db.write, sub)
	if err != nil {
		return err
	}
	cur, err := p.GetDBVersion(ctx)
	if err != nil {
		return err
	}
	if cur > version {
		_, err = p.DownTo(ctx, version)
	} else {
		_, err = p.UpTo(ctx, version)
	}
	return err
}
