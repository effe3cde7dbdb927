package music

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Handlers serves the music routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// DefaultMaxBody bounds a music request body: 30 sections of 30 lines of 200 characters and
// their styles fit well within it.
const DefaultMaxBody = 1 << 20

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	perm, feature := httpx.Perm("music_generation"), httpx.Feature("music")
	rt.Authed("POST /v1/music", h.compose(modePlain), perm, feature)
	rt.Authed("POST /v1/music/stream", h.compose(modeStream), perm, feature)
	rt.Authed("POST /v1/music/detailed", h.compose(modeDetailed), perm, feature)
	rt.Authed("POST /v1/music/detailed/stream", h.compose(modeEvents), perm, feature)
	rt.Authed("POST /v1/music/plan", h.plan, perm, feature)
	httpx.KeptRoutes(rt, "/v1/music", "song_id", h.Svc, perm, feature)
}

func (h *Handlers) limit() int64 {
	if h.MaxBody > 0 {
		return min(h.MaxBody, DefaultMaxBody)
	}
	return DefaultMaxBody
}

type mode int

const (
	modePlain mode = iota
	modeStream
	modeDetailed
	modeEvents // detailed/stream: server-sent events
)

// body is the compose routes' JSON body (the API's Body_Compose_music_v1_music_post and its
// stream and detailed variants).
type body struct {
	Prompt                   *string         `json:"prompt"`
	CompositionPlan          json.RawMessage `json:"composition_plan"`
	MusicPrompt              json.RawMessage `json:"music_prompt"` // deprecated name of composition_plan
	MusicLengthMs            *int            `json:"music_length_ms"`
	ModelID                  *string         `json:"model_id"`
	Seed                     *int64          `json:"seed"`
	ForceInstrumental        bool            `json:"force_instrumental"`
	LyricsText               *string         `json:"lyrics_text"`
	GenerationMode           *string         `json:"generation_mode"`
	FinetuneID               *string         `json:"finetune_id"`
	FinetuneStrength         *float64        `json:"finetune_strength"`
	RespectSectionsDurations *bool           `json:"respect_sections_durations"`
	StoreForInpainting       bool            `json:"store_for_inpainting"`
	SignWithC2PA             bool            `json:"sign_with_c2pa"`
	WithTimestamps           bool            `json:"with_timestamps"`
}

var models = []string{"music_v1", "music_v2"}

func isNull(m json.RawMessage) bool { return len(m) == 0 || string(bytes.TrimSpace(m)) == "null" }

// parsePlan reads a composition plan: the MusicPrompt shape (sections), or the music_v2
// CompositionPlan shape (chunks), which is turned into sections.
func parsePlan(raw json.RawMessage, field string) (*Plan, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, errs.Field("body", field, "type_error", "Input should be a composition plan object.")
	}
	if _, ok := probe["chunks"]; ok {
		var cp struct {
			Chunks []struct {
				Text           string   `json:"text"`
				DurationMs     int      `json:"duration_ms"`
				PositiveStyles []string `json:"positive_styles"`
				NegativeStyles []string `json:"negative_styles"`
			} `json:"chunks"`
		}
		if err := json.Unmarshal(raw, &cp); err != nil {
			return nil, errs.Field("body", field, "type_error", "Input should be a composition plan: "+err.Error())
		}
		p := &Plan{}
		for i, c := range cp.Chunks {
			s := Section{SectionName: fmt.Sprintf("Part %d", i+1), DurationMs: c.DurationMs, PositiveLocalStyles: c.PositiveStyles, NegativeLocalStyles: c.NegativeStyles}
			for _, line := range strings.Split(c.Text, "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
					if name := strings.TrimSpace(line[1 : len(line)-1]); name != "" {
						s.SectionName = name
					}
					continue
				}
				if line = strings.TrimSpace(stripBraces(line)); line != "" {
					s.Lines = append(s.Lines, line)
				}
			}
			if i == 0 { // the first chunk's styles set the song's direction
				p.PositiveGlobalStyles, p.NegativeGlobalStyles = c.PositiveStyles, c.NegativeStyles
			}
			p.Sections = append(p.Sections, s)
		}
		return p, nil
	}
	for _, k := range []string{"positive_global_styles", "negative_global_styles", "sections"} {
		if _, ok := probe[k]; !ok {
			return nil, &errs.Validation{Fields: []errs.FieldError{{Loc: []any{"body", field, k}, Msg: "Field required.", Type: "missing"}}}
		}
	}
	var p Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, errs.Field("body", field, "type_error", "Input should be a composition plan: "+err.Error())
	}
	return &p, nil
}

