package voicedesign

import (
	"encoding/base64"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
	"timbre/internal/voice"
)

// Handlers serves the /v1/text-to-voice routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
	// Render is the voice routes' renderer of the API's Voice object (what a save returns).
	Render func(v *store.Voice, settings *voice.Resolved) voice.Voice
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature := httpx.Feature("voice_design")
	rt.Authed("POST /v1/text-to-voice/create-previews", h.design(MinDescription, DefaultGuidance, false), httpx.Perm("voices_write"), feature)
	rt.Authed("POST /v1/text-to-voice/design", h.design(MinDescription, DefaultGuidance, false), httpx.Perm("voices_write"), feature)
	rt.Authed("POST /v1/text-to-voice/{voice_id}/remix", h.design(MinRemixDescription, DefaultRemixGuidance, true), httpx.Perm("voices_write"), feature)
	rt.Authed("GET /v1/text-to-voice/{generated_voice_id}/stream", h.stream, httpx.Perm("voices_read"), feature)
	rt.Authed("POST /v1/text-to-voice", h.save, httpx.Perm("voices_write"), feature)
}

// designBody is the union of VoicePreviewsRequestModel, VoiceDesignRequestModel and
// VoiceRemixRequestModel: every field is accepted. Reference audio (with eleven_ttv_v3) is
// measured and blended with the description by prompt_strength; quality narrows or widens the
// previews' spread; should_enhance and the remixing sessions are validated and otherwise ignored
// (the parser reads the description as written).
type designBody struct {
	VoiceDescription           *string  `json:"voice_description"`
	ModelID                    *string  `json:"model_id"`
	Text                       *string  `json:"text"`
	AutoGenerateText           *bool    `json:"auto_generate_text"`
	Loudness                   *float64 `json:"loudness"`
	Quality                    *float64 `json:"quality"`
	Seed                       *int64   `json:"seed"`
	GuidanceScale              *float64 `json:"guidance_scale"`
	StreamPreviews             *bool    `json:"stream_previews"`
	ShouldEnhance              *bool    `json:"should_enhance"`
	RemixingSessionID          *string  `json:"remixing_session_id"`
	RemixingSessionIterationID *string  `json:"remixing_session_iteration_id"`
	ReferenceAudioBase64       *string  `json:"reference_audio_base64"`
	PromptStrength             *float64 `json:"prompt_strength"`
}

func (h *Handlers) design(minDesc int, guidance float64, remix bool) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var b designBody
		if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
			return err
		}
		req, err := b.request(r.URL.Query().Get("output_format"), minDesc, guidance)
		if err != nil {
			return err
		}
		c := access.CallerFrom(r.Context())
		var out *Previews
		if remix {
			out, err = h.Svc.Remix(r.Context(), c, r.PathValue("voice_id"), req)
		} else {
			out, err = h.Svc.Design(r.Context(), c, req)
		}
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

// request validates the body: 422 naming the field, nothing charged or stored.
func (b *designBody) request(outputFormat string, minDesc int, guidance float64) (Request, error) {
	var v errs.Validator
	req := Request{Loudness: DefaultLoudness, Guidance: guidance, Seed: b.Seed}
	desc := ""
	if b.VoiceDescription != nil {
		desc = strings.TrimSpace(*b.VoiceDescription)
	}
	switch n := utf8.RuneCountInString(desc); {
	case b.VoiceDescription == nil:
		v.Add("body", "voice_description", "missing", "Field required: describe the voice in voice_description.")
	case n < minDesc:
		v.Add("body", "voice_description", "string_too_short", "String should have at least "+strconv.Itoa(minDesc)+" characters.")
	case n > MaxDescription:
		v.Add("body", "voice_description", "string_too_long", "String should have at most 1000 characters.")
	}
	req.Description = desc
	if b.ModelID != nil && *b.ModelID != "eleven_multilingual_ttv_v2" && *b.ModelID != "eleven_ttv_v3" {
		v.Add("body", "model_id", "enum", "Input should be 'eleven_multilingual_ttv_v2' or 'eleven_ttv_v3'.")
	}
	auto := b.AutoGenerateText != nil && *b.AutoGenerateText
	if b.Text != nil && !auto {
		text := strings.TrimSpace(*b.Text)
		if n := utf8.RuneCountInString(text); n < MinText || n > MaxText {
			v.Add("body", "text", "string_length", "Text should have between 100 and 1000 characters (or set auto_generate_text).")
		}
		req.Text = text
	}
	unit := func(name string, p *float64, lo, hi float64) {
		if p != nil && (math.IsNaN(*p) || *p < lo || *p > hi) {
			v.Add("body", name, "value_error", "Input should be between "+strconv.FormatFloat(lo, 'f', -1, 64)+" and "+strconv.FormatFloat(hi, 'f', -1, 64)+".")
		}
	}
	unit("loudness", b.Loudness, -1, 1)
	unit("quality", b.Quality, -1, 1)
	unit("guidance_scale", b.GuidanceScale, 0, 100)
	unit("prompt_strength", b.PromptStrength, 0, 1)
	if b.Loudness != nil {
		req.Loudness = *b.Loudness
	}
	if b.GuidanceScale != nil {
		req.Guidance = *b.GuidanceScale
	}
	if b.Seed != nil && (*b.Seed < 0 || *b.Seed > math.MaxInt32) {
		v.Add("body", "seed", "value_error", "Input should be between 0 and 2147483647.")
	}
	if b.Quality != nil {
		req.Guidance = QualityGuidance(req.Guidance, *b.Quality)
	}
	req.PromptStrength = DefaultPromptStrength
	if b.PromptStrength != nil {
		req.PromptStrength = *b.PromptStrength
	}
	if b.ReferenceAudioBase64 != nil && *b.ReferenceAudioBase64 != "" {
		data, err := base64.StdEncoding.DecodeString(*b.ReferenceAudioBase64)
		switch {
		case err != nil:
			v.Add("body", "reference_audio_base64", "value_error", "The reference audio is not valid base64.")
		case b.ModelID == nil || *b.ModelID != "eleven_ttv_v3":
			v.Add("body", "reference_audio_base64", "value_error", "Reference audio needs model_id 'eleven_ttv_v3'.")
		default:
			req.Reference = data
		}
	}
	req.StreamPreviews = b.StreamPreviews != nil && *b.StreamPreviews
	if outputFormat == "" {
		outputFormat = "mp3_44100_192"
	}
	f, err := audio.ParseFormat(outputFormat)
	if err != nil {
		v.Add("query", "output_format", "enum", "Unsupported output_format '"+outputFormat+"'.")
	}
	req.Format = f
	return req, v.Err()
}

