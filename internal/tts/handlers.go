package tts

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
	"timbre/internal/textnorm"
	"timbre/internal/voice"
)

// Handlers serves the speech routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature := httpx.Feature("text_to_speech") // groups can limit members to other features
	rt.Authed("POST /v1/text-to-speech/{voice_id}", h.tts(false, false), httpx.Perm("text_to_speech"), feature)
	rt.Authed("POST /v1/text-to-speech/{voice_id}/stream", h.tts(true, false), httpx.Perm("text_to_speech"), feature)
	rt.Authed("POST /v1/text-to-speech/{voice_id}/with-timestamps", h.tts(false, true), httpx.Perm("text_to_speech"), feature)
	rt.Authed("POST /v1/text-to-speech/{voice_id}/stream/with-timestamps", h.tts(true, true), httpx.Perm("text_to_speech"), feature)
	rt.Authed("POST /v1/audio/speech", h.openAISpeech, httpx.Perm("text_to_speech"), feature)
	rt.Authed("GET /v1/models", listModels, httpx.Perm("models_read"))
	rt.Public("GET /api/voices/{voice_id}/preview.mp3", h.preview)
}

// ExposedHeaders are the audio response headers browsers may read (CORS).
var ExposedHeaders = []string{"request-id", "history-item-id", "character-cost", "current-concurrent-requests", "maximum-concurrent-requests"}

func (h *Handlers) tts(stream, timestamps bool) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		var v errs.Validator
		format := httpx.OutputFormat(q, &v, audio.DefaultFormat, audio.FormatsFor(stream))
		logging := httpx.QueryBool(q, &v, "enable_logging", true)
		httpx.StreamingLatency(q, &v)
		if err := v.Err(); err != nil {
			return err
		}
		var body Body
		if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
			return err
		}
		c := access.CallerFrom(r.Context())
		job, err := h.Svc.Prepare(r.Context(), c, r.PathValue("voice_id"), &body, format, logging)
		if err != nil {
			return err
		}
		return h.Svc.Serve(w, r, job, stream, timestamps)
	}
}

// Serve runs a prepared job and writes its response: audio bytes, streamed audio, JSON with
// timestamps, or newline-delimited JSON chunks.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request, j *Job, stream, timestamps bool) error {
	release, inUse, err := s.Slots.Acquire(r.Context(), s.DB, j.WorkspaceID, j.tier.Concurrency)
	if err != nil {
		return err
	}
	defer release()
	// The engine starts on the first sentence while Begin charges the request, so the charge's
	// transaction does not delay the first audio. Should the charge fail, that sentence is dropped.
	// ffmpeg encodes opus, aac and flac; its first bytes hold back the second sentence (startSynthesis).
	ffmpegStream := stream && !timestamps && j.Format.FFmpegEncoded()
	syn, err := s.startSynthesis(r.Context(), j, ffmpegStream)
	if err != nil {
		return err
	}
	defer syn.stop()
	if err := s.Begin(r.Context(), j); err != nil {
		return err
	}
	delivered := s.track(j)
	defer delivered.close()
	syn.follow(r.Context())
	hdr := w.Header()
	hdr.Set("request-id", j.RequestID)
	hdr.Set("character-cost", strconv.FormatInt(j.Cost, 10))
	hdr.Set("current-concurrent-requests", strconv.Itoa(inUse))
	hdr.Set("maximum-concurrent-requests", strconv.Itoa(j.tier.Concurrency))
	if j.HistoryID != "" {
		hdr.Set("history-item-id", j.HistoryID)
	}
	hist := s.newHistoryAudio(r.Context(), j) // nil when not logging
	var al *Alignments
	tw := &trackingWriter{ResponseWriter: w}
	w = tw
	switch {
	case !stream:
		var encoded []byte
		encoded, al, err = s.whole(r.Context(), j, syn)
		if err == nil {
			if timestamps {
				hdr.Set("Content-Type", "application/json")
				err = json.NewEncoder(w).Encode(AudioWithTimestamps{AudioBase64: base64.StdEncoding.EncodeToString(encoded), Alignment: &al.Alignment, NormalizedAlignment: &al.NormalizedAlignment})
			} else {
				hdr.Set("Content-Type", j.Format.ContentType())
				hdr.Set("Content-Length", strconv.Itoa(len(encoded)))
				_, err = w.Write(encoded)
			}
		}
		if err == nil && hist != nil {
			hist.Write(encoded)
		}
	case !timestamps:
		hdr.Set("Content-Type", j.Format.ContentType())
		al, err = s.streamAudio(r.Context(), j, syn, w, hist, delivered)
	default:
		hdr.Set("Content-Type", "application/json")
		al, err = s.streamTimestamps(r.Context(), j, syn, w, hist, delivered)
	}
	if err != nil {
		if tw.wrote {
			// The client has part of the audio: that part is charged and kept, the rest refunded.
			httpx.Logger(r.Context()).Error("stream failed after it started", "err", err)
			if err := s.settlePartial(context.WithoutCancel(r.Context()), j, delivered, hist, al); err != nil {
				httpx.Logger(r.Context()).Error("settling a cut stream failed", "err", err, "history_item_id", j.HistoryID)
			}
			return nil // the status line is gone; the client sees a cut stream
		}
		hist.abort()
		s.Fail(j)
		for _, k := range []string{"history-item-id", "character-cost", "Content-Length"} {
			hdr.Del(k)
		}
		return err
	}
	if err := s.Finish(context.WithoutCancel(r.Context()), j, hist, al); err != nil {
		httpx.Logger(r.Context()).Error("storing history audio failed", "err", err, "history_item_id", j.HistoryID)
	}
	return nil
}