// stripBraces removes inline directions ({very loud}) from a lyric line.
func stripBraces(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (h *Handlers) parse(r *http.Request, detailed bool) (*Request, error) {
	var b body
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return nil, err
	}
	var v errs.Validator
	q := r.URL.Query()
	format := httpx.OutputFormat(q, &v, audio.AutoFormat, audio.MusicFormats)
	req := &Request{Format: format, ForceInstrumental: b.ForceInstrumental, ModelID: "music_v1", Seed: b.Seed, WithTimestamps: detailed && b.WithTimestamps}
	raw := b.CompositionPlan
	planField := "composition_plan"
	if isNull(raw) && !isNull(b.MusicPrompt) {
		raw, planField = b.MusicPrompt, "music_prompt"
	}
	hasPlan := !isNull(raw)
	switch {
	case b.Prompt != nil && hasPlan:
		v.Add("body", "composition_plan", "value_error", "Send either prompt or composition_plan, not both.")
	case b.Prompt == nil && !hasPlan:
		v.Add("body", "prompt", "missing", "Field required: send a prompt or a composition_plan.")
	case b.Prompt != nil && strings.TrimSpace(*b.Prompt) == "":
		v.Add("body", "prompt", "value_error", "The prompt is empty.")
	case b.Prompt != nil && utf8.RuneCountInString(*b.Prompt) > MaxPromptChars:
		v.Add("body", "prompt", "string_too_long", fmt.Sprintf("The prompt has at most %d characters.", MaxPromptChars))
	}
	if b.Prompt != nil {
		req.Prompt = strings.TrimSpace(*b.Prompt)
	}
	if b.MusicLengthMs != nil {
		switch n := *b.MusicLengthMs; {
		case hasPlan:
			v.Add("body", "music_length_ms", "value_error", "music_length_ms is used only with prompt: a composition plan's sections set the length.")
		case n < MinLengthMs || n > MaxLengthMs:
			v.Add("body", "music_length_ms", "value_error", fmt.Sprintf("The length must be between %d and %d ms.", MinLengthMs, MaxLengthMs))
		default:
			req.LengthMs = n
		}
	}
	if b.ModelID != nil {
		if !slices.Contains(models, *b.ModelID) {
			v.Add("body", "model_id", "enum", "Input should be 'music_v1' or 'music_v2'.")
		}
		req.ModelID = *b.ModelID
	}
	if b.Seed != nil && (*b.Seed < 0 || *b.Seed > 2147483647) {
		v.Add("body", "seed", "value_error", "The seed must be between 0 and 2147483647.")
	}
	if b.ForceInstrumental && hasPlan {
		v.Add("body", "force_instrumental", "value_error", "force_instrumental can only be used with prompt (a plan without lines is instrumental).")
	}
	if b.LyricsText != nil {
		req.LyricsText = *b.LyricsText
		if utf8.RuneCountInString(*b.LyricsText) > MaxLyricsChars {
			v.Add("body", "lyrics_text", "string_too_long", fmt.Sprintf("The lyrics have at most %d characters.", MaxLyricsChars))
		}
	}
	if b.GenerationMode != nil && !slices.Contains([]string{"track", "loop", "ambience", "video_to_music"}, *b.GenerationMode) {
		v.Add("body", "generation_mode", "enum", "Input should be 'track', 'loop', 'ambience' or 'video_to_music'.")
	}
	if b.FinetuneID != nil && *b.FinetuneID != "" {
		v.Add("body", "finetune_id", "value_error", "This server has no music finetunes.")
	}
	if b.FinetuneStrength != nil && (*b.FinetuneStrength <= 0 || *b.FinetuneStrength > 2) {
		v.Add("body", "finetune_strength", "value_error", "finetune_strength must be greater than 0 and at most 2.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if hasPlan {
		p, err := parsePlan(raw, planField)
		if err != nil {
			return nil, err
		}
		req.Plan = p
	}
	return req, nil
}

func (h *Handlers) compose(m mode) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := h.parse(r, m == modeDetailed || m == modeEvents)
		if err != nil {
			return err
		}
		c := access.CallerFrom(r.Context())
		if m == modePlain {
			j, data, err := h.Svc.Compose(r.Context(), c, req)
			if err != nil {
				return err
			}
			setHeaders(w, j, j.ContentType)
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			_, _ = w.Write(data)
			return nil
		}
		j, err := h.Svc.Begin(r.Context(), c, req)
		if err != nil {
			return err
		}
		out := &responseStart{w: w}
		if m == modeStream {
			setHeaders(w, j, j.ContentType)
			if err := j.Run(r.Context(), out); err != nil && !out.started {
				return err
			}
			return nil // once audio went out, a failure can only end the stream early
		}
		if m == modeEvents {
			return h.events(w, r, j, out)
		}
		// detailed: multipart/mixed, the JSON part (plan and metadata, known before the song is
		// played) first, then the audio part as it is made (the official SDK's parser expects
		// the JSON on one line right after the part's headers).
		mw := multipart.NewWriter(out)
		setHeaders(w, j, "multipart/mixed; boundary="+mw.Boundary())
		meta, _ := json.Marshal(map[string]any{"composition_plan": j.Plan, "song_metadata": j.Metadata, "words_timestamps": j.Words})
		jp, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/json"}})
		_, _ = jp.Write(meta)
		ap, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {j.ContentType},
			"Content-Disposition": {fmt.Sprintf(`attachment; filename="%s"`, j.FileName)}})
		if err := j.Run(r.Context(), ap); err != nil {
			return nil // the parts already went out: the response can only end early
		}
		_ = mw.Close()
		return nil
	}
}

