package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
)

func checkArgs(inRate int, f Format) error {
	if inRate <= 0 {
		return fmt.Errorf("audio: invalid input sample rate %d", inRate)
	}
	if f.SampleRate <= 0 {
		return fmt.Errorf("audio: format %q has no sample rate", f.Name)
	}
	switch f.Codec {
	case CodecPCM, CodecULaw, CodecALaw, CodecWAV:
		return nil
	case CodecMP3, CodecOpus, CodecAAC:
		if f.Bitrate <= 0 {
			return fmt.Errorf("audio: format %q has no bitrate", f.Name)
		}
		return nil
	case CodecFLAC:
		return nil
	}
	return fmt.Errorf("audio: unsupported codec %q", f.Codec)
}

// goEncoded reports whether f is produced in this process (in Go, or by libmp3lame for mp3)
// rather than by ffmpeg.
func goEncoded(f Format) bool { return !f.FFmpegEncoded() }

// Encode converts mono 16-bit samples at inRate into a complete file/stream in format f.
func Encode(ctx context.Context, samples []int16, inRate int, f Format) ([]byte, error) {
	if err := checkArgs(inRate, f); err != nil {
		return nil, err
	}
	if !goEncoded(f) {
		return runFFmpeg(ctx, PCMBytes(samples), ffmpegArgs(inRate, f, false)...)
	}
	if inRate != f.SampleRate {
		samples = Resample(samples, inRate, f.SampleRate)
	}
	switch f.Codec {
	case CodecWAV:
		return WAV(samples, f.SampleRate), nil
	case CodecMP3:
		return encodeMP3(samples, f)
	}
	return encodeRaw(nil, f.Codec, samples), nil
}

// StreamEncoder encodes audio incrementally and writes the encoded bytes to an io.Writer as soon
// as they exist. If the writer has a Flush method (http.ResponseWriter via http.Flusher,
// bufio.Writer…) it is called after every write.
//
// A StreamEncoder is not safe for concurrent use. Always call Close (or cancel the context):
// for opus it owns an ffmpeg process, for mp3 a libmp3lame encoder.
type StreamEncoder struct {
	f Format
	w io.Writer

	// Formats encoded in process (pcm, ulaw, alaw, wav; mp3 through lame).
	rs        *resampler   // nil when no resampling is needed
	lame      *lameEncoder // mp3 only
	block     int          // input samples in the first block of a Write (≈ 100 ms)
	wroteHead bool
	scratch   []int16
	out       []byte
	writeErr  error // the writer's first error: later writes and Close report it

	// ffmpeg-encoded formats (opus).
	ctx      context.Context
	proc     *ffproc
	stopKill func() bool // cancels the kill-on-ctx-done hook
	copyDone chan struct{}
	copyErr  error  // set by the copy goroutine before copyDone is closed
	refill   func() // refills the encoder pool (idempotent; see copyOut)
	inBytes  []byte

	closed bool
}

// NewStreamEncoder starts an encoder from mono 16-bit samples at inRate to format f, writing to w.
func NewStreamEncoder(ctx context.Context, inRate int, f Format, w io.Writer) (*StreamEncoder, error) {
	if err := checkArgs(inRate, f); err != nil {
		return nil, err
	}
	e := &StreamEncoder{f: f, w: w, ctx: ctx}
	if goEncoded(f) {
		if inRate != f.SampleRate {
			e.rs = newResampler(inRate, f.SampleRate)
		}
		e.block = max(inRate/10, 1)
		if f.Codec == CodecMP3 {
			if e.lame, e.refill = lameSpares.take(f); e.lame == nil {
				var err error
				if e.lame, err = newLame(f); err != nil {
					return nil, err
				}
			}
		}
		return e, nil
	}

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("audio: ffmpeg: %w", err)
	}
	args := ffmpegArgs(inRate, f, true)
	var p *ffproc
	e.refill = func() {}
	if WarmEncoders > 0 {
		// nil: none idle yet (first use of this pair) or shut down
		p, e.refill = defaultPool.take(args)
	}
	if p == nil {
		var err error
		if p, err = startFFmpeg(args); err != nil {
			e.refill()
			return nil, err
		}
	}
	e.proc = p
	e.stopKill = context.AfterFunc(ctx, p.kill)
	e.copyDone = make(chan struct{})
	go e.copyOut(p.stdout)
	return e, nil
}

// copyOut forwards ffmpeg's output to w. It reads and writes chunk by chunk instead of using
// io.Copy, whose ReaderFrom/WriterTo shortcuts may buffer (bufio.Writer.ReadFrom does).
//
// The pool is refilled once the first bytes are out (or the process ended without any): that
// start then no longer delays this stream's first bytes.
func (e *StreamEncoder) copyOut(r io.Reader) {
	defer close(e.copyDone)
	defer e.refill()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			werr := e.emit(buf[:n])
			e.refill()
			if werr != nil {
				e.copyErr = werr
				// Nobody will read ffmpeg's output any more; stop it so Write fails instead of
				// blocking on a full pipe.
				e.proc.kill()
				io.Copy(io.Discard, r)
				return
			}
		}
		if err != nil {
			return // EOF, or the process went away: Close/Write report that
		}
	}
}

