package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func archive(t *testing.T, files map[string]string) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// A bad archive is refused and leaves the data directory as it was.
func TestRestoreRefusesBadArchives(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"path out of the directory": {"timbre.db": "x", "blobs/../../evil": "x"},
		"absolute path":             {"timbre.db": "x", "/etc/evil": "x"},
		"unknown entry":             {"timbre.db": "x", "notes.txt": "x"},
		"no database":               {"blobs/a/b": "x", "secret.key": "k"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Restore(archive(t, files), dir, filepath.Join(dir, "timbre.db"), filepath.Join(dir, "blobs"), false)
			if err == nil {
				t.Fatal("accepted")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != LockFile {
					t.Errorf("left %s behind", e.Name())
				}
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil")); err == nil {
				t.Error("wrote outside the data directory")
			}
		})
	}
	if _, err := Restore(strings.NewReader("not gzip"), t.TempDir(), filepath.Join(t.TempDir(), "timbre.db"), "", false); err == nil {
		t.Error("a non-archive was accepted")
	}
}

// A running server's shared lock keeps restore out; once released, restore may go on.
func TestRestoreWaitsForNoServer(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Lock(dir) // several servers may share a data directory
	if err != nil {
		t.Fatal(err)
	}
	a := archive(t, map[string]string{"timbre.db": "db"})
	if _, err := Restore(a, dir, filepath.Join(dir, "timbre.db"), "", false); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("restore under a server: %v", err)
	}
	unlock()
	second()
	sum, err := Restore(archive(t, map[string]string{"timbre.db": "db", "blobs/ab/cd": "audio"}), dir, filepath.Join(dir, "timbre.db"), filepath.Join(dir, "blobs"), false)
	if err != nil || sum.Blobs != 1 {
		t.Fatalf("restore: %+v %v", sum, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "blobs", "ab", "cd")); string(b) != "audio" {
		t.Errorf("blob restored as %q", b)
	}
}
