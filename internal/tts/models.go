package tts

import (
	"net/http"
	"slices"

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
	// VoiceConversion models are speech to speech's (internal/sts): listed, not for text.
	VoiceConversion bool
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

// VoiceConversionModels are the speech-to-speech model ids (internal/sts accepts the same).
var VoiceConversionModels = []Model{
	{ID: "eleven_multilingual_sts_v2", Name: "Eleven Multilingual v2 (speech to speech)", Description: "Timbre's parametric voice converter: the recording's words and timing, the target voice's pitch and formants; any language.", CostFactor: 1, MaxChars: 10000, VoiceConversion: true},
	{ID: "eleven_english_sts_v2", Name: "Eleven English v2 (speech to speech)", Description: "Timbre's parametric voice converter under the English speech-to-speech id.", CostFactor: 1, EnglishOnly: true, MaxChars: 10000, VoiceConversion: true},
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

// ModelJSON is a model as GET /v1/models lists it (ElevenLabs' ModelResponseModel).
type ModelJSON struct {
	ModelID                            string         `json:"model_id"`
	Name                               string         `json:"name"`
	CanBeFinetuned                     bool           `json:"can_be_finetuned"`
	CanDoTextToSpeech                  bool           `json:"can_do_text_to_speech"`
	CanDoVoiceConversion               bool           `json:"can_do_voice_conversion"`
	CanUseStyle                        bool           `json:"can_use_style"`
	CanUseSpeakerBoost                 bool           `json:"can_use_speaker_boost"`
	ServesProVoices                    bool           `json:"serves_pro_voices"`
	TokenCostFactor                    float64        `json:"token_cost_factor"`
	Description                        string         `json:"description"`
	RequiresAlphaAccess                bool           `json:"requires_alpha_access"`
	MaxCharactersRequestFreeUser       int            `json:"max_characters_request_free_user"`
	MaxCharactersRequestSubscribedUser int            `json:"max_characters_request_subscribed_user"`
	MaximumTextLengthPerRequest        int            `json:"maximum_text_length_per_request"`
	Languages                          []LanguageJSON `json:"languages"`
	ModelRates                         ModelRatesJSON `json:"model_rates"`
	ConcurrencyGroup                   string         `json:"concurrency_group"`
}

// LanguageJSON is a language a model speaks.
type LanguageJSON struct {
	LanguageID string `json:"language_id"`
	Name       string `json:"name"`
}

// ModelRatesJSON is what a model costs per character, relative to the base rate.
type ModelRatesJSON struct {
	CharacterCostMultiplier float64 `json:"character_cost_multiplier"`
}

func (m Model) json() ModelJSON {
	langs := []LanguageJSON{}
	for _, l := range Languages {
		if !m.EnglishOnly || l.ID == "en" {
			langs = append(langs, LanguageJSON{LanguageID: l.ID, Name: l.Name})
		}
	}
	group := "standard"
	if m.Fast {
		group = "turbo"
	}
	return ModelJSON{
		ModelID:                            m.ID,
		Name:                               m.Name,
		CanDoTextToSpeech:                  !m.VoiceConversion,
		CanDoVoiceConversion:               m.VoiceConversion,
		CanUseStyle:                        true,
		CanUseSpeakerBoost:                 true,
		TokenCostFactor:                    m.CostFactor,
		Description:                        m.Description,
		MaxCharactersRequestFreeUser:       min(m.MaxChars, plan.MaxCharsFree),
		MaxCharactersRequestSubscribedUser: min(m.MaxChars, plan.MaxCharsSubscribed*2),
		MaximumTextLengthPerRequest:        m.MaxChars,
		Languages:                          langs,
		ModelRates:                         ModelRatesJSON{CharacterCostMultiplier: m.CostFactor},
		ConcurrencyGroup:                   group,
	}
}

func listModels(w http.ResponseWriter, r *http.Request) error {
	out := make([]ModelJSON, 0, len(Models)+len(VoiceConversionModels))
	for _, m := range append(slices.Clip(Models), VoiceConversionModels...) {
		out = append(out, m.json())
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}
