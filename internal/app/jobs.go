package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"timbre/internal/auth"
	"timbre/internal/history"
	"timbre/internal/jobs"
	"timbre/internal/metering"
	"timbre/internal/store"
	"timbre/internal/stt"
	"timbre/internal/tts"
	"timbre/internal/voice"
	"timbre/internal/webhook"
)

// PurgeInterval is how often deleted history audio is looked for.
const PurgeInterval = 10 * time.Minute

// StartJobs starts River's workers in this process: voice previews, history clean-up, webhook
// deliveries, account mails (password reset, verification) and the deletion of expired
// security rows, and the settling of interrupted work (metering). It enqueues previews for premade voices
// that have none, and the periodic purge and clean-up.
func (a *App) StartJobs(ctx context.Context) error {
	// Work a crashed process left open is settled before this one takes requests.
	if n, err := metering.SettleStale(ctx, a.DB, a.Cfg.SettleAfter, time.Now()); err != nil {
		return err
	} else if n > 0 {
		a.Log.Info("settled interrupted work", "reservations", n)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &tts.PreviewWorker{Svc: a.Speech})
	river.AddWorker(workers, &history.PurgeWorker{DB: a.DB, Blob: a.Blob, Retention: a.Cfg.HistoryRetention})
	river.AddWorker(workers, &webhook.DeliverWorker{Svc: a.Webhooks})
	river.AddWorker(workers, &auth.AccountMailWorker{Svc: a.Auth})
	river.AddWorker(workers, &CleanupWorker{DB: a.DB, Log: a.Log})
	river.AddWorker(workers, &metering.SettleWorker{DB: a.DB, Log: a.Log, StaleAfter: a.Cfg.SettleAfter})
	river.AddWorker(workers, &stt.TranscribeWorker{Svc: a.Transcriber})
	river.AddWorker(workers, &voice.SeparateWorker{Svc: a.Voices})
	river.AddWorker(workers, &voice.TrainWorker{Svc: a.Voices})
	client, err := jobs.NewWithConfig(a.DB, jobs.Config{
		Logger: a.Log, Workers: workers, QueueWorkers: max(1, a.Cfg.JobWorkers),
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(PurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return history.PurgeArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}),
			CleanupJob(), metering.SettleJob()},
	})
	if err != nil {
		return err
	}
	a.Webhooks.SetJobs(client)
	a.Auth.SetJobs(client) // reset and verification mails leave the request path
	a.Transcriber.SetJobs(client)
	a.Voices.SetJobs(client) // professional cloning: speaker separation and training
	if err := client.Start(ctx); err != nil {
		client.Close()
		return err
	}
	a.jobs = client
	a.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "timbre_jobs_queue_depth", Help: "Background jobs waiting to run (available, scheduled, retryable)."},
		func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := client.QueueDepth(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	missing, err := a.Speech.MissingPreviews(ctx)
	if err != nil {
		return err
	}
	for _, id := range missing {
		if _, err := client.Insert(ctx, tts.PreviewArgs{VoiceID: id}, nil); err != nil {
			return err
		}
	}
	return nil
}

// StopJobs lets running jobs finish (up to ten seconds) and stops the workers.
func (a *App) StopJobs() {
	if a.jobs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = a.jobs.Stop(ctx)
	_ = a.jobs.Close()
	a.jobs = nil
}

// MigrateJobs applies the job queue's migrations.
func MigrateJobs(ctx context.Context, db *store.DB) error {
	return jobs.Migrate(ctx, db, nil)
}
