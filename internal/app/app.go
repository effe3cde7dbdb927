// Package app wires Timbre together from a Config: storage, engines, services, background jobs
// and the HTTP server. cmd/timbre and the end-to-end tests both build it here.
package app

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"timbre/internal/account"
	"timbre/internal/apikey"
	"timbre/internal/audit"
	"timbre/internal/auth"
	"timbre/internal/blob"
	"timbre/internal/capabilities"
	"timbre/internal/classifier"
	"timbre/internal/config"
	"timbre/internal/convert"
	"timbre/internal/dialogue"
	"timbre/internal/docs"
	"timbre/internal/engine"
	"timbre/internal/history"
	"timbre/internal/httpx"
	"timbre/internal/isolate"
	"timbre/internal/jobs"
	"timbre/internal/mail"
	"timbre/internal/metering"
	"timbre/internal/music"
	"timbre/internal/netguard"
	"timbre/internal/pronunciation"
	"timbre/internal/secret"
	"timbre/internal/server"
	"timbre/internal/sfx"
	"timbre/internal/sso"
	"timbre/internal/store"
	"timbre/internal/sts"
	"timbre/internal/stt"
	"timbre/internal/tts"
	"timbre/internal/user"
	"timbre/internal/voice"
	"timbre/internal/voicedesign"
	"timbre/internal/voiceprint"
	"timbre/internal/watermark"
	"timbre/internal/webhook"
	"timbre/internal/workspace"
)

// Options adjust how the app is built (tests use them).
type Options struct {
	// InProcessEngines runs espeak-ng in this process (one synthesis at a time) instead of a
	// pool of worker processes.
	InProcessEngines bool
	// WebApp is the built web app; nil serves none.
	WebApp fs.FS
	// Mail overrides the mail sender.
	Mail mail.Sender
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// SSO, when set, adjusts the SSO service once it is built (the end-to-end tests let it
	// reach an OIDC provider on loopback: Guard and AllowInsecureIdP).
	SSO func(*sso.Service)
	// Cloner overrides the voice cloner of instant cloning (default: the embedded voiceprint
	// cloner).
	Cloner voice.Cloner
}

// App is a running Timbre.
type App struct {
	Cfg     *config.Config
	DB      *store.DB
	Blob    *blob.Store
	Engines map[string]engine.Synthesizer
	// Recognizers are the speech-to-text engines in the order engine.ChooseRecognizer tries
	// them: the embedded pocketsphinx (English), then the configured OpenAI-compatible server.
	Recognizers []engine.Recognizer
	Auth        *auth.Service
	Speech      *tts.Service
	Dialogue    *dialogue.Service
	// Transcriber is speech to text.
	Transcriber *stt.Service
	// Realtime holds the open real-time speech-to-text sessions: DrainRealtime ends them.
	Realtime *stt.Sessions
	// Classifier finds this server's watermark in audio (POST /v1/speech-classifier).
	Classifier *classifier.Service
	// Isolator is the voice isolator (RNNoise).
	Isolator *isolate.Service
	STS      *sts.Service
	// SFX makes sound effects (the procedural engine, or TIMBRE_SFX_URL's server).
	SFX *sfx.Service
	// Music composes songs (the embedded algorithmic composer, or TIMBRE_MUSIC_URL).
	Music    *music.Service
	Voices   *voice.Service
	Webhooks *webhook.Service
	Server   *server.Server
	Registry *prometheus.Registry
	Log      *slog.Logger
	jobs     *jobs.Client
	closers  []func()
}

// Open connects storage and migrates it: enough for the admin commands.
func Open(ctx context.Context, cfg *config.Config, log *slog.Logger) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.SQLitePath())
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}

