// Package webhook serves a workspace's outbound webhooks (the API's /v1/workspace/webhooks) and
// delivers events to them: each event is signed with the webhook's secret (HMAC-SHA256 over
// "<timestamp>.<body>", sent as ElevenLabs-Signature: t=…,v0=…), delivered by a River job with
// retries and backoff, logged per attempt, and a webhook that keeps failing is disabled
// automatically. Secrets are stored only encrypted under the server key, and deliveries never
// reach addresses inside the operator's network unless the operator allows it (internal/netguard).
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/audit"
	"timbre/internal/netguard"
	"timbre/internal/secret"
	"timbre/internal/store"
)

// Events are the workspace-level events a webhook can subscribe to (the API's
// WorkspaceWebhookEventType).
var Events = []string{"voice_library_removal_notice", "speech_to_text", "agent_qa", "flows"}

// usageOf names the product an event belongs to (the API's WebhookUsageType).
var usageOf = map[string]string{
	"voice_library_removal_notice": "Voice Library Removal Notices",
	"speech_to_text":               "Speech to Text",
	"agent_qa":                     "Agent QA Evaluations",
	"flows":                        "Flows",
}

// payloadType is the "type" of a delivered body per event, as ElevenLabs names them.
var payloadType = map[string]string{
	"speech_to_text":               "speech_to_text_transcription",
	"voice_library_removal_notice": "voice_removal_notice",
}

// DefaultBackoff is the wait before each retry: 30 s, 2 min, 10 min, 1 h, 3 h, 6 h, 12 h. With
// the first try that makes MaxAttempts 8, spread over about a day.
var DefaultBackoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour}

// Defaults.
const (
	MaxAttempts        = 8
	DefaultMaxFailures = 20 // consecutive failed attempts that disable a webhook
	DefaultTimeout     = 15 * time.Second
)

// Config is what the operator sets.
type Config struct {
	AllowPrivate bool          // TIMBRE_WEBHOOK_ALLOW_PRIVATE=1: deliver to any address
	AllowCIDRs   string        // TIMBRE_WEBHOOK_ALLOW_CIDRS: comma-separated ranges allowed despite the guard
	AllowHTTP    bool          // TIMBRE_WEBHOOK_ALLOW_HTTP=1: accept http:// URLs
	MaxFailures  int           // TIMBRE_WEBHOOK_MAX_FAILURES: consecutive failures before auto-disable (0 = 20)
	Timeout      time.Duration // TIMBRE_WEBHOOK_TIMEOUT: per delivery attempt (0 = 15 s)
}

// Enqueuer is what the service needs of the job client (*jobs.Client).
type Enqueuer interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
}

// Service manages webhooks and delivers events.
type Service struct {
	DB          Store
	Box         *secret.Box
	Guard       *netguard.Guard
	AllowHTTP   bool // accept http:// webhook URLs
	HTTP        *http.Client
	MaxFailures int
	Timeout     time.Duration
	Backoff     []time.Duration
	Log         *slog.Logger
	Now         func() time.Time
	jobs        atomic.Pointer[Enqueuer]
}

// New builds the service around the server's secret box and sets up the guarded client.
func New(db Store, box *secret.Box, cfg Config, log *slog.Logger) (*Service, error) {
	allow, err := netguard.ParseCIDRs(cfg.AllowCIDRs)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Service{DB: db, Box: box, Guard: &netguard.Guard{AllowPrivate: cfg.AllowPrivate, Allow: allow}, AllowHTTP: cfg.AllowHTTP,
		MaxFailures: cfg.MaxFailures, Timeout: cfg.Timeout, Log: log}
	if s.MaxFailures <= 0 {
		s.MaxFailures = DefaultMaxFailures
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	s.HTTP = s.Guard.Client(netguard.ClientOptions{Timeout: s.Timeout})
	return s, nil
}

// The purposes webhook values are sealed for (the AES-GCM additional data): a ciphertext of one
// webhook cannot be moved to another.
func secretPurpose(id string) string  { return "webhook-secret:" + id }
func headersPurpose(id string) string { return "webhook-headers:" + id }

// SetJobs gives the service the job client it enqueues deliveries on (once it exists).
func (s *Service) SetJobs(q Enqueuer) { s.jobs.Store(&q) }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) backoff(attempt int) time.Duration {
	b := s.Backoff
	if len(b) == 0 {
		b = DefaultBackoff
	}
	i := min(max(attempt-1, 0), len(b)-1)
	return b[i]
}

