package audio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A cold ffmpeg start costs 90–250 ms; a running process answers in a few milliseconds. So
// NewStreamEncoder draws its ffmpeg process from a small pool of pre-started ones, kept per command
// line (input rate and format): after every take the pool is refilled in the background to
// WarmEncoders idle processes (once the taken process has produced its first bytes, so that the
// start does not compete with them for the CPU), and idle processes that nobody takes within
// WarmIdleTimeout are stopped. Nothing is started for a command line before its first use (or Warm).
//
// An idle process has been given no input and has produced no output: ffmpeg only sets up its
// encoder and muxer on the first input frame, and the process is started with exactly the
// arguments a cold start would use, so a stream's bytes do not depend on whether its process
// was warm.
var (
	WarmEncoders    = 2           // idle processes kept per command line that was used; 0 disables the pool
	WarmIdleTimeout = time.Minute // an idle process not taken within this long is stopped
)

// liveFFmpeg counts stream ffmpeg processes that have been started and not yet reaped (tests).
var liveFFmpeg atomic.Int64

// ffproc is a started stream ffmpeg process. stdout is our own pipe rather than
// cmd.StdoutPipe, so a goroutine can reap the process at any time (Wait would close
// StdoutPipe's read end under the reader) and a dead idle process is noticed before use.
type ffproc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stderr bytes.Buffer // written by exec's copier until done is closed
	done   chan struct{}
	err    error // Wait's result, set before done is closed
	idle   *time.Timer
}

func startFFmpeg(args []string) (*ffproc, error) {
	p := &ffproc{done: make(chan struct{})}
	p.cmd = exec.Command(FFmpeg, args...)
	p.cmd.Stderr = &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("audio: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		p.stdin.Close()
		return nil, fmt.Errorf("audio: %w", err)
	}
	p.cmd.Stdout = w
	err = p.cmd.Start()
	w.Close() // the child has its copy; EOF on r now means the child is gone
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("audio: start ffmpeg: %w", err)
	}
	p.stdout = r
	liveFFmpeg.Add(1)
	go func() {
		p.err = p.cmd.Wait()
		liveFFmpeg.Add(-1)
		close(p.done)
	}()
	return p, nil
}

func (p *ffproc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *ffproc) kill() { p.cmd.Process.Kill() }

// discard stops an unused process and releases its pipes.
func (p *ffproc) discard() {
	p.kill()
	p.stdin.Close()
	<-p.done
	p.stdout.Close()
}

// ffPool holds idle stream ffmpeg processes by command line.
type ffPool struct {
	mu      sync.Mutex
	idle    map[string][]*ffproc
	filling map[string]int // background starts in progress
	closed  bool
	wg      sync.WaitGroup // background starts
}

var defaultPool = &ffPool{}

func poolKey(args []string) string { return strings.Join(args, "\x00") }

// take returns an idle process for args, or nil, and refill, which brings the pool for args
// back up to WarmEncoders idle processes in the background. The caller calls refill (once or
// more) when a cold start no longer competes with its stream for the CPU: an ffmpeg start costs
// about 60 ms of CPU, which would otherwise run alongside the stream's first frames and delay
// its first bytes.
func (pl *ffPool) take(args []string) (p *ffproc, refill func()) {
	key := poolKey(args)
	refill = sync.OnceFunc(func() {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		if !pl.closed {
			pl.refillLocked(key, args)
		}
	})
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		return nil, refill
	}
	var got *ffproc
	for q := pl.idle[key]; len(q) > 0 && got == nil; q = pl.idle[key] {
		p := q[len(q)-1]
		pl.idle[key] = q[:len(q)-1]
		p.idle.Stop()
		if p.exited() { // died while idle (killed from outside): reap it, try the next
			go p.discard()
			continue
		}
		got = p
	}
	return got, refill
}

// refillLocked starts enough background starts to bring key's idle processes up to WarmEncoders.
func (pl *ffPool) refillLocked(key string, args []string) {
	if pl.idle == nil {
		pl.idle, pl.filling = map[string][]*ffproc{}, map[string]int{}
	}
	for n := len(pl.idle[key]) + pl.filling[key]; n < WarmEncoders; n++ {
		pl.filling[key]++
		pl.wg.Add(1)
		go pl.start(key, args)
	}
}

func (pl *ffPool) start(key string, args []string) {
	defer pl.wg.Done()
	p, err := startFFmpeg(args)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.filling[key]--
	if err != nil {
		return // the next take starts cold and reports the error
	}
	if pl.closed {
		go p.discard()
		return
	}
	p.idle = time.AfterFunc(WarmIdleTimeout, func() { pl.expire(key, p) })
	pl.idle[key] = append(pl.idle[key], p)
}

func (pl *ffPool) expire(key string, p *ffproc) {
	pl.mu.Lock()
	q := pl.idle[key]
	found := false
	for i, x := range q {
		if x == p {
			pl.idle[key] = append(q[:i:i], q[i+1:]...)
			found = true
			break
		}
	}
	if len(pl.idle[key]) == 0 {
		delete(pl.idle, key)
	}
	pl.mu.Unlock()
	if found {
		p.discard()
	}
}

// warm makes sure args has idle processes, without taking one.
func (pl *ffPool) warm(args []string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if !pl.closed {
		pl.refillLocked(poolKey(args), args)
	}
}

// close stops every idle process and every start in progress, and waits for them to exit.
// Afterwards take returns nil: encoders still work, with cold starts.
func (pl *ffPool) close() {
	pl.mu.Lock()
	pl.closed = true
	var all []*ffproc
	for _, q := range pl.idle {
		for _, p := range q {
			p.idle.Stop()
			all = append(all, p)
		}
	}
	pl.idle = nil
	pl.mu.Unlock()
	pl.wg.Wait() // starts still running discard their process themselves
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() { defer wg.Done(); p.discard() }()
	}
	wg.Wait()
}

// Warm pre-starts stream encoders from inRate to f, so that the next NewStreamEncoder calls
// for that pair find a running ffmpeg. It returns at once; formats encoded in Go need nothing.
// Calling it is optional: every NewStreamEncoder refills the pool for its pair.
func Warm(inRate int, f Format) {
	if checkArgs(inRate, f) != nil || goEncoded(f) {
		return
	}
	defaultPool.warm(ffmpegArgs(inRate, f, true))
}

// Shutdown stops the idle pre-started ffmpeg processes (and frees the mp3 encoders kept ready)
// and stops making new ones; encoders created afterwards start cold. Streams in progress are not affected. Call it once the
// HTTP server has shut down. (Idle processes also exit by themselves when this process dies:
// their stdin closes.)
func Shutdown() {
	defaultPool.close()
	lameSpares.close()
}