// New builds the whole app (for serve and worker).
func New(ctx context.Context, cfg *config.Config, o Options) (*App, error) {
	a := &App{Cfg: cfg, Log: o.Logger, Registry: prometheus.NewRegistry()}
	if a.Log == nil {
		a.Log = slog.Default()
	}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	var err error
	if a.DB, err = Open(ctx, cfg, a.Log); err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() { a.DB.Close() })
	if err := jobs.Migrate(ctx, a.DB, a.Log); err != nil {
		return nil, fmt.Errorf("migrate job queue: %w", err)
	}
	if a.Blob, err = blob.Open(ctx, cfg.BlobURL, cfg.DataDir); err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() { a.Blob.Close() })
	if err := a.openEngines(cfg, o); err != nil {
		return nil, err
	}
	a.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	synthSeconds := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "timbre_synthesis_audio_seconds_total", Help: "Seconds of audio synthesized, by engine."}, []string{"engine"})
	a.Registry.MustRegister(synthSeconds)

	sender := o.Mail
	if sender == nil {
		sender = mail.New(mail.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword, From: cfg.SMTPFrom}, a.DB, a.Log)
	}
	// One server key (TIMBRE_SECRET_KEY or <data>/secret.key) seals every secret kept at rest.
	box, err := secret.Load(cfg.DataDir, cfg.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	wsSvc := &workspace.Service{DB: a.DB, Mail: sender, PublicURL: cfg.PublicURL}
	a.Auth = &auth.Service{DB: a.DB, Mail: sender, PublicURL: cfg.PublicURL, Box: box, Blobs: a.Blob, Invites: wsSvc}
	ssoSvc := &sso.Service{DB: a.DB, Box: box, PublicURL: cfg.PublicURL, Resolver: sso.NewResolver(cfg.DNSResolver),
		OpenSession: func(ctx context.Context, r *http.Request, u *store.User) (string, string, error) {
			return a.Auth.OpenSSOSession(ctx, u, auth.ClientOf(r))
		},
		SeatCheck: wsSvc.SeatAvailable, InviteWorkspace: wsSvc.InviteWorkspace}
	a.Auth.SSORequired = ssoSvc.SSORequired // password routes refuse emails of domains that must use SSO
	if o.SSO != nil {
		o.SSO(ssoSvc)
	}
	if a.Webhooks, err = webhook.New(a.DB, box, webhook.Config{
		AllowPrivate: cfg.WebhookAllowPrivate, AllowCIDRs: cfg.WebhookAllowCIDRs, AllowHTTP: cfg.WebhookAllowHTTP,
		MaxFailures: cfg.WebhookMaxFailures}, a.Log); err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	acct := &account.Service{DB: a.DB, TrustGeoHeaders: cfg.TrustGeoHeaders}
	a.Voices = &voice.Service{DB: a.DB, Engines: a.Engines, PublicURL: cfg.PublicURL, Blob: a.Blob, Cloner: o.Cloner}
	if fl, ok := a.Engines["flite"]; ok && o.Cloner == nil {
		// The embedded parametric cloner: flite base voices fitted by measurement. It calibrates
		// the base voices on the first clone (seconds, once per process).
		a.Voices.Cloner = voiceprint.NewCloner(fl)
	}
	if cfg.CloneOpenAIURL != "" {
		// A neural cloning server: clones are made and spoken there; the voiceprint cloner
		// still measures the samples (similar voices, the speaker library).
		oc, err := engine.NewOpenAICloner(engine.OpenAICloneConfig{BaseURL: cfg.CloneOpenAIURL, APIKey: cfg.CloneOpenAIKey,
			Model: cfg.CloneOpenAIModel, Consent: cfg.CloneOpenAIConsent})
		if err != nil {
			return nil, fmt.Errorf("openai clone engine: %w", err)
		}
		a.Engines[oc.Engine()] = oc.Synthesizer()
		a.Voices.Remote = oc
	}
	if _, err := a.Voices.Seed(ctx); err != nil {
		return nil, fmt.Errorf("seed voices: %w", err)
	}
	// The watermark's key is derived from the server key: servers sharing a key (scale-out)
	// recognise each other's audio; another installation's audio is not recognised.
	wm, err := watermark.New(box.Derive("audio watermark"))
	if err != nil {
		return nil, fmt.Errorf("watermark: %w", err)
	}
	a.Speech = &tts.Service{DB: a.DB, Blob: a.Blob, Voices: a.Voices, Engines: a.Engines, Slots: tts.Slots{TTL: cfg.LeaseTTL},
		OnSynth: func(eng string, secs float64) { synthSeconds.WithLabelValues(eng).Add(secs) }, Watermark: wm}
	dictionaries := &pronunciation.Service{DB: a.DB}
	a.Speech.Dictionaries = dictionaries
	a.Classifier = &classifier.Service{Watermark: wm}
	// Tags (the non-speech audio tags' sounds) is sfx's RenderTag once internal/sfx is merged.
	// Non-speech audio tags ([laughs], [sighs], …) are rendered by the sound-effects engine.
	a.Dialogue = &dialogue.Service{TTS: a.Speech, Tags: tagSounds(sfx.RenderTag)}
	// The voice captcha: its sentence is spoken with the voice, its recording checked by speech to text.
	a.Voices.Speak, a.Voices.Recognizers = a.Speech.Say, a.Recognizers
	wireVoiceSafety(a.Voices, a.Webhooks, a.DB)

	a.Transcriber = &stt.Service{DB: a.DB, Recognizers: a.Recognizers, Blob: a.Blob, Webhooks: a.Webhooks}
	a.Realtime = stt.NewSessions()
	rnnoise := engine.NewRNNoise()
	a.closers = append(a.closers, func() { _ = rnnoise.Close(context.Background()) })
	a.Isolator = &isolate.Service{DB: a.DB, Blob: a.Blob, Isolator: rnnoise}
	var converter convert.Converter = convert.Parametric{}
	if cfg.STSConverterURL != "" {
		converter = &convert.HTTP{URL: cfg.STSConverterURL, Key: cfg.STSConverterKey}
	}
	a.STS = &sts.Service{DB: a.DB, Blob: a.Blob, Voices: a.Voices, Engines: a.Engines, Isolator: rnnoise,
		Converter: converter, Analyse: voiceprint.Analyse, Watermark: wm}
	a.Voices.Isolator = rnnoise          // clone samples' remove_background_noise
	a.Voices.Recognizers = a.Recognizers // professional voices' captcha check
	a.SFX = &sfx.Service{DB: a.DB, Blob: a.Blob, Engine: sfx.Procedural{}}
	if cfg.SFXURL != "" {
		a.SFX.Engine = &sfx.HTTP{URL: cfg.SFXURL, Key: cfg.SFXKey}
	}
	offline := music.Offline{}
	if fl, ok := a.Engines["flite"]; ok {
		// Lyrics are sung by flite's kal16, a diphone voice: the same audio every time, so a
		// seed repeats a sung song too.
		offline.Singer = &music.Singer{Synth: fl, Voice: "kal16"}
	}
	var composer music.Engine = offline
	if cfg.MusicURL != "" {
		composer = &music.Remote{URL: cfg.MusicURL, Key: cfg.MusicKey}
	}
	a.Music = &music.Service{DB: a.DB, Blob: a.Blob, Engine: composer}
	designer := &voicedesign.Service{DB: a.DB, Voices: a.Voices, Engines: a.Engines, Watermark: wm}
	voiceHandlers := &voice.Handlers{Svc: a.Voices, MaxBody: cfg.MaxBodyBytes, ModelsFor: tts.ModelsFor}

	domains := []server.Domain{
		&auth.Handlers{Svc: a.Auth, MaxBody: cfg.MaxBodyBytes},
		&tts.Handlers{Svc: a.Speech, MaxBody: cfg.MaxBodyBytes},
		&dialogue.Handlers{Svc: a.Dialogue, MaxBody: cfg.MaxBodyBytes},
		voiceHandlers,
		&voicedesign.Handlers{Svc: designer, MaxBody: cfg.MaxBodyBytes, Render: voiceHandlers.JSON},
		&history.Handlers{DB: a.DB, Blob: a.Blob, PublicURL: cfg.PublicURL, MaxBody: cfg.MaxBodyBytes},
		&account.Handlers{Svc: acct, MaxBody: cfg.MaxBodyBytes},
		&user.Handlers{DB: a.DB, Account: acct},
		docs.Handlers{},
		&webhook.Handlers{Svc: a.Webhooks, MaxBody: cfg.MaxBodyBytes},
		&audit.Handlers{DB: a.DB},
		&workspace.Handlers{Svc: wsSvc, MaxBody: cfg.MaxBodyBytes, SessionCookie: auth.SessionCookie},
		&apikey.Handlers{DB: a.DB, MaxBody: cfg.MaxBodyBytes},
		&sso.Handlers{Svc: ssoSvc, MaxBody: cfg.MaxBodyBytes},
		&metering.Handlers{DB: a.DB},
		&capabilities.Handlers{DB: a.DB, Auth: a.Auth.Authenticate, TermsURL: cfg.TermsURL, PrivacyURL: cfg.PrivacyURL},
		&stt.Handlers{Svc: a.Transcriber, MaxUpload: cfg.MaxUploadBytes, Fetch: stt.NewFetchClient(a.Webhooks.Guard), Sessions: a.Realtime},
		&classifier.Handlers{Svc: a.Classifier, MaxUpload: cfg.MaxUploadBytes},
		&isolate.Handlers{Svc: a.Isolator, MaxUpload: min(cfg.MaxUploadBytes, isolate.DefaultMaxUpload)},
		&sts.Handlers{Svc: a.STS, MaxUpload: min(cfg.MaxUploadBytes, sts.DefaultMaxUpload)},
		&pronunciation.Handlers{Svc: dictionaries, MaxBody: cfg.MaxBodyBytes},
		&sfx.Handlers{Svc: a.SFX, MaxBody: cfg.MaxBodyBytes},
		&music.Handlers{Svc: a.Music, MaxBody: cfg.MaxBodyBytes},
	}
	trusted, err := netguard.ParseCIDRs(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("trusted-proxies: %w", err)
	}
	a.Server = server.New(server.Options{TrustedProxies: trusted,
		DB: a.DB, Auth: a.Auth.Authenticate, Domains: domains, WebApp: o.WebApp, Registry: a.Registry,
		Logger: a.Log, ExposedHeaders: append(slices.Clone(tts.ExposedHeaders), append(slices.Clone(sfx.ExposedHeaders), "song-id")...), PublicURL: cfg.PublicURL, BodyTimeout: cfg.BodyTimeout,
		PublicURLFromRequest: cfg.PublicURLFromRequest,
	})
	ok = true
	return a, nil
}

