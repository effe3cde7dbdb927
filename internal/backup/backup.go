// Package backup copies the embedded default installation (the SQLite database, the audio
// directory and the server key file) into one tar.gz while servers keep running, and brings such
// a copy back. PostgreSQL deployments back up with pg_dump and their object store's tools.
package backup

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"timbre/internal/secret"
	"timbre/internal/store"
)

// Names inside the archive.
const (
	dbName   = "timbre.db"
	blobsDir = "blobs"
)

// Summary says what a backup or restore copied.
type Summary struct {
	DatabaseBytes int64
	Blobs         int
	BlobBytes     int64
	SecretKey     bool
}

// Write archives db (SQLite) and the audio files under blobDir ("" when audio lives elsewhere)
// and dataDir's server key file into w. The database is copied first, as one consistent
// snapshot, while writers go on: audio a row of the snapshot points at is complete before the
// row points at it, so it is on disk when the files are copied afterwards. Files newer than the
// snapshot may come along too; they are unreferenced and harmless.
func Write(ctx context.Context, db *store.DB, dataDir, blobDir string, w io.Writer) (Summary, error) {
	var sum Summary
	if db.Dialect != store.SQLite {
		return sum, errors.New("timbre backup copies the embedded SQLite database; for PostgreSQL use pg_dump (and your object store's tools for the audio)")
	}
	tmp, err := os.MkdirTemp("", "timbre-backup-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp)
	snap := filepath.Join(tmp, dbName)
	if err := db.SnapshotSQLite(ctx, snap); err != nil {
		return sum, fmt.Errorf("copy the database: %w", err)
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	if sum.DatabaseBytes, err = addFile(tw, snap, dbName); err != nil {
		return sum, err
	}
	if _, err := os.Stat(filepath.Join(dataDir, secret.KeyFile)); err == nil {
		if _, err := addFile(tw, filepath.Join(dataDir, secret.KeyFile), secret.KeyFile); err != nil {
			return sum, err
		}
		sum.SecretKey = true
	}
	if blobDir != "" {
		err := filepath.WalkDir(blobDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p != blobDir {
					return nil // removed while we walked (purged audio, a finished temporary file)
				}
				return err
			}
			// .tmp: a write still in progress (fileblob renames it into place when done).
			if d.IsDir() || strings.HasSuffix(p, ".tmp") {
				return nil
			}
			rel, err := filepath.Rel(blobDir, p)
			if err != nil {
				return err
			}
			n, err := addFile(tw, p, path.Join(blobsDir, filepath.ToSlash(rel)))
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			sum.Blobs++
			sum.BlobBytes += n
			return err
		})
		if err != nil {
			return sum, fmt.Errorf("copy the audio: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return sum, err
	}
	return sum, gz.Close()
}

func addFile(tw *tar.Writer, src, name string) (int64, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(st.Mode().Perm()), Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return 0, err
	}
	// The size in the header is what we copy: a file that grew meanwhile is cut at that size.
	return io.Copy(tw, io.LimitReader(f, st.Size()))
}

// Restore unpacks an archive made by Write: the database to dbPath, audio under blobDir ("" to
// skip it), the key file into dataDir. It refuses while a server holds dataDir (see Lock) and,
// unless force, when a database or audio is already there; with force those are replaced.
func Restore(r io.Reader, dataDir, dbPath, blobDir string, force bool) (Summary, error) {
	var sum Summary
	unlock, err := lock(dataDir, syscall.LOCK_EX)
	if err != nil {
		return sum, err
	}
	defer unlock()
	if !force {
		if _, err := os.Stat(dbPath); err == nil {
			return sum, fmt.Errorf("%s already exists: restore into an empty data directory, or pass --force to replace it", dbPath)
		}
		if blobDir != "" {
			if entries, _ := os.ReadDir(blobDir); len(entries) > 0 {
				return sum, fmt.Errorf("%s is not empty: restore into an empty data directory, or pass --force to replace it", blobDir)
			}
		}
	}
	// The new database lands beside the old one and replaces it at the end, so a broken archive
	// leaves the old one in place.
	incoming := dbPath + ".restoring"
	defer os.Remove(incoming)
	incomingKey := filepath.Join(dataDir, secret.KeyFile+".restoring")
	defer os.Remove(incomingKey)
	gz, err := gzip.NewReader(r)
	if err != nil {
		return sum, fmt.Errorf("not a timbre backup (gzip): %w", err)
	}
	tr := tar.NewReader(gz)
	sawDB := false
	var blobs []string // written under blobDir + ".restoring"
	stage := blobDir + ".restoring"
	if blobDir != "" {
		if err := os.RemoveAll(stage); err != nil {
			return sum, err
		}
		defer os.RemoveAll(stage)
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, fmt.Errorf("read the backup: %w", err)
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || !fs.ValidPath(name) {
			return sum, fmt.Errorf("unexpected entry %q in the backup", h.Name)
		}
		switch {
		case name == dbName:
			if sum.DatabaseBytes, err = writeFile(incoming, tr, 0o644); err != nil {
				return sum, err
			}
			sawDB = true
		case name == secret.KeyFile:
			if _, err := writeFile(incomingKey, tr, 0o600); err != nil {
				return sum, err
			}
			sum.SecretKey = true
		case strings.HasPrefix(name, blobsDir+"/"):
			if blobDir == "" {
				continue
			}
			rel := strings.TrimPrefix(name, blobsDir+"/")
			n, err := writeFile(filepath.Join(stage, filepath.FromSlash(rel)), tr, 0o644)
			if err != nil {
				return sum, err
			}
			blobs = append(blobs, rel)
			sum.Blobs++
			sum.BlobBytes += n
		default:
			return sum, fmt.Errorf("unexpected entry %q in the backup", h.Name)
		}
	}
	if !sawDB {
		return sum, errors.New("the backup holds no database")
	}
	// Swap in: a stale WAL of the old database must not be applied to the new one.
	for _, p := range []string{dbPath + "-wal", dbPath + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return sum, err
		}
	}
	if err := os.Rename(incoming, dbPath); err != nil {
		return sum, err
	}
	if sum.SecretKey {
		if err := os.Rename(incomingKey, filepath.Join(dataDir, secret.KeyFile)); err != nil {
			return sum, err
		}
	}
	if blobDir != "" {
		if err := os.RemoveAll(blobDir); err != nil {
			return sum, err
		}
		if err := os.MkdirAll(stage, 0o755); err != nil {
			return sum, err
		}
		if err := os.Rename(stage, blobDir); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func writeFile(p string, r io.Reader, mode os.FileMode) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if err := errors.Join(err, f.Sync(), f.Close()); err != nil {
		return n, err
	}
	return n, nil
}

// LockFile is the file in a data directory that running servers hold a shared lock on.
const LockFile = ".timbre.lock"

// Lock marks dataDir as in use by a server or worker until release is called (or the process
// ends, however it ends). Several servers may share a data directory; Restore waits for none.
func Lock(dataDir string) (release func(), err error) {
	return lock(dataDir, syscall.LOCK_SH)
}

func lock(dataDir string, how int) (func(), error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dataDir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if how == syscall.LOCK_EX {
				return nil, fmt.Errorf("a timbre server or worker is running on %s: stop it before restoring", dataDir)
			}
			return nil, fmt.Errorf("a restore is running on %s", dataDir)
		}
		return nil, fmt.Errorf("lock %s: %w", dataDir, err)
	}
	return func() { f.Close() }, nil
}
