package sts

import (
	"context"
	"io"
	"log/slog"
	"math"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/engine"
	"timbre/internal/listen"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/watermark"
)

// Stream converts r's recording like Convert but sends the audio as it is made: the recording is
// cut into pieces at its pauses (pieces), and each piece is converted, marked, encoded and written
// to w before the next one is converted, so the first audio leaves after the first piece rather
// than after the whole recording. start is called once the charge is made and before anything is
// written (the caller sets its headers from the result).
//
// Failures before the first byte reached w refund the charge and return the error. After it, the
// client holds part of the audio: the seconds of recording whose audio was written are charged,
// the rest refunded, the history keeps what was made, and Stream returns nil with the stream cut
// short (its status line is gone). A process that dies mid-stream is settled by the ledger for the
// seconds it recorded as delivered (metering.Progress after each piece).
func (s *Service) Stream(ctx context.Context, c *access.Caller, r *Request, start func(*Result), w io.Writer) error {
	j, err := s.begin(ctx, c, r)
	if err != nil {
		return err
	}
	target, err := s.target(ctx, j.vc, j.settings)
	if err != nil {
		s.refund(j.rsv)
		return failed(ctx, err)
	}
	key := ""
	var hist *blob.Writer
	if r.Logging {
		j.res.HistoryID = store.NewID()
		key = "history/" + c.WorkspaceID + "/" + j.res.HistoryID + "." + r.Format.Ext()
		// A client that leaves must not cost the item the audio it already has.
		if hist, err = s.Blob.NewWriter(context.WithoutCancel(ctx), key, j.res.ContentType); err != nil {
			s.refund(j.rsv)
			return failed(ctx, err)
		}
	}
	start(j.res)
	sent := &countingWriter{w: w}
	out := io.Writer(sent)
	if hist != nil {
		out = io.MultiWriter(sent, hist)
	}
	// The encoders that hold audio back (mp3, ffmpeg's) have sent a piece once the next one went
	// in without an error.
	lagging := r.Format.Codec == audio.CodecMP3 || r.Format.FFmpegEncoded()
	var enc *audio.StreamEncoder
	var mark *watermark.Embedder
	rate := 0
	done, pending := 0, 0 // samples of the recording whose audio was sent; taken but held back
	for _, p := range pieces(j.pcm) {
		var conv engine.PCM
		conv, err = s.Converter.Convert(ctx, engine.PCM{Samples: j.pcm.Samples[p.from:p.to], SampleRate: j.pcm.SampleRate}, j.src, target)
		if err != nil {
			break
		}
		if enc == nil {
			rate = conv.SampleRate
			if enc, err = audio.NewStreamEncoder(ctx, rate, r.Format, out); err != nil {
				break
			}
			if s.Watermark != nil {
				mark, _ = s.Watermark.NewEmbedderTo(rate, r.Format.SampleRate) // one embedder: the mark runs on across pieces
			}
		}
		samples := conv.Samples
		if conv.SampleRate != rate {
			samples = audio.Resample(samples, conv.SampleRate, rate)
		}
		if mark != nil {
			mark.Mark(samples)
		}
		if err = enc.Write(samples); err != nil {
			break
		}
		if lagging {
			done, pending = pending, p.to
		} else {
			done = p.to
		}
		units, credits := j.charge(done)
		_ = metering.Progress(ctx, s.DB, j.rsv, units, credits, s.now())
	}
	if enc != nil {
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		done = len(j.pcm.Samples)
	}
	if err != nil && ctx.Err() == nil {
		slog.Default().Warn("speech to speech stream failed", "err", err, "bytes_sent", sent.n, "history_item_id", j.res.HistoryID)
	}
	ctx = context.WithoutCancel(ctx)
	if err != nil && sent.n == 0 {
		if hist != nil {
			hist.Abort()
		}
		s.refund(j.rsv)
		return failed(ctx, err)
	}
	units, credits := j.charge(done)
	if hist != nil {
		if credits == 0 {
			hist.Abort()
			key = ""
		} else if herr := hist.Close(); herr != nil {
			key = "" // the item is kept without its audio rather than free
		}
	}
	if serr := s.settle(ctx, c, r, j, units, credits, key); serr != nil && key != "" {
		_ = s.Blob.Delete(ctx, key)
	}
	return nil // after the first byte the client sees a cut stream, not an error
}

// charge is what the first done samples of j's recording cost: nothing for none (STSCredits
// charges at least one credit), the reservation itself for all of them.
func (j *job) charge(done int) (units, credits int64) {
	switch {
	case done == 0:
		return 0, 0
	case done >= len(j.pcm.Samples):
		return j.units, j.res.Credits
	}
	sec := float64(done) / float64(j.pcm.SampleRate)
	return metering.AudioUnits(sec, 1), plan.STSCredits(sec)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// piece is a stretch of the recording, in samples.
type piece struct{ from, to int }

// Pieces are cut in the middle of the pauses between stretches of speech (WebRTC's voice
// activity, listen.SpeechSegments), so the converter's edges fall in quiet audio: each piece
// holds at least minPieceSec of recording, and speech that runs on for longer than maxPieceSec
// without a pause is cut at its quietest 30 ms frame past minPieceSec. Together the pieces cover
// the recording exactly.
const (
	minPieceSec = 1.0
	maxPieceSec = 12.0
)

// pieces cuts pcm for streaming (see minPieceSec). Without voice activity (or pauses), only the
// longest-stretch rule cuts.
func pieces(pcm engine.PCM) []piece {
	n := len(pcm.Samples)
	mono16 := pcm.Samples
	if pcm.SampleRate != listen.Rate {
		mono16 = audio.Resample(pcm.Samples, pcm.SampleRate, listen.Rate)
	}
	segs, _ := listen.SpeechSegments(mono16) // an error leaves no pauses to cut at
	at := func(sec float64) int { return min(n, max(0, int(math.Round(sec*float64(pcm.SampleRate))))) }
	// Candidate cuts: the middle of every pause between two segments.
	var cuts []int
	for i := 1; i < len(segs); i++ {
		cuts = append(cuts, at((segs[i-1].End+segs[i].Start)/2))
	}
	minLen, maxLen := at(minPieceSec), at(maxPieceSec)
	var out []piece
	from := 0
	for _, cut := range cuts {
		for cut-from > maxLen {
			q := quietest(pcm, from+minLen, from+maxLen)
			out, from = append(out, piece{from, q}), q
		}
		if cut-from >= minLen && n-cut >= minLen/2 {
			out, from = append(out, piece{from, cut}), cut
		}
	}
	for n-from > maxLen {
		q := quietest(pcm, from+minLen, from+maxLen)
		out, from = append(out, piece{from, q}), q
	}
	return append(out, piece{from, n})
}

// quietest is the start of the 30 ms frame of pcm in [from, to) with the least energy.
func quietest(pcm engine.PCM, from, to int) int {
	frame := max(1, pcm.SampleRate*30/1000)
	best, bestE := from, math.Inf(1)
	for i := from; i+frame <= to; i += frame {
		var e float64
		for _, v := range pcm.Samples[i : i+frame] {
			e += float64(v) * float64(v)
		}
		if e < bestE {
			best, bestE = i, e
		}
	}
	return best
}
