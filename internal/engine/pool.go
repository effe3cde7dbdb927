package engine

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A Pool runs an in-process engine in worker processes: copies of the current executable
// started with WorkerEnv set, each serving one synthesis at a time over stdin/stdout. espeak-ng
// keeps global state (one synthesis per process), so processes are how it uses every core; they
// also keep a crash inside a C library from taking the server down.
//
// The program's main must call MaybeRunWorker first thing (and a test binary's TestMain too).
type Pool struct {
	kind   string
	slots  chan *worker // idle workers; a worker without a process starts one when next used
	closed atomic.Bool

	mu     sync.Mutex
	voices []VoiceInfo // from the first worker's greeting
}

// WorkerEnv is the environment variable that turns the executable into an engine worker; its
// value is the engine ("espeak" or "flite").
const WorkerEnv = "TIMBRE_ENGINE_WORKER"

// NewEspeakPool starts n espeak-ng worker processes (n <= 0: one per CPU).
func NewEspeakPool(n int) (*Pool, error) { return newPool("espeak", n) }

// NewFlitePool starts n flite worker processes (n <= 0: one per CPU).
func NewFlitePool(n int) (*Pool, error) { return newPool("flite", n) }

func newPool(kind string, n int) (*Pool, error) {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	p := &Pool{kind: kind, slots: make(chan *worker, n)}
	for range n {
		w := &worker{kind: kind}
		// Start every worker now so a broken setup fails here rather than on first use.
		if err := w.start(p); err != nil {
			for range len(p.slots) {
				(<-p.slots).stop()
			}
			return nil, err
		}
		p.slots <- w
	}
	return p, nil
}

var _ Synthesizer = (*Pool)(nil)

// Name implements Synthesizer.
func (p *Pool) Name() string { return p.kind }

// Voices implements Synthesizer.
func (p *Pool) Voices(context.Context) ([]VoiceInfo, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]VoiceInfo(nil), p.voices...), nil
}

// Synthesize implements Synthesizer: it waits for an idle worker and hands it the request. When
// ctx ends during the synthesis, the worker is killed (a new one starts on next use).
func (p *Pool) Synthesize(ctx context.Context, req Request) (*Result, error) {
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	var w *worker
	select {
	case w = <-p.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { p.slots <- w }()
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	// A worker that dies mid-synthesis (espeak-ng 1.51 crashes now and then, about once in a
	// hundred Spanish sentences with "¿") is replaced and the request tried once more on the new
	// one: synthesis has no side effects, and the caller should not see a rare crash.
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if w.cmd == nil {
			if err := w.start(p); err != nil {
				return nil, err
			}
		}
		var res *Result
		if res, err = p.roundTrip(ctx, w, req); err == nil || ctx.Err() != nil {
			return res, err
		}
	}
	return nil, err
}

// roundTrip hands req to w and waits for its answer, or for ctx to end (which kills w). A
// failed round trip stops w: the protocol is out of step or the process died.
func (p *Pool) roundTrip(ctx context.Context, w *worker, req Request) (*Result, error) {
	type answer struct {
		resp wireResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		a.err = w.roundTrip(wireRequest{Req: req}, &a.resp)
		done <- a
	}()
	select {
	case a := <-done:
		if a.err != nil {
			w.stop() // start afresh next time
			return nil, fmt.Errorf("%s worker: %w", p.kind, a.err)
		}
		return a.resp.result()
	case <-ctx.Done():
		w.stop()
		<-done
		return nil, ctx.Err()
	}
}

// Close stops the workers, waiting for running syntheses to finish.
func (p *Pool) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	for range cap(p.slots) {
		w := <-p.slots
		w.stop()
		defer func() { p.slots <- w }() // later callers see closed and return
	}
	return nil
}

var errPoolClosed = errors.New("engine: pool closed")

// worker is one child process.
type worker struct {
	kind string
	cmd  *exec.Cmd
	in   io.WriteCloser
	enc  *gob.Encoder
	bw   *bufio.Writer
	br   *bufio.Reader
	dec  *gob.Decoder
}

func (w *worker) start(p *Pool) error {
	// On Linux /proc/self/exe still runs this program after its file was replaced or deleted
	// (an upgrade in place), which a path from os.Executable would not.
	exe := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("%s worker: %w", w.kind, err)
		}
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), WorkerEnv+"="+w.kind)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	// A whole answer (~90 KB per second of audio) in the pipe at once saves round trips
	// through the scheduler; Linux allows up to 1 MiB by default. Best effort.
	if sc, ok := out.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s worker: %w", w.kind, err)
	}
	w.cmd, w.in = cmd, in
	w.bw = bufio.NewWriter(in)
	w.enc = gob.NewEncoder(w.bw)
	w.br = bufio.NewReader(out)
	w.dec = gob.NewDecoder(w.br) // a bufio.Reader is an io.ByteReader: gob reads no further than its message

	// The worker greets with its voices once the engine is initialized, or with the error.
	var hello wireResponse
	if err := w.dec.Decode(&hello); err != nil {
		w.stop()
		return fmt.Errorf("%s worker did not start (does main call engine.MaybeRunWorker?): %w", w.kind, err)
	}
	if hello.Err != "" {
		w.stop()
		return fmt.Errorf("%s worker: %s", w.kind, hello.Err)
	}
	p.mu.Lock()
	if p.voices == nil {
		p.voices = hello.Voices
	}
	p.mu.Unlock()
	return nil
}

