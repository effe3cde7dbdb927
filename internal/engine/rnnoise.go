package engine

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"timbre/internal/audio"
)

// Isolator removes background noise from speech, keeping the speech and the duration.
// Implementations must be safe for concurrent use.
type Isolator interface {
	// IsolateStream denoises pcm and hands the result to emit in consecutive pieces, as it is
	// made: exactly len(pcm.Samples) samples at pcm.SampleRate in all. An error from emit stops it.
	IsolateStream(ctx context.Context, pcm PCM, emit func([]int16) error) error
}

// rnnoiseWasm is RNNoise 0.2 (Xiph.Org / Jean-Marc Valin, BSD-3-Clause) with its trained
// weights, compiled to WebAssembly by Jitsi: the module inlined in npm @jitsi/rnnoise-wasm 0.2.1
// (dist/rnnoise-sync.js). See rnnoise.NOTICE.
//
//go:embed rnnoise.wasm
var rnnoiseWasm []byte

// RNNoise's fixed geometry: 10 ms frames at 48 kHz of float samples on the int16 scale.
const (
	rnnoiseRate  = 48000
	rnnoiseFrame = 480
)

// RNNoise is the embedded neural noise suppressor, run in process by the wazero WebAssembly
// runtime (pure Go: no cgo, no files). The module is compiled once; each Isolate call runs its
// own instance, so calls proceed in parallel.
type RNNoise struct {
	once     sync.Once
	err      error
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
}

// NewRNNoise returns the isolator; the module is compiled on first use.
func NewRNNoise() *RNNoise { return &RNNoise{} }

func (r *RNNoise) init(ctx context.Context) error {
	r.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		// The compiler (not the interpreter); cancellation is checked between frames rather than
		// inside the module (WithCloseOnContextDone instruments every loop).
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
		// The two imports of Emscripten's runtime the module uses: a large memcpy and heap growth.
		_, err := rt.NewHostModuleBuilder("a").
			NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, dst, src, n uint32) {
			mem := m.ExportedMemory("c")
			if b, ok := mem.Read(src, n); ok {
				tmp := append([]byte(nil), b...)
				mem.Write(dst, tmp)
			}
		}).Export("b").
			NewFunctionBuilder().WithFunc(func(_ context.Context, m api.Module, size uint32) uint32 {
			mem := m.ExportedMemory("c")
			if size <= mem.Size() {
				return 1
			}
			if _, ok := mem.Grow((size - mem.Size() + 65535) / 65536); !ok {
				return 0
			}
			return 1
		}).Export("a").
			Instantiate(ctx)
		if err != nil {
			r.err = fmt.Errorf("rnnoise: host functions: %w", err)
			return
		}
		compiled, err := rt.CompileModule(ctx, rnnoiseWasm)
		if err != nil {
			r.err = fmt.Errorf("rnnoise: compile: %w", err)
			return
		}
		r.runtime, r.compiled = rt, compiled
	})
	return r.err
}

// Close releases the compiled module.
func (r *RNNoise) Close(ctx context.Context) error {
	if r.runtime == nil {
		return nil
	}
	return r.runtime.Close(ctx)
}

// Isolate denoises pcm whole (see IsolateStream).
func (r *RNNoise) Isolate(ctx context.Context, pcm PCM) (PCM, error) {
	out := PCM{Samples: make([]int16, 0, len(pcm.Samples)), SampleRate: pcm.SampleRate}
	err := r.IsolateStream(ctx, pcm, func(s []int16) error {
		out.Samples = append(out.Samples, s...)
		return nil
	})
	if err != nil {
		return PCM{}, err
	}
	return out, nil
}

// streamBlock is how much input IsolateStream takes at a time (half a second at 48 kHz):
// small enough for a prompt first byte, large enough to keep the per-block costs low.
const streamBlock = 50 * rnnoiseFrame

