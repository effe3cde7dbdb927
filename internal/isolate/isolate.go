// Package isolate is the voice isolator: it decodes an upload, charges its seconds through the
// metering ledger, removes the background noise with the embedded RNNoise engine (speech kept,
// duration kept), and keeps the isolated audio in the blob store for the member's isolation
// history.
package isolate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
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

// Result is a finished isolation: the encoded audio and what it cost.
type Result struct {
	ID          string
	Audio       []byte
	ContentType string
	Seconds     float64
	Credits     int64
}

// errAudio is the 422 for an unusable upload, naming the audio field.
func errAudio(msg string) error {
	var v errs.Validator
	v.Add("body", "audio", "value_error", msg)
	return v.Err()
}

// Isolate decodes r's audio, charges its seconds, removes the noise and keeps the result in the
// member's history. Undecodable, too short or too long audio is a 422 that charges and stores
// nothing; an engine failure refunds the charge.
func (s *Service) Isolate(ctx context.Context, c *access.Caller, r *Request) (*Result, error) {
	pcm, err := decode(ctx, r)
	if err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	seconds := pcm.Seconds()
	units, cost := int64(math.Ceil(seconds)), plan.IsolationCredits(seconds)
	var res *metering.Reservation
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		res, err = metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID,
			Product: metering.Isolation, Kind: metering.Seconds, Units: units, Credits: cost, Allowance: plan.Get(ws.Tier).CharacterLimit,
		}, s.now())
		return metering.QuotaAPIError(err)
	})
	if err != nil {
		return nil, err
	}
	out := &Result{ID: store.NewID(), Seconds: seconds, Credits: cost}
	row := &store.Isolation{
		ID: out.ID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Title: title(r.FileName),
		Format: OutputFormat, DurationSecs: seconds, PreviewB64: r.PreviewB64, CreatedAt: s.now().Unix(),
		BlobKey: "isolation/" + c.WorkspaceID + "/" + out.ID + ".mp3",
	}
	out.Audio, out.ContentType, err = s.run(ctx, res, pcm)
	if err == nil {
		err = s.Blob.Put(ctx, row.BlobKey, out.Audio, out.ContentType)
	}
	if err != nil {
		s.refund(res)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errs.Errorf(errs.Upstream, "isolation_failed", "The voice isolator failed: %v", err)
	}
	// The work is done: a client that left still pays for it, and it is in the history.
	ctx = context.WithoutCancel(ctx)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, res, units, cost, s.now()); err != nil {
			return err
		}
		return tx.InsertIsolation(ctx, row)
	})
	if err != nil {
		_ = s.Blob.Delete(ctx, row.BlobKey)
		s.refund(res)
		return nil, err
	}
	return out, nil
}

// run isolates and encodes, keeping the reservation alive meanwhile (an hour of audio takes
// minutes) so that it is not settled as stale.
func (s *Service) run(ctx context.Context, res *metering.Reservation, pcm engine.PCM) ([]byte, string, error) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = s.DB.LedgerProgress(context.WithoutCancel(ctx), res.WorkspaceID, res.ID, 0, 0, s.now())
			}
		}
	}()
	clean, err := s.Isolator.Isolate(ctx, pcm)
	if err != nil {
		return nil, "", err
	}
	f, err := audio.ParseFormat(OutputFormat)
	if err != nil {
		return nil, "", err
	}
	data, err := audio.Encode(ctx, clean.Samples, clean.SampleRate, f)
	if err != nil {
		return nil, "", err
	}
	return data, f.ContentType(), nil
}

// heartbeatEvery is how often a running isolation touches its ledger entry (see
// metering.SettleStale).
const heartbeatEvery = 30 * time.Second

func (s *Service) refund(res *metering.Reservation) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := metering.Refund(ctx, tx, res, s.now())
		return err
	})
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
	var pcm engine.PCM
	switch {
	case len(r.Audio) == 0:
		return pcm, errAudio("The audio file is empty.")
	case r.RawPCM:
		if len(r.Audio)%2 != 0 {
			return pcm, errAudio("With file_format pcm_s16le_16 the audio must be 16-bit samples (an even number of bytes).")
		}
		pcm = engine.PCM{Samples: audio.PCMSamples(r.Audio), SampleRate: 16000}
	default:
		samples, rate, err := audio.Decode(ctx, r.Audio)
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

// mine returns an isolation the caller may reach: their own, or any of the workspace for an admin.
func (s *Service) mine(ctx context.Context, c *access.Caller, id string) (*store.Isolation, error) {
	row, err := s.DB.Isolation(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && row.UserID != c.UserID && !c.MayAdminister("")) {
		return nil, errNotFound
	}
	return row, err
}

// Audio returns the isolated audio of one of the caller's isolations and its content type.
func (s *Service) Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error) {
	row, err := s.mine(ctx, c, id)
	if err != nil {
		return nil, "", err
	}
	data, err := s.Blob.Get(ctx, row.BlobKey)
	if err != nil {
		return nil, "", err
	}
	f, err := audio.ParseFormat(row.Format)
	if err != nil {
		return nil, "", err
	}
	return data, f.ContentType(), nil
}

// Delete removes one of the caller's isolations and its audio.
func (s *Service) Delete(ctx context.Context, c *access.Caller, id string) error {
	if _, err := s.mine(ctx, c, id); err != nil {
		return err
	}
	row, err := s.DB.DeleteIsolation(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	// The row is gone: a blob left behind by a failed delete is unreachable, not an error to show.
	_ = s.Blob.Delete(context.WithoutCancel(ctx), row.BlobKey)
	return nil
}

var errNotFound = errs.New(errs.NotFound, "history_item_not_found", "Audio isolation history item not found.")