// whole synthesizes everything, then encodes once.
func (s *Service) whole(ctx context.Context, j *Job, syn *synthesis) ([]byte, *Alignments, error) {
	var pcm []int16
	rate := 0
	al := &Alignments{}
	err := syn.each(func(c Chunk) error {
		if rate == 0 {
			rate = c.Rate
		}
		pcm = append(pcm, resampleIf(c.PCM, c.Rate, rate)...)
		al.Alignment.append(c.Original)
		al.NormalizedAlignment.append(c.Normalized)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out, err := audio.Encode(ctx, pcm, rate, j.Format)
	return out, al, err
}

// streamAudio sends encoded audio as each sentence is ready, and the same bytes to hist (when
// not nil) for the history item. It marks each sentence delivered once its audio was written to
// the client: at once for the formats encoded in Go; for mp3 and opus, whose encoder holds some
// audio back, one sentence later, when the next sentence was fed to the encoder without an error
// (a write error surfaces there; the count is an estimate for these two formats).
func (s *Service) streamAudio(ctx context.Context, j *Job, syn *synthesis, w http.ResponseWriter, hist *historyAudio, d *delivery) (*Alignments, error) {
	out := io.Writer(&flushWriter{w: w, onWrite: syn.releaseSecond})
	if hist != nil {
		out = io.MultiWriter(out, hist)
	}
	// mp3 and the ffmpeg encoders hold audio back.
	lagging := j.Format.Codec == audio.CodecMP3 || j.Format.FFmpegEncoded()
	var pending [3]int // lagging: the sentence taken last, delivered when the next one is
	var enc *audio.StreamEncoder
	rate := 0
	al := &Alignments{}
	err := syn.each(func(c Chunk) error {
		first := enc == nil
		if first {
			rate = c.Rate
			var err error
			if enc, err = audio.NewStreamEncoder(ctx, rate, j.Format, out); err != nil {
				return err
			}
		}
		al.Alignment.append(c.Original)
		al.NormalizedAlignment.append(c.Normalized)
		err := enc.Write(resampleIf(c.PCM, c.Rate, rate))
		if err == nil {
			cur := [3]int{c.origEnd, len(al.Alignment.Characters), len(al.NormalizedAlignment.Characters)}
			if lagging {
				cur, pending = pending, cur
			}
			d.sent(cur[0], cur[1], cur[2])
		}
		if first {
			// The first bytes out release the second sentence; an encoder that writes nothing
			// yet (it wants more audio) must still let it start.
			time.AfterFunc(secondHoldMax, syn.releaseSecond)
		}
		return err
	})
	if enc != nil {
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
	}
	return al, err
}

// streamTimestamps sends one JSON line per sentence: its encoded audio and the alignment of the
// characters it covers (times from the start of the whole audio). The audio also goes to hist
// (when not nil) for the history item. A sentence is delivered once its line was written (for
// mp3 and opus, whose encoder holds audio back into the next line, once the next line was).
func (s *Service) streamTimestamps(ctx context.Context, j *Job, syn *synthesis, w http.ResponseWriter, hist *historyAudio, d *delivery) (*Alignments, error) {
	// mp3 and the ffmpeg encoders hold audio back.
	lagging := j.Format.Codec == audio.CodecMP3 || j.Format.FFmpegEncoded()
	var held [3]int // lagging: the sentence whose line went out last, delivered with the next
	pending := &lockedBuffer{}
	var enc *audio.StreamEncoder
	rate := 0
	al := &Alignments{}
	fw := &flushWriter{w: w}
	line := func(orig, norm *Alignment) error {
		b := pending.take()
		if len(b) == 0 && orig == nil {
			return nil
		}
		if hist != nil {
			hist.Write(b)
		}
		msg := AudioWithTimestamps{AudioBase64: base64.StdEncoding.EncodeToString(b), Alignment: orig, NormalizedAlignment: norm}
		data, _ := json.Marshal(msg)
		_, err := fw.Write(append(data, '\n'))
		return err
	}
	err := syn.each(func(c Chunk) error {
		if enc == nil {
			rate = c.Rate
			var err error
			if enc, err = audio.NewStreamEncoder(ctx, rate, j.Format, pending); err != nil {
				return err
			}
		}
		al.Alignment.append(c.Original)
		al.NormalizedAlignment.append(c.Normalized)
		if err := enc.Write(resampleIf(c.PCM, c.Rate, rate)); err != nil {
			return err
		}
		if err := line(&c.Original, &c.Normalized); err != nil {
			return err
		}
		cur := [3]int{c.origEnd, len(al.Alignment.Characters), len(al.NormalizedAlignment.Characters)}
		if lagging {
			cur, held = held, cur
		}
		d.sent(cur[0], cur[1], cur[2])
		return nil
	})
	if enc != nil {
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = line(nil, nil) // what the encoder still held
	}
	return al, err
}

func resampleIf(pcm []int16, from, to int) []int16 {
	if from == to || from == 0 {
		return pcm
	}
	return audio.Resample(pcm, from, to)
}

// flushWriter flushes after every write so each chunk reaches the client at once. onWrite, if
// set, is called at the start of every write.
type flushWriter struct {
	w       http.ResponseWriter
	onWrite func()
}

func (f *flushWriter) Write(p []byte) (int, error) {
	if f.onWrite != nil {
		f.onWrite()
	}
	n, err := f.w.Write(p)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	} else {
		_ = http.NewResponseController(f.w).Flush()
	}
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

// preview serves (generating on first use) a voice's preview clip. Previews are public, as the
// API's preview_url values are.
func (h *Handlers) preview(w http.ResponseWriter, r *http.Request) error {
	data, err := h.Svc.Preview(r.Context(), r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "audio/mpeg")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, err = w.Write(data)
	return err
}

// Preview returns the stored preview of a premade or library voice, generating and storing it
// if missing.
func (s *Service) Preview(ctx context.Context, voiceID string) ([]byte, error) {
	v, err := s.DB.Voice(ctx, "", voiceID) // premade and published voices only: previews are public
	if errors.Is(err, store.ErrNotFound) {
		v, err = s.DB.PublishedVoice(ctx, voiceID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Errorf(errs.NotFound, "voice_not_found", "A voice with voice_id '%s' was not found.", voiceID)
	}
	if err != nil {
		return nil, err
	}
	if v.PreviewKey != "" {
		data, err := s.Blob.Get(ctx, v.PreviewKey)
		if err == nil {
			return data, nil
		}
		if !errors.Is(err, blob.ErrNotFound) {
			return nil, err
		}
	}
	return s.GeneratePreview(ctx, v)
}

// GeneratePreview synthesizes a voice's preview clip and stores it.
func (s *Service) GeneratePreview(ctx context.Context, v *store.Voice) ([]byte, error) {
	data, err := s.Say(ctx, v, voice.PreviewText(v.Language))
	if err != nil {
		return nil, err
	}
	key := "previews/" + v.ID + ".mp3"
	if err := s.Blob.Put(ctx, key, data, "audio/mpeg"); err != nil {
		return nil, err
	}
	if err := s.DB.SetVoicePreview(ctx, v.ID, key); err != nil {
		return nil, err
	}
	return data, nil
}

// Say speaks a short text with a voice at its default settings as MP3 (44.1 kHz, 128 kb/s),
// with no charge and no history: the server's own words (previews, the voice captcha's
// sentence), not a user's request.
func (s *Service) Say(ctx context.Context, v *store.Voice, text string) ([]byte, error) {
	format, _ := audio.ParseFormat("mp3_44100_128")
	j := &Job{Voice: v, Model: Models[0], Settings: voice.Defaults, Language: v.Language, Format: format}
	j.Prosody = j.Settings.Prosody(voice.Base(v))
	j.Text = text
	j.Normalized, j.Mapping = j.Text, identity(len(j.Text))
	j.Spans = textnorm.SplitSentences(j.Text)
	syn, err := s.startSynthesis(ctx, j, false)
	if err != nil {
		return nil, err
	}
	defer syn.stop()
	syn.follow(ctx)
	data, _, err := s.whole(ctx, j, syn)
	return data, err
}

// trackingWriter remembers whether any of the body was sent.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

func (t *trackingWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