// IsolateStream resamples pcm to 48 kHz, runs it frame by frame through RNNoise and resamples
// it back, block by block. RNNoise's one-frame delay is taken out and the length kept exact.
func (r *RNNoise) IsolateStream(ctx context.Context, pcm PCM, emit func([]int16) error) error {
	if err := r.init(ctx); err != nil {
		return err
	}
	if pcm.SampleRate <= 0 {
		return errors.New("rnnoise: no sample rate")
	}
	n := len(pcm.Samples)
	if n == 0 {
		return nil
	}
	inst, err := r.instance(ctx)
	if err != nil {
		return err
	}
	defer inst.close(ctx)
	var up, down *audio.Resampler
	if pcm.SampleRate != rnnoiseRate {
		up, down = audio.NewResampler(pcm.SampleRate, rnnoiseRate), audio.NewResampler(rnnoiseRate, pcm.SampleRate)
	}
	var pending, denoised, back []int16
	skip, sent := rnnoiseFrame, 0
	// step denoises the whole frames of pending (all of it, padded, when final) and emits what
	// they give back at the caller's rate.
	step := func(in48 []int16, final bool) error {
		pending = append(pending, in48...)
		if final { // pad to whole frames, then one frame more to push out the delayed samples
			pending = append(pending, make([]int16, (rnnoiseFrame-len(pending)%rnnoiseFrame)%rnnoiseFrame+rnnoiseFrame)...)
		}
		k := len(pending) / rnnoiseFrame * rnnoiseFrame
		denoised, err = inst.process(ctx, denoised[:0], pending[:k])
		if err != nil {
			return err
		}
		pending = append(pending[:0], pending[k:]...)
		out := denoised
		if d := min(skip, len(out)); d > 0 {
			out, skip = out[d:], skip-d
		}
		if down != nil {
			back = down.Process(back[:0], out)
			if final {
				back = down.Flush(back)
			}
			out = back
		}
		out = out[:min(len(out), n-sent)]
		if final {
			for sent+len(out) < n {
				out = append(out, 0)
			}
		}
		sent += len(out)
		if len(out) == 0 {
			return nil
		}
		return emit(out)
	}
	block := streamBlock * pcm.SampleRate / rnnoiseRate
	var in48 []int16
	for start := 0; start < n; start += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		in48 = pcm.Samples[start:min(n, start+block)]
		if up != nil {
			in48 = up.Process(nil, in48)
		}
		if err := step(in48, false); err != nil {
			return err
		}
	}
	var tail []int16
	if up != nil {
		tail = up.Flush(nil)
	}
	return step(tail, true)
}

// rnnoiseInstance is one running module with its RNNoise state and frame buffers.
type rnnoiseInstance struct {
	mod           api.Module
	mem           api.Memory
	fn            api.Function
	state         uint64
	inPtr, outPtr uint32
	frame         []float32
}

// instance starts a module instance of the compiled RNNoise.
func (r *RNNoise) instance(ctx context.Context) (*rnnoiseInstance, error) {
	mod, err := r.runtime.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, fmt.Errorf("rnnoise: instantiate: %w", err)
	}
	call := func(name string, args ...uint64) (uint64, error) {
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil || len(res) == 0 {
			return 0, err
		}
		return res[0], nil
	}
	// Exports, as Emscripten minified them: d ctors, e malloc, h rnnoise_create(model),
	// j rnnoise_process_frame(state, out, in); c is the memory.
	fail := func(what string, err error) (*rnnoiseInstance, error) {
		_ = mod.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("rnnoise: %s: %v", what, err)
	}
	if _, err := call("d"); err != nil {
		return fail("init", err)
	}
	state, err := call("h", 0)
	if err != nil || state == 0 {
		return fail("create", err)
	}
	buf, err := call("e", 2*rnnoiseFrame*4)
	if err != nil || buf == 0 {
		return fail("malloc", err)
	}
	return &rnnoiseInstance{mod: mod, mem: mod.ExportedMemory("c"), fn: mod.ExportedFunction("j"), state: state,
		inPtr: uint32(buf), outPtr: uint32(buf) + rnnoiseFrame*4}, nil
}

func (in *rnnoiseInstance) close(ctx context.Context) { _ = in.mod.Close(context.WithoutCancel(ctx)) }

// process denoises whole frames of 48 kHz samples, appending the output to dst.
func (in *rnnoiseInstance) process(ctx context.Context, dst, samples []int16) ([]int16, error) {
	args := []uint64{in.state, uint64(in.outPtr), uint64(in.inPtr)}
	for start := 0; start+rnnoiseFrame <= len(samples); start += rnnoiseFrame {
		for i, s := range samples[start : start+rnnoiseFrame] {
			in.mem.WriteFloat32Le(in.inPtr+uint32(4*i), float32(s))
		}
		if _, err := in.fn.Call(ctx, args...); err != nil {
			return nil, fmt.Errorf("rnnoise: process: %w", err)
		}
		for i := range rnnoiseFrame {
			f, _ := in.mem.ReadFloat32Le(in.outPtr + uint32(4*i))
			dst = append(dst, clampInt16(f))
		}
	}
	return dst, nil
}

func clampInt16(f float32) int16 {
	switch {
	case f > 32767:
		return 32767
	case f < -32768:
		return -32768
	}
	if f < 0 {
		return int16(f - 0.5)
	}
	return int16(f + 0.5)
}
