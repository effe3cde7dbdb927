package music

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/kept"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Store is what the music service needs of the database.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	Song(ctx context.Context, workspaceID, id string) (*store.Song, error)
	ListSongs(ctx context.Context, workspaceID string, f store.SongFilter) ([]store.Song, bool, error)
	DeleteSong(ctx context.Context, workspaceID, id string) (*store.Song, error)
	LedgerProgress(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) error
}

// Blobs keeps the songs' audio.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Song is what an engine is asked to play.
type Song struct {
	Plan   *Plan
	Seed   uint32
	Prompt string
	Model  string
}

// Engine plays composition plans.
type Engine interface {
	// Name is kept with each song ("fluidsynth", or the remote engine's).
	Name() string
	// Sings says whether the engine can sing a plan's lines.
	Sings() bool
	// Compose writes the song's audio in format f to w as it is made.
	Compose(ctx context.Context, s *Song, f audio.Format, w io.Writer) error
}

// Offline is the embedded engine: algorithmic composition played on the General MIDI soundfont,
// lyrics sung by Singer (none: lyrics are refused).
type Offline struct {
	SoundFont string
	Singer    *Singer
}

func (Offline) Name() string  { return "fluidsynth" }
func (o Offline) Sings() bool { return o.Singer != nil }

func (o Offline) Compose(ctx context.Context, s *Song, f audio.Format, w io.Writer) error {
	sf := o.SoundFont
	if sf == "" {
		sf = SoundFont
	}
	enc, err := audio.NewStreamEncoder(ctx, SampleRate, f, w)
	if err != nil {
		return err
	}
	sc := Compose(Derive(s.Plan), uint64(s.Seed))
	sc.Singer = o.Singer
	err = RenderWith(ctx, sf, sc, enc.Write)
	if cerr := enc.Close(); err == nil {
		err = cerr
	}
	return err
}

// WordTimestamp is when a sung word sounds (the API's WordTimestamp).
type WordTimestamp struct {
	Word    string `json:"word"`
	StartMs int    `json:"start_ms"`
	EndMs   int    `json:"end_ms"`
}

// Words are the sung words' times: where the composer places them on the melody (the same
// placement the song is played with).
func (o Offline) Words(s *Song) []WordTimestamp {
	if o.Singer == nil || !s.Plan.HasLyrics() {
		return []WordTimestamp{}
	}
	sc := Compose(Derive(s.Plan), uint64(s.Seed))
	out := make([]WordTimestamp, 0, len(sc.sung))
	for _, w := range sc.sung {
		out = append(out, WordTimestamp{Word: w.text, StartMs: w.at * 1000 / SampleRate, EndMs: w.end * 1000 / SampleRate})
	}
	return out
}

// Service composes songs for workspaces.
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

// Request is one composition, as the API's body and query give it.
type Request struct {
	Prompt            string
	Plan              *Plan
	LengthMs          int // 0: from the prompt, else DefaultLengthMs
	Seed              *int64
	ForceInstrumental bool
	LyricsText        string
	ModelID           string
	Format            audio.Format
	WithTimestamps    bool // detailed: the sung words' times
}

// Metadata is the API's SongMetadata.
type Metadata struct {
	Title       *string  `json:"title"`
	Description *string  `json:"description"`
	Genres      []string `json:"genres"`
	Languages   []string `json:"languages"`
	IsExplicit  *bool    `json:"is_explicit"`
}

// Job is a charged composition, ready to run (see Begin).
type Job struct {
	ID          string
	ContentType string
	Credits     int64
	Plan        *Plan
	Metadata    Metadata
	FileName    string
	// Words are the sung words' times when asked for (with_timestamps) and the engine knows
	// them; nil otherwise.
	Words []WordTimestamp

	svc   *Service
	song  *Song
	f     audio.Format
	res   *metering.Reservation
	row   *store.Song
	units int64
}

func planError(path []any, msg string) error {
	return &errs.Validation{Fields: []errs.FieldError{{Loc: append([]any{"body", "composition_plan"}, path...), Msg: msg, Type: "value_error"}}}
}

// errNoSinging is the 422 for lyrics the engine cannot sing.
func errNoSinging(loc ...any) error {
	return &errs.Validation{Fields: []errs.FieldError{{Loc: loc, Type: "value_error",
		Msg: "Timbre's offline music engine is instrumental (generated MIDI played on a General MIDI soundfont): it cannot sing lyrics. " +
			"Remove the lyrics, set force_instrumental, or configure a neural music engine (TIMBRE_MUSIC_URL)."}}}
}

