// Package config turns flags and TIMBRE_* environment variables into one Config. Every flag has
// an environment twin; flags win over the environment, the environment over the defaults.
package config

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is everything an operator can set.
type Config struct {
	Addr        string // TIMBRE_ADDR
	MetricsAddr string // TIMBRE_METRICS_ADDR: where /metrics is served; empty = not served
	DataDir     string // TIMBRE_DATA_DIR
	DatabaseURL string // TIMBRE_DATABASE_URL: empty = SQLite in DataDir; postgres://… = PostgreSQL
	BlobURL     string // TIMBRE_BLOB_URL: empty = DataDir/blobs; s3://bucket?endpoint=…&region=…
	PublicURL   string // TIMBRE_PUBLIC_URL: the address users reach (links in mail and share links)
	// PublicURLFromRequest is set when TIMBRE_PUBLIC_URL is not: links in mail then use the
	// address of the request that caused them (PublicURL stays the fallback for background work).
	PublicURLFromRequest bool

	SMTPHost     string // TIMBRE_SMTP_HOST: empty = mail goes to the log and the development mailbox
	SMTPPort     int    // TIMBRE_SMTP_PORT
	SMTPUsername string // TIMBRE_SMTP_USERNAME
	SMTPPassword string // TIMBRE_SMTP_PASSWORD
	SMTPFrom     string // TIMBRE_SMTP_FROM

	TTSOpenAIURL    string // TIMBRE_TTS_OPENAI_URL: an OpenAI-compatible /v1/audio/speech server
	TTSOpenAIKey    string // TIMBRE_TTS_OPENAI_KEY
	TTSOpenAIModel  string // TIMBRE_TTS_OPENAI_MODEL
	TTSOpenAIVoices string // TIMBRE_TTS_OPENAI_VOICES: comma-separated voice names
	// A neural cloning server speaking OpenAI's custom-voices protocol (POST /v1/audio/voices):
	// when set, instant clones are made there and spoken by it (engine "openai-clone").
	CloneOpenAIURL     string // TIMBRE_CLONE_OPENAI_URL
	CloneOpenAIKey     string // TIMBRE_CLONE_OPENAI_KEY
	CloneOpenAIModel   string // TIMBRE_CLONE_OPENAI_MODEL: the speech model for the cloned voices
	CloneOpenAIConsent string // TIMBRE_CLONE_OPENAI_CONSENT: consent recording id sent with each voice

	STTOpenAIURL       string // TIMBRE_STT_OPENAI_URL: an OpenAI-compatible /v1/audio/transcriptions server
	STTOpenAIKey       string // TIMBRE_STT_OPENAI_KEY
	STTOpenAIModel     string // TIMBRE_STT_OPENAI_MODEL
	STTOpenAILanguages string // TIMBRE_STT_OPENAI_LANGUAGES: comma-separated ISO 639-1 codes; empty = any

	STSConverterURL string // TIMBRE_STS_CONVERTER_URL: a neural voice converter (convert.HTTP's protocol)
	STSConverterKey string // TIMBRE_STS_CONVERTER_KEY
	SFXURL          string // TIMBRE_SFX_URL: an ElevenLabs-compatible sound-effect server (sfx.HTTP)
	SFXKey          string // TIMBRE_SFX_KEY: its xi-api-key
	MusicURL        string // TIMBRE_MUSIC_URL: an ElevenLabs-compatible music server (its /v1/music/stream)
	MusicKey        string // TIMBRE_MUSIC_KEY

	EspeakWorkers int // TIMBRE_ESPEAK_WORKERS: espeak-ng worker processes (0 = one per CPU)
	JobWorkers    int // TIMBRE_JOB_WORKERS: background job concurrency

	MaxBodyBytes     int64         // TIMBRE_MAX_BODY_BYTES: largest accepted JSON body
	MaxUploadBytes   int64         // TIMBRE_MAX_UPLOAD_MB: largest accepted audio upload
	BodyTimeout      time.Duration // TIMBRE_BODY_TIMEOUT: how long a request body may take to arrive
	ShutdownTimeout  time.Duration // TIMBRE_SHUTDOWN_TIMEOUT: how long SIGTERM waits for in-flight requests
	LogLevel         string        // TIMBRE_LOG_LEVEL: debug, info, warn, error
	HistoryRetention time.Duration // TIMBRE_HISTORY_RETENTION: deleted history audio is purged after this
	SettleAfter      time.Duration // TIMBRE_SETTLE_AFTER: open charges of work silent this long (a crashed process) are settled
	LeaseTTL         time.Duration // TIMBRE_CONCURRENCY_LEASE_TTL: how long a crashed process's concurrency slots stay taken

	SecretKey           string // TIMBRE_SECRET_KEY: server key for encrypted secrets; empty = <data>/secret.key
	WebhookAllowPrivate bool   // TIMBRE_WEBHOOK_ALLOW_PRIVATE: webhooks may reach private/loopback addresses
	WebhookAllowCIDRs   string // TIMBRE_WEBHOOK_ALLOW_CIDRS: ranges webhooks may reach despite the guard
	WebhookAllowHTTP    bool   // TIMBRE_WEBHOOK_ALLOW_HTTP: accept http:// webhook URLs
	WebhookMaxFailures  int    // TIMBRE_WEBHOOK_MAX_FAILURES: consecutive failures before a webhook is disabled
	TrustGeoHeaders     bool   // TIMBRE_TRUST_GEO_HEADERS: take the user's location from a proxy's geo headers
	TrustedProxies      string // TIMBRE_TRUSTED_PROXIES: reverse proxies (CIDRs) whose X-Forwarded-For names the client
	DNSResolver         string // TIMBRE_DNS_RESOLVER: host:port of the DNS server SSO domain verification asks; empty = the system's

	// A self-hosted server has no company terms: the operator links their own, or the web app
	// shows its built-in /terms and /privacy pages.
	TermsURL   string // TIMBRE_TERMS_URL: the operator's terms of service; empty = the built-in /terms page
	PrivacyURL string // TIMBRE_PRIVACY_URL: the operator's privacy policy; empty = the built-in /privacy page

	finish func() error
}

