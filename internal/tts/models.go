package tts

import (
	"net/http"

	"timbre/internal/httpx"
	"timbre/internal/plan"
)

// Model is a text-to-speech model id the API accepts and the engine profile it maps to.
type Model struct {
	ID          string
	Name        string
	Description string
	// Fast models start audio sooner: the first sentence is cut at its first clause so the
	// first chunk is short, and text normalisation in "auto" mode is skipped.
	Fast bool
	// CostFactor multiplies the character count (the API's flash/turbo v2.5 cost half).
	CostFactor float64
	// EnglishOnly models refuse other languages (as their ElevenLabs namesakes do).
	EnglishOnly bool
	MaxChars    int
	TimbreOwn   bool
}

// DefaultModel is the spec's default model.
const DefaultModel = "eleven_multilingual_v2"

// Models lists every model served, ElevenLabs ids first (aliases of Timbre's engine profiles).
var Models = []Model{
	{ID: "eleven_multilingual_v2", Name: "Eleven Multilingual v2", Description: "Timbre's quality profile under the ElevenLabs id: each voice's own engine, full text normalisation, every language the engines speak.", CostFactor: 1, MaxChars: 10000},
	{ID: "eleven_v3", Name: "Eleven v3", Description: "Timbre's quality profile under the Eleven v3 id: the same engines as multilingual v2.", CostFactor: 1, MaxChars: 5000},
	{ID: "eleven_flash_v2_5", Name: "Eleven Flash v2.5", Description: "Timbre's fast profile: shortest first chunk for the lowest latency; half the character cost.", Fast: true, CostFactor: 0.5, MaxChars: 40000},
	{ID: "eleven_turbo_v2_5", Name: "Eleven Turbo v2.5", Description: "Timbre's fast profile (alias of flash v2.5); half the character cost.", Fast: true, CostFactor: 0.5, MaxChars: 40000},
	{ID: "eleven_flash_v2", Name: "Eleven Flash v2", Description: "Timbre's fast profile, English only.", Fast: true, CostFactor: 0.5, EnglishOnly: true, MaxChars: 30000},
	{ID: "eleven_turbo_v2", Name: "Eleven Turbo v2", Description: "Timbre's fast profile, English only.", Fast: true, CostFactor: 0.5, EnglishOnly: true, MaxChars: 30000},
	{ID: "eleven_monolingual_v1", Name: "Eleven English v1", Description: "Timbre's quality profile, English only (legacy id).", CostFactor: 1, EnglishOnly: true, MaxChars: 10000},
	{ID: "timbre_classic_v1", Name: "Timbre Classic v1", Description: "Timbre's own id for the offline engines (espeak-ng, flite) with full text normalisation.", CostFactor: 1, MaxChars: 10000, TimbreOwn: true},
	{ID: "timbre_fast_v1", Name: "Timbre Fast v1", Description: "Timbre's own id for the fast profile of the offline engines.", Fast: true, CostFactor: 0.5, MaxChars: 40000, TimbreOwn: true},
}

// FindModel returns the model with id.
func FindModel(id string) (Model, bool) {
	for _, m := range Models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// MaxCharsFor is the longest text (in characters) one request may send with model m on tier t:
// the model's own limit, capped lower on the free plan.
func MaxCharsFor(t plan.Tier, m Model) int {
	if t.Paying || t.CharacterLimit < 0 {
		return min(m.MaxChars, plan.MaxCharsSubscribed*2)
	}
	return min(m.MaxChars, plan.MaxCharsFree)
}

// Languages the models list (the languages the premade voices speak).
var Languages = []struct{ ID, Name string }{
	{"en", "English"}, {"es", "Spanish"}, {"de", "German"}, {"fr", "French"}, {"it", "Italian"}, {"pt", "Portuguese"},
	{"ru", "Russian"}, {"hi", "Hindi"}, {"zh", "Chinese"}, {"ar", "Arabic"}, {"sv", "Swedish"}, {"pl", "Polish"},
	{"nl", "Dutch"}, {"ja", "Japanese"},
}

// ModelsFor lists the model ids that speak lang.
func ModelsFor(lang string) []string {
	var out []string
	for _, m := range Models {
		if !m.EnglishOnly || lang == "en" {
			out = append(out, m.ID)
		}
	}
	return out
}

func (m Model) json() map[string]any {
	langs := []map[string]string{}
	for _, l := range Languages {
		if !m.EnglishOnly || l.ID == "en" {
			langs = append(langs, map[string]string{"language_id": l.ID, "name": l.Name})
		}
	}
	group := "standard"
	if m.Fast {
		group = "turbo"
	}
	return map[string]any{
		"model_id":                               m.ID,
		"name":                                   m.Name,
		"can_be_finetuned":                       false,
		"can_do_text_to_speech":                  true,
		"can_do_voice_conversion":                false,
		"can_use_style":                          true,
		"can_use_speaker_boost":                  true,
		"serves_pro_voices":                      false,
		"token_cost_factor":                      m.CostFactor,
		"description":                            m.Description,
		"requires_alpha_access":                  false,
		"max_characters_request_free_user":       min(m.MaxChars, plan.MaxCharsFree),
		"max_characters_request_subscribed_user": min(m.MaxChars, plan.MaxCharsSubscribed*2),
		"maximum_text_length_per_request":        m.MaxChars,
		"languages":                              langs,
		"model_rates":                            map[string]any{"character_cost_multiplier": m.CostFactor},
		"concurrency_group":                      group,
	}
}

func listModels(w http.ResponseWriter, r *http.Request) error {
	out := make([]map[string]any, 0, len(Models))
	for _, m := range Models {
		out = append(out, m.json())
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}
