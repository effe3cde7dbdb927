package audio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// usePool gives the test its own encoder pool and settings, restored (and the pool closed)
// when the test ends, and checks that no stream ffmpeg process outlives the test.
func usePool(t *testing.T, size int, idle time.Duration) *ffPool {
	t.Helper()
	requireFFmpeg(t)
	defaultPool.close() // the idle processes earlier tests left in the shared pool
	waitLive(t, 0)
	pl := &ffPool{}
	oldSize, oldIdle := WarmEncoders, WarmIdleTimeout
	defaultPool, WarmEncoders, WarmIdleTimeout = pl, size, idle
	t.Cleanup(func() {
		pl.close()
		defaultPool, WarmEncoders, WarmIdleTimeout = &ffPool{}, oldSize, oldIdle
		waitLive(t, 0)
	})
	return pl
}

func (pl *ffPool) idleCount(inRate int, f Format) int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	n := 0
	for _, p := range pl.idle[poolKey(ffmpegArgs(inRate, f, true))] {
		if !p.exited() {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitLive(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for liveFFmpeg.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d stream ffmpeg processes alive, want %d", liveFFmpeg.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func streamBytes(t *testing.T, ctx context.Context, inRate int, f Format, chunks ...[]int16) []byte {
	t.Helper()
	var buf bytes.Buffer
	e, err := NewStreamEncoder(ctx, inRate, f, &buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if err := e.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A stream encoded by a pre-started ffmpeg is byte for byte the one a cold start produces, even
// when the warm process has been idle for a while.
func TestPoolWarmMatchesCold(t *testing.T) {
	pl := usePool(t, 1, time.Minute)
	ctx := context.Background()
	in := speechLike(22050, 2.5)
	for _, name := range []string{"opus_48000_32", "opus_48000_64"} {
		f, _ := ParseFormat(name)
		WarmEncoders = 0
		cold := streamBytes(t, ctx, 22050, f, in[:10000], in[10000:])
		WarmEncoders = 1
		Warm(22050, f)
		waitFor(t, "a warm "+name+" encoder", func() bool { return pl.idleCount(22050, f) == 1 })
		time.Sleep(300 * time.Millisecond) // idle a little: nothing may come out before the input
		warm := streamBytes(t, ctx, 22050, f, in[:10000], in[10000:])
		if len(cold) == 0 || !bytes.Equal(warm, cold) {
			t.Errorf("%s: warm stream (%d bytes) differs from cold stream (%d bytes)", name, len(warm), len(cold))
		}
	}
}

// Every take refills the pool in the background (once the taken process has produced its first
// bytes); a key never used gets nothing.
func TestPoolRefills(t *testing.T) {
	pl := usePool(t, 2, time.Minute)
	ctx := context.Background()
	f, _ := ParseFormat("opus_48000_64")
	other, _ := ParseFormat("opus_48000_96")
	in := tone(440, 16000, 0.3)

	streamBytes(t, ctx, 16000, f, in) // cold: the first use of the pair
	waitFor(t, "the pool to fill", func() bool { return pl.idleCount(16000, f) == 2 })
	waitLive(t, 2)

	// Two concurrent streams take both idle processes; the pool is back at two afterwards.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := NewStreamEncoder(ctx, 16000, f, io.Discard)
			if err != nil {
				t.Error(err)
				return
			}
			e.Write(in)
			if err := e.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "the pool to refill", func() bool { return pl.idleCount(16000, f) == 2 })
	waitLive(t, 2)
	if n := pl.idleCount(16000, other); n != 0 {
		t.Errorf("%d idle encoders for a pair never used", n)
	}
	if n := pl.idleCount(22050, f); n != 0 {
		t.Errorf("%d idle encoders for an input rate never used", n)
	}
}

// Idle processes stop after WarmIdleTimeout and are not replaced; close stops the rest, and
// nothing is started afterwards.
func TestPoolIdleTimeoutAndClose(t *testing.T) {
	pl := usePool(t, 2, 300*time.Millisecond)
	f, _ := ParseFormat("opus_48000_32")
	Warm(16000, f)
	waitLive(t, 2)
	waitLive(t, 0) // expired
	if n := pl.idleCount(16000, f); n != 0 {
		t.Errorf("%d idle after the timeout", n)
	}

	WarmIdleTimeout = time.Minute
	Warm(16000, f)
	Warm(22050, f)
	waitLive(t, 4)
	pl.close()
	if n := liveFFmpeg.Load(); n != 0 {
		t.Errorf("%d processes alive after close", n)
	}
	// Encoders still work after close, cold, and leave nothing behind.
	streamBytes(t, context.Background(), 16000, f, tone(440, 16000, 0.2))
	Warm(16000, f)
	time.Sleep(100 * time.Millisecond)
	waitLive(t, 0)
}

// Cancelling a stream kills its (warm) ffmpeg; a writer error does too.
func TestPoolWarmCancelAndWriterError(t *testing.T) {
	pl := usePool(t, 1, time.Minute)
	f, _ := ParseFormat("opus_48000_128")
	Warm(16000, f)
	waitFor(t, "a warm encoder", func() bool { return pl.idleCount(16000, f) == 1 })

	ctx, cancel := context.WithCancel(context.Background())
	e, err := NewStreamEncoder(ctx, 16000, f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(tone(440, 16000, 0.5)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := e.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close after cancel: %v", err)
	}
	waitFor(t, "the pool to refill", func() bool { return pl.idleCount(16000, f) == 1 })
	waitLive(t, 1) // only the idle one

	// Without Close: the cancelled stream's process is still killed and reaped. The pool is
	// refilled only once a taken process has produced output or ended, so that the start does
	// not compete with the stream's first bytes: before then nothing new starts.
	ctx, cancel = context.WithCancel(context.Background())
	if _, err := NewStreamEncoder(ctx, 16000, f, io.Discard); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := pl.idleCount(16000, f); n != 0 {
		t.Errorf("%d idle encoders before the taken one produced anything, want 0", n)
	}
	waitLive(t, 1)
	cancel()
	waitFor(t, "the pool to refill", func() bool { return pl.idleCount(16000, f) == 1 })
	waitLive(t, 1) // only the new idle one

	// An already cancelled context starts (and takes) nothing.
	if _, err := NewStreamEncoder(ctx, 16000, f, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("NewStreamEncoder with a cancelled context: %v", err)
	}

	e, err = NewStreamEncoder(context.Background(), 16000, f, &failWriter{n: 1})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for range 50 {
		if werr = e.Write(tone(440, 16000, 0.5)); werr != nil {
			break
		}
	}
	if cerr := e.Close(); werr == nil && cerr == nil {
		t.Error("a failing writer went unnoticed")
	}
	waitFor(t, "the pool to refill", func() bool { return pl.idleCount(16000, f) == 1 })
	waitLive(t, 1)
}

// Resampler filters are built once per rate pair and shared.
func TestResamplerFilterShared(t *testing.T) {
	a, b := newResampler(16000, 22050), newResampler(16000, 22050)
	if a.rsFilter != b.rsFilter {
		t.Error("two resamplers for the same rates built separate filters")
	}
	if newResampler(22050, 16000).rsFilter == a.rsFilter {
		t.Error("different rate pairs share a filter")
	}
}

// The Go-encoded stream sends a resampled sentence in blocks, the first ≈ 100 ms long.
func TestStreamResampledFirstBlockIsSmall(t *testing.T) {
	f, _ := ParseFormat("pcm_22050")
	w := &countWriter{}
	e, err := NewStreamEncoder(context.Background(), 16000, f, w)
	if err != nil {
		t.Fatal(err)
	}
	in := speechLike(16000, 3.5)
	if err := e.Write(in); err != nil {
		t.Fatal(err)
	}
	if len(w.sizes) < 2 || w.sizes[0] > 2*2205+64 {
		t.Errorf("write sizes %v: want a first block of about 100 ms (4410 bytes)", w.sizes)
	}
	e.Close()
	var buf bytes.Buffer
	e, _ = NewStreamEncoder(context.Background(), 16000, f, &buf)
	e.Write(in)
	e.Close()
	want, _ := Encode(context.Background(), in, 16000, f)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Error("blocked stream differs from Encode")
	}
}

type countWriter struct{ sizes []int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	return len(p), nil
}

// mp3 is encoded in process in the same blocks: the first frames leave after ≈ 100 ms of input
// has been encoded, not after the whole sentence.
func TestStreamMP3FirstBlockIsSmall(t *testing.T) {
	f, _ := ParseFormat("mp3_44100_128")
	w := &countWriter{}
	e, err := NewStreamEncoder(context.Background(), 22050, f, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(speechLike(22050, 3.5)); err != nil {
		t.Fatal(err)
	}
	// 100 ms at 128 kbps is 1,600 bytes; LAME holds back up to two frames of it.
	if len(w.sizes) < 2 || w.sizes[0] > 2000 {
		t.Errorf("write sizes %v: want a first block of at most about 100 ms", w.sizes)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// mp3 encoders are kept ready per format once the format was used: a stream from a ready
// encoder gives the bytes a new one gives, whole files too; nobody's encoder is kept for an
// unused format; idle ones are freed after the idle timeout, and all at close.
func TestLameSparesMatchNew(t *testing.T) {
	oldSize, oldIdle := WarmEncoders, WarmIdleTimeout
	pl := &lamePool{}
	lameSpares.close()
	lameSpares, WarmEncoders, WarmIdleTimeout = pl, 2, time.Minute
	t.Cleanup(func() {
		pl.close()
		lameSpares, WarmEncoders, WarmIdleTimeout = &lamePool{}, oldSize, oldIdle
	})
	ready := func(name string) int {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return len(pl.idle[name])
	}
	ctx := context.Background()
	in := speechLike(22050, 2.5)
	f, _ := ParseFormat("mp3_44100_128")
	if ready(f.Name) != 0 {
		t.Fatal("encoders made before the format's first use")
	}
	cold := streamBytes(t, ctx, 22050, f, in[:3000], in[3000:])
	waitFor(t, "two ready mp3 encoders", func() bool { return ready(f.Name) == 2 })
	warm := streamBytes(t, ctx, 22050, f, in[:3000], in[3000:])
	if len(cold) == 0 || !bytes.Equal(warm, cold) {
		t.Fatalf("a stream from a ready encoder (%d bytes) differs from a new one's (%d bytes)", len(warm), len(cold))
	}
	waitFor(t, "the taken encoder replaced", func() bool { return ready(f.Name) == 2 })
	whole, err := Encode(ctx, in, 22050, f)
	if err != nil || !bytes.Equal(whole, cold) {
		t.Fatalf("a whole file from a ready encoder (%d bytes, %v) differs from the stream's (%d bytes)", len(whole), err, len(cold))
	}
	if other, _ := ParseFormat("mp3_22050_32"); ready(other.Name) != 0 {
		t.Fatal("encoders made for an unused format")
	}
	waitFor(t, "the whole file's encoder replaced", func() bool { return ready(f.Name) == 2 })
	for range 2 { // empty the pool, so that every ready encoder below has the short timeout
		l, _ := pl.take(f)
		l.close()
	}
	pl.mu.Lock()
	WarmIdleTimeout = 10 * time.Millisecond
	pl.mu.Unlock()
	streamBytes(t, ctx, 22050, f, in) // its refill makes two encoders that expire at once
	waitFor(t, "idle encoders freed", func() bool {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return pl.filling[f.Name] == 0 && len(pl.idle[f.Name]) == 0
	})
	pl.close()
	if l, _ := pl.take(f); l != nil || len(pl.idle) != 0 {
		t.Fatal("a closed pool handed out an encoder")
	}
}
