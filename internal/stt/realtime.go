package stt

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// RealtimeModels are the model ids the real-time route accepts: ElevenLabs' real-time Scribe
// ids and Timbre's own.
var RealtimeModels = []string{"scribe_v2_realtime", "scribe_realtime", "timbre_stt_v1"}

// RealtimeConfig is a validated real-time session's settings (the route's query parameters).
type RealtimeConfig struct {
	ModelID        string
	AudioFormat    string // pcm_<rate> or ulaw_8000
	SampleRate     int
	LanguageCode   string
	CommitStrategy string  // manual or vad
	VADSilence     float64 // seconds of quiet that end an utterance (vad)
	VADThreshold   float64
	MinSpeechMs    int // an utterance shorter than this is not auto-committed
	MinSilenceMs   int
	Timestamps     bool // also send committed_transcript_with_timestamps
	LanguageDetect bool
	Keyterms       []string
	NoVerbatim     bool
	Logging        bool
}

// realtimeBlock is how much audio one reservation covers: a session reserves a block at its
// start and another each time the audio received passes what is reserved.
const realtimeBlock = 60.0

// maxUtterance bounds an uncommitted utterance: longer ones are committed as they stand (the
// decoder keeps the utterance's audio to decode it whole at the commit).
const maxUtterance = 60.0

// RealtimeSession is one real-time transcription: a decoder held for the session and the
// audio seconds charged so far. Not safe for concurrent use.
type RealtimeSession struct {
	svc      *Service
	caller   *access.Caller
	cfg      RealtimeConfig
	tier     plan.Tier
	stream   engine.RecognitionStream
	reserved []metering.Reservation // realtimeBlock each
	lastBeat time.Time
	partial  string
}

// OpenRealtime starts a session: it takes a decoder of a streaming recognizer for the language
// and reserves the first block of audio seconds (a *metering.QuotaError-based API error when
// the quotas do not have room).
func (s *Service) OpenRealtime(ctx context.Context, c *access.Caller, cfg RealtimeConfig) (*RealtimeSession, error) {
	var streaming []engine.Recognizer
	for _, r := range s.Recognizers {
		if _, ok := r.(engine.StreamingRecognizer); ok {
			streaming = append(streaming, r)
		}
	}
	rec, err := engine.ChooseRecognizer(streaming, cfg.LanguageCode)
	if errors.Is(err, engine.ErrUnsupportedLanguage) {
		return nil, errAudio("language_code", err.Error())
	}
	if err != nil {
		return nil, errs.Errorf(errs.Unavailable, "stt_unavailable", "Real-time speech to text is not available on this server: %v", err)
	}
	srec := rec.(engine.StreamingRecognizer)
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	rs := &RealtimeSession{svc: s, caller: c, cfg: cfg, tier: plan.Get(ws.Tier), lastBeat: s.now()}
	if err := rs.reserve(ctx); err != nil {
		return nil, err
	}
	rs.stream, err = srec.OpenStream(ctx, engine.StreamOptions{SampleRate: cfg.SampleRate, Language: cfg.LanguageCode, Keyterms: cfg.Keyterms})
	if err != nil {
		rs.settle(0)
		return nil, err
	}
	return rs, nil
}

// reserve charges one more block of audio seconds.
func (rs *RealtimeSession) reserve(ctx context.Context) error {
	c := rs.caller
	return rs.svc.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: rs.cfg.ModelID,
			Product: metering.STT, Kind: metering.Seconds, Units: int64(realtimeBlock),
			Credits: plan.STTCredits(rs.tier, realtimeBlock), Allowance: rs.tier.CharacterLimit,
		}, rs.svc.now())
		if err != nil {
			return metering.QuotaAPIError(err)
		}
		rs.reserved = append(rs.reserved, *res)
		return nil
	})
}

// Feed adds audio at the session's sample rate. It reserves another block when the audio
// passes what is reserved (a quota error ends the session), and returns the partial transcript
// when it changed. With commit_strategy vad, a long enough pause after speech commits the
// utterance: committed is then its transcript.
func (rs *RealtimeSession) Feed(ctx context.Context, samples []int16) (partial string, committed *Transcript, err error) {
	if err := rs.stream.Feed(samples); err != nil {
		return "", nil, err
	}
	for rs.stream.Seconds() > float64(len(rs.reserved))*realtimeBlock {
		if err := rs.reserve(ctx); err != nil {
			return "", nil, err
		}
	}
	rs.heartbeat(ctx)
	p := rs.stream.Partial()
	if p != rs.partial {
		rs.partial = p
		partial = p
	}
	total, quiet := rs.stream.Pending()
	auto := rs.cfg.CommitStrategy == "vad" && rs.partial != "" && quiet >= rs.cfg.VADSilence &&
		quiet*1000 >= float64(rs.cfg.MinSilenceMs) && (total-quiet)*1000 >= float64(rs.cfg.MinSpeechMs)
	if auto || total >= maxUtterance {
		committed, err = rs.Commit()
	}
	return partial, committed, err
}

// heartbeat keeps the session's open reservations from being settled as stale while it runs.
func (rs *RealtimeSession) heartbeat(ctx context.Context) {
	now := rs.svc.now()
	if now.Sub(rs.lastBeat) < heartbeatEvery {
		return
	}
	rs.lastBeat = now
	for _, r := range rs.reserved {
		_ = rs.svc.DB.LedgerProgress(context.WithoutCancel(ctx), r.WorkspaceID, r.ID, 0, 0, now)
	}
}

// Commit ends the utterance and returns its transcript, timed from the session's start.
func (rs *RealtimeSession) Commit() (*Transcript, error) {
	words, err := rs.stream.Commit()
	rs.partial = ""
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.Text
	}
	t := Build(&engine.Transcript{Text: strings.Join(texts, " "), Words: words, Language: "en", LanguageProbability: 1}, &Request{Granularity: "word"}, Heard{})
	t.AudioDurationSecs = round3(rs.stream.Seconds())
	return t, nil
}

// Seconds is the audio received so far.
func (rs *RealtimeSession) Seconds() float64 { return rs.stream.Seconds() }

// Close gives the decoder back and charges the audio seconds received: full blocks as
// reserved, the last one for what it held (nothing at all when no audio came).
func (rs *RealtimeSession) Close() {
	secs := rs.stream.Seconds()
	rs.stream.Close()
	rs.settle(secs)
}

func (rs *RealtimeSession) settle(secs float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := rs.svc.now()
	total := int64(0)
	if secs > 0 {
		total = plan.STTCredits(rs.tier, secs)
	}
	err := rs.svc.DB.InTx(ctx, func(tx *store.Tx) error {
		for i := range rs.reserved {
			r := &rs.reserved[i]
			from := float64(i) * realtimeBlock
			if secs <= from {
				if _, err := metering.Refund(ctx, tx, r, now); err != nil {
					return err
				}
				continue
			}
			units := int64(math.Ceil(min(secs, from+realtimeBlock) - from))
			credits := plan.STTCredits(rs.tier, realtimeBlock)
			if secs <= from+realtimeBlock { // the last block: what remains of the total
				credits = max(0, total-int64(i)*credits)
			}
			if _, err := metering.Commit(ctx, tx, r, units, credits, now); err != nil {
				return err
			}
		}
		return nil
	})
	// On failure the entries stay open and metering.SettleStale settles them as reserved.
	_ = err
}
