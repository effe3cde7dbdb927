package stt

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/store"
)

// Limits of a real-time session.
const (
	// realtimeMaxChunk bounds one input_audio_chunk message (base64 audio and JSON): 30 s of
	// 16 kHz PCM, about 1.3 MB.
	realtimeMaxChunk = 1_400_000
	// realtimeMaxSession bounds a session's wall time.
	realtimeMaxSession = 30 * time.Minute
	// realtimeIdle ends a session when no message arrives for this long.
	realtimeIdle = 30 * time.Second
	// realtimeDecoderWait is how long a session waits for a free decoder before giving up.
	realtimeDecoderWait = 20 * time.Second
	// realtimeWriteTimeout bounds sending one message to the client.
	realtimeWriteTimeout = 10 * time.Second
)

// RealtimeAudioFormats are the audio_format values of the real-time route.
var RealtimeAudioFormats = []string{"pcm_8000", "pcm_16000", "pcm_22050", "pcm_24000", "pcm_44100", "pcm_48000", "ulaw_8000"}

// parseRealtime validates the real-time route's query parameters (422 naming the parameter).
func parseRealtime(r *http.Request) (RealtimeConfig, error) {
	q := r.URL.Query()
	var v errs.Validator
	cfg := RealtimeConfig{
		AudioFormat: "pcm_16000", CommitStrategy: "manual", VADSilence: 1.5, VADThreshold: 0.4,
		MinSpeechMs: 100, MinSilenceMs: 100, Logging: true,
	}
	cfg.ModelID = q.Get("model_id")
	switch {
	case cfg.ModelID == "":
		v.Add("query", "model_id", "missing", "Field required: model_id.")
	case !slices.Contains(RealtimeModels, cfg.ModelID):
		v.Add("query", "model_id", "enum", fmt.Sprintf("Unknown model_id '%s'. Use one of: %s.", cfg.ModelID, strings.Join(RealtimeModels, ", ")))
	}
	if s := q.Get("audio_format"); s != "" {
		if !slices.Contains(RealtimeAudioFormats, s) {
			v.Add("query", "audio_format", "enum", "Input should be one of: "+strings.Join(RealtimeAudioFormats, ", ")+".")
		}
		cfg.AudioFormat = s
	}
	if rate, err := strconv.Atoi(cfg.AudioFormat[strings.IndexByte(cfg.AudioFormat, '_')+1:]); err == nil {
		cfg.SampleRate = rate
	}
	if s := q.Get("commit_strategy"); s != "" {
		if s != "manual" && s != "vad" {
			v.Add("query", "commit_strategy", "enum", "Input should be 'manual' or 'vad'.")
		}
		cfg.CommitStrategy = s
	}
	number := func(name string, lo, hi float64, dst *float64) {
		if s := q.Get(name); s != "" {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f < lo || f > hi {
				v.Add("query", name, "value_error", fmt.Sprintf("Input should be a number from %g to %g.", lo, hi))
			}
			*dst = f
		}
	}
	integer := func(name string, lo, hi int, dst *int) {
		if s := q.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				v.Add("query", name, "value_error", fmt.Sprintf("Input should be an integer from %d to %d.", lo, hi))
			}
			*dst = n
		}
	}
	boolean := func(name string, dst *bool) {
		if s := q.Get(name); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				v.Add("query", name, "bool_parsing", "Input should be a valid boolean.")
			}
			*dst = b
		}
	}
	number("vad_silence_threshold_secs", 0.3, 3, &cfg.VADSilence)
	number("vad_threshold", 0.1, 0.9, &cfg.VADThreshold)
	integer("min_speech_duration_ms", 50, 2000, &cfg.MinSpeechMs)
	integer("min_silence_duration_ms", 50, 2000, &cfg.MinSilenceMs)
	boolean("include_timestamps", &cfg.Timestamps)
	boolean("include_language_detection", &cfg.LanguageDetect)
	boolean("no_verbatim", &cfg.NoVerbatim)
	boolean("enable_logging", &cfg.Logging)
	boolean("filter_background_audio", new(bool))
	cfg.LanguageCode = q.Get("language_code")
	cfg.Keyterms = q["keyterms"]
	if len(cfg.Keyterms) > 1000 {
		v.Add("query", "keyterms", "too_long", "At most 1000 keyterms.")
	}
	for _, k := range cfg.Keyterms {
		if utf8.RuneCountInString(k) >= 50 || len(strings.Fields(k)) > 5 || strings.TrimSpace(k) == "" {
			v.Add("query", "keyterms", "value_error", fmt.Sprintf("Each keyterm must be under 50 characters and at most 5 words ('%.60s' is not).", k))
			break
		}
	}
	return cfg, v.Err()
}

