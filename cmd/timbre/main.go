// Command timbre is the whole of Timbre in one binary: the API and web app (serve), background
// workers (worker), migrations (migrate) and operator commands (admin).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"timbre/internal/app"
	"timbre/internal/audio"
	"timbre/internal/auth"
	"timbre/internal/backup"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voice"
	"timbre/web"
)

const usage = `Timbre: a self-hosted voice AI platform.

Usage:
  timbre serve   [--addr HOST:PORT] [--data DIR] [flags]   API + web app + background workers
  timbre worker  [--data DIR] [flags]                      background workers only (scale-out)
  timbre migrate [--data DIR]                              apply database migrations and exit
  timbre admin create-user --email E --password P [--data DIR]
  timbre admin create-api-key --email E --name N [--data DIR]
  timbre admin set-plan --email E --plan TIER [--period monthly|annual] [--extra-pvc-slots N] [--data DIR]
  timbre admin list-users [--data DIR]
  timbre admin voice-safety --voice ID --set ban|captcha|none [--data DIR]
  timbre admin voice-feature --voice ID --set on|off [--data DIR]
  timbre admin pvc-verify --email E --voice-id V [--data DIR]   approve a professional voice's manual verification
  timbre backup  --out FILE [--data DIR]                   copy the database and audio (SQLite default), also while serving
  timbre restore --in FILE [--data DIR] [--force]          bring a backup back (with the server stopped)

Every flag can also be set in the environment (shown with each flag).
Run "timbre <command> --help" for the flags of a command.

TIMBRE_SECRET_KEY (environment only, so it never shows in ps): the key that encrypts stored
secrets (webhook and SSO secrets, TOTP seeds); without it <data>/secret.key is created and used.
`