// ErrUnknownEvent is returned by Emit for an event outside Events.
var ErrUnknownEvent = errors.New("webhook: unknown event type")

// DeliverArgs is one event on its way to one webhook; the job runs once per attempt.
type DeliverArgs struct {
	WorkspaceID string `json:"workspace_id"`
	WebhookID   string `json:"webhook_id"`
	DeliveryID  string `json:"delivery_id"`
	Event       string `json:"event"`
	Body        string `json:"body"` // the exact JSON sent, fixed when the event happened
}

// Kind implements river.JobArgs.
func (DeliverArgs) Kind() string { return "webhook_deliver" }

// Emit delivers an event to every enabled webhook of the workspace subscribed to it. The body
// sent is {"type", "event_timestamp", "data": payload}. Delivery happens in the background;
// an error here means the event could not be queued (callers log it: their own action stands).
func (s *Service) Emit(ctx context.Context, workspaceID, event string, payload any) error {
	if !slices.Contains(Events, event) {
		return fmt.Errorf("%w: %q", ErrUnknownEvent, event)
	}
	hooks, err := s.DB.ActiveWebhooksFor(ctx, workspaceID, event)
	if err != nil {
		return err
	}
	_, err = s.enqueue(ctx, hooks, event, "", payload)
	return err
}

// The body types of the voice_library_removal_notice event (ElevenLabs sends these three).
const (
	VoiceRemovalNotice          = "voice_removal_notice"           // a voice the workspace uses will be removed at removal_date_unix
	VoiceRemovalNoticeWithdrawn = "voice_removal_notice_withdrawn" // the removal announced earlier will not happen
	VoiceRemoved                = "voice_removed"                  // the voice is removed now and can no longer be used
)

// VoiceRemoval is the data of a library removal notice.
type VoiceRemoval struct {
	Type      string `json:"-"` // VoiceRemovalNotice, VoiceRemovalNoticeWithdrawn or VoiceRemoved
	VoiceID   string `json:"voice_id"`
	VoiceName string `json:"voice_name"`
	// Reason is why: "banned" (an operator's safety control) or "withdrawn" (its owner stopped sharing it).
	Reason          string `json:"reason"`
	RemovalDateUnix *int64 `json:"removal_date_unix"` // when it goes (null for withdrawn notices)
}

// NotifyVoiceRemoval sends a library removal notice (the workspace event
// voice_library_removal_notice, body type n.Type) to every enabled webhook subscribed to it in
// each of the workspaces: those that copied the voice from the library. An operator's BAN calls
// it (voice.Service.SetSafety); the voice library calls it when a shared voice is withdrawn.
// Deliveries are queued; an error means some could not be.
func (s *Service) NotifyVoiceRemoval(ctx context.Context, workspaceIDs []string, n VoiceRemoval) error {
	if n.Type != VoiceRemovalNotice && n.Type != VoiceRemovalNoticeWithdrawn && n.Type != VoiceRemoved {
		return fmt.Errorf("webhook: unknown removal notice type %q", n.Type)
	}
	var errList []error
	for _, ws := range workspaceIDs {
		hooks, err := s.DB.ActiveWebhooksFor(ctx, ws, "voice_library_removal_notice")
		if err == nil {
			_, err = s.enqueue(ctx, hooks, "voice_library_removal_notice", n.Type, n)
		}
		if err != nil {
			errList = append(errList, fmt.Errorf("workspace %s: %w", ws, err))
		}
	}
	return errors.Join(errList...)
}

