package sfx

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Handlers serves the sound-effect routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Response headers of POST /v1/sound-generation beyond the API's character-cost.
const (
	HeaderRecipes = "x-timbre-sfx-recipes" // the recipes used, comma-separated ("remote" for the HTTP engine)
	HeaderSeed    = "x-timbre-sfx-seed"    // the seed used (send it back as seed to repeat the sound)
)

// ExposedHeaders are the response headers browsers on other origins may read.
var ExposedHeaders = []string{HeaderRecipes, HeaderSeed}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature, perm := httpx.Feature("sound_effects"), httpx.Perm("sound_generation")
	rt.Authed("POST /v1/sound-generation", h.generate, perm, feature)
	httpx.KeptRoutes(rt, "/v1/sound-generation", "history_item_id", h.Svc, perm, feature)
	rt.Authed("GET /v1/sound-generation/explore", h.explore, perm, feature)
	rt.Authed("GET /v1/sound-generation/explore/{prompt_id}/audio", h.preview, perm, feature)
}

// body is Body_Sound_Generation_v1_sound_generation_post, plus Timbre's seed.
type body struct {
	Text            *string  `json:"text"`
	Loop            *bool    `json:"loop"`
	DurationSeconds *float64 `json:"duration_seconds"`
	PromptInfluence *float64 `json:"prompt_influence"`
	ModelID         *string  `json:"model_id"`
	Seed            *int64   `json:"seed"`
}

// maxSeed keeps seeds exact as JSON numbers.
const maxSeed = 1<<53 - 1

func (h *Handlers) parse(r *http.Request) (*Request, error) {
	var v errs.Validator
	format := httpx.OutputFormat(r.URL.Query(), &v, audio.DefaultFormat, audio.StreamingFormats)
	if err := v.Err(); err != nil {
		return nil, err
	}
	var b body
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return nil, err
	}
	req := &Request{Format: format, Influence: DefaultInfluence, ModelID: ModelID}
	switch {
	case b.Text == nil:
		v.Add("body", "text", "missing", "Field required.")
	case strings.TrimSpace(*b.Text) == "":
		v.Add("body", "text", "value_error", "The text must describe a sound (it is empty).")
	case utf8.RuneCountInString(*b.Text) > MaxText:
		v.Add("body", "text", "string_too_long", fmt.Sprintf("The text is %d characters long; at most %d are accepted.", utf8.RuneCountInString(*b.Text), MaxText))
	default:
		req.Text = strings.TrimSpace(*b.Text)
	}
	if b.Loop != nil {
		req.Loop = *b.Loop
	}
	if d := b.DurationSeconds; d != nil {
		if !durationOK(*d) {
			v.Add("body", "duration_seconds", "value_error", fmt.Sprintf("duration_seconds must be between %g and %g (or null to let the server choose).", MinDuration, MaxDuration))
		}
		req.Duration = *d
	}
	if p := b.PromptInfluence; p != nil {
		if math.IsNaN(*p) || *p < 0 || *p > 1 {
			v.Add("body", "prompt_influence", "value_error", "prompt_influence must be between 0 and 1.")
		}
		req.Influence = *p
	}
	if b.ModelID != nil && *b.ModelID != "" {
		if *b.ModelID != ModelID {
			v.Add("body", "model_id", "enum", fmt.Sprintf("Unknown model_id '%s'. Use %s.", *b.ModelID, ModelID))
		}
		req.ModelID = *b.ModelID
	}
	if b.Seed != nil {
		if *b.Seed < 0 || *b.Seed > maxSeed {
			v.Add("body", "seed", "value_error", fmt.Sprintf("seed must be an integer from 0 to %d.", int64(maxSeed)))
		}
		req.Seed, req.HasSeed = uint64(*b.Seed), true
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return req, nil
}

func (h *Handlers) generate(w http.ResponseWriter, r *http.Request) error {
	req, err := h.parse(r)
	if err != nil {
		return err
	}
	if !req.HasSeed {
		req.Seed = seedFor(h.Svc.now(), uint64(len(req.Text)))
	}
	res, err := h.Svc.Generate(r.Context(), access.CallerFrom(r.Context()), req)
	if err != nil {
		return err
	}
	recipes := "remote"
	if len(res.Recipes) > 0 {
		recipes = strings.Join(res.Recipes, ",")
	}
	w.Header().Set("Content-Type", res.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(res.Audio)))
	w.Header().Set("character-cost", strconv.FormatInt(res.Credits, 10))
	w.Header().Set("history-item-id", res.ID)
	w.Header().Set(HeaderRecipes, recipes)
	w.Header().Set(HeaderSeed, strconv.FormatUint(res.Seed, 10))
	_, _ = w.Write(res.Audio)
	return nil
}

func (h *Handlers) explore(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	cat := strings.TrimSpace(q.Get("category"))
	if cat != "" && !IsCategory(cat) {
		return errs.Field("query", "category", "enum", "Unknown category '"+cat+"'.")
	}
	search := q.Get("search")
	if utf8.RuneCountInString(search) > 200 {
		return errs.Field("query", "search", "string_too_long", "search is at most 200 characters.")
	}
	httpx.WriteJSON(w, http.StatusOK, Catalogue(cat, search))
	return nil
}

func (h *Handlers) preview(w http.ResponseWriter, r *http.Request) error {
	data, err := h.Svc.Preview(r.Context(), r.PathValue("prompt_id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "audio/mpeg")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("Cache-Control", "private, max-age=86400")
	_, _ = w.Write(data)
	return nil
}