func main() {
	engine.MaybeRunWorker() // a worker process of the engine pool never returns from here
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "timbre:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stderr, true)
	case "worker":
		return serve(args[1:], stderr, false)
	case "migrate":
		return migrate(args[1:], stdout, stderr)
	case "admin":
		return admin(args[1:], stdout, stderr)
	case "backup":
		return backupCmd(args[1:], stdout, stderr)
	case "restore":
		return restoreCmd(args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown command %q\n\n%s", args[0], usage)
}

func parse(name string, kind config.Kind, args []string, stderr io.Writer, extra func(fs *flag.FlagSet)) (*config.Config, error) {
	fs := flag.NewFlagSet("timbre "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config.Bind(fs, kind)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return cfg, cfg.Finish()
}

func logger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

func serve(args []string, stderr io.Writer, withHTTP bool) error {
	kind, name := config.Serve, "serve"
	if !withHTTP {
		kind, name = config.Worker, "worker"
	}
	cfg, err := parse(name, kind, args, stderr, nil)
	if err != nil {
		return err
	}
	log := logger(cfg, stderr)
	slog.SetDefault(log)
	if !cfg.IsPostgres() {
		// Marks the data directory as in use, so that timbre restore refuses to replace it.
		unlock, err := backup.Lock(cfg.DataDir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	dist, err := fs.Sub(web.Dist, "dist")
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, app.Options{WebApp: dist, Logger: log})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.StartJobs(ctx); err != nil {
		return err
	}
	defer a.StopJobs()
	if !withHTTP {
		log.Info("worker running", "data", cfg.DataDir)
		<-ctx.Done()
		return nil
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	log.Info("timbre is listening", "addr", ln.Addr().String(), "url", cfg.PublicURL, "data", cfg.DataDir)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if cfg.MetricsAddr != "" {
		// Metrics on their own listener, for the operator's network only: they name routes and
		// counts that the public should not read.
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", a.MetricsHandler())
		msrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		defer msrv.Close()
		log.Info("metrics are served", "addr", mln.Addr().String()+"/metrics")
		go func() { errc <- msrv.Serve(mln) }()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// SIGTERM: stop accepting, let in-flight requests and streams finish.
	log.Info("shutting down", "grace", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	// Shutdown does not wait for WebSockets: the real-time sessions are ended alongside.
	drained := make(chan error, 1)
	go func() { drained <- a.Realtime.Drain(sctx) }()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown cut in-flight requests", "err", err)
	}
	if err := <-drained; err != nil {
		log.Warn("shutdown cut real-time sessions", "err", err)
	}
	audio.Shutdown() // stop the idle, pre-started encoders
	return nil
}

func migrate(args []string, stdout, stderr io.Writer) error {
	cfg, err := parse("migrate", config.Data, args, stderr, nil)
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := app.Open(ctx, cfg, logger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := app.MigrateJobs(ctx, db); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

func admin(args []string, stdout, stderr io.Writer) error {
	const commands = "create-user, create-api-key, set-plan, list-users, voice-safety, voice-feature or pvc-verify"
	if len(args) == 0 {
		return errors.New("admin needs a command: " + commands)
	}
	switch args[0] {
	case "voice-safety":
		return voiceSafety(args[1:], stdout, stderr)
	case "voice-feature":
		return voiceFeature(args[1:], stdout, stderr)
	}
	var email, password, name, tier, period, voiceID string
	extraPVC := -1
	var cfg *config.Config
	var err error
	switch args[0] {
	case "create-user":
		cfg, err = parse("admin create-user", config.Data, args[1:], stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&email, "email", "", "the user's email (required)")
			fs.StringVar(&password, "password", "", "the user's password (required, at least 8 characters)")
		})
	case "create-api-key":
		cfg, err = parse("admin create-api-key", config.Data, args[1:], stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&email, "email", "", "the email of the key's user (required)")
			fs.StringVar(&name, "name", "", "a name for the key (required)")
		})
	case "set-plan":
		cfg, err = parse("admin set-plan", config.Data, args[1:], stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&email, "email", "", "the email of a user: their default workspace gets the plan (required)")
			fs.StringVar(&tier, "plan", "", "the tier: "+strings.Join(tierIDs(), ", ")+" (required)")
			fs.StringVar(&period, "period", "monthly", "the billing period: monthly or annual")
			fs.IntVar(&extraPVC, "extra-pvc-slots", -1, "professional voice slots on top of the plan's (0–100; unset: unchanged)")
		})
	case "list-users":
		cfg, err = parse("admin list-users", config.Data, args[1:], stderr, nil)
	case "pvc-verify":
		cfg, err = parse("admin pvc-verify", config.Data, args[1:], stderr, func(fs *flag.FlagSet) {
			fs.StringVar(&email, "email", "", "the email of a user of the voice's workspace (their default workspace; required)")
			fs.StringVar(&voiceID, "voice-id", "", "the professional voice whose manual verification is approved (required)")
		})
	default:
		return fmt.Errorf("unknown admin command %q: use %s", args[0], commands)
	}
	if err != nil {
		return err
	}
	if email == "" && args[0] != "list-users" {
		return errors.New("--email is required")
	}
	if args[0] == "set-plan" {
		if !slices.Contains(tierIDs(), tier) {
			return fmt.Errorf("--plan: want one of %s, got %q", strings.Join(tierIDs(), ", "), tier)
		}
		if period != "monthly" && period != "annual" {
			return fmt.Errorf("--period: want monthly or annual, got %q", period)
		}
		if extraPVC < -1 || extraPVC > 100 {
			return fmt.Errorf("--extra-pvc-slots: want 0 to 100, got %d", extraPVC)
		}
	}
	ctx := context.Background()
	db, err := app.Open(ctx, cfg, logger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	svc := &auth.Service{DB: db}
	switch args[0] {
	case "create-user":
		u, err := svc.CreateVerifiedUser(ctx, email, password)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %s (%s) with workspace %s on the free plan\n", u.Email, u.ID, u.WorkspaceID)
		return nil
	case "list-users":
		return listUsers(ctx, db, stdout)
	}
	u, err := db.UserByEmail(ctx, email)
	if err != nil {
		return fmt.Errorf("no user with email %s", email)
	}
	if args[0] == "pvc-verify" {
		if voiceID == "" {
			return errors.New("--voice-id is required")
		}
		if err := (&voice.Service{DB: db}).ApproveManualVerification(ctx, u.WorkspaceID, voiceID); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "professional voice %s of workspace %s is verified: it can be trained\n", voiceID, u.WorkspaceID)
		return nil
	}
	if args[0] == "set-plan" {
		if err := db.SetPlan(ctx, u.WorkspaceID, tier, period+"_period"); err != nil {
			return err
		}
		if extraPVC >= 0 {
			if err := db.SetExtraProVoiceSlots(ctx, u.WorkspaceID, extraPVC); err != nil {
				return err
			}
		}
		t := plan.Get(tier)
		ws, err := db.Workspace(ctx, u.WorkspaceID, time.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "workspace %s of %s is now on %s (%s, billed %s): %d concurrent requests, %d professional voices\n",
			u.WorkspaceID, u.Email, t.ID, t.Name, period, t.Concurrency, plan.ProVoiceLimit(t, ws.ExtraProVoiceSlots))
		return nil
	}
	if name == "" {
		return errors.New("--name is required")
	}
	k, secret, err := svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created API key %q (%s) for %s; it is shown only now:\n%s\n", k.Name, k.ID, u.Email, secret)
	return nil
}

func tierIDs() []string {
	ids := make([]string, len(plan.Tiers))
	for i, t := range plan.Tiers {
		ids[i] = t.ID
	}
	return ids
}

// listUsers prints every user as a table: email, name, workspaces, the default workspace's plan, created.
func listUsers(ctx context.Context, db *store.DB, stdout io.Writer) error {
	users, err := db.ListUsers(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tNAME\tWORKSPACES\tTIER\tPERIOD\tCREATED")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", u.Email, u.FirstName, u.Workspaces, u.Tier,
			strings.TrimSuffix(u.Period, "_period"), u.CreatedAt.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// voiceSafety sets a voice's safety_control: ban (nobody may use it; workspaces that copied it
// from the library are sent a voice_removed notice), captcha (each workspace must read a
// sentence aloud before using it again) or none.
func voiceSafety(args []string, stdout, stderr io.Writer) error {
	var voiceID, set string
	cfg, err := parse("admin voice-safety", config.Data, args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&voiceID, "voice", "", "the voice id (required)")
		fs.StringVar(&set, "set", "", "ban, captcha or none (required)")
	})
	if err != nil {
		return err
	}
	if voiceID == "" {
		return errors.New("--voice is required")
	}
	control := strings.ToUpper(strings.TrimSpace(set))
	if !slices.Contains([]string{store.SafetyBan, store.SafetyCaptcha, store.SafetyNone}, control) {
		return fmt.Errorf("--set: want ban, captcha or none, got %q", set)
	}
	ctx := context.Background()
	log := logger(cfg, stderr)
	db, err := app.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, closeQueue, err := app.VoiceSafety(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	defer closeQueue()
	if err := svc.SetSafety(ctx, voiceID, control); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "voice %s: safety_control %s\n", voiceID, control)
	return nil
}

// voiceFeature features a published library voice (GET /v1/shared-voices?featured=true lists
// the featured ones) or stops featuring it: the operator's curation of the library.
func voiceFeature(args []string, stdout, stderr io.Writer) error {
	var voiceID, set string
	cfg, err := parse("admin voice-feature", config.Data, args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&voiceID, "voice", "", "the published voice's id (required)")
		fs.StringVar(&set, "set", "", "on or off (required)")
	})
	if err != nil {
		return err
	}
	if voiceID == "" {
		return errors.New("--voice is required")
	}
	if set != "on" && set != "off" {
		return fmt.Errorf("--set: want on or off, got %q", set)
	}
	ctx := context.Background()
	db, err := app.Open(ctx, cfg, logger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.SetVoiceFeatured(ctx, voiceID, set == "on")
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("voice %s is not published in the voice library", voiceID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "voice %s: featured %s\n", voiceID, set)
	return nil
}