// realtimeConfigJSON is session_started's config (SessionStartedPayloadConfig).
type realtimeConfigJSON struct {
	SampleRate        int      `json:"sample_rate"`
	AudioFormat       string   `json:"audio_format"`
	LanguageCode      string   `json:"language_code,omitempty"`
	CommitStrategy    string   `json:"commit_strategy"`
	VADSilence        float64  `json:"vad_silence_threshold_secs"`
	VADThreshold      float64  `json:"vad_threshold"`
	MinSpeechMs       int      `json:"min_speech_duration_ms"`
	MinSilenceMs      int      `json:"min_silence_duration_ms"`
	ModelID           string   `json:"model_id"`
	EnableLogging     bool     `json:"enable_logging"`
	IncludeTimestamps bool     `json:"include_timestamps"`
	LanguageDetection bool     `json:"include_language_detection"`
	Keyterms          []string `json:"keyterms"`
	NoVerbatim        bool     `json:"no_verbatim"`
}

// realtimeInput is a client message (input_audio_chunk).
type realtimeInput struct {
	MessageType  string  `json:"message_type"`
	AudioBase64  *string `json:"audio_base_64"`
	Commit       bool    `json:"commit"`
	SampleRate   *int    `json:"sample_rate"`
	PreviousText *string `json:"previous_text"`
}

// realtimeOutput is a server message: session_started, partial_transcript,
// committed_transcript[_with_timestamps] or one of the error types (with error).
type realtimeOutput struct {
	MessageType  string              `json:"message_type"`
	SessionID    string              `json:"session_id,omitempty"`
	Config       *realtimeConfigJSON `json:"config,omitempty"`
	Text         *string             `json:"text,omitempty"`
	LanguageCode string              `json:"language_code,omitempty"`
	Words        []Word              `json:"words,omitempty"`
	Error        string              `json:"error,omitempty"`
}

// realtime serves GET /v1/speech-to-text/realtime: the WebSocket of ElevenLabs' real-time
// Scribe protocol. Query parameters are checked before the upgrade (a 422 naming the parameter
// to a plain request; invalid_request and a close to a WebSocket handshake).
func (h *Handlers) realtime(w http.ResponseWriter, r *http.Request) error {
	cfg, verr := parseRealtime(r)
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if verr != nil && !upgrade {
		return verr
	}
	if !upgrade {
		return errs.New(errs.Invalid, "websocket_required", "This route speaks WebSocket: open it with a WebSocket client.")
	}
	// Callers with an API key or a single-use token may connect from any origin (a browser app
	// elsewhere holding a token); a web-app session only from this server's own pages, or any
	// website could open a session charged to a signed-in visitor.
	if !h.Sessions.add() {
		return errs.New(errs.Unavailable, "shutting_down", "The server is shutting down: connect again.")
	}
	defer h.Sessions.done()
	viaCookie := access.CallerFrom(r.Context()).ViaSession
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: !viaCookie})
	if err != nil {
		return nil // Accept has answered
	}
	conn.SetReadLimit(2 * realtimeMaxChunk) // past this the library closes with 1009; up to it chunk_size_exceeded explains
	rt := &realtimeConn{conn: conn, ctx: r.Context()}
	if verr != nil {
		rt.fail("invalid_request", validationText(verr))
		return nil
	}
	h.runRealtime(rt, r, cfg)
	return nil
}

// validationText is a validation error as one line naming the fields.
func validationText(err error) string {
	var ve *errs.Validation
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	for _, f := range ve.Fields {
		parts = append(parts, fmt.Sprintf("%v: %s", f.Loc[len(f.Loc)-1], f.Msg))
	}
	return strings.Join(parts, " ")
}

// realtimeConn writes the protocol's messages to one WebSocket.
type realtimeConn struct {
	conn *websocket.Conn
	ctx  context.Context
}

func (c *realtimeConn) send(m realtimeOutput) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.ctx, realtimeWriteTimeout)
	defer cancel()
	return c.conn.Write(ctx, websocket.MessageText, b)
}

// fail sends an error message of the given type and closes the connection.
func (c *realtimeConn) fail(messageType, text string) {
	_ = c.send(realtimeOutput{MessageType: messageType, Error: text})
	code := websocket.StatusPolicyViolation
	if messageType == "transcriber_error" {
		code = websocket.StatusInternalError
	}
	_ = c.conn.Close(code, truncate(text, 120))
}