// Plan makes the composition plan for a request: the given one, or one written from the prompt.
// A plan the engine cannot play (lyrics on the offline engine) is a 422 naming the field.
func (s *Service) Plan(r *Request) (*Plan, error) {
	if r.Plan != nil {
		p := *r.Plan
		p.Normalize()
		if path, msg := Validate(&p); path != nil {
			return nil, planError(path, msg)
		}
		if !s.Engine.Sings() && p.HasLyrics() {
			for i, sec := range p.Sections {
				for j, l := range sec.Lines {
					if strings.TrimSpace(l) != "" {
						return nil, errNoSinging("body", "composition_plan", "sections", i, "lines", j)
					}
				}
			}
		}
		return &p, nil
	}
	lyrics := strings.TrimSpace(r.LyricsText) != "" && !r.ForceInstrumental
	if lyrics && !s.Engine.Sings() {
		return nil, errNoSinging("body", "lyrics_text")
	}
	p := PlanFromPrompt(r.Prompt, r.LengthMs)
	if lyrics {
		withLyrics(p, r.LyricsText)
	}
	return p, nil
}

// withLyrics spreads lyrics over a plan's sections that carry the melody (not the intro or
// outro), in order, a share of the lines each; "[Verse]" headings are dropped. The plan is then
// no longer instrumental.
func withLyrics(p *Plan, text string) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			continue
		}
		if len([]rune(l)) > MaxLineChars {
			l = string([]rune(l)[:MaxLineChars])
		}
		lines = append(lines, l)
	}
	var sung []int
	for i, s := range p.Sections {
		if r := role(s.SectionName, i, len(p.Sections)); r != "intro" && r != "outro" {
			sung = append(sung, i)
		}
	}
	if len(sung) == 0 {
		for i := range p.Sections {
			sung = append(sung, i)
		}
	}
	for k, i := range sung {
		a, b := k*len(lines)/len(sung), (k+1)*len(lines)/len(sung)
		p.Sections[i].Lines = append([]string{}, lines[a:min(b, a+MaxLines)]...)
	}
	keep := func(styles []string, drop string) []string {
		out := []string{}
		for _, s := range styles {
			if s != drop {
				out = append(out, s)
			}
		}
		return out
	}
	p.PositiveGlobalStyles = append(keep(p.PositiveGlobalStyles, "instrumental"), "vocals")
	p.NegativeGlobalStyles = keep(p.NegativeGlobalStyles, "vocals")
}

// Begin plans the song and reserves its charge: invalid input is a 4xx that charges and stores
// nothing. The caller must Run the job (which settles the charge).
func (s *Service) Begin(ctx context.Context, c *access.Caller, r *Request) (*Job, error) {
	p, err := s.Plan(r)
	if err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	if need := audio.RequiresTier(r.Format); need != "" && !plan.AtLeast(tier.ID, need) {
		return nil, errs.Errorf(errs.Forbidden, "only_for_"+need+"+", "The output format %s needs the %s plan or above.", r.Format.Name, plan.Get(need).Name)
	}
	var seed uint32
	if r.Seed != nil {
		seed = uint32(*r.Seed)
	} else {
		seed = uint32(rand.Int32()) // kept with the song: it can be played again
	}
	planJSON, _ := json.Marshal(p)
	ms := p.DurationMs()
	j := &Job{ID: store.NewID(), ContentType: r.Format.ContentType(), Plan: p, svc: s, f: r.Format,
		song: &Song{Plan: p, Seed: seed, Prompt: r.Prompt, Model: r.ModelID}, Credits: plan.MusicCredits(ms)}
	j.Metadata = metadata(p, r.Prompt, ms)
	if w, ok := s.Engine.(interface{ Words(*Song) []WordTimestamp }); ok && r.WithTimestamps {
		j.Words = w.Words(j.song)
	}
	j.FileName = fileName(*j.Metadata.Title, r.Format)
	j.units = metering.AudioUnits(float64(ms)/1000, 1)
	j.row = &store.Song{ID: j.ID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Title: *j.Metadata.Title,
		Prompt: r.Prompt, PlanJSON: string(planJSON), Seed: int64(seed), Engine: s.Engine.Name(), Format: r.Format.Name,
		DurationMs: int64(ms), Credits: j.Credits, CreatedAt: s.now().Unix(),
		BlobKey: "music/" + c.WorkspaceID + "/" + j.ID + "." + r.Format.Ext()}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		j.res, err = metering.ReserveAudio(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: r.ModelID,
			Product: metering.Music, Credits: j.Credits, Allowance: tier.CharacterLimit,
		}, float64(ms)/1000, 1, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Run plays the song, writing the audio to w as it is made (w may be nil), keeps it in the blob
// store and the member's music history, and commits the charge in the transaction that adds the
// row. Any failure (the client leaving included) refunds the charge and keeps nothing.
func (j *Job) Run(ctx context.Context, w io.Writer) error {
	s := j.svc
	var kept bytes.Buffer
	dst := io.Writer(&kept)
	if w != nil {
		dst = io.MultiWriter(&kept, w)
	}
	err := func() error {
		defer metering.KeepAlive(ctx, s.DB, j.res, s.now)()
		return s.Engine.Compose(ctx, j.song, j.f, dst)
	}()
	if err == nil {
		err = s.Blob.Put(ctx, j.row.BlobKey, kept.Bytes(), j.ContentType)
	}
	if err != nil {
		s.refund(j.res)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errs.Errorf(errs.Upstream, "music_generation_failed", "The music engine failed: %v", err)
	}
	ctx = context.WithoutCancel(ctx)
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, j.res, j.units, j.Credits, s.now()); err != nil {
			return err
		}
		return tx.InsertSong(ctx, j.row)
	})
	if err != nil {
		_ = s.Blob.Delete(ctx, j.row.BlobKey)
		s.refund(j.res)
	}
	return err
}

