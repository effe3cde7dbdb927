// Package blob stores audio: a local directory by default, or any S3-compatible service.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned for a key that holds nothing.
var ErrNotFound = errors.New("blob: not found")

// Store is an open bucket.
type Store struct{ b *blob.Bucket }

// Open opens rawURL (s3://bucket?endpoint=…&region=…&use_path_style=true, or file:///dir), or a
// directory "blobs" under dataDir when rawURL is empty.
func Open(ctx context.Context, rawURL, dataDir string) (*Store, error) {
	if rawURL == "" {
		dir := filepath.Join(dataDir, "blobs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		// No metadata sidecar: the content type lives with the row that points at the blob.
		b, err := fileblob.OpenBucket(abs, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			return nil, err
		}
		return &Store{b: b}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob url: %w", err)
	}
	if u.Scheme == "file" {
		if err := os.MkdirAll(u.Path, 0o755); err != nil {
			return nil, err
		}
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("open blob store %s://%s: %w", u.Scheme, u.Host, err)
	}
	return &Store{b: b}, nil
}

// Put writes data under key. It skips WriteAll's MD5 checksums (computed, verified and stored
// again by fileblob): on the speech path they cost more than the write.
func (s *Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	w, err := s.NewWriter(ctx, key, contentType)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Writer streams one object into the store, so that large audio need not be held in memory
// and written after the fact. Nothing is stored under the key until Close succeeds (fileblob
// writes a temporary file and renames it; S3 completes the upload); Abort discards what was
// written. A Writer is not safe for concurrent use.
type Writer struct {
	w      *blob.Writer
	cancel context.CancelFunc
}

// NewWriter starts writing the object at key. Ending ctx before Close aborts the write.
func (s *Store) NewWriter(ctx context.Context, key, contentType string) (*Writer, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := s.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType, DisableContentTypeDetection: true})
	if err != nil {
		cancel()
		return nil, err
	}
	return &Writer{w: w, cancel: cancel}, nil
}

// Write appends p to the object; p is not retained.
func (w *Writer) Write(p []byte) (int, error) { return w.w.Write(p) }

// Close stores the object.
func (w *Writer) Close() error {
	defer w.cancel()
	return w.w.Close()
}

// Abort discards the object: the key keeps what it held before.
func (w *Writer) Abort() {
	w.cancel() // a cancelled write is not committed by Close
	_ = w.w.Close()
}

// Get reads the whole object at key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := s.b.ReadAll(ctx, key)
	return data, mapErr(err)
}

// Open streams the object at key.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.b.NewReader(ctx, key, nil)
	return r, mapErr(err)
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := mapErr(s.b.Delete(ctx, key))
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Exists says whether key holds an object.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	return s.b.Exists(ctx, key)
}

// Close releases the bucket.
func (s *Store) Close() error { return s.b.Close() }

func mapErr(err error) error {
	if err != nil && gcerrors.Code(err) == gcerrors.NotFound {
		return ErrNotFound
	}
	if err != nil && strings.Contains(err.Error(), "no such file") {
		return ErrNotFound
	}
	return err
}
