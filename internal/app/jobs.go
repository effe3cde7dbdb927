package app

import (
	"context"

	"timbre/internal/store"
)

// StartJobs starts the background workers. (Wired to River once internal/jobs lands.)
func (a *App) StartJobs(ctx context.Context) error { return nil }

// StopJobs stops the background workers.
func (a *App) StopJobs() {}

// MigrateJobs applies the job queue's migrations.
func MigrateJobs(ctx context.Context, db *store.DB) error { return nil }
