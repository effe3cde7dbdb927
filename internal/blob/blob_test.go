package blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"timbre/internal/blob"
)

// conformance runs the same checks against any Store.
func conformance(t *testing.T, s *blob.Store) {
	ctx := context.Background()

	// Missing keys.
	if _, err := s.Get(ctx, "missing/key.mp3"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get missing: %v, want ErrNotFound", err)
	}
	if _, err := s.Open(ctx, "missing/key.mp3"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open missing: %v, want ErrNotFound", err)
	}
	if ok, err := s.Exists(ctx, "missing/key.mp3"); err != nil || ok {
		t.Fatalf("Exists missing: %v %v", ok, err)
	}
	if err := s.Delete(ctx, "missing/key.mp3"); err != nil {
		t.Fatalf("Delete missing: %v", err)
	}

	// Put / Get / Open / Exists on nested keys.
	small := []byte("ID3 fake mp3 bytes")
	if err := s.Put(ctx, "history/ws1/item1.mp3", small, "audio/mpeg"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := s.Get(ctx, "history/ws1/item1.mp3")
	if err != nil || !bytes.Equal(got, small) {
		t.Fatalf("Get: %q %v", got, err)
	}
	if ok, err := s.Exists(ctx, "history/ws1/item1.mp3"); err != nil || !ok {
		t.Fatalf("Exists: %v %v", ok, err)
	}
	if ok, _ := s.Exists(ctx, "history/ws1"); ok {
		t.Fatal("a key's prefix exists as a key")
	}

	// Overwrite.
	if err := s.Put(ctx, "history/ws1/item1.mp3", []byte("second"), "audio/mpeg"); err != nil {
		t.Fatalf("Put again: %v", err)
	}
	got, _ = s.Get(ctx, "history/ws1/item1.mp3")
	if string(got) != "second" {
		t.Fatalf("after overwrite: %q", got)
	}

	// Large object, streamed back (several MiB: multipart upload on S3).
	big := make([]byte, 7<<20+123)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "big/audio.wav", big, "audio/wav"); err != nil {
		t.Fatalf("Put big: %v", err)
	}
	r, err := s.Open(ctx, "big/audio.wav")
	if err != nil {
		t.Fatalf("Open big: %v", err)
	}
	streamed, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read big: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("close reader: %v", err)
	}
	if !bytes.Equal(streamed, big) {
		t.Fatalf("streamed %d bytes, differ from the %d written", len(streamed), len(big))
	}

	// Streamed in pieces: visible only once closed; an aborted stream leaves the key as it was.
	sw, err := s.NewWriter(ctx, "stream/a.pcm", "audio/pcm")
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	for _, part := range []string{"one ", "two ", "three"} {
		if _, err := sw.Write([]byte(part)); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if ok, _ := s.Exists(ctx, "stream/a.pcm"); ok {
		t.Fatal("a streamed object exists before Close")
	}
	if err := sw.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got, err := s.Get(ctx, "stream/a.pcm"); err != nil || string(got) != "one two three" {
		t.Fatalf("streamed object: %q %v", got, err)
	}
	for _, key := range []string{"stream/a.pcm", "stream/b.pcm"} { // existing and new keys
		aw, err := s.NewWriter(ctx, key, "audio/pcm")
		if err != nil {
			t.Fatalf("NewWriter: %v", err)
		}
		if _, err := aw.Write([]byte("discarded")); err != nil {
			t.Fatalf("Write: %v", err)
		}
		aw.Abort()
	}
	if got, _ := s.Get(ctx, "stream/a.pcm"); string(got) != "one two three" {
		t.Fatalf("after an aborted overwrite: %q", got)
	}
	if ok, _ := s.Exists(ctx, "stream/b.pcm"); ok {
		t.Fatal("an aborted stream created its object")
	}

	// Empty object.
	if err := s.Put(ctx, "empty", nil, "application/octet-stream"); err != nil {
		t.Fatalf("Put empty: %v", err)
	}
	if got, err := s.Get(ctx, "empty"); err != nil || len(got) != 0 {
		t.Fatalf("Get empty: %q %v", got, err)
	}

	// Delete.
	if err := s.Delete(ctx, "history/ws1/item1.mp3"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if ok, _ := s.Exists(ctx, "history/ws1/item1.mp3"); ok {
		t.Fatal("exists after delete")
	}
	if _, err := s.Get(ctx, "history/ws1/item1.mp3"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get deleted: %v", err)
	}
	if err := s.Delete(ctx, "history/ws1/item1.mp3"); err != nil {
		t.Fatalf("Delete twice: %v", err)
	}
}

func TestLocalDefault(t *testing.T) {
	dataDir := t.TempDir()
	s, err := blob.Open(context.Background(), "", dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conformance(t, s)
	// Aborted and finished streams leave no temporary files behind.
	tmp, _ := filepath.Glob(filepath.Join(dataDir, "blobs", "stream", "*.tmp"))
	if len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}

	// Objects live under <dataDir>/blobs, at their key.
	if err := s.Put(context.Background(), "a/b.txt", []byte("x"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dataDir, "blobs", "a", "b.txt")); err != nil || string(data) != "x" {
		t.Fatalf("file on disk: %q %v", data, err)
	}
}

func TestLocalFileURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	s, err := blob.Open(context.Background(), "file://"+dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conformance(t, s)
}

// fakeS3 starts an in-process S3 (gofakes3, in-memory backend) with one bucket, points the AWS
// SDK's credential chain at static test credentials, and returns the bucket URL the store takes.
func fakeS3(t *testing.T, bucket string) (string, *s3mem.Backend) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)

	t.Setenv("AWS_ACCESS_KEY_ID", "timbre-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "timbre-test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "no-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "no-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")

	q := url.Values{}
	q.Set("endpoint", srv.URL)
	q.Set("region", "us-east-1")
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	return "s3://" + bucket + "?" + q.Encode(), backend
}