// Kind says which subcommand a flag set is for, so each shows only the flags it uses.
type Kind int

const (
	Serve Kind = iota
	Worker
	Data // migrate and admin commands: only the storage flags
)

type setting struct {
	name, env, help string
	bind            func(fs *flag.FlagSet, name, help string)
	kinds           []Kind
}

// Bind registers the flags for kind on fs, with defaults taken from the environment.
func Bind(fs *flag.FlagSet, kind Kind) *Config {
	c := &Config{}
	str := func(p *string, def string) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, name, help string) { fs.StringVar(p, name, def, help) }
	}
	num := func(p *int, def int) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, name, help string) { fs.IntVar(p, name, def, help) }
	}
	boolean := func(p *bool) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, name, help string) { fs.BoolVar(p, name, false, help) }
	}
	all := []Kind{Serve, Worker, Data}
	run := []Kind{Serve, Worker}
	settings := []setting{
		{"addr", "TIMBRE_ADDR", "address to listen on", str(&c.Addr, "0.0.0.0:8080"), []Kind{Serve}},
		{"metrics-addr", "TIMBRE_METRICS_ADDR", "address of a separate listener that serves Prometheus /metrics (e.g. 127.0.0.1:9090); empty = no metrics", str(&c.MetricsAddr, ""), []Kind{Serve}},
		{"data", "TIMBRE_DATA_DIR", "data directory (SQLite database, audio blobs)", str(&c.DataDir, "./data"), all},
		{"database-url", "TIMBRE_DATABASE_URL", "database: empty = SQLite in the data directory, or postgres://…", str(&c.DatabaseURL, ""), all},
		{"blob-url", "TIMBRE_BLOB_URL", "audio storage: empty = <data>/blobs, file:///dir, or s3://bucket?endpoint=…&region=…", str(&c.BlobURL, ""), all},
		{"public-url", "TIMBRE_PUBLIC_URL", "public base URL used in mail links and share links (default: the address each request came by; set it in production so links never follow a Host header)", str(&c.PublicURL, ""), run},
		{"smtp-host", "TIMBRE_SMTP_HOST", "SMTP server host; empty = mail goes to the log and /app/dev/mailbox", str(&c.SMTPHost, ""), run},
		{"smtp-port", "TIMBRE_SMTP_PORT", "SMTP server port", num(&c.SMTPPort, 587), run},
		{"smtp-username", "TIMBRE_SMTP_USERNAME", "SMTP user name", str(&c.SMTPUsername, ""), run},
		{"smtp-password", "TIMBRE_SMTP_PASSWORD", "SMTP password", str(&c.SMTPPassword, ""), run},
		{"smtp-from", "TIMBRE_SMTP_FROM", "sender address of mail", str(&c.SMTPFrom, "Timbre <no-reply@timbre.local>"), run},
		{"tts-openai-url", "TIMBRE_TTS_OPENAI_URL", "base URL of an OpenAI-compatible /v1/audio/speech server to add as a TTS engine", str(&c.TTSOpenAIURL, ""), run},
		{"tts-openai-key", "TIMBRE_TTS_OPENAI_KEY", "API key for that server", str(&c.TTSOpenAIKey, ""), run},
		{"tts-openai-model", "TIMBRE_TTS_OPENAI_MODEL", "model name to request from that server", str(&c.TTSOpenAIModel, "tts-1"), run},
		{"tts-openai-voices", "TIMBRE_TTS_OPENAI_VOICES", "comma-separated voices that server offers", str(&c.TTSOpenAIVoices, "alloy,echo,fable,onyx,nova,shimmer"), run},
		{"clone-openai-url", "TIMBRE_CLONE_OPENAI_URL", "base URL of a server speaking OpenAI's custom-voices protocol (POST /v1/audio/voices) that makes instant clones", str(&c.CloneOpenAIURL, ""), run},
		{"clone-openai-key", "TIMBRE_CLONE_OPENAI_KEY", "API key for the cloning server", str(&c.CloneOpenAIKey, ""), run},
		{"clone-openai-model", "TIMBRE_CLONE_OPENAI_MODEL", "speech model the cloned voices are spoken with", str(&c.CloneOpenAIModel, "gpt-4o-mini-tts"), run},
		{"clone-openai-consent", "TIMBRE_CLONE_OPENAI_CONSENT", "consent recording id (cons_…) the cloning server requires with each voice", str(&c.CloneOpenAIConsent, ""), run},
		{"stt-openai-url", "TIMBRE_STT_OPENAI_URL", "base URL of an OpenAI-compatible /v1/audio/transcriptions server (whisper) to add as a speech-to-text engine", str(&c.STTOpenAIURL, ""), run},
		{"stt-openai-key", "TIMBRE_STT_OPENAI_KEY", "API key for that server", str(&c.STTOpenAIKey, ""), run},
		{"stt-openai-model", "TIMBRE_STT_OPENAI_MODEL", "model name to request from that server", str(&c.STTOpenAIModel, "whisper-1"), run},
		{"stt-openai-languages", "TIMBRE_STT_OPENAI_LANGUAGES", "comma-separated languages (ISO 639-1) that server transcribes; empty = any it accepts", str(&c.STTOpenAILanguages, ""), run},
		{"sts-converter-url", "TIMBRE_STS_CONVERTER_URL", "URL of a neural voice converter for speech to speech (multipart POST of the recording and a reference clip of the target voice; see internal/convert/http.go); empty = the embedded parametric converter", str(&c.STSConverterURL, ""), run},
		{"sts-converter-key", "TIMBRE_STS_CONVERTER_KEY", "bearer token for that converter", str(&c.STSConverterKey, ""), run},
		{"sfx-url", "TIMBRE_SFX_URL", "base URL of an ElevenLabs-compatible sound-effect server (POST /v1/sound-generation; Timbre asks for pcm_44100); empty = the embedded procedural engine", str(&c.SFXURL, ""), run},
		{"sfx-key", "TIMBRE_SFX_KEY", "xi-api-key for that server", str(&c.SFXKey, ""), run},
		{"music-url", "TIMBRE_MUSIC_URL", "base URL of an ElevenLabs-compatible music server (plans are sent to its POST /v1/music/stream); empty = the embedded algorithmic composer played with FluidSynth", str(&c.MusicURL, ""), run},
		{"music-key", "TIMBRE_MUSIC_KEY", "xi-api-key for that music server", str(&c.MusicKey, ""), run},
		{"espeak-workers", "TIMBRE_ESPEAK_WORKERS", "espeak-ng worker processes (0 = one per CPU)", num(&c.EspeakWorkers, 0), run},
		{"job-workers", "TIMBRE_JOB_WORKERS", "background jobs run at once", num(&c.JobWorkers, 4), run},
		{"webhook-allow-private", "TIMBRE_WEBHOOK_ALLOW_PRIVATE", "let webhooks reach private, loopback and link-local addresses", boolean(&c.WebhookAllowPrivate), run},
		{"webhook-allow-cidrs", "TIMBRE_WEBHOOK_ALLOW_CIDRS", "comma-separated address ranges webhooks may reach despite the guard", str(&c.WebhookAllowCIDRs, ""), run},
		{"webhook-allow-http", "TIMBRE_WEBHOOK_ALLOW_HTTP", "accept http:// webhook URLs", boolean(&c.WebhookAllowHTTP), run},
		{"webhook-max-failures", "TIMBRE_WEBHOOK_MAX_FAILURES", "consecutive failed deliveries before a webhook is disabled", num(&c.WebhookMaxFailures, 20), run},
		{"trust-geo-headers", "TIMBRE_TRUST_GEO_HEADERS", "take users' locations from a trusted proxy's headers (CF-IPCountry, X-Geo-Country, X-Geo-Region, X-Geo-City)", boolean(&c.TrustGeoHeaders), run},
		{"trusted-proxies", "TIMBRE_TRUSTED_PROXIES", "comma-separated address ranges of reverse proxies whose X-Forwarded-For names the real client (per-address limits, audit log)", str(&c.TrustedProxies, ""), []Kind{Serve}},
		{"dns-resolver", "TIMBRE_DNS_RESOLVER", "DNS server (host:port) asked for SSO domain-verification TXT records; empty = the system's resolver", str(&c.DNSResolver, ""), []Kind{Serve}},
		{"terms-url", "TIMBRE_TERMS_URL", "http(s) address of the operator's terms of service, linked from the sign-up form; empty = the built-in /terms page", str(&c.TermsURL, ""), []Kind{Serve}},
		{"privacy-url", "TIMBRE_PRIVACY_URL", "http(s) address of the operator's privacy policy, linked from the sign-up form; empty = the built-in /privacy page", str(&c.PrivacyURL, ""), []Kind{Serve}},
		{"log-level", "TIMBRE_LOG_LEVEL", "log level: debug, info, warn, error", str(&c.LogLevel, "info"), all},
	}
	var maxBody, maxUploadMB int
	var shutdown, retention, settle, bodyTimeout, leaseTTL string
	settings = append(settings,
		setting{"max-body-bytes", "TIMBRE_MAX_BODY_BYTES", "largest accepted JSON request body in bytes", num(&maxBody, 1<<20), []Kind{Serve}},
		setting{"max-upload-mb", "TIMBRE_MAX_UPLOAD_MB", "largest accepted audio or video upload (speech to text, voice isolation) in megabytes", num(&maxUploadMB, 1024), []Kind{Serve}},
		setting{"body-timeout", "TIMBRE_BODY_TIMEOUT", "how long a request body may take to arrive before the request ends with 408", str(&bodyTimeout, "30s"), []Kind{Serve}},
		setting{"shutdown-timeout", "TIMBRE_SHUTDOWN_TIMEOUT", "how long SIGTERM waits for in-flight requests and streams", str(&shutdown, "30s"), []Kind{Serve}},
		setting{"history-retention", "TIMBRE_HISTORY_RETENTION", "deleted history audio is purged after this long", str(&retention, "24h"), run},
		setting{"settle-after", "TIMBRE_SETTLE_AFTER", "open charges whose generation gave no sign of life this long (a crashed process) are settled: delivered part charged, rest refunded (keep it above 30s: a stream held by a slow client reports only every 30s)", str(&settle, "2m"), run},
		setting{"concurrency-lease-ttl", "TIMBRE_CONCURRENCY_LEASE_TTL", "how long the concurrency slots of a crashed server process stay taken (running requests renew theirs every third of it)", str(&leaseTTL, "30s"), []Kind{Serve}},
	)
	for _, s := range settings {
		if !has(s.kinds, kind) {
			continue
		}
		s.bind(fs, s.name, fmt.Sprintf("%s (env %s)", s.help, s.env))
		if v, ok := os.LookupEnv(s.env); ok {
			_ = fs.Set(s.name, v)
		}
	}
	// Durations are parsed after flag.Parse through Finish.
	c.finish = func() error {
		c.MaxBodyBytes = int64(maxBody)
		c.MaxUploadBytes = int64(maxUploadMB) << 20
		var err error
		if c.ShutdownTimeout, err = parseDuration("shutdown-timeout", shutdown, 30*time.Second); err != nil {
			return err
		}
		if c.HistoryRetention, err = parseDuration("history-retention", retention, 24*time.Hour); err != nil {
			return err
		}
		if c.SettleAfter, err = parseDuration("settle-after", settle, 2*time.Minute); err != nil {
			return err
		}
		if c.BodyTimeout, err = parseDuration("body-timeout", bodyTimeout, 30*time.Second); err != nil {
			return err
		}
		if c.LeaseTTL, err = parseDuration("concurrency-lease-ttl", leaseTTL, 30*time.Second); err != nil {
			return err
		}
		if c.LeaseTTL < time.Second {
			return fmt.Errorf("concurrency-lease-ttl: want at least 1s, got %s", c.LeaseTTL)
		}
		return nil
	}
	return c
}

