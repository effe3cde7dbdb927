// Package isolate is the voice isolator: it decodes an upload, charges its seconds through the
// metering ledger, removes the background noise with the embedded RNNoise engine (speech kept,
// duration kept), and keeps the isolated audio in the blob store for the member's isolation
// history.
package isolate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/kept"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Store is what the isolator needs of the database.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	Isolation(ctx context.Context, workspaceID, id string) (*store.Isolation, error)
	ListIsolations(ctx context.Context, workspaceID string, f store.IsolationFilter) ([]store.Isolation, bool, error)
	DeleteIsolation(ctx context.Context, workspaceID, id string) (*store.Isolation, error)
	LedgerProgress(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) error
}

// Blobs keeps the isolated audio.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Service isolates voices for workspaces.
type Service struct {
	DB       Store
	Blob     Blobs
	Isolator engine.Isolator
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Limits of the audio accepted (ElevenLabs takes up to an hour).
const (
	MinSeconds = 0.1
	MaxSeconds = 3600
)

// OutputFormat is what the isolated audio is returned and kept as (the API documents audio/mpeg).
const OutputFormat = "mp3_44100_128"

// Request is one isolation, as parsed from the multipart form.
type Request struct {
	Audio      []byte
	FileName   string
	RawPCM     bool // file_format=pcm_s16le_16: 16-bit little-endian mono PCM at 16 kHz
	PreviewB64 string
}

// Job is a charged isolation, ready to run (see Begin).
type Job struct {
	ID          string
	ContentType string
	Seconds     float64
	Credits     int64

	svc   *Service
	pcm   engine.PCM
	units int64
	res   *metering.Reservation
	row   *store.Isolation
}

// errAudio is the 422 for an unusable upload, naming the audio field.
func errAudio(msg string) error {
	var v errs.Validator
	v.Add("body", "audio", "value_error", msg)
	return v.Err()
}

// Begin decodes r's audio and reserves its charge. Undecodable, too short or too long audio is
// a 422 that charges and stores nothing. The caller must Run the job (which settles the charge).
func (s *Service) Begin(ctx context.Context, c *access.Caller, r *Request) (*Job, error) {
	pcm, err := decode(ctx, r)
	if err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	f, err := audio.ParseFormat(OutputFormat)
	if err != nil {
		return nil, err
	}
	j := &Job{ID: store.NewID(), ContentType: f.ContentType(), Seconds: pcm.Seconds(), svc: s, pcm: pcm}
	j.units, j.Credits = metering.AudioUnits(j.Seconds, 1), plan.IsolationCredits(j.Seconds)
	j.row = &store.Isolation{
		ID: j.ID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Title: title(r.FileName),
		Format: OutputFormat, DurationSecs: j.Seconds, PreviewB64: r.PreviewB64, CreatedAt: s.now().Unix(),
		BlobKey: "isolation/" + c.WorkspaceID + "/" + j.ID + ".mp3",
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		j.res, err = metering.ReserveAudio(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID,
			Product: metering.Isolation, Credits: j.Credits, Allowance: plan.Get(ws.Tier).CharacterLimit,
		}, j.Seconds, 1, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Run removes the noise, writing the encoded audio to w as it is made (w may be nil), keeps it
// in the blob store and the member's history, and commits the charge in the transaction that
// adds the row. Any failure (the client leaving included) refunds the charge and keeps nothing.
func (j *Job) Run(ctx context.Context, w io.Writer) error {
	s := j.svc
	var kept bytes.Buffer
	dst := io.Writer(&kept)
	if w != nil {
		dst = io.MultiWriter(&kept, w)
	}
	err := s.run(ctx, j, dst)
	if err == nil {
		err = s.Blob.Put(ctx, j.row.BlobKey, kept.Bytes(), j.ContentType)
	}
	if err != nil {
		s.refund(j.res)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errs.Errorf(errs.Upstream, "isolation_failed", "The voice isolator failed: %v", err)
	}
	// The work is done and delivered: from here on it is paid for and in the history.
	ctx = context.WithoutCancel(ctx)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, j.res, j.units, j.Credits, s.now()); err != nil {
			return err
		}
		return tx.InsertIsolation(ctx, j.row)
	})
	if err != nil {
		_ = s.Blob.Delete(ctx, j.row.BlobKey)
		s.refund(j.res)
	}
	return err
}

// Isolate is Begin and Run with the whole audio returned.
func (s *Service) Isolate(ctx context.Context, c *access.Caller, r *Request) (*Job, []byte, error) {
	j, err := s.Begin(ctx, c, r)
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	if err := j.Run(ctx, &out); err != nil {
		return nil, nil, err
	}
	return j, out.Bytes(), nil
}

// run isolates and encodes into w piece by piece, keeping the reservation alive meanwhile (an
// hour of audio takes minutes) so that it is not settled as stale.
func (s *Service) run(ctx context.Context, j *Job, w io.Writer) error {
	defer metering.KeepAlive(ctx, s.DB, j.res, s.now)()
	f, err := audio.ParseFormat(OutputFormat)
	if err != nil {
		return err
	}
	enc, err := audio.NewStreamEncoder(ctx, j.pcm.SampleRate, f, w)
	if err != nil {
		return err
	}
	if err := s.Isolator.IsolateStream(ctx, j.pcm, enc.Write); err != nil {
		_ = enc.Close()
		return err
	}
	return enc.Close()
}