func TestS3(t *testing.T) {
	ctx := context.Background()
	u, backend := fakeS3(t, "timbre-audio")
	s, err := blob.Open(ctx, u, "")
	if err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	defer s.Close()
	conformance(t, s)

	// The bytes really went to the S3 server.
	if err := s.Put(ctx, "history/x.mp3", []byte("on s3"), "audio/mpeg"); err != nil {
		t.Fatal(err)
	}
	obj, err := backend.HeadObject("timbre-audio", "history/x.mp3")
	if err != nil {
		t.Fatalf("object not in the fake S3: %v", err)
	}
	if obj.Size != int64(len("on s3")) {
		t.Fatalf("size on S3 = %d", obj.Size)
	}
	if ct := obj.Metadata["Content-Type"]; ct != "audio/mpeg" {
		t.Fatalf("content type on S3 = %q (metadata %v)", ct, obj.Metadata)
	}
}

func TestS3MissingBucket(t *testing.T) {
	ctx := context.Background()
	u, _ := fakeS3(t, "exists")
	// Opening does not touch the network; the first operation reports the missing bucket, and it
	// is not mistaken for a missing key.
	s, err := blob.Open(ctx, replaceBucket(t, u, "nope"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(ctx, "k", []byte("v"), "text/plain"); err == nil {
		t.Fatal("Put into a missing bucket succeeded")
	}
}

func replaceBucket(t *testing.T, raw, bucket string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = bucket
	return u.String()
}

func TestOpenRejectsBadURL(t *testing.T) {
	if _, err := blob.Open(context.Background(), "nosuchscheme://x", ""); err == nil {
		t.Fatal("unknown scheme accepted")
	}
	if _, err := blob.Open(context.Background(), "s3://b?bogus_param=1", ""); err == nil {
		t.Fatal("unknown s3 parameter accepted")
	}
}
