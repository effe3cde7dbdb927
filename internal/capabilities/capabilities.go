// Package capabilities tells the web app what this server really offers, so the app promises
// nothing that is not built: the product features, where its terms and privacy policy are, and
// for a signed-in caller the per-request text limits of their plan.
package capabilities

import (
	"net/http"
	"time"

	"timbre/internal/access"
	"timbre/internal/httpx"
	"timbre/internal/plan"
	"timbre/internal/tts"
)

// Feature is one part of the product this server serves today.
type Feature struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Features lists what the server offers; add an entry only when its routes and screens exist.
var Features = []Feature{
	{"text_to_speech", "Text to Speech", "Turn text into speech with the built-in voices, in the browser or through the API."},
	{"speech_history", "History", "Every generation is kept: play, download, share or delete it later."},
	{"premade_voices", "Voices", "Premade voices in many languages, each with its own settings."},
	{"api_keys", "API keys", "Use the ElevenLabs-compatible API with keys scoped by permission and credit limit."},
	{"workspaces", "Workspaces", "Invite members, organise them in groups and share voices and history with them."},
	{"service_accounts", "Service accounts", "Keys for machines that belong to the workspace, not to a person."},
	{"webhooks", "Webhooks", "Get an HTTP call when something happens in the workspace."},
	{"sso", "Single sign-on", "Sign in through your company's SAML or OIDC identity provider."},
	{"two_factor", "Two-factor authentication", "Protect your account with an authenticator app and backup codes."},
	{"audit_log", "Audit log", "See who did what in the workspace."},
	{"referrals", "Referrals", "Invite friends with your own sign-up link."},
	{"speech_to_speech", "Speech to Speech", "Say a recording in another voice: its words and timing kept, the voice's pitch and timbre moved (a parametric converter)."},
	{"voice_design", "Voice design", "Describe a voice in words and save one of three previews. Designed voices are parametric: a base voice shaped in pitch, pace and timbre."},
	{"ai_speech_classifier", "AI speech classifier", "Check whether this server made a recording: its speech carries an inaudible watermark."},
}

// The web app's built-in pages, linked when the operator names no terms or privacy policy of
// their own.
const (
	builtInTermsPath   = "/terms"
	builtInPrivacyPath = "/privacy"
)

// Legal is where the sign-up form's "Terms of Service" and "Privacy Policy" lead: the
// operator's own pages (TIMBRE_TERMS_URL, TIMBRE_PRIVACY_URL), else the built-in ones.
type Legal struct {
	TermsURL   string `json:"terms_url"`
	PrivacyURL string `json:"privacy_url"`
}

// legalLinks fills in the built-in pages for the addresses the operator left empty.
func legalLinks(termsURL, privacyURL string) Legal {
	l := Legal{TermsURL: termsURL, PrivacyURL: privacyURL}
	if l.TermsURL == "" {
		l.TermsURL = builtInTermsPath
	}
	if l.PrivacyURL == "" {
		l.PrivacyURL = builtInPrivacyPath
	}
	return l
}

// Handlers serves GET /api/capabilities.
type Handlers struct {
	// The operator's terms and privacy addresses; empty = the built-in pages.
	TermsURL, PrivacyURL string
	DB                   Store
	// Auth resolves the caller when there is one (nil, nil when anonymous).
	Auth func(r *http.Request) (*access.Caller, error)
	Now  func() time.Time
}

// Routes registers the route. It is public (the sign-in page shows the features); the limits
// come only with a signed-in caller.
func (h *Handlers) Routes(rt *httpx.Router) { rt.Public("GET /api/capabilities", h.get) }

// ModelLimit is what one request with a model may send on the caller's plan.
type ModelLimit struct {
	ModelID                 string  `json:"model_id"`
	MaxCharactersPerRequest int     `json:"max_characters_per_request"`
	CharacterCostMultiplier float64 `json:"character_cost_multiplier"`
}

// response is GET /api/capabilities' answer; plan and text_to_speech only for a signed-in caller.
type response struct {
	Features     []Feature     `json:"features"`
	Legal        Legal         `json:"legal"`
	Plan         *planInfo     `json:"plan,omitempty"`
	TextToSpeech *speechLimits `json:"text_to_speech,omitempty"`
}

// planInfo names the caller's plan.
type planInfo struct {
	Tier string `json:"tier"`
	Name string `json:"name"`
}

// speechLimits are the caller's per-model text-to-speech limits.
type speechLimits struct {
	Models []ModelLimit `json:"models"`
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	out := response{Features: Features, Legal: legalLinks(h.TermsURL, h.PrivacyURL)}
	c, err := h.Auth(r)
	if err == nil && c != nil {
		now := time.Now()
		if h.Now != nil {
			now = h.Now()
		}
		ws, err := h.DB.Workspace(r.Context(), c.WorkspaceID, now)
		if err != nil {
			return err
		}
		tier := plan.Get(ws.Tier)
		limits := make([]ModelLimit, 0, len(tts.Models))
		for _, m := range tts.Models {
			limits = append(limits, ModelLimit{ModelID: m.ID, MaxCharactersPerRequest: tts.MaxCharsFor(tier, m), CharacterCostMultiplier: m.CostFactor})
		}
		out.Plan = &planInfo{Tier: tier.ID, Name: tier.Name}
		out.TextToSpeech = &speechLimits{Models: limits}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}