func (s *Service) refund(res *metering.Reservation) {
	_ = metering.RefundAlone(context.Background(), s.DB, res, s.now())
}

// Compose is Begin and Run with the whole audio returned.
func (s *Service) Compose(ctx context.Context, c *access.Caller, r *Request) (*Job, []byte, error) {
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

// metadata describes a song from its plan, as the composer reads it.
func metadata(p *Plan, prompt string, ms int) Metadata {
	prm := Derive(p)
	title := titleFrom(prompt)
	if title == "" {
		title = fmt.Sprintf("%s in %s", capitalize(prm.Genre.Name), KeyName(prm.Root, prm.Minor))
	}
	desc := fmt.Sprintf("A %d-second %s piece in %s at %.0f bpm, in %d sections (%s); composed algorithmically and played on a General MIDI soundfont.",
		(ms+500)/1000, prm.Genre.Name, KeyName(prm.Root, prm.Minor), prm.BPM, len(p.Sections), sectionNames(p))
	langs := []string{}
	if p.HasLyrics() {
		langs = append(langs, "en")
	}
	explicit := false
	return Metadata{Title: &title, Description: &desc, Genres: []string{prm.Genre.Name}, Languages: langs, IsExplicit: &explicit}
}

func sectionNames(p *Plan) string {
	names := make([]string, len(p.Sections))
	for i, s := range p.Sections {
		names[i] = s.SectionName
	}
	return strings.Join(names, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// titleFrom is a song title from the first words of a prompt.
func titleFrom(prompt string) string {
	words := strings.Fields(prompt)
	if len(words) == 0 {
		return ""
	}
	if len(words) > 8 {
		words = append(words[:8], "…")
	}
	return capitalize(strings.TrimRight(strings.Join(words, " "), ".,;:"))
}

func fileName(title string, f audio.Format) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "song"
	}
	return name + "." + f.Ext()
}

// Item is one entry of GET /v1/music/history.
type Item struct {
	SongID          string  `json:"song_id"`
	Title           string  `json:"title"`
	Prompt          *string `json:"prompt"`
	CompositionPlan *Plan   `json:"composition_plan"`
	Seed            int64   `json:"seed"`
	Engine          string  `json:"engine"`
	DurationMs      int64   `json:"duration_ms"`
	OutputFormat    string  `json:"output_format"`
	CharacterCost   int64   `json:"character_cost"`
	CreatedAtUnix   int64   `json:"created_at_unix"`
	DownloadURL     string  `json:"download_url"`
}

// Page is the history response.
type Page struct {
	Items   []Item `json:"items"`
	HasMore bool   `json:"has_more"`
}

// DownloadPath is where a song's audio is served (GET, authenticated).
func DownloadPath(id string) string { return "/v1/music/history/" + id + "/audio" }

// History lists the caller's own songs, newest first.
func (s *Service) History(ctx context.Context, c *access.Caller, page, pageSize int, search string) (*Page, error) {
	rows, more, err := s.DB.ListSongs(ctx, c.WorkspaceID, store.SongFilter{UserID: c.UserID, Search: search, Offset: (page - 1) * pageSize, Limit: pageSize})
	if err != nil {
		return nil, err
	}
	out := &Page{Items: make([]Item, 0, len(rows)), HasMore: more}
	for _, r := range rows {
		it := Item{SongID: r.ID, Title: r.Title, Seed: r.Seed, Engine: r.Engine, DurationMs: r.DurationMs, OutputFormat: r.Format,
			CharacterCost: r.Credits, CreatedAtUnix: r.CreatedAt, DownloadURL: DownloadPath(r.ID)}
		if r.Prompt != "" {
			it.Prompt = &r.Prompt
		}
		var p Plan
		if json.Unmarshal([]byte(r.PlanJSON), &p) == nil {
			p.Normalize()
			it.CompositionPlan = &p
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// kept reaches, reads and deletes songs: the caller's own, or any of the workspace's for an admin.
func (s *Service) kept() kept.Items[*store.Song] {
	return kept.Items[*store.Song]{Find: s.DB.Song, Remove: s.DB.DeleteSong, Blob: s.Blob, NotFound: errNotFound}
}

// Audio returns one of the caller's songs and its content type.
func (s *Service) Audio(ctx context.Context, c *access.Caller, id string) ([]byte, string, error) {
	return s.kept().Audio(ctx, c, id)
}

// Delete removes one of the caller's songs and its audio.
func (s *Service) Delete(ctx context.Context, c *access.Caller, id string) error {
	return s.kept().Delete(ctx, c, id)
}

var errNotFound = errs.New(errs.NotFound, "song_not_found", "Song not found.")
