package tts

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"timbre/internal/store"
)

// PreviewArgs asks for a voice's preview clip to be generated and stored.
type PreviewArgs struct {
	VoiceID string `json:"voice_id"`
}

// Kind implements river.JobArgs.
func (PreviewArgs) Kind() string { return "voice_preview" }

// InsertOpts makes one pending preview job per voice, however many processes ask.
func (PreviewArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// PreviewWorker generates voice previews in the background, so the first listener doesn't wait.
type PreviewWorker struct {
	river.WorkerDefaults[PreviewArgs]
	Svc *Service
}

// Work implements river.Worker.
func (w *PreviewWorker) Work(ctx context.Context, job *river.Job[PreviewArgs]) error {
	v, err := w.Svc.DB.Voice(ctx, "", job.Args.VoiceID)
	if errors.Is(err, store.ErrNotFound) {
		return river.JobCancel(err) // the voice is gone: nothing to do, ever
	}
	if err != nil {
		return err
	}
	if v.PreviewKey != "" {
		if ok, _ := w.Svc.Blob.Exists(ctx, v.PreviewKey); ok {
			return nil
		}
	}
	_, err = w.Svc.GeneratePreview(ctx, v)
	return err
}

// MissingPreviews lists the premade voices that have no preview yet.
func (s *Service) MissingPreviews(ctx context.Context) ([]string, error) {
	voices, _, err := s.DB.ListVoices(ctx, "", store.VoiceFilter{VoiceType: "default"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range voices {
		if v.PreviewKey == "" {
			out = append(out, v.ID)
		}
	}
	return out, nil
}
