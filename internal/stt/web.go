package stt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/errs"
	"timbre/internal/store"
)

// The web app's view of transcripts: a list, one transcript with the person's edits, its audio,
// and exports as files. The API's own routes (GET /v1/speech-to-text/transcripts/{id}) keep
// returning the recogniser's transcript; edits live beside it and shape what these return.

// keepAudio stores the uploaded audio of transcription id under stt/<workspace>/<id>.<ext>,
// returning its key and content type. Raw PCM is kept as WAV so that browsers play it.
func (s *Service) keepAudio(ctx context.Context, workspaceID, id string, r *Request) (string, string, error) {
	data, ext, ctype := r.Audio, audioExtension(r.FileName), ""
	if r.RawPCM {
		samples := make([]int16, len(r.Audio)/2)
		for i := range samples {
			samples[i] = int16(uint16(r.Audio[2*i]) | uint16(r.Audio[2*i+1])<<8)
		}
		data, ext = audio.WAV(samples, 16000), "wav"
	}
	if ext != "" {
		ctype = mime.TypeByExtension("." + ext)
	}
	if ctype == "" || !strings.HasPrefix(ctype, "audio/") && !strings.HasPrefix(ctype, "video/") {
		ctype = http.DetectContentType(data)
	}
	if ext == "" {
		ext = "bin"
	}
	key := fmt.Sprintf("stt/%s/%s.%s", workspaceID, id, ext)
	if err := s.Blob.Put(ctx, key, data, ctype); err != nil {
		return "", "", err
	}
	return key, ctype, nil
}

var extensionPattern = regexp.MustCompile(`^[a-z0-9]{1,8}$`)

// audioExtension is a file name's extension when it is a plain one ("" otherwise).
func audioExtension(name string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	if !extensionPattern.MatchString(ext) {
		return ""
	}
	return ext
}

// dropAudio removes audio kept for a transcription that did not come to be.
func (s *Service) dropAudio(key string) {
	if key == "" || s.Blob == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Blob.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		slog.Warn("stt: dropping kept audio", "key", key, "err", err)
	}
}

// previewRunes is how much of a transcript's text its list entry shows.
const previewRunes = 160