func (a *App) openEngines(cfg *config.Config, o Options) error {
	a.Engines = map[string]engine.Synthesizer{}
	if o.InProcessEngines {
		es, err := engine.NewEspeak()
		if err != nil {
			return fmt.Errorf("espeak-ng: %w", err)
		}
		a.Engines["espeak"] = es
	} else {
		pool, err := engine.NewEspeakPool(cfg.EspeakWorkers)
		if err != nil {
			return fmt.Errorf("espeak-ng workers: %w", err)
		}
		a.Engines["espeak"] = pool
		a.closers = append(a.closers, func() { pool.Close() })
	}
	fl, err := engine.NewFlite()
	if err != nil {
		a.Log.Warn("flite unavailable: its voices are not offered", "err", err)
	} else {
		a.Engines["flite"] = fl
	}
	if cfg.TTSOpenAIURL != "" {
		var voices []string
		for _, v := range strings.Split(cfg.TTSOpenAIVoices, ",") {
			if v = strings.TrimSpace(v); v != "" {
				voices = append(voices, v)
			}
		}
		oa, err := engine.NewOpenAI(engine.OpenAIConfig{BaseURL: cfg.TTSOpenAIURL, APIKey: cfg.TTSOpenAIKey, Model: cfg.TTSOpenAIModel, Voices: voices})
		if err != nil {
			return fmt.Errorf("openai tts engine: %w", err)
		}
		a.Engines[oa.Name()] = oa
	}
	return a.openRecognizers(cfg)
}

