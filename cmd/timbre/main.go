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
	"strings"
	"syscall"
	"time"

	"timbre/internal/app"
	"timbre/internal/audio"
	"timbre/internal/auth"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/web"
)

const usage = `Timbre: a self-hosted voice AI platform.

Usage:
  timbre serve   [--addr HOST:PORT] [--data DIR] [flags]   API + web app + background workers
  timbre worker  [--data DIR] [flags]                      background workers only (scale-out)
  timbre migrate [--data DIR]                              apply database migrations and exit
  timbre admin create-user --email E --password P [--data DIR]
  timbre admin create-api-key --email E --name N [--data DIR]

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
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown cut in-flight requests", "err", err)
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
	if len(args) == 0 {
		return errors.New("admin needs a command: create-user or create-api-key")
	}
	var email, password, name string
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
	default:
		return fmt.Errorf("unknown admin command %q: use create-user or create-api-key", args[0])
	}
	if err != nil {
		return err
	}
	if email == "" {
		return errors.New("--email is required")
	}
	ctx := context.Background()
	db, err := app.Open(ctx, cfg, logger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	svc := &auth.Service{DB: db}
	if args[0] == "create-user" {
		u, err := svc.CreateVerifiedUser(ctx, email, password)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %s (%s) with workspace %s on the free plan\n", u.Email, u.ID, u.WorkspaceID)
		return nil
	}
	if name == "" {
		return errors.New("--name is required")
	}
	u, err := db.UserByEmail(ctx, email)
	if err != nil {
		return fmt.Errorf("no user with email %s", email)
	}
	k, secret, err := svc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created API key %q (%s) for %s; it is shown only now:\n%s\n", k.Name, k.ID, u.Email, secret)
	return nil
}