// EmitTo delivers an event to one webhook of the workspace (a request that names its webhook,
// as speech to text's webhook_id does), whatever it is subscribed to, if it is enabled.
func (s *Service) EmitTo(ctx context.Context, workspaceID, webhookID, event string, payload any) error {
	if !slices.Contains(Events, event) {
		return fmt.Errorf("%w: %q", ErrUnknownEvent, event)
	}
	wh, err := s.DB.Webhook(ctx, workspaceID, webhookID)
	if err != nil {
		return err
	}
	if wh.IsDisabled || wh.IsAutoDisabled {
		return nil
	}
	_, err = s.enqueue(ctx, []store.Webhook{*wh}, event, "", payload)
	return err
}

// TestEvent is the type of the event POST /api/workspace/webhooks/{webhook_id}/test sends: a
// webhook gets it whatever it is subscribed to, signed and delivered (with retries and a log
// entry) like any event, but its attempts leave the webhook's failure count alone, so a test
// never disables a webhook automatically.
const TestEvent = "webhook_test"

// ErrNoQueue means the job queue is not running, so nothing can be delivered.
var ErrNoQueue = errors.New("webhook: the job queue is not running; event not delivered")

// SendTest queues a test event to the webhook and returns its delivery id. The body is
// {"type": "webhook_test", "event_timestamp": <unix seconds>, "data": {"webhook_id",
// "workspace_id", "message"}}. The caller checks the webhook is enabled.
func (s *Service) SendTest(ctx context.Context, wh *store.Webhook) (string, error) {
	ids, err := s.enqueue(ctx, []store.Webhook{*wh}, TestEvent, "", testPayload{
		WebhookID: wh.ID, WorkspaceID: wh.WorkspaceID,
		Message: "This is a test event from Timbre: your endpoint received and can verify it.",
	})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// envelope is every delivered body: the event's type, when it happened and its data.
type envelope struct {
	Type           string `json:"type"`
	EventTimestamp int64  `json:"event_timestamp"`
	Data           any    `json:"data"`
}

// testPayload is the data of a test event.
type testPayload struct {
	WebhookID   string `json:"webhook_id"`
	WorkspaceID string `json:"workspace_id"`
	Message     string `json:"message"`
}

// enqueue queues one delivery of the event per webhook and returns the delivery ids. typ is
// the body's type ("" = the event's usual one).
func (s *Service) enqueue(ctx context.Context, hooks []store.Webhook, event, typ string, payload any) ([]string, error) {
	if len(hooks) == 0 {
		return nil, nil
	}
	if typ == "" {
		typ = payloadType[event]
	}
	if typ == "" {
		typ = event
	}
	body, err := json.Marshal(envelope{Type: typ, EventTimestamp: s.now().Unix(), Data: payload})
	if err != nil {
		return nil, err
	}
	q := s.jobs.Load()
	if q == nil {
		return nil, ErrNoQueue
	}
	params := make([]river.InsertManyParams, 0, len(hooks))
	ids := make([]string, 0, len(hooks))
	for _, h := range hooks {
		attempts := MaxAttempts
		if !h.RetryEnabled {
			attempts = 1
		}
		id := store.NewID()
		ids = append(ids, id)
		params = append(params, river.InsertManyParams{
			Args:       DeliverArgs{WorkspaceID: h.WorkspaceID, WebhookID: h.ID, DeliveryID: id, Event: event, Body: string(body)},
			InsertOpts: &river.InsertOpts{MaxAttempts: attempts},
		})
	}
	if _, err := (*q).InsertMany(ctx, params); err != nil {
		return nil, err
	}
	return ids, nil
}

// DeliverWorker runs delivery attempts.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	Svc *Service
}

// Work makes one attempt. A failure that may pass (network error, timeout, 5xx, 408, 429)
// returns an error, so River retries after NextRetry; anything else ends the job.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	return w.Svc.attempt(ctx, job.Args, job.Attempt, job.MaxAttempts)
}