// Finish validates the parsed flags and fills derived values. Call it after fs.Parse.
func (c *Config) Finish() error {
	if c.finish != nil {
		if err := c.finish(); err != nil {
			return err
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.PublicURL == "" {
		c.PublicURLFromRequest = true
		port := "8080"
		if i := strings.LastIndex(c.Addr, ":"); i >= 0 {
			port = c.Addr[i+1:]
		}
		c.PublicURL = "http://localhost:" + port
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	// The secret key comes only from the environment: a flag would show in ps.
	c.SecretKey = os.Getenv("TIMBRE_SECRET_KEY")
	if c.DNSResolver != "" {
		if host, port, err := net.SplitHostPort(c.DNSResolver); err != nil || host == "" || port == "" {
			return fmt.Errorf("dns-resolver: want host:port (like 1.1.1.1:53), got %q", c.DNSResolver)
		}
	}
	for _, u := range []struct{ name, value string }{{"terms-url", c.TermsURL}, {"privacy-url", c.PrivacyURL}} {
		if u.value != "" && !absoluteHTTPURL(u.value) {
			return fmt.Errorf("%s: want an http:// or https:// address (like https://example.com/terms), got %q", u.name, u.value)
		}
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") && !strings.HasPrefix(c.DatabaseURL, "sqlite:") {
		return fmt.Errorf("database-url: want postgres://… or sqlite:PATH, got %q", c.DatabaseURL)
	}
	return nil
}

// SQLitePath is the database file used when no database URL is set.
func (c *Config) SQLitePath() string {
	if strings.HasPrefix(c.DatabaseURL, "sqlite:") {
		return strings.TrimPrefix(c.DatabaseURL, "sqlite:")
	}
	return filepath.Join(c.DataDir, "timbre.db")
}

// IsPostgres says whether the configured database is PostgreSQL.
func (c *Config) IsPostgres() bool {
	return strings.HasPrefix(c.DatabaseURL, "postgres://") || strings.HasPrefix(c.DatabaseURL, "postgresql://")
}

// absoluteHTTPURL says whether s is an http(s) address with a host: what a sign-up page may
// link to (never javascript: or a relative path).
func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func parseDuration(name, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func has(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}
