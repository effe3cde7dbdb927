package dialogue

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/metering"
	"timbre/internal/tts"
)

// Handlers serves the text-to-dialogue routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	perm, feature := httpx.Perm("text_to_speech"), httpx.Feature("text_to_speech")
	rt.Authed("POST /v1/text-to-dialogue", h.handle(false, false), perm, feature)
	rt.Authed("POST /v1/text-to-dialogue/stream", h.handle(true, false), perm, feature)
	rt.Authed("POST /v1/text-to-dialogue/with-timestamps", h.handle(false, true), perm, feature)
	rt.Authed("POST /v1/text-to-dialogue/stream/with-timestamps", h.handle(true, true), perm, feature)
}

// WithTimestamps is the JSON of the with-timestamps routes (AudioWithTimestampsAndVoiceSegmentsResponseModel),
// and each line of the streamed variant (null alignments on a line that carries audio only).
type WithTimestamps struct {
	AudioBase64         string         `json:"audio_base64"`
	Alignment           *tts.Alignment `json:"alignment"`
	NormalizedAlignment *tts.Alignment `json:"normalized_alignment"`
	VoiceSegments       []VoiceSegment `json:"voice_segments"`
}

func (h *Handlers) handle(stream, timestamps bool) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		var v errs.Validator
		format := httpx.OutputFormat(q, &v, audio.DefaultFormat, audio.FormatsFor(stream))
		logging := httpx.QueryBool(q, &v, "enable_logging", true)
		if err := v.Err(); err != nil {
			return err
		}
		var body Body
		if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
			return err
		}
		job, err := h.Svc.Prepare(r.Context(), access.CallerFrom(r.Context()), &body, format, logging)
		if err != nil {
			return err
		}
		return h.Svc.Serve(w, r, job, stream, timestamps)
	}
}

// Serve charges a prepared dialogue, renders it and writes the response: audio bytes, streamed
// audio (line by line), JSON with timestamps, or newline-delimited JSON chunks (one per line).
func (s *Service) Serve(w http.ResponseWriter, r *http.Request, j *Job, stream, timestamps bool) error {
	ctx := r.Context()
	release, inUse, err := s.TTS.Slots.Acquire(ctx, s.TTS.DB, j.WorkspaceID, j.tierConcurrency)
	if err != nil {
		return err
	}
	defer release()
	if err := s.begin(ctx, j); err != nil {
		return err
	}
	// A long dialogue is not settled as stale while it is being made.
	defer metering.KeepAlive(ctx, s.TTS.DB, j.reservation, s.now)()
	hdr := w.Header()
	hdr.Set("request-id", j.RequestID)
	hdr.Set("character-cost", strconv.FormatInt(j.Cost, 10))
	hdr.Set("current-concurrent-requests", strconv.Itoa(inUse))
	hdr.Set("maximum-concurrent-requests", strconv.Itoa(j.tierConcurrency))
	if j.HistoryID != "" {
		hdr.Set("history-item-id", j.HistoryID)
	}
	rate := j.Format.SampleRate
	al := &Alignments{}
	var stored bytes.Buffer // the encoded audio, for the history item
	var delivered int64     // characters of the lines whose audio went out
	wrote := false
	flush := func() { _ = http.NewResponseController(w).Flush() }
	switch {
	case !stream:
		var pcm []int16
		var segs []VoiceSegment
		err = s.run(ctx, j, rate, func(p part) error {
			pcm = append(pcm, p.pcm...)
			al.Alignment.Append(p.orig)
			al.NormalizedAlignment.Append(p.norm)
			segs = append(segs, p.segment)
			return nil
		})
		var encoded []byte
		if err == nil {
			encoded, err = audio.Encode(ctx, pcm, rate, j.Format)
		}
		if err == nil {
			stored.Write(encoded)
			wrote = true
			if timestamps {
				hdr.Set("Content-Type", "application/json")
				err = json.NewEncoder(w).Encode(WithTimestamps{AudioBase64: base64.StdEncoding.EncodeToString(encoded),
					Alignment: &al.Alignment, NormalizedAlignment: &al.NormalizedAlignment, VoiceSegments: segs})
			} else {
				hdr.Set("Content-Type", j.Format.ContentType())
				hdr.Set("Content-Length", strconv.Itoa(len(encoded)))
				_, err = w.Write(encoded)
			}
			if err == nil {
				delivered = j.Chars
			}
		}
	case !timestamps:
		hdr.Set("Content-Type", j.Format.ContentType())
		out := &sink{w: w, keep: &stored, flush: flush, wrote: &wrote}
		var enc *audio.StreamEncoder
		if enc, err = audio.NewStreamEncoder(ctx, rate, j.Format, out); err != nil {
			break
		}
		err = s.run(ctx, j, rate, func(p part) error {
			al.Alignment.Append(p.orig)
			al.NormalizedAlignment.Append(p.norm)
			if err := enc.Write(p.pcm); err != nil {
				return err
			}
			delivered += p.chars
			return nil
		})
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
	default:
		hdr.Set("Content-Type", "application/json")
		pending := &lockedBuffer{} // ffmpeg's encoders write from their own goroutine
		var enc *audio.StreamEncoder
		if enc, err = audio.NewStreamEncoder(ctx, rate, j.Format, pending); err != nil {
			break
		}
		send := func(msg WithTimestamps) error {
			b := pending.take()
			stored.Write(b)
			msg.AudioBase64 = base64.StdEncoding.EncodeToString(b)
			data, _ := json.Marshal(msg)
			wrote = true
			_, err := w.Write(append(data, '\n'))
			flush()
			return err
		}
		err = s.run(ctx, j, rate, func(p part) error {
			al.Alignment.Append(p.orig)
			al.NormalizedAlignment.Append(p.norm)
			if err := enc.Write(p.pcm); err != nil {
				return err
			}
			if err := send(WithTimestamps{Alignment: &p.orig, NormalizedAlignment: &p.norm, VoiceSegments: []VoiceSegment{p.segment}}); err != nil {
				return err
			}
			delivered += p.chars
			return nil
		})
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
		if b := pending.take(); err == nil && len(b) > 0 {
			pending.Write(b)
			err = send(WithTimestamps{VoiceSegments: []VoiceSegment{}}) // what the encoder still held
		}
	}
	if err != nil {
		if wrote {
			// The client has part of the dialogue: its delivered lines are charged, the rest
			// refunded; a cut dialogue is not kept in the history.
			httpx.Logger(ctx).Error("dialogue stream failed after it started", "err", err)
			s.fail(j, delivered)
			return nil
		}
		s.fail(j, 0)
		for _, k := range []string{"history-item-id", "character-cost", "Content-Length"} {
			hdr.Del(k)
		}
		return err
	}
	if err := s.finish(context.WithoutCancel(ctx), j, stored.Bytes(), al); err != nil {
		httpx.Logger(ctx).Error("settling a dialogue failed", "err", err, "history_item_id", j.HistoryID)
	}
	return nil
}

// sink sends a stream's encoded audio to the client at once and keeps a copy for the history.
type sink struct {
	w     http.ResponseWriter
	keep  *bytes.Buffer
	flush func()
	wrote *bool
}

func (s *sink) Write(p []byte) (int, error) {
	s.keep.Write(p)
	*s.wrote = true
	n, err := s.w.Write(p)
	s.flush()
	return n, err
}

// lockedBuffer collects encoder output written from the encoder's goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := bytes.Clone(b.buf.Bytes())
	b.buf.Reset()
	return out
}