func (h *Handlers) stream(w http.ResponseWriter, r *http.Request) error {
	f, _ := audio.ParseFormat("mp3_44100_128")
	data, err := h.Svc.Stream(r.Context(), access.CallerFrom(r.Context()), r.PathValue("generated_voice_id"), f)
	if err != nil {
		return err
	}
	httpx.WriteBody(w, f.ContentType(), data)
	return nil
}

// saveBody is Body_Create_a_new_voice_from_voice_preview_v1_text_to_voice_post.
type saveBody struct {
	VoiceName                 *string           `json:"voice_name"`
	VoiceDescription          *string           `json:"voice_description"`
	GeneratedVoiceID          *string           `json:"generated_voice_id"`
	Labels                    map[string]string `json:"labels"`
	PlayedNotSelectedVoiceIDs []string          `json:"played_not_selected_voice_ids"`
}

// Name and label bounds of a saved voice.
const (
	maxVoiceName = 100
	maxLabels    = 20
	maxLabelLen  = 100
)

func (h *Handlers) save(w http.ResponseWriter, r *http.Request) error {
	var b saveBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	var v errs.Validator
	req := SaveRequest{Labels: b.Labels}
	if b.VoiceName == nil || strings.TrimSpace(*b.VoiceName) == "" {
		v.Add("body", "voice_name", "missing", "Field required: name the voice in voice_name.")
	} else if req.Name = strings.TrimSpace(*b.VoiceName); utf8.RuneCountInString(req.Name) > maxVoiceName {
		v.Add("body", "voice_name", "string_too_long", "String should have at most 100 characters.")
	}
	if b.VoiceDescription == nil {
		v.Add("body", "voice_description", "missing", "Field required: voice_description.")
	} else {
		req.Description = strings.TrimSpace(*b.VoiceDescription)
		if n := utf8.RuneCountInString(req.Description); n < MinDescription || n > MaxDescription {
			v.Add("body", "voice_description", "string_length", "String should have between 20 and 1000 characters.")
		}
	}
	if b.GeneratedVoiceID == nil || *b.GeneratedVoiceID == "" {
		v.Add("body", "generated_voice_id", "missing", "Field required: the generated_voice_id of a preview.")
	} else {
		req.GeneratedVoiceID = *b.GeneratedVoiceID
	}
	if len(b.Labels) > maxLabels {
		v.Add("body", "labels", "too_long", "At most 20 labels.")
	}
	for k, val := range b.Labels {
		if k == "" || utf8.RuneCountInString(k) > maxLabelLen || utf8.RuneCountInString(val) > maxLabelLen {
			v.Add("body", "labels", "value_error", "Label names and values should have at most 100 characters.")
			break
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	saved, err := h.Svc.Save(r.Context(), c, req)
	if err != nil {
		return err
	}
	s := voice.Defaults
	httpx.WriteJSON(w, http.StatusOK, h.Render(saved, &s))
	return nil
}