func (s *Service) refund(res *metering.Reservation) {
	_ = metering.RefundAlone(context.Background(), s.DB, res, s.now())
}

// title is the history title of an upload: its file name without the extension.
func title(fileName string) string {
	name := fileName[strings.LastIndexAny(fileName, `/\`)+1:]
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if name == "" {
		return "Isolated audio"
	}
	return name
}

// decode turns the upload into mono PCM at its own rate (at most 48 kHz, RNNoise's rate), or a
// 422 naming the audio field.
func decode(ctx context.Context, r *Request) (engine.PCM, error) {
	return Decode(ctx, r.Audio, r.RawPCM)
}

// Decode turns an uploaded recording (raw: 16 kHz s16le mono, file_format pcm_s16le_16) into
// mono PCM at its own rate (at most 48 kHz) between MinSeconds and MaxSeconds long, or a 422
// naming the audio field. Speech to speech takes its uploads the same way.
func Decode(ctx context.Context, data []byte, raw bool) (engine.PCM, error) {
	var pcm engine.PCM
	switch {
	case len(data) == 0:
		return pcm, errAudio("The audio file is empty.")
	case raw:
		if len(data)%2 != 0 {
			return pcm, errAudio("With file_format pcm_s16le_16 the audio must be 16-bit samples (an even number of bytes).")
		}
		pcm = engine.PCM{Samples: audio.PCMSamples(data), SampleRate: 16000}
	default:
		samples, rate, err := audio.Decode(ctx, data)
		if err != nil {
			if ctx.Err() != nil {
				return pcm, ctx.Err()
			}
			return pcm, errAudio("The file is not audio or video that can be decoded (or it is corrupt).")
		}
		pcm = engine.PCM{Samples: samples, SampleRate: rate}
	}
	if pcm.SampleRate > 48000 {
		pcm = engine.PCM{Samples: audio.Resample(pcm.Samples, pcm.SampleRate, 48000), SampleRate: 48000}
	}
	switch secs := pcm.Seconds(); {
	case secs < MinSeconds:
		return engine.PCM{}, errAudio(fmt.Sprintf("The audio is %.0f ms long; at least 100 ms is needed.", 1000*secs))
	case secs > MaxSeconds:
		return engine.PCM{}, errAudio(fmt.Sprintf("The audio is %.0f minutes long; at most %d minutes are accepted.", secs/60, MaxSeconds/60))
	}
	return pcm, nil
}

// Item is one entry of GET /v1/audio-isolation/history (the API's
// AudioIsolationHistoryItemResponseModel).
type Item struct {
	ID                    string   `json:"id"`
	Title                 *string  `json:"title"`
	CreatedAtUnix         int64    `json:"created_at_unix"`
	Format                string   `json:"format"`
	DurationSeconds       *float64 `json:"duration_seconds"`
	DownloadURL           *string  `json:"download_url"`
	IconURL               *string  `json:"icon_url"`
	SourceVideoURL        *string  `json:"source_video_url"`
	SupportsVideo         bool     `json:"supports_video"`
	Processing            bool     `json:"processing"`
	VideoProcessingFailed bool     `json:"video_processing_failed"`
	PreviewB64            *string  `json:"preview_b64"`
}

// Page is the history response.
type Page struct {
	Items   []Item `json:"items"`
	HasMore bool   `json:"has_more"`
}

// DownloadPath is where an isolation's audio is served (GET, authenticated).
func DownloadPath(id string) string { return "/v1/audio-isolation/history/" + id + "/audio" }

// History lists the caller's own isolations, newest first.
func (s *Service) History(ctx context.Context, c *access.Caller, page, pageSize int, search string) (*Page, error) {
	rows, more, err := s.DB.ListIsolations(ctx, c.WorkspaceID, store.IsolationFilter{
		UserID: c.UserID, Search: search, Offset: (page - 1) * pageSize, Limit: pageSize,
	})
	if err != nil {
		return nil, err
	}
	out := &Page{Items: make([]Item, 0, len(rows)), HasMore: more}
	for _, r := range rows {
		it := Item{ID: r.ID, Title: &r.Title, CreatedAtUnix: r.CreatedAt, Format: r.Format, DurationSeconds: &r.DurationSecs}
		url := DownloadPath(r.ID)
		it.DownloadURL = &url
		if r.PreviewB64 != "" {
			it.PreviewB64 = &r.PreviewB64
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// kept reaches, reads and deletes isolations: the caller's own, or any of the workspace's for an admin.
func (s *Service) kept() kept.Items[*store.Isolation] {
	return kept.Items[*store.Isolation]{Find: s.DB.Isolation, Remove: s.DB.DeleteIsolation, Blob: s.Blob, NotFound: errNotFound}
}

// Audio returns the isolated audio of one of the caller's isolations and its content type.
func (s *Service) Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error) {
	return s.kept().Audio(ctx, c, id)
}

// Delete removes one of the caller's isolations and its audio.
func (s *Service) Delete(ctx context.Context, c *access.Caller, id string) error {
	return s.kept().Delete(ctx, c, id)
}

var errNotFound = errs.New(errs.NotFound, "history_item_not_found", "Audio isolation history item not found.")
