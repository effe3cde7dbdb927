package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"timbre/internal/app"
	"timbre/internal/backup"
	"timbre/internal/config"
)

// blobDir is the local directory the audio lives in, or "" when it is in an object store.
func blobDir(cfg *config.Config) string {
	if cfg.BlobURL == "" {
		return filepath.Join(cfg.DataDir, "blobs")
	}
	if u, err := url.Parse(cfg.BlobURL); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return ""
}

func backupCmd(args []string, stdout, stderr io.Writer) error {
	var out string
	cfg, err := parse("backup", config.Data, args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "the archive to write (.tar.gz; required)")
	})
	if err != nil {
		return err
	}
	if out == "" {
		return errors.New("--out is required")
	}
	if cfg.IsPostgres() {
		return errors.New("timbre backup copies the embedded SQLite database; for PostgreSQL use pg_dump (and your object store's tools for the audio)")
	}
	ctx := context.Background()
	db, err := app.Open(ctx, cfg, logger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	dir := blobDir(cfg)
	if dir == "" {
		fmt.Fprintf(stderr, "the audio lives in %s: back it up with that store's tools; this archive holds the database\n", strings.SplitN(cfg.BlobURL, "?", 2)[0])
	}
	// Written beside the target and renamed at the end: a failed backup leaves no half archive.
	tmp := out + ".partial"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	sum, err := backup.Write(ctx, db, cfg.DataDir, dir, f)
	if err := errors.Join(err, f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up the database (%d bytes) and %d audio files (%d bytes) to %s\n", sum.DatabaseBytes, sum.Blobs, sum.BlobBytes, out)
	if sum.SecretKey {
		fmt.Fprintln(stdout, "the archive holds the server key (secret.key): keep it as safe as the data")
	}
	return nil
}

func restoreCmd(args []string, stdout, stderr io.Writer) error {
	var in string
	var force bool
	cfg, err := parse("restore", config.Data, args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&in, "in", "", "the archive timbre backup wrote (required)")
		fs.BoolVar(&force, "force", false, "replace the database and audio already in the data directory")
	})
	if err != nil {
		return err
	}
	if in == "" {
		return errors.New("--in is required")
	}
	if cfg.IsPostgres() {
		return errors.New("timbre restore brings back the embedded SQLite database; for PostgreSQL use pg_restore")
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, err := backup.Restore(f, cfg.DataDir, cfg.SQLitePath(), blobDir(cfg), force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored the database (%d bytes) and %d audio files (%d bytes) into %s\n", sum.DatabaseBytes, sum.Blobs, sum.BlobBytes, cfg.DataDir)
	return nil
}