// truncate keeps a close reason within the WebSocket limit (123 bytes).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// errorType is the protocol's message type for a service error.
func errorType(err error) (string, string) {
	var ve *errs.Validation
	if errors.As(err, &ve) {
		return "invalid_request", validationText(err)
	}
	var de *errs.Error
	if errors.As(err, &de) {
		switch de.Kind {
		case errs.Quota:
			return "quota_exceeded", de.Message
		case errs.Unauthenticated, errs.Forbidden:
			return "auth_error", de.Message
		case errs.RateLimited:
			return "rate_limited", de.Message
		case errs.Unavailable:
			return "resource_exhausted", de.Message
		case errs.Invalid:
			return "input_error", de.Message
		}
		if de.Kind != errs.Internal {
			return "transcriber_error", de.Message
		}
	}
	var q *metering.QuotaError
	if errors.As(err, &q) {
		return "quota_exceeded", metering.QuotaAPIError(err).(*errs.Error).Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "resource_exhausted", "Every speech decoder of this server is busy; try again shortly."
	}
	return "transcriber_error", "The speech recognizer failed."
}

// runRealtime is one session: session_started once a decoder is ready, then audio chunks in and
// transcripts out until the client closes, a limit is reached or an error ends it.
func (h *Handlers) runRealtime(c *realtimeConn, r *http.Request, cfg RealtimeConfig) {
	sessionCtx, cancel := context.WithTimeout(r.Context(), realtimeMaxSession)
	defer cancel()
	c.ctx = sessionCtx
	openCtx, cancelOpen := context.WithTimeout(sessionCtx, realtimeDecoderWait)
	sess, err := h.Svc.OpenRealtime(openCtx, access.CallerFrom(r.Context()), cfg)
	cancelOpen()
	if err != nil {
		c.fail(errorType(err))
		return
	}
	defer sess.Close()
	keyterms := cfg.Keyterms
	if keyterms == nil {
		keyterms = []string{}
	}
	err = c.send(realtimeOutput{MessageType: "session_started", SessionID: store.NewID(), Config: &realtimeConfigJSON{
		SampleRate: cfg.SampleRate, AudioFormat: cfg.AudioFormat, LanguageCode: cfg.LanguageCode,
		CommitStrategy: cfg.CommitStrategy, VADSilence: cfg.VADSilence, VADThreshold: cfg.VADThreshold,
		MinSpeechMs: cfg.MinSpeechMs, MinSilenceMs: cfg.MinSilenceMs, ModelID: cfg.ModelID,
		EnableLogging: cfg.Logging, IncludeTimestamps: cfg.Timestamps, LanguageDetection: cfg.LanguageDetect,
		Keyterms: keyterms, NoVerbatim: cfg.NoVerbatim,
	}})
	if err != nil {
		return
	}
	// The socket is read in its own goroutine, so that the loop below also wakes for the idle
	// limit, the session's time limit and the server shutting down.
	type message struct {
		typ  websocket.MessageType
		data []byte
		err  error
	}
	msgs := make(chan message)
	go func() {
		for {
			typ, data, err := c.conn.Read(sessionCtx)
			select {
			case msgs <- message{typ, data, err}:
			case <-sessionCtx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	idle := time.NewTimer(realtimeIdle)
	defer idle.Stop()
	var odd []byte // a byte of a 16-bit sample split across two chunks
	for {
		var m message
		select {
		case <-h.Sessions.draining():
			// The server is shutting down: what was heard is committed and sent, and the close
			// (1001, going away) tells the client to reconnect, to this server's successor.
			if t, err := sess.Commit(); err == nil && t.Text != "" && !c.sendCommitted(t, cfg) {
				return
			}
			_ = c.conn.Close(websocket.StatusGoingAway, "The server is shutting down: connect again.")
			return
		case <-idle.C:
			c.fail("input_error", fmt.Sprintf("No message for %v: the session ended.", realtimeIdle))
			return
		case <-sessionCtx.Done():
			if r.Context().Err() == nil {
				c.fail("session_time_limit_exceeded", fmt.Sprintf("A session lasts at most %v.", realtimeMaxSession))
			}
			return
		case m = <-msgs:
		}
		if m.err != nil {
			return // the client closed, or the connection broke
		}
		idle.Reset(realtimeIdle)
		typ, data := m.typ, m.data
		if len(data) > realtimeMaxChunk {
			c.fail("chunk_size_exceeded", fmt.Sprintf("A message may hold at most %d bytes.", realtimeMaxChunk))
			return
		}
		var in realtimeInput
		if typ != websocket.MessageText || json.Unmarshal(data, &in) != nil {
			c.fail("input_error", "Messages must be JSON text: {\"message_type\":\"input_audio_chunk\",\"audio_base_64\":…}.")
			return
		}
		if in.MessageType != "input_audio_chunk" {
			c.fail("input_error", fmt.Sprintf("Unknown message_type '%s': send input_audio_chunk.", in.MessageType))
			return
		}
		if in.SampleRate != nil && *in.SampleRate != cfg.SampleRate {
			c.fail("input_error", fmt.Sprintf("sample_rate %d does not match the session's audio_format %s: reconnect with audio_format for that rate.", *in.SampleRate, cfg.AudioFormat))
			return
		}
		var raw []byte
		if in.AudioBase64 != nil && *in.AudioBase64 != "" {
			var err error
			raw, err = base64.StdEncoding.DecodeString(*in.AudioBase64)
			if err != nil {
				c.fail("input_error", "audio_base_64 is not valid base64.")
				return
			}
		}
		var samples []int16
		samples, odd = decodeRealtimeAudio(cfg.AudioFormat, odd, raw)
		if len(samples) > 0 {
			partial, committed, err := sess.Feed(sessionCtx, samples)
			if err != nil {
				c.fail(errorType(err))
				return
			}
			if partial != "" {
				if c.send(realtimeOutput{MessageType: "partial_transcript", Text: &partial}) != nil {
					return
				}
			}
			if committed != nil && !c.sendCommitted(committed, cfg) {
				return
			}
		}
		if in.Commit {
			t, err := sess.Commit()
			if err != nil {
				c.fail(errorType(err))
				return
			}
			if !c.sendCommitted(t, cfg) {
				return
			}
		}
	}
}

// Sessions counts the open real-time sessions so that a server shutting down can end them
// cleanly: http.Server.Shutdown neither waits for nor closes a connection upgraded to a
// WebSocket. Drain stops new sessions (503) and makes each open one commit what it heard, send
// it and close with 1001 (going away); it returns when all have ended. A nil *Sessions never
// drains.
type Sessions struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	drain  chan struct{}
}

// NewSessions makes the tracker of one server's real-time sessions.
func NewSessions() *Sessions { return &Sessions{drain: make(chan struct{})} }

// add counts a new session; false once the server is draining.
func (s *Sessions) add() bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Sessions) done() {
	if s != nil {
		s.wg.Done()
	}
}

// draining is closed when Drain starts (nil, which blocks for ever, on a nil *Sessions).
func (s *Sessions) draining() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.drain
}

