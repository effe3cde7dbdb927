// Package voice is the voice catalogue: premade voices seeded from the engines, workspace voices,
// per-voice settings, previews, and the /v1/voices and /v2/voices routes.
package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/store"
	"timbre/internal/webhook"
)

// Service resolves voices and their settings.
type Service struct {
	DB        Store
	Engines   map[string]engine.Synthesizer
	PublicURL string
	// PreviewModels are the model ids listed in verified_languages.
	PreviewModels []string
	// Cloner makes cloned voices (nil: cloning answers 503); Blob keeps their samples' audio;
	// Isolator (RNNoise) removes background noise from samples when asked.
	Cloner   Cloner
	Remote   RemoteCloner // a neural cloning server (nil: the Cloner's parametric fit)
	Blob     Blobs
	Isolator engine.Isolator
	Now      func() time.Time
	// Recognizers check voice captcha recordings and professional voices' captcha recordings
	// (speech to text); Speak reads a voice captcha's sentence aloud with the voice
	// (tts.Service.Say; nil: the captcha is text only).
	Recognizers []engine.Recognizer
	Speak       func(ctx context.Context, v *store.Voice, text string) ([]byte, error)
	// Removals sends library removal notices when a voice is banned or withdrawn
	// (*webhook.Service); CopiedBy lists the workspaces that copied a voice from the library.
	Removals RemovalNotifier
	CopiedBy func(ctx context.Context, voiceID string) ([]string, error)
	jobs     pvcJobs
}

// RemovalNotifier delivers library removal notices (webhook.Service.NotifyVoiceRemoval).
type RemovalNotifier interface {
	NotifyVoiceRemoval(ctx context.Context, workspaceIDs []string, n webhook.VoiceRemoval) error
}

// ErrVoiceNotFound is the API's voice_not_found error.
func ErrVoiceNotFound(id string) error {
	return errs.Errorf(errs.NotFound, "voice_not_found", "A voice with voice_id '%s' was not found.", id)
}

// Seed writes the premade voices whose engine is available (and removes those no longer offered),
// plus one premade voice per voice of an HTTP engine (its catalogue is whatever that server offers).
func (s *Service) Seed(ctx context.Context) ([]string, error) {
	var keep []string
	now := time.Now().Unix()
	for i, p := range Catalogue {
		eng, ok := s.Engines[p.Engine]
		if !ok {
			continue
		}
		if !engineHasVoice(ctx, eng, p.EngineVoice) {
			slog.Warn("premade voice skipped: engine lacks the voice", "voice", p.Name, "engine", p.Engine, "engine_voice", p.EngineVoice)
			continue
		}
		err := s.DB.UpsertPremadeVoice(ctx, store.Voice{ID: p.ID, Name: p.Name, Category: "premade", Description: p.Description, Labels: p.labelsJSON(),
			Engine: p.Engine, EngineVoice: p.EngineVoice, Language: p.Lang, Prosody: p.prosodyJSON(), SortOrder: i, CreatedAt: now})
		if err != nil {
			return nil, err
		}
		keep = append(keep, p.ID)
	}
	// Voices of engines that are not in the catalogue (an OpenAI-compatible server) are added as they come.
	names := make([]string, 0, len(s.Engines))
	for n := range s.Engines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "espeak" || name == "flite" {
			continue
		}
		infos, err := s.Engines[name].Voices(ctx)
		if err != nil {
			slog.Warn("engine voices unavailable", "engine", name, "err", err)
			continue
		}
		for j, vi := range infos {
			p := Premade{Name: titleCase(vi.Name), Engine: name, EngineVoice: vi.Name, Lang: firstOr(vi.Languages, "en"), Gender: vi.Gender,
				Accent: "", Age: "", Descriptive: "neural", UseCase: "general", Pitch: 50, PitchRange: 50, Rate: 1,
				Description: fmt.Sprintf("The %s voice of the %s engine.", vi.Name, name)}
			p.ID = StableID("premade:" + name + ":" + vi.Name)
			err := s.DB.UpsertPremadeVoice(ctx, store.Voice{ID: p.ID, Name: p.Name, Category: "premade", Description: p.Description, Labels: p.labelsJSON(),
				Engine: name, EngineVoice: vi.Name, Language: p.Lang, Prosody: p.prosodyJSON(), SortOrder: 1000 + j, CreatedAt: now})
			if err != nil {
				return nil, err
			}
			keep = append(keep, p.ID)
		}
	}
	return keep, s.DB.DeletePremadeVoicesExcept(ctx, keep)
}

