package voice

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/errs"
	"timbre/internal/plan"
)

func parse(t *testing.T, fields map[string]string, files map[string][]byte) (*CloneRequest, error) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	for name, data := range files {
		field := "files"
		if strings.HasPrefix(name, "[]") {
			field, name = "files[]", name[2:]
		}
		w, _ := mw.CreateFormFile(field, name)
		_, _ = w.Write(data)
	}
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/v1/voices/add", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return parseClone(r)
}

// field is the field a 422 names ("" when err is no validation error).
func field(err error) string {
	var e *errs.Validation
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return ""
	}
	s, _ := e.Fields[0].Loc[len(e.Fields[0].Loc)-1].(string)
	return s
}

// TestParseClone: files come as repeated files parts and as files[]; labels as a JSON object
// string; bad labels and a bad noise flag are 422s naming them.
func TestParseClone(t *testing.T) {
	req, err := parse(t, map[string]string{"name": "Me", "description": "", "labels": `{"accent":"british"}`, "remove_background_noise": "true"},
		map[string][]byte{"a.mp3": []byte("aaa"), "[]b.wav": []byte("bb")})
	if err != nil {
		t.Fatal(err)
	}
	if req.Name != "Me" || len(req.Files) != 2 || !req.RemoveBackgroundNoise || req.Labels["accent"] != "british" || req.Description == nil || *req.Description != "" {
		t.Fatalf("parsed %+v", req)
	}
	for _, c := range []struct {
		fields map[string]string
		want   string
	}{
		{map[string]string{"name": "x", "labels": "not json"}, "labels"},
		{map[string]string{"name": "x", "labels": `{"age": 3}`}, "labels"},
		{map[string]string{"name": "x", "remove_background_noise": "perhaps"}, "remove_background_noise"},
	} {
		if _, err := parse(t, c.fields, nil); field(err) != c.want {
			t.Fatalf("%v: %v, want a 422 naming %s", c.fields, err, c.want)
		}
	}
	// Oversize files are 422s naming files, before anything is decoded.
	big := make([]byte, MaxSampleBytes+1)
	if _, err := parse(t, map[string]string{"name": "x"}, map[string][]byte{"big.wav": big}); field(err) != "files" {
		t.Fatalf("oversize: %v", err)
	}
}

// TestCloneRequestValidate: name, description, labels and the number of files.
func TestCloneRequestValidate(t *testing.T) {
	desc := strings.Repeat("d", MaxDescription+1)
	for _, c := range []struct {
		req  CloneRequest
		want string
	}{
		{CloneRequest{Name: " ", Files: []CloneFile{{}}}, "name"},
		{CloneRequest{Name: strings.Repeat("n", MaxNameChars+1), Files: []CloneFile{{}}}, "name"},
		{CloneRequest{Name: "x", Description: &desc, Files: []CloneFile{{}}}, "description"},
		{CloneRequest{Name: "x"}, "files"},
		{CloneRequest{Name: "x", Files: make([]CloneFile, MaxSamples+1)}, "files"},
	} {
		var v errs.Validator
		c.req.Validate(&v, true)
		if field(v.Err()) != c.want {
			t.Fatalf("%+v: %v, want %s", c.req.Name, v.Err(), c.want)
		}
	}
	var v errs.Validator
	(&CloneRequest{Name: "x"}).Validate(&v, false) // an edit needs no files
	if v.Err() != nil {
		t.Fatal(v.Err())
	}
}

func TestSniffMime(t *testing.T) {
	for in, want := range map[string]string{
		"RIFF\x00\x00\x00\x00WAVEfmt ": "audio/wav", "OggS....": "audio/ogg", "fLaC....": "audio/flac",
		"ID3\x04....": "audio/mpeg", "\xff\xfb\x90\x00": "audio/mpeg", "\x00\x00\x00\x20ftypM4A ": "audio/mp4", "hello": "application/octet-stream",
	} {
		if got := sniffMime([]byte(in)); got != want {
			t.Errorf("sniffMime(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPlanCloning(t *testing.T) {
	if plan.CanCloneInstantly(plan.Get("free")) || !plan.CanCloneInstantly(plan.Get("starter")) || !plan.CanCloneInstantly(plan.Get("enterprise")) {
		t.Fatal("instant cloning: Starter and above")
	}
}
