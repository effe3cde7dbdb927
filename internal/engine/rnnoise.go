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
	Isolate(ctx context.Context, pcm PCM) (PCM, error)
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

// Isolate denoises pcm: resampled to 48 kHz, run frame by frame through RNNoise, resampled back.
// The result has pcm's rate and exactly its length (RNNoise's one-frame delay is taken out).
func (r *RNNoise) Isolate(ctx context.Context, pcm PCM) (PCM, error) {
	if err := r.init(ctx); err != nil {
		return PCM{}, err
	}
	if pcm.SampleRate <= 0 {
		return PCM{}, errors.New("rnnoise: no sample rate")
	}
	if len(pcm.Samples) == 0 {
		return PCM{SampleRate: pcm.SampleRate}, nil
	}
	in := pcm.Samples
	if pcm.SampleRate != rnnoiseRate {
		in = audio.Resample(in, pcm.SampleRate, rnnoiseRate)
	}
	out, err := r.run(ctx, in)
	if err != nil {
		return PCM{}, err
	}
	if pcm.SampleRate != rnnoiseRate {
		out = audio.Resample(out, rnnoiseRate, pcm.SampleRate)
	}
	// Resampling may round the length by a sample or two: make it exact.
	n := len(pcm.Samples)
	if len(out) > n {
		out = out[:n]
	}
	for len(out) < n {
		out = append(out, 0)
	}
	return PCM{Samples: out, SampleRate: pcm.SampleRate}, nil
}

// run denoises 48 kHz samples in a fresh module instance.
func (r *RNNoise) run(ctx context.Context, in []int16) ([]int16, error) {
	mod, err := r.runtime.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, fmt.Errorf("rnnoise: instantiate: %w", err)
	}
	defer mod.Close(context.WithoutCancel(ctx))
	call := func(name string, args ...uint64) (uint64, error) {
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil {
			return 0, err
		}
		if len(res) == 0 {
			return 0, nil
		}
		return res[0], nil
	}
	// Exports, as Emscripten minified them: d ctors, e malloc, h rnnoise_create(model),
	// i rnnoise_destroy, j rnnoise_process_frame(state, out, in).
	if _, err := call("d"); err != nil {
		return nil, fmt.Errorf("rnnoise: init: %w", err)
	}
	state, err := call("h", 0)
	if err != nil || state == 0 {
		return nil, fmt.Errorf("rnnoise: create: %v", err)
	}
	buf, err := call("e", 2*rnnoiseFrame*4)
	if err != nil || buf == 0 {
		return nil, fmt.Errorf("rnnoise: malloc: %v", err)
	}
	inPtr, outPtr := uint32(buf), uint32(buf)+rnnoiseFrame*4
	mem := mod.ExportedMemory("c")
	process := mod.ExportedFunction("j")

	// One extra frame in so that the delayed last samples come out.
	total := len(in) + rnnoiseFrame
	out := make([]int16, 0, total+rnnoiseFrame)
	frame := make([]float32, rnnoiseFrame)
	args := []uint64{state, uint64(outPtr), uint64(inPtr)}
	for start := 0; start < total; start += rnnoiseFrame {
		if start%(100*rnnoiseFrame) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for i := range frame {
			frame[i] = 0
			if k := start + i; k < len(in) {
				frame[i] = float32(in[k])
			}
		}
		for i, f := range frame {
			mem.WriteFloat32Le(inPtr+uint32(4*i), f)
		}
		if _, err := process.Call(ctx, args...); err != nil {
			return nil, fmt.Errorf("rnnoise: process: %w", err)
		}
		for i := range rnnoiseFrame {
			f, _ := mem.ReadFloat32Le(outPtr + uint32(4*i))
			out = append(out, clampInt16(f))
		}
	}
	// RNNoise delays its output by one frame.
	return out[rnnoiseFrame : rnnoiseFrame+len(in)], nil
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
