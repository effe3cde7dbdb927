package isolate

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http/httptest"
	"testing"

	"timbre/internal/errs"
)

// TestParseRefusesOversizeUpload: an upload past MaxUpload is refused with 413 file_too_large
// while it arrives, before anything runs.
func TestParseRefusesOversizeUpload(t *testing.T) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("audio", "big.wav")
	_, _ = fw.Write(make([]byte, 4097))
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/v1/audio-isolation", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	h := &Handlers{MaxUpload: 4096}
	_, err := h.parse(r, false)
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.TooLarge || e.Code != "file_too_large" {
		t.Fatalf("oversize upload: %v", err)
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{"podcast.mp3": "podcast", "dir/a.b.wav": "a.b", "": "Isolated audio", ".mp3": ".mp3", `C:\x\talk.m4a`: "talk"} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}