func (w *worker) roundTrip(req wireRequest, resp *wireResponse) error {
	if err := w.enc.Encode(req); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if err := w.dec.Decode(resp); err != nil {
		return err
	}
	resp.samples = allocSamples(resp.NumSamples)
	_, err := io.ReadFull(w.br, sampleBytes(resp.samples))
	return err
}

// stop ends the process: closing stdin makes an idle worker exit; Kill ends a busy one.
func (w *worker) stop() {
	if w.cmd == nil {
		return
	}
	w.in.Close()
	w.cmd.Process.Kill()
	w.cmd.Wait()
	w.cmd = nil
}

// wireRequest and wireResponse are the messages of the worker protocol: a gob stream each way,
// one response per request, preceded by a greeting response from the worker. Each response is
// followed by its NumSamples samples as raw bytes in the machine's byte order (both ends are
// the same program on the same machine), which spares encoding and copying the audio.
type wireRequest struct {
	Req Request
}

type wireResponse struct {
	Err          string
	UnknownVoice bool // Err wraps ErrUnknownVoice
	SampleRate   int
	NumSamples   int
	Words        []WordMark
	Phonemes     []string
	Voices       []VoiceInfo // greeting only

	samples []int16 // read after the message
}

// sampleBytes is the memory of s as bytes.
func sampleBytes(s []int16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

func (r *wireResponse) result() (*Result, error) {
	if r.Err != "" {
		if r.UnknownVoice {
			return nil, &remoteError{r.Err, ErrUnknownVoice}
		}
		return nil, &remoteError{r.Err, nil}
	}
	return &Result{Audio: PCM{Samples: r.samples, SampleRate: r.SampleRate}, Words: r.Words, Phonemes: r.Phonemes, pooled: r.samples}, nil
}

// remoteError is an error from a worker; errors.Is still recognizes ErrUnknownVoice.
type remoteError struct {
	msg  string
	wrap error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.wrap }

// MaybeRunWorker turns the process into an engine worker when WorkerEnv is set: it serves
// requests on stdin/stdout until stdin closes, then exits. Otherwise it returns at once. Call it
// first thing in main (and in TestMain), before anything writes to stdout.
func MaybeRunWorker() {
	kind := os.Getenv(WorkerEnv)
	if kind == "" {
		return
	}
	if err := runWorker(kind); err != nil {
		fmt.Fprintf(os.Stderr, "%s worker: %v\n", kind, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runWorker(kind string) error {
	// The protocol gets its own copy of stdout, and fd 1 becomes stderr, so that anything the C
	// libraries print cannot corrupt the stream.
	fd, err := unix.Dup(1)
	if err != nil {
		return err
	}
	if err := unix.Dup2(2, 1); err != nil {
		return err
	}
	out := bufio.NewWriter(os.NewFile(uintptr(fd), "protocol"))
	enc := gob.NewEncoder(out)
	dec := gob.NewDecoder(bufio.NewReader(os.Stdin))
	send := func(r *wireResponse) error {
		r.NumSamples = len(r.samples)
		if err := enc.Encode(r); err != nil {
			return err
		}
		if _, err := out.Write(sampleBytes(r.samples)); err != nil {
			return err
		}
		return out.Flush()
	}

	var syn Synthesizer
	switch kind {
	case "espeak":
		syn, err = NewEspeak()
	case "flite":
		syn, err = NewFlite()
	default:
		err = fmt.Errorf("unknown engine %q", kind)
	}
	if err != nil {
		return send(&wireResponse{Err: err.Error()})
	}
	ctx := context.Background()
	voices, err := syn.Voices(ctx)
	if err != nil {
		return send(&wireResponse{Err: err.Error()})
	}
	if err := send(&wireResponse{Voices: voices}); err != nil {
		return err
	}
	for {
		var req wireRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var resp wireResponse
		res, err := syn.Synthesize(ctx, req.Req)
		if err != nil {
			resp.Err = err.Error()
			resp.UnknownVoice = errors.Is(err, ErrUnknownVoice)
		} else {
			resp.SampleRate = res.Audio.SampleRate
			resp.samples = res.Audio.Samples
			resp.Words = res.Words
			resp.Phonemes = res.Phonemes
		}
		if err := send(&resp); err != nil {
			return err
		}
	}
}

// sampleBuffers recycles the workers' audio buffers by capacity class (a power of two): a
// stream's sentences are hundreds of kilobytes each, and allocating them afresh costs the
// zeroing of memory that is overwritten at once, page faults, and garbage collections.
var sampleBuffers [24]sync.Pool

func allocSamples(n int) []int16 {
	if n == 0 {
		return nil
	}
	c := max(bits.Len(uint(n-1)), 12)
	if c >= len(sampleBuffers) {
		return make([]int16, n)
	}
	if v, ok := sampleBuffers[c].Get().(*[]int16); ok {
		return (*v)[:n]
	}
	return make([]int16, n, 1<<c)
}

// Release hands the result's audio buffer back for reuse. Call it only when nothing refers to
// Audio.Samples any more; results from engines that do not recycle their buffers ignore it.
func (r *Result) Release() {
	s := r.pooled
	r.pooled = nil
	if c := bits.Len(uint(cap(s) - 1)); cap(s) >= 1<<12 && cap(s) == 1<<c && c < len(sampleBuffers) {
		sampleBuffers[c].Put(&s)
	}
}
