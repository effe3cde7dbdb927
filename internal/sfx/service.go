package sfx

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/kept"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Store is what the sound-effect service needs of the database.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	SoundGeneration(ctx context.Context, workspaceID, id string) (*store.SoundGeneration, error)
	ListSoundGenerations(ctx context.Context, workspaceID string, f store.SoundFilter) ([]store.SoundGeneration, bool, error)
	DeleteSoundGeneration(ctx context.Context, workspaceID, id string) (*store.SoundGeneration, error)
}

// Blobs keeps the generated audio and the catalogue's previews.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Engine makes a sound effect as PCM. Procedural is the embedded one; HTTP forwards to an
// ElevenLabs-compatible server.
type Engine interface {
	// Estimate is the duration (s) that will be made for r (what the charge is reserved for).
	Estimate(r *Request) float64
	Make(ctx context.Context, r *Request) (*Render, error)
	Name() string
}

// Service generates sound effects for workspaces.
type Service struct {
	DB     Store
	Blob   Blobs
	Engine Engine
	Now    func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ModelID is the API's only sound-effect model.
const ModelID = "eleven_text_to_sound_v2"

// MaxText is the longest prompt accepted (characters).
const MaxText = 1000

// Request is one generation, validated.
type Request struct {
	Text      string
	Loop      bool
	Duration  float64 // 0: the engine picks
	Influence float64
	ModelID   string
	Seed      uint64
	HasSeed   bool
	Format    audio.Format
}

// Settings is what a history item keeps of its request (and the response's recipes).
type Settings struct {
	Loop            bool     `json:"loop"`
	DurationSeconds *float64 `json:"duration_seconds"`
	PromptInfluence float64  `json:"prompt_influence"`
	ModelID         string   `json:"model_id"`
	Seed            uint64   `json:"seed"`
	OutputFormat    string   `json:"output_format"`
	Engine          string   `json:"engine"`
	Recipes         []string `json:"recipes"`
}

// Result is a delivered sound effect.
type Result struct {
	ID          string
	Audio       []byte
	ContentType string
	Seconds     float64
	Credits     int64
	Recipes     []string
	Seed        uint64
}

// Generate makes a sound effect, charged per second delivered, kept in the caller's history.
// The charge is reserved in the same transaction as the quota check; a failure refunds it and
// keeps nothing.
func (s *Service) Generate(ctx context.Context, c *access.Caller, r *Request) (*Result, error) {
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	if need := audio.RequiresTier(r.Format); need != "" && !plan.AtLeast(tier.ID, need) {
		return nil, errs.Errorf(errs.Forbidden, "only_for_"+need+"+", "The output format %s needs the %s plan or above.", r.Format.Name, plan.Get(need).Name)
	}
	est := s.Engine.Estimate(r)
	credits := plan.SFXCredits(tier, est)
	var rsv *metering.Reservation
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		rsv, err = metering.ReserveAudio(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: r.ModelID,
			Product: metering.SFX, Credits: credits, Allowance: tier.CharacterLimit,
		}, est, 1, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &Result{ID: store.NewID(), ContentType: r.Format.ContentType(), Seed: r.Seed}
	key := "sfx/" + c.WorkspaceID + "/" + res.ID + "." + r.Format.Ext()
	out, err := s.Engine.Make(ctx, r)
	if err == nil {
		res.Seconds, res.Recipes = out.Seconds(), out.Recipes
		res.Audio, err = audio.Encode(ctx, out.Samples, out.SampleRate, r.Format)
	}
	if err == nil {
		err = s.Blob.Put(ctx, key, res.Audio, res.ContentType)
	}
	if err != nil {
		_ = metering.RefundAlone(context.Background(), s.DB, rsv, s.now())
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var e *errs.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, errs.Errorf(errs.Upstream, "sound_generation_failed", "The sound effect could not be made: %v", err)
	}
	// Delivered: charge what was made (never more than reserved) and keep it in the history.
	units := metering.AudioUnits(res.Seconds, 1)
	res.Credits = min(credits, plan.SFXCredits(tier, res.Seconds))
	st := Settings{Loop: r.Loop, PromptInfluence: r.Influence, ModelID: r.ModelID, Seed: r.Seed,
		OutputFormat: r.Format.Name, Engine: s.Engine.Name(), Recipes: res.Recipes}
	if r.Duration > 0 {
		d := r.Duration
		st.DurationSeconds = &d
	}
	raw, _ := json.Marshal(st)
	ctx = context.WithoutCancel(ctx)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, rsv, units, res.Credits, s.now()); err != nil {
			return err
		}
		return tx.InsertSoundGeneration(ctx, &store.SoundGeneration{
			ID: res.ID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Text: r.Text,
			Settings: string(raw), Format: r.Format.Name, DurationSecs: res.Seconds, BlobKey: key, CreatedAt: s.now().Unix(),
		})
	})
	if err != nil {
		_ = s.Blob.Delete(ctx, key)
		_ = metering.RefundAlone(ctx, s.DB, rsv, s.now())
		return nil, err
	}
	return res, nil
}