func preview(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= previewRunes {
		return text
	}
	cut := string([]rune(text)[:previewRunes])
	if i := strings.LastIndexByte(cut, ' '); i > previewRunes/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// Summary is a transcript as the web app lists it.
type Summary struct {
	TranscriptionID   string  `json:"transcription_id"`
	FileName          string  `json:"file_name"`
	CreatedAtUnix     int64   `json:"created_at_unix"`
	AudioDurationSecs float64 `json:"audio_duration_secs"`
	LanguageCode      string  `json:"language_code"`
	State             string  `json:"state"`
	Preview           string  `json:"preview"`
	Error             string  `json:"error"`
	Edited            bool    `json:"edited"`
	HasAudio          bool    `json:"has_audio"`
}

func summaryOf(row *store.Transcript) Summary {
	return Summary{
		TranscriptionID: row.ID, FileName: row.FileName, CreatedAtUnix: row.CreatedAt, AudioDurationSecs: row.DurationSecs,
		LanguageCode: row.LanguageCode, State: row.State, Preview: row.Preview, Error: row.Error, Edited: row.EditedAt > 0,
		HasAudio: row.AudioKey != "",
	}
}

// Page is one page of the list, newest first; NextCursor is null on the last.
type Page struct {
	Transcripts []Summary `json:"transcripts"`
	HasMore     bool      `json:"has_more"`
	NextCursor  *string   `json:"next_cursor"`
}

// MaxPageSize bounds a page of the list.
const MaxPageSize = 100

// List returns a page of the workspace's transcripts after cursor ("" = from the newest).
func (s *Service) List(ctx context.Context, c *access.Caller, cursor string, pageSize int) (*Page, error) {
	var after *store.TranscriptCursor
	if cursor != "" {
		cur, ok := store.ParseTranscriptCursor(cursor)
		if !ok {
			return nil, errs.Field("query", "cursor", "value_error", "The cursor is not one this list gave.")
		}
		after = &cur
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return nil, errs.Field("query", "page_size", "value_error", fmt.Sprintf("Input should be an integer from 1 to %d.", MaxPageSize))
	}
	rows, more, err := s.DB.ListTranscripts(ctx, c.WorkspaceID, after, pageSize)
	if err != nil {
		return nil, err
	}
	p := &Page{Transcripts: make([]Summary, 0, len(rows)), HasMore: more}
	for i := range rows {
		p.Transcripts = append(p.Transcripts, summaryOf(&rows[i]))
	}
	if more {
		last := rows[len(rows)-1]
		p.NextCursor = ptr(store.TranscriptCursor{CreatedAt: last.CreatedAt, ID: last.ID}.String())
	}
	return p, nil
}

// View is one transcript as the web app shows it: the edited transcript when there are edits
// (the recogniser's otherwise; null until it is completed), its speakers and their names.
type View struct {
	Summary
	ModelID      string            `json:"model_id"`
	Transcript   *Transcript       `json:"transcript"`
	Speakers     []string          `json:"speakers"`
	SpeakerNames map[string]string `json:"speaker_names"`
}

// View returns one transcript of the caller's workspace.
func (s *Service) View(ctx context.Context, c *access.Caller, id string) (*View, error) {
	row, err := s.DB.Transcript(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTranscriptNotFound
	}
	if err != nil {
		return nil, err
	}
	return viewOf(row)
}

func viewOf(row *store.Transcript) (*View, error) {
	v := &View{Summary: summaryOf(row), ModelID: row.ModelID, Speakers: []string{}, SpeakerNames: map[string]string{}}
	if row.SpeakerNames != "" {
		if err := json.Unmarshal([]byte(row.SpeakerNames), &v.SpeakerNames); err != nil {
			return nil, err
		}
	}
	result := row.EditedResult
	if result == "" {
		result = row.Result
	}
	if row.State != store.TranscriptCompleted || result == "" {
		return v, nil
	}
	// A multichannel transcript shows as one: its channels' words in time order, each channel
	// its own speaker (an edit stores it so).
	var res Result
	if err := json.Unmarshal([]byte(result), &res); err != nil {
		return nil, err
	}
	v.Transcript = res.Single()
	v.Transcript.AdditionalFormats = nil
	v.Speakers = Speakers(v.Transcript)
	return v, nil
}

// Edit is a person's change to a transcript: the whole text (nil = unchanged) and names for
// speaker ids (merged into those given before; an empty name removes one).
type Edit struct {
	Text         *string           `json:"text"`
	SpeakerNames map[string]string `json:"speaker_names"`
}

// Edit limits.
const (
	MaxEditedTextRunes  = 1_000_000
	MaxSpeakerNameRunes = 60
)

// Edit stores edits of a completed transcript of the caller's workspace: edited text is
// re-timed against the recognised words (ApplyText); speaker names must name the transcript's
// speakers. Nothing changes when any part is invalid.
func (s *Service) Edit(ctx context.Context, c *access.Caller, id string, e Edit) (*View, error) {
	row, err := s.DB.Transcript(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTranscriptNotFound
	}
	if err != nil {
		return nil, err
	}
	v, err := viewOf(row)
	if err != nil {
		return nil, err
	}
	if v.Transcript == nil {
		return nil, errs.New(errs.Conflict, "transcript_not_completed", "Only a completed transcript can be edited.")
	}
	var bad errs.Validator
	if e.Text != nil {
		switch n := utf8.RuneCountInString(*e.Text); {
		case strings.TrimSpace(*e.Text) == "":
			bad.Add("body", "text", "value_error", "The text must not be empty.")
		case n > MaxEditedTextRunes:
			bad.Add("body", "text", "too_long", fmt.Sprintf("The text may have at most %d characters.", MaxEditedTextRunes))
		}
	}
	names := v.SpeakerNames
	for _, sp := range slices.Sorted(maps.Keys(e.SpeakerNames)) {
		name := strings.Join(strings.Fields(e.SpeakerNames[sp]), " ")
		switch {
		case !slices.Contains(v.Speakers, sp):
			bad.Add("body", "speaker_names", "value_error", fmt.Sprintf("'%.40s' is not a speaker of this transcript (its speakers: %s).", sp, strings.Join(v.Speakers, ", ")))
		case utf8.RuneCountInString(name) > MaxSpeakerNameRunes:
			bad.Add("body", "speaker_names", "too_long", fmt.Sprintf("A speaker's name may have at most %d characters.", MaxSpeakerNameRunes))
		case name == "":
			delete(names, sp)
		default:
			names[sp] = name
		}
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	t := v.Transcript
	if e.Text != nil {
		t = ApplyText(t, *e.Text)
	}
	edited, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	namesJSON, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	err = s.DB.EditTranscript(ctx, c.WorkspaceID, id, string(edited), string(namesJSON), preview(t.Text), s.now().Unix())
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTranscriptNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.View(ctx, c, id)
}

// Audio opens the kept audio of a transcript of the caller's workspace, with its content type.
// The reader seeks (a range of a large file is read from the store, not the whole file).
func (s *Service) Audio(ctx context.Context, c *access.Caller, id string) (io.ReadSeekCloser, string, error) {
	row, err := s.DB.Transcript(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", errTranscriptNotFound
	}
	if err != nil {
		return nil, "", err
	}
	gone := errs.New(errs.NotFound, "transcript_audio_not_found", "The audio of this transcript was not kept.")
	if row.AudioKey == "" || s.Blob == nil {
		return nil, "", gone
	}
	r, err := s.Blob.Open(ctx, row.AudioKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, "", gone
	}
	if err != nil {
		return nil, "", err
	}
	rs, ok := r.(io.ReadSeekCloser)
	if !ok {
		r.Close()
		return nil, "", fmt.Errorf("stt: the blob store's reader cannot seek")
	}
	return rs, row.AudioContentType, nil
}

// File is an export ready to download.
type File struct {
	Name        string
	ContentType string
	Data        []byte
}

// ExportFile renders a completed transcript of the caller's workspace, with its edits and
// speaker names, in format (one of ExportFormats, with that format's default options).
func (s *Service) ExportFile(ctx context.Context, c *access.Caller, id, format string) (*File, error) {
	if !slices.Contains(ExportFormats, format) {
		return nil, errs.Field("query", "format", "enum", fmt.Sprintf("Unknown format '%.40s'. Use one of: %s.", format, strings.Join(ExportFormats, ", ")))
	}
	v, err := s.View(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if v.Transcript == nil {
		return nil, errs.New(errs.Conflict, "transcript_not_completed", "Only a completed transcript can be exported.")
	}
	f, err := Export(WithSpeakerNames(v.Transcript, v.SpeakerNames), ExportOptions{Format: format})
	if err != nil {
		return nil, err
	}
	data := []byte(f.Content)
	if f.IsBase64Encoded {
		if data, err = base64.StdEncoding.DecodeString(f.Content); err != nil {
			return nil, err
		}
	}
	base := strings.TrimSuffix(v.FileName, path.Ext(v.FileName))
	if base == "" {
		base = "transcript"
	}
	return &File{Name: base + "." + f.FileExtension, ContentType: f.ContentType, Data: data}, nil
}