// Drain ends every open session as described on Sessions and waits for them, or for ctx.
func (s *Sessions) Drain(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.drain)
	}
	s.mu.Unlock()
	ended := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sendCommitted sends committed_transcript, and committed_transcript_with_timestamps when the
// session asked for timestamps. False: the connection is gone.
func (c *realtimeConn) sendCommitted(t *Transcript, cfg RealtimeConfig) bool {
	text := t.Text
	if c.send(realtimeOutput{MessageType: "committed_transcript", Text: &text}) != nil {
		return false
	}
	if !cfg.Timestamps {
		return true
	}
	lang := ""
	if cfg.LanguageDetect || cfg.LanguageCode != "" {
		lang = t.LanguageCode
	}
	words := t.Words
	if words == nil {
		words = []Word{}
	}
	return c.send(realtimeOutput{MessageType: "committed_transcript_with_timestamps", Text: &text, LanguageCode: lang, Words: words}) == nil
}

// decodeRealtimeAudio turns a chunk of the session's audio format into samples; odd carries a
// byte of 16-bit PCM left over from the previous chunk.
func decodeRealtimeAudio(format string, odd, raw []byte) ([]int16, []byte) {
	if format == "ulaw_8000" {
		out := make([]int16, len(raw))
		for i, b := range raw {
			out[i] = audio.ULawDecode(b)
		}
		return out, nil
	}
	if len(odd) > 0 {
		raw = append(odd, raw...)
	}
	n := len(raw) / 2
	out := make([]int16, n)
	for i := range n {
		out[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	if len(raw)%2 == 1 {
		return out, []byte{raw[len(raw)-1]}
	}
	return out, nil
}