// Procedural is the embedded engine (Generate).
type Procedural struct{}

func (Procedural) Name() string { return "procedural" }

func (Procedural) Estimate(r *Request) float64 {
	if r.Duration > 0 {
		return r.Duration
	}
	d := AutoDuration(Parse(r.Text))
	if r.Loop {
		d = max(d, 4)
	}
	return d
}

func (Procedural) Make(ctx context.Context, r *Request) (*Render, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Generate(Options{Text: r.Text, Duration: r.Duration, Loop: r.Loop, Influence: r.Influence, Seed: r.Seed}), nil
}

// Item is one entry of GET /v1/sound-generation/history (shaped like the API's audio-isolation
// history items, with the sound-generation history item id the spec names).
type Item struct {
	ID              string   `json:"sound_generation_history_item_id"`
	Text            string   `json:"text"`
	Settings        Settings `json:"settings"`
	DurationSeconds float64  `json:"duration_seconds"`
	Format          string   `json:"format"`
	ContentType     string   `json:"content_type"`
	CreatedAtUnix   int64    `json:"created_at_unix"`
	DownloadURL     string   `json:"download_url"`
}

// Page is the history response.
type Page struct {
	Items   []Item `json:"items"`
	HasMore bool   `json:"has_more"`
}

// DownloadPath is where a sound effect's audio is served (GET, authenticated).
func DownloadPath(id string) string { return "/v1/sound-generation/history/" + id + "/audio" }

// History lists the caller's own sound effects, newest first.
func (s *Service) History(ctx context.Context, c *access.Caller, page, pageSize int, search string) (*Page, error) {
	rows, more, err := s.DB.ListSoundGenerations(ctx, c.WorkspaceID, store.SoundFilter{
		UserID: c.UserID, Search: search, Offset: (page - 1) * pageSize, Limit: pageSize,
	})
	if err != nil {
		return nil, err
	}
	out := &Page{Items: make([]Item, 0, len(rows)), HasMore: more}
	for _, r := range rows {
		it := Item{ID: r.ID, Text: r.Text, DurationSeconds: r.DurationSecs, Format: r.Format, CreatedAtUnix: r.CreatedAt, DownloadURL: DownloadPath(r.ID)}
		_ = json.Unmarshal([]byte(r.Settings), &it.Settings)
		if it.Settings.Recipes == nil {
			it.Settings.Recipes = []string{}
		}
		if f, err := audio.ParseFormat(r.Format); err == nil {
			it.ContentType = f.ContentType()
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// kept reaches, reads and deletes sound effects: the caller's own, or any of the workspace's for an admin.
func (s *Service) kept() kept.Items[*store.SoundGeneration] {
	return kept.Items[*store.SoundGeneration]{Find: s.DB.SoundGeneration, Remove: s.DB.DeleteSoundGeneration, Blob: s.Blob, NotFound: errNotFound}
}

// Audio returns the audio of one of the caller's sound effects and its content type.
func (s *Service) Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error) {
	return s.kept().Audio(ctx, c, id)
}

// Delete removes one of the caller's sound effects and its audio.
func (s *Service) Delete(ctx context.Context, c *access.Caller, id string) error {
	return s.kept().Delete(ctx, c, id)
}

var errNotFound = errs.New(errs.NotFound, "history_item_not_found", "Sound generation history item not found.")

// seedFor is a fresh seed when the request names none.
func seedFor(now time.Time, n uint64) uint64 {
	r := newRNG(uint64(now.UnixNano()) ^ n*0x9e3779b97f4a7c15)
	return r.u64() >> 33 // small enough to show and type back (fits JSON numbers exactly)
}

// durationOK says whether d is a duration the API accepts.
func durationOK(d float64) bool {
	return !math.IsNaN(d) && d >= MinDuration && d <= MaxDuration
}
