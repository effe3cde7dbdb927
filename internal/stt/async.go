package stt

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/access"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/store"
)

// Asynchronous transcription (webhook=true): the request is charged, its decoded audio stored
// and a job queued in one step; the answer says it was accepted; a worker transcribes and hands
// the transcript to the workspace's speech-to-text webhooks (or the one webhook_id names).

// Blobs is what speech to text needs of the blob store.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
	Open(ctx context.Context, key string) (io.ReadCloser, error)
}

// Webhooks delivers events (the webhook service).
type Webhooks interface {
	Emit(ctx context.Context, workspaceID, event string, payload any) error
	EmitTo(ctx context.Context, workspaceID, webhookID, event string, payload any) error
}

// Queue enqueues a job in the store's transaction (the job client).
type Queue interface {
	InsertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// SetJobs gives the service the job queue (once the process runs one).
func (s *Service) SetJobs(q Queue) { s.jobs.Store(&q) }

// webhookEvent is the event asynchronous transcripts are delivered as.
const webhookEvent = "speech_to_text"

// Accepted is the answer to an asynchronous request (the API's SpeechToTextWebhookResponseModel).
type Accepted struct {
	Message         string `json:"message"`
	RequestID       string `json:"request_id"`
	TranscriptionID string `json:"transcription_id"`
}

// Start begins an asynchronous transcription (r.Webhook) and returns once it is queued.
func (s *Service) Start(ctx context.Context, c *access.Caller, r *Request) (*Accepted, error) {
	r.Webhook = true
	j, err := s.begin(ctx, c, r)
	if err != nil {
		return nil, err
	}
	return &Accepted{Message: "Request accepted. Transcription result will be sent to the webhook.", RequestID: j.TranscriptID, TranscriptionID: j.TranscriptID}, nil
}

// checkWebhooks makes sure an asynchronous request has somewhere to go.
func (s *Service) checkWebhooks(ctx context.Context, workspaceID, webhookID string) error {
	if s.jobs.Load() == nil || s.Blob == nil || s.Webhooks == nil {
		return errAudio("webhook", "Asynchronous transcription needs the background job queue, which this server process does not run.")
	}
	if webhookID != "" {
		wh, err := s.DB.Webhook(ctx, workspaceID, webhookID)
		if errors.Is(err, store.ErrNotFound) {
			return errAudio("webhook_id", "No webhook with this id in the workspace.")
		}
		if err != nil {
			return err
		}
		if wh.IsDisabled || wh.IsAutoDisabled {
			return errAudio("webhook_id", "This webhook is disabled.")
		}
		return nil
	}
	hooks, err := s.DB.ActiveWebhooksFor(ctx, workspaceID, webhookEvent)
	if err != nil {
		return err
	}
	if len(hooks) == 0 {
		return errAudio("webhook", "No enabled webhook of this workspace listens for speech_to_text events; add one under Developers → Webhooks, or send the request without webhook.")
	}
	return nil
}

func pendingKey(j *job) string { return "stt-pending/" + j.WorkspaceID + "/" + j.TranscriptID + ".pcm" }

// storePCM keeps the decoded audio (16-bit little-endian, RecognitionRate) for the job: its
// channels one after the other (all of the same length; see loadPCM).
func (s *Service) storePCM(ctx context.Context, j *job) error {
	var data []byte
	for _, pcm := range j.audio {
		for _, v := range pcm.Samples {
			data = binary.LittleEndian.AppendUint16(data, uint16(v))
		}
	}
	return s.Blob.Put(ctx, pendingKey(j), data, "audio/pcm")
}

// loadPCM splits audio stored by storePCM into the job's channels.
func loadPCM(j *job, data []byte) {
	n := len(data) / 2 / j.channels()
	j.audio = make([]engine.PCM, j.channels())
	for c := range j.audio {
		pcm := engine.PCM{Samples: make([]int16, n), SampleRate: engine.RecognitionRate}
		for i := range pcm.Samples {
			pcm.Samples[i] = int16(binary.LittleEndian.Uint16(data[2*(c*n+i):]))
		}
		j.audio[c] = pcm
	}
}

func (s *Service) dropPCM(j *job) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Blob.Delete(ctx, pendingKey(j))
}

// TranscribeArgs is the job of one asynchronous transcription.
type TranscribeArgs struct {
	Job job `json:"job"`
}

// Kind implements river.JobArgs.
func (TranscribeArgs) Kind() string { return "stt_transcribe" }

func (s *Service) enqueue(ctx context.Context, tx *store.Tx, j *job) error {
	q := s.jobs.Load()
	if q == nil {
		return errs.New(errs.Unavailable, "queue_unavailable", "The background job queue is not running.")
	}
	// One attempt: a retry after a crash would find the charge settled by metering.SettleStale.
	_, err := (*q).InsertTx(ctx, tx, TranscribeArgs{Job: *j}, &river.InsertOpts{MaxAttempts: 1})
	return err
}

// TranscribeWorker runs asynchronous transcriptions.
type TranscribeWorker struct {
	river.WorkerDefaults[TranscribeArgs]
	Svc *Service
}

// Timeout lets a long file take its time (pocketsphinx runs at a few times real time; each
// channel is as long as the file).
func (w *TranscribeWorker) Timeout(job *river.Job[TranscribeArgs]) time.Duration {
	j := &job.Args.Job
	return time.Duration(j.Seconds*float64(j.channels()))*time.Second + 5*time.Minute
}

// Work transcribes the stored audio and delivers the transcript.
func (w *TranscribeWorker) Work(ctx context.Context, job *river.Job[TranscribeArgs]) error {
	s, j := w.Svc, &job.Args.Job
	defer s.dropPCM(j)
	data, err := s.Blob.Get(ctx, pendingKey(j))
	if err != nil {
		s.fail(j, fmt.Errorf("the uploaded audio is gone: %w", err))
		return river.JobCancel(err)
	}
	loadPCM(j, data)
	t, err := s.run(ctx, j)
	if err != nil {
		return river.JobCancel(err) // run settled it: refunded and marked failed
	}
	payload := map[string]any{"request_id": j.TranscriptID, "transcription": t, "webhook_metadata": metadata(j.Request.WebhookMeta)}
	if j.Request.WebhookID != "" {
		err = s.Webhooks.EmitTo(ctx, j.WorkspaceID, j.Request.WebhookID, webhookEvent, payload)
	} else {
		err = s.Webhooks.Emit(ctx, j.WorkspaceID, webhookEvent, payload)
	}
	if !j.Request.Logging {
		_ = s.DB.DeleteTranscript(context.WithoutCancel(ctx), j.WorkspaceID, j.TranscriptID)
	}
	return err
}

// metadata is webhook_metadata as JSON for the payload (nil when absent).
func metadata(raw string) any {
	if raw == "" {
		return nil
	}
	return json.RawMessage(raw)
}