// engineHasVoice checks that the engine can really speak with the voice (espeak voice names with
// variants are not listed one by one, so a one-word synthesis is the honest test).
func engineHasVoice(ctx context.Context, eng engine.Synthesizer, name string) bool {
	_, err := eng.Synthesize(ctx, engine.Request{Text: "ok", Voice: name})
	return err == nil
}

// Get finds a voice visible to the workspace, to be used (spoken with, converted to, remixed,
// shared): a voice under a safety control is refused here (see CheckSafety), so every product
// that resolves its voice through Get obeys BAN and CAPTCHA. Showing, editing or deleting a
// voice uses Lookup.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (*store.Voice, error) {
	v, err := s.Lookup(ctx, workspaceID, id)
	if err != nil {
		return nil, err
	}
	if err := s.CheckSafety(ctx, workspaceID, v); err != nil {
		return nil, err
	}
	if err := s.checkCopyOrigin(ctx, workspaceID, v.ID); err != nil {
		return nil, err
	}
	return v, nil
}

// checkCopyOrigin refuses a library copy whose original was banned, or withdrawn by its owner
// with a notice period that has now ended: the copy lives only as long as the original allows.
func (s *Service) checkCopyOrigin(ctx context.Context, workspaceID, voiceID string) error {
	o, err := s.DB.CopyOriginOf(ctx, workspaceID, voiceID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.Control == store.SafetyBan {
		return ErrVoiceBanned(voiceID)
	}
	if o.Status == ShareCopiedDisabled && o.DisableAt > 0 && s.now().Unix() >= o.DisableAt {
		return errs.Errorf(errs.Forbidden, "voice_removed",
			"The voice with voice_id '%s' was withdrawn from the voice library by its owner and its notice period has ended: it can no longer be used.", voiceID)
	}
	return nil
}

// Lookup finds a voice visible to the workspace whatever its safety control (to show it).
func (s *Service) Lookup(ctx context.Context, workspaceID, id string) (*store.Voice, error) {
	v, err := s.DB.Voice(ctx, workspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrVoiceNotFound(id)
	}
	return v, err
}

// Settings returns the workspace's stored settings for a voice, or the defaults.
func (s *Service) Settings(ctx context.Context, workspaceID, voiceID string) (Resolved, error) {
	raw, err := s.DB.VoiceSettings(ctx, workspaceID, voiceID)
	if errors.Is(err, store.ErrNotFound) {
		return Defaults, nil
	}
	if err != nil {
		return Defaults, err
	}
	var st Settings
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return Defaults, nil
	}
	return st.Over(Defaults), nil
}

// Base returns the stored base prosody of a voice.
func Base(v *store.Voice) BaseProsody {
	var b BaseProsody
	_ = json.Unmarshal([]byte(v.Prosody), &b)
	if b.Rate == 0 {
		b.Rate = 1
	}
	if b.Pitch == 0 && b.PitchRange == 0 {
		b.Pitch, b.PitchRange = 50, 50
	}
	return b
}

// PreviewURL is where a voice's preview audio is served (public, no key needed, like the API's).
func (s *Service) PreviewURL(v *store.Voice) string {
	return s.PublicURL + "/api/voices/" + v.ID + "/preview.mp3"
}

// PreviewText is what a voice says in its preview, by language.
func PreviewText(lang string) string {
	switch lang {
	case "es":
		return "Hola, soy una de las voces de Timbre. Puedo leer cualquier texto que escribas."
	case "de":
		return "Hallo, ich bin eine der Stimmen von Timbre. Ich lese jeden Text vor, den du schreibst."
	case "fr":
		return "Bonjour, je suis l'une des voix de Timbre. Je peux lire tout texte que vous écrivez."
	case "it":
		return "Ciao, sono una delle voci di Timbre. Posso leggere qualsiasi testo tu scriva."
	case "pt":
		return "Olá, eu sou uma das vozes do Timbre. Posso ler qualquer texto que você escrever."
	default:
		return "Hello, I am one of Timbre's voices. I can read aloud any text you write."
	}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 && xs[0] != "" {
		return xs[0]
	}
	return def
}