func (e *StreamEncoder) emit(b []byte) error {
	if e.writeErr != nil {
		return e.writeErr
	}
	if _, err := e.w.Write(b); err != nil {
		e.writeErr = err
		return err
	}
	switch fl := e.w.(type) {
	case interface{ Flush() error }:
		e.writeErr = fl.Flush()
		return e.writeErr
	case interface{ Flush() }:
		fl.Flush()
	}
	return nil
}

var errClosed = errors.New("audio: stream encoder is closed")

// Write encodes samples. For the formats encoded in process the bytes reach w before Write
// returns (mp3 lags by about two frames of 1152 samples, LAME's look-ahead); for opus they reach
// it as soon as ffmpeg has produced them.
func (e *StreamEncoder) Write(samples []int16) error {
	if e.closed {
		return errClosed
	}
	if len(samples) == 0 {
		return nil
	}
	if e.proc == nil {
		if e.rs == nil && e.lame == nil {
			return e.writeGo(samples) // nothing to compute: one write is cheapest
		}
		// Resample/encode and send in blocks, the first ≈ 100 ms long and each next one twice as
		// long (up to 32×), so the start of a sentence leaves at once instead of after the whole
		// of it has been processed, without flushing the writer thousands of times per sentence.
		for n := e.block; len(samples) > 0; n = min(2*n, 32*e.block) {
			k := min(n, len(samples))
			block := samples[:k]
			if e.rs != nil {
				e.scratch = e.rs.process(e.scratch[:0], block)
				block = e.scratch
			}
			samples = samples[k:]
			if err := e.writeGo(block); err != nil {
				return err
			}
		}
		return nil
	}
	in := sampleBytes(samples)
	if !nativeLE {
		e.inBytes = appendPCM(e.inBytes[:0], samples)
		in = e.inBytes
	}
	if _, err := e.proc.stdin.Write(in); err != nil {
		// Prefer the real cause: the writer failing, the context ending, or ffmpeg dying.
		select {
		case <-e.copyDone:
			if e.copyErr != nil {
				return fmt.Errorf("audio: write encoded audio: %w", e.copyErr)
			}
		default:
		}
		if e.ctx.Err() != nil {
			return fmt.Errorf("audio: ffmpeg: %w", e.ctx.Err())
		}
		return fmt.Errorf("audio: feed ffmpeg: %w", err)
	}
	return nil
}

func (e *StreamEncoder) writeGo(samples []int16) error {
	if e.lame != nil {
		b, err := e.lame.encode(samples)
		if err != nil || len(b) == 0 {
			return err
		}
		err = e.emit(b)
		e.refill() // the first bytes are out: a spare encoder no longer competes with them
		return err
	}
	if e.f.Codec == CodecPCM && nativeLE {
		if len(samples) == 0 {
			return nil
		}
		return e.emit(sampleBytes(samples)) // no copy: w must not keep p (io.Writer's rule)
	}
	e.out = e.out[:0]
	if e.f.Codec == CodecWAV && !e.wroteHead {
		// The length is unknown while streaming; readers take "maximum size" as "until EOF".
		e.out = append(e.out, wavHeader(e.f.SampleRate, -1)...)
		e.wroteHead = true
	}
	e.out = encodeRaw(e.out, e.f.Codec, samples)
	if len(e.out) == 0 {
		return nil
	}
	return e.emit(e.out)
}

// Close flushes the encoder, writes the remaining output to w and releases the ffmpeg process
// or the lame encoder.
func (e *StreamEncoder) Close() error {
	if e.closed {
		return errClosed
	}
	e.closed = true
	if e.proc == nil {
		var tail []int16
		if e.rs != nil {
			tail = e.rs.flush(nil)
		}
		if e.lame != nil {
			defer e.refill()
			defer e.lame.close()
			if err := e.writeGo(tail); err != nil {
				return err
			}
			b, err := e.lame.flush()
			if err != nil || len(b) == 0 {
				return err
			}
			return e.emit(b)
		}
		if len(tail) == 0 && (e.f.Codec != CodecWAV || e.wroteHead) {
			return nil
		}
		return e.writeGo(tail)
	}
	p := e.proc
	p.stdin.Close()
	<-e.copyDone // EOF: ffmpeg has closed its output
	<-p.done
	e.stopKill()
	p.stdout.Close()
	if e.copyErr != nil {
		return fmt.Errorf("audio: write encoded audio: %w", e.copyErr)
	}
	if p.err != nil {
		return toolError("ffmpeg", e.ctx, p.err, &p.stderr)
	}
	return nil
}
