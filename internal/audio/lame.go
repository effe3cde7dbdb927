package audio

/*
#cgo LDFLAGS: -lmp3lame
#include <stdlib.h>
#include <lame/lame.h>

static void timbre_lame_quiet(const char *format, va_list ap) {}

// timbre_lame_open sets up a mono CBR encoder like ffmpeg's libmp3lame with -b:a: no ID3 tags,
// no Xing frame, LAME's low-pass for the bitrate, and quality 5 (LAME's default before 3.98)
// rather than today's 3: BenchmarkEncodeMP3_60s (60 s of speech resampled to 44.1 kHz and
// encoded) took 442–477 ms against 531–592 at quality 3 (four runs each, alternating), and the
// round trip through the recogniser (make bench sound) measured +0.64 points against +0.6.
static lame_global_flags *timbre_lame_open(int rate, int kbps) {
	lame_global_flags *gf = lame_init();
	if (gf == NULL) return NULL;
	lame_set_errorf(gf, timbre_lame_quiet);
	lame_set_debugf(gf, timbre_lame_quiet);
	lame_set_msgf(gf, timbre_lame_quiet);
	lame_set_num_channels(gf, 1);
	lame_set_mode(gf, MONO);
	lame_set_in_samplerate(gf, rate);
	lame_set_out_samplerate(gf, rate);
	lame_set_VBR(gf, vbr_off);
	lame_set_brate(gf, kbps);
	lame_set_bWriteVbrTag(gf, 0);
	lame_set_write_id3tag_automatic(gf, 0);
	lame_set_quality(gf, 5);
	if (lame_init_params(gf) < 0) {
		lame_close(gf);
		return NULL;
	}
	return gf;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// lameEncoder encodes mp3 in this process with libmp3lame: no ffmpeg process to start or to
// pipe through, so the first frames exist as soon as the first samples are encoded.
type lameEncoder struct {
	gf   *C.lame_global_flags
	buf  []byte
	idle *time.Timer // while kept ready in the pool
}

func newLame(f Format) (*lameEncoder, error) {
	gf := C.timbre_lame_open(C.int(f.SampleRate), C.int(MP3FrameBitrate(f)/1000))
	if gf == nil {
		return nil, fmt.Errorf("audio: libmp3lame rejected %s", f.Name)
	}
	return &lameEncoder{gf: gf}, nil
}

// encode encodes samples (at the format's rate) and returns the mp3 frames that are complete so
// far; LAME holds back up to about two frames for its look-ahead. The result is only valid until
// the next call.
func (l *lameEncoder) encode(samples []int16) ([]byte, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	// LAME's worst case per call: 1.25 × samples + 7200 bytes.
	if need := len(samples)*5/4 + 7200; len(l.buf) < need {
		l.buf = make([]byte, need)
	}
	pcm := (*C.short)(unsafe.Pointer(&samples[0]))
	n := C.lame_encode_buffer(l.gf, pcm, pcm, C.int(len(samples)), (*C.uchar)(unsafe.Pointer(&l.buf[0])), C.int(len(l.buf)))
	if n < 0 {
		return nil, fmt.Errorf("audio: libmp3lame: encode failed (%d)", int(n))
	}
	return l.buf[:n], nil
}

// flush returns the frames LAME still holds (the last one padded with silence).
func (l *lameEncoder) flush() ([]byte, error) {
	if len(l.buf) < 7200 {
		l.buf = make([]byte, 7200)
	}
	n := C.lame_encode_flush(l.gf, (*C.uchar)(unsafe.Pointer(&l.buf[0])), C.int(len(l.buf)))
	if n < 0 {
		return nil, fmt.Errorf("audio: libmp3lame: flush failed (%d)", int(n))
	}
	return l.buf[:n], nil
}

func (l *lameEncoder) close() {
	if l.gf != nil {
		C.lame_close(l.gf)
		l.gf = nil
	}
}

// encodeMP3 encodes a whole file in process.
func encodeMP3(samples []int16, f Format) ([]byte, error) {
	l, refill := lameSpares.take(f)
	defer refill()
	if l == nil {
		var err error
		if l, err = newLame(f); err != nil {
			return nil, err
		}
	}
	defer l.close()
	body, err := l.encode(samples)
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, len(body)+8192), body...)
	tail, err := l.flush()
	return append(out, tail...), err
}

// lame_init_params costs about 1.3 ms of CPU (the psychoacoustic model's tables), which would
// otherwise come before every mp3 stream's first bytes. So NewStreamEncoder takes its encoder
// from a few kept ready per format, like the ffmpeg pool: none for a format before its first
// use, WarmEncoders of them after it, made in the background once the taking stream's first
// bytes are out, and freed when nobody takes them within WarmIdleTimeout (or at Shutdown). An
// encoder that was made and never used is in the state a new one is in, so the bytes are the same.
type lamePool struct {
	mu      sync.Mutex
	idle    map[string][]*lameEncoder
	filling map[string]int
	closed  bool
	wg      sync.WaitGroup
}

var lameSpares = &lamePool{}

// take returns a ready encoder for f, or nil, and refill, which brings f's ready encoders back
// up to WarmEncoders in the background (call it once the stream's first bytes are out).
func (pl *lamePool) take(f Format) (l *lameEncoder, refill func()) {
	refill = sync.OnceFunc(func() {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		if pl.closed || WarmEncoders <= 0 {
			return
		}
		if pl.idle == nil {
			pl.idle, pl.filling = map[string][]*lameEncoder{}, map[string]int{}
		}
		for n := len(pl.idle[f.Name]) + pl.filling[f.Name]; n < WarmEncoders; n++ {
			pl.filling[f.Name]++
			pl.wg.Add(1)
			go pl.make(f)
		}
	})
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if q := pl.idle[f.Name]; len(q) > 0 {
		l = q[len(q)-1]
		pl.idle[f.Name] = q[:len(q)-1]
		l.idle.Stop()
		l.idle = nil
	}
	return l, refill
}

func (pl *lamePool) make(f Format) {
	defer pl.wg.Done()
	l, err := newLame(f)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.filling[f.Name]--
	if err != nil {
		return // the next take makes one itself and reports the error
	}
	if pl.closed {
		l.close()
		return
	}
	l.idle = time.AfterFunc(WarmIdleTimeout, func() { pl.expire(f.Name, l) })
	pl.idle[f.Name] = append(pl.idle[f.Name], l)
}

func (pl *lamePool) expire(name string, l *lameEncoder) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, x := range pl.idle[name] {
		if x == l {
			pl.idle[name] = append(pl.idle[name][:i:i], pl.idle[name][i+1:]...)
			l.close()
			return
		}
	}
}

// close frees the ready encoders and makes no more; take then returns nil.
func (pl *lamePool) close() {
	pl.mu.Lock()
	pl.closed = true
	for _, q := range pl.idle {
		for _, l := range q {
			l.idle.Stop()
			l.close()
		}
	}
	pl.idle = nil
	pl.mu.Unlock()
	pl.wg.Wait()
}