// NextRetry implements the backoff schedule.
func (w *DeliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	return time.Now().Add(w.Svc.backoff(job.Attempt))
}

// Timeout bounds one attempt a little above the HTTP timeout.
func (w *DeliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.Svc.Timeout + 10*time.Second
}

// reserved headers are set by the delivery itself; custom headers cannot replace them.
var reserved = []string{"content-type", "content-length", "host", "user-agent", "elevenlabs-signature", "transfer-encoding", "connection"}

func (s *Service) attempt(ctx context.Context, a DeliverArgs, attempt, maxAttempts int) error {
	wh, err := s.DB.Webhook(ctx, a.WorkspaceID, a.WebhookID)
	if errors.Is(err, store.ErrNotFound) {
		return river.JobCancel(errors.New("webhook deleted"))
	}
	if err != nil {
		return err
	}
	if wh.IsDisabled || wh.IsAutoDisabled {
		return river.JobCancel(errors.New("webhook disabled"))
	}
	secret, err := s.Box.Open(wh.SecretEnc, secretPurpose(wh.ID))
	if err != nil {
		return river.JobCancel(err)
	}
	headers := map[string]string{}
	if wh.HeadersEnc != "" {
		raw, err := s.Box.Open(wh.HeadersEnc, headersPurpose(wh.ID))
		if err != nil {
			return river.JobCancel(err)
		}
		_ = json.Unmarshal([]byte(raw), &headers)
	}
	body := []byte(a.Body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return river.JobCancel(err)
	}
	for k, v := range headers {
		if !slices.Contains(reserved, strings.ToLower(k)) {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Timbre-Webhooks/1.0")
	req.Header.Set(SignatureHeader, Sign(secret, s.now(), body))

	start := time.Now()
	resp, err := s.HTTP.Do(req)
	rec := store.WebhookAttempt{WorkspaceID: a.WorkspaceID, WebhookID: a.WebhookID, DeliveryID: a.DeliveryID, EventType: a.Event, Attempt: int64(attempt),
		Test: a.Event == TestEvent}
	retryable := false
	if err != nil {
		rec.Error = deliveryError(err)
		retryable = !errors.Is(err, ErrBlockedAddress)
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		rec.StatusCode = int64(resp.StatusCode)
		rec.Success = resp.StatusCode >= 200 && resp.StatusCode < 300
		if !rec.Success {
			rec.Error = fmt.Sprintf("the endpoint answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
			retryable = resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout
		}
	}
	rec.DurationMs = time.Since(start).Milliseconds()
	rec.WillRetry = !rec.Success && retryable && wh.RetryEnabled && attempt < maxAttempts
	out, rerr := s.DB.RecordWebhookAttempt(context.WithoutCancel(ctx), rec, int64(s.MaxFailures), s.now())
	if rerr != nil && !errors.Is(rerr, store.ErrNotFound) {
		return rerr
	}
	if out.AutoDisabled {
		s.Log.Warn("webhook disabled after repeated failures", "workspace_id", a.WorkspaceID, "webhook_id", a.WebhookID, "failures", out.ConsecutiveFailures)
		audit.Record(ctx, s.DB, nil, "", "", audit.Event{WorkspaceID: a.WorkspaceID, Class: "webhook", Activity: "auto_disable", Target: a.WebhookID,
			Details: audit.Details{"consecutive_failures": out.ConsecutiveFailures, "last_error": rec.Error}})
	}
	switch {
	case rec.Success:
		return nil
	case out.WillRetry:
		return errors.New(rec.Error)
	default:
		return river.JobCancel(errors.New(rec.Error))
	}
}

// deliveryError says what went wrong without the internals of Go's error chain.
func deliveryError(err error) string {
	switch {
	case errors.Is(err, ErrBlockedAddress):
		return "refused: the webhook URL resolves to a private, loopback, link-local or reserved address"
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout"):
		return "timed out waiting for the endpoint"
	default:
		msg := err.Error()
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return msg
	}
}