// openRecognizers adds the speech-to-text engines. Pocketsphinx loads its decoders on first
// use, so an installation without its model only loses English recognition.
func (a *App) openRecognizers(cfg *config.Config) error {
	ps, err := engine.NewPocketsphinx(engine.PocketsphinxConfig{})
	if err != nil {
		a.Log.Warn("pocketsphinx unavailable: no embedded speech recognition", "err", err)
	} else {
		a.Recognizers = append(a.Recognizers, ps)
		a.closers = append(a.closers, ps.Close)
	}
	if cfg.STTOpenAIURL != "" {
		var langs []string
		for _, l := range strings.Split(cfg.STTOpenAILanguages, ",") {
			if l = strings.TrimSpace(l); l != "" {
				langs = append(langs, l)
			}
		}
		oa, err := engine.NewOpenAITranscriber(engine.OpenAITranscriberConfig{BaseURL: cfg.STTOpenAIURL,
			APIKey: cfg.STTOpenAIKey, Model: cfg.STTOpenAIModel, Languages: langs})
		if err != nil {
			return fmt.Errorf("openai speech-to-text engine: %w", err)
		}
		a.Recognizers = append(a.Recognizers, oa)
	}
	return nil
}

// Handler is the HTTP handler.
func (a *App) Handler() http.Handler { return a.Server.Handler }

// MetricsHandler serves the Prometheus metrics (for the operator's own listener).
func (a *App) MetricsHandler() http.Handler { return a.Server.Metrics }

// Routes lists every registered route.
func (a *App) Routes() []httpx.Route { return a.Server.Router.Routes() }

// Close releases everything, in reverse order of opening.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// tagSounds makes a rendering function a dialogue.TagSounds.
type tagSounds func(name string, sampleRate int, seed uint64) ([]float32, bool)

func (f tagSounds) RenderTag(name string, sampleRate int, seed uint64) ([]float32, bool) {
	return f(name, sampleRate, seed)
}