// events answers detailed/stream with server-sent events, each a JSON object with its type:
// composition_plan, song_metadata, then audio_chunk events (base64 audio as it is made; the first
// carries words_timestamps when asked for and known), and done (or error, once audio went out).
func (h *Handlers) events(w http.ResponseWriter, r *http.Request, j *Job, out *responseStart) error {
	setHeaders(w, j, "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(typ string, fields map[string]any) error {
		fields["type"] = typ
		data, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "event: %s\ndata: %s\n\n", typ, data)
		return err
	}
	_ = send("composition_plan", map[string]any{"composition_plan": j.Plan})
	_ = send("song_metadata", map[string]any{"song_metadata": j.Metadata})
	first := true
	err := j.Run(r.Context(), writerFunc(func(p []byte) (int, error) {
		ev := map[string]any{"audio_base64": base64.StdEncoding.EncodeToString(p)}
		if first && j.Words != nil {
			ev["words_timestamps"] = j.Words
		}
		first = false
		if err := send("audio_chunk", ev); err != nil {
			return 0, err
		}
		return len(p), nil
	}))
	if err != nil {
		_ = send("error", map[string]any{"message": "The song could not be finished."})
		return nil
	}
	_ = send("done", map[string]any{"song_id": j.ID})
	return nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func setHeaders(w http.ResponseWriter, j *Job, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("song-id", j.ID)
	w.Header().Set("history-item-id", j.ID)
	w.Header().Set("character-cost", strconv.FormatInt(j.Credits, 10))
}

// responseStart is the response as the encoder's writer: it remembers whether any audio went
// out (after which an error can no longer be answered as JSON) and flushes every write.
type responseStart struct {
	w       http.ResponseWriter
	started bool
}

func (r *responseStart) Write(p []byte) (int, error) {
	r.started = true
	n, err := r.w.Write(p)
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
	return n, err
}

// planBody is POST /v1/music/plan's body.
type planBody struct {
	Prompt                *string         `json:"prompt"`
	MusicLengthMs         *int            `json:"music_length_ms"`
	SourceCompositionPlan json.RawMessage `json:"source_composition_plan"`
	ModelID               *string         `json:"model_id"`
}

// plan writes a composition plan for a prompt (free: nothing is played). With a source plan, its
// sections (and lines) are kept, and the prompt's styles lead its global ones; a length given
// with it rescales the sections.
func (h *Handlers) plan(w http.ResponseWriter, r *http.Request) error {
	var b planBody
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return err
	}
	var v errs.Validator
	switch {
	case b.Prompt == nil:
		v.Add("body", "prompt", "missing", "Field required.")
	case strings.TrimSpace(*b.Prompt) == "":
		v.Add("body", "prompt", "value_error", "The prompt is empty.")
	case utf8.RuneCountInString(*b.Prompt) > MaxPromptChars:
		v.Add("body", "prompt", "string_too_long", fmt.Sprintf("The prompt has at most %d characters.", MaxPromptChars))
	}
	length := 0
	if b.MusicLengthMs != nil {
		if n := *b.MusicLengthMs; n < MinLengthMs || n > MaxLengthMs {
			v.Add("body", "music_length_ms", "value_error", fmt.Sprintf("The length must be between %d and %d ms.", MinLengthMs, MaxLengthMs))
		}
		length = *b.MusicLengthMs
	}
	if b.ModelID != nil && !slices.Contains(models, *b.ModelID) {
		v.Add("body", "model_id", "enum", "Input should be 'music_v1' or 'music_v2'.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	p := PlanFromPrompt(*b.Prompt, length)
	if !isNull(b.SourceCompositionPlan) {
		src, err := parsePlan(b.SourceCompositionPlan, "source_composition_plan")
		if err != nil {
			return err
		}
		src.Normalize()
		if path, msg := Validate(src); path != nil {
			return &errs.Validation{Fields: []errs.FieldError{{Loc: append([]any{"body", "source_composition_plan"}, path...), Msg: msg, Type: "value_error"}}}
		}
		p.PositiveGlobalStyles = dedupe(append(p.PositiveGlobalStyles, src.PositiveGlobalStyles...))
		p.NegativeGlobalStyles = dedupe(append(p.NegativeGlobalStyles, src.NegativeGlobalStyles...))
		p.Sections = src.Sections
		if length > 0 {
			rescale(p, length)
		}
	}
	p.Normalize()
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

// rescale stretches a plan's sections to last ms in all (each kept within the section limits;
// the last takes the remainder).
func rescale(p *Plan, ms int) {
	total := p.DurationMs()
	used := 0
	for i := range p.Sections {
		if i == len(p.Sections)-1 {
			p.Sections[i].DurationMs = min(max(ms-used, MinSectionMs), MaxSectionMs)
			break
		}
		d := p.Sections[i].DurationMs * ms / total
		p.Sections[i].DurationMs = min(max(d, MinSectionMs), MaxSectionMs)
		used += p.Sections[i].DurationMs
	}
}
