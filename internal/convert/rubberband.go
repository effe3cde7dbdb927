package convert

/*
#cgo pkg-config: rubberband
#include <stdlib.h>
#include <rubberband/rubberband-c.h>

// rb_process feeds n samples of one mono channel (the C API takes an array of channel pointers).
static void rb_process(RubberBandState s, const float *in, unsigned int n, int final) {
	const float *chans[1] = { in };
	rubberband_process(s, chans, n, final);
}

static void rb_study(RubberBandState s, const float *in, unsigned int n, int final) {
	const float *chans[1] = { in };
	rubberband_study(s, chans, n, final);
}

static unsigned int rb_retrieve(RubberBandState s, float *out, unsigned int n) {
	float *chans[1] = { out };
	return rubberband_retrieve(s, chans, n);
}
*/
import "C"

import (
	"context"
	"errors"
	"unsafe"
)

const rbOptions = C.RubberBandOptionProcessOffline | C.RubberBandOptionEngineFiner |
	C.RubberBandOptionFormantPreserved | C.RubberBandOptionThreadingNever | C.RubberBandOptionPitchHighQuality

// block is how many samples go to the stretcher per call (and the most it is told to expect).
const block = 8192

// shift stretches samples' duration by timeRatio, their pitch by pitch and their spectral envelope
// (formants) by formant (1 = kept), with librubberband's offline R3 ("finer") engine, the one
// that can scale the envelope apart from the pitch.
func shift(ctx context.Context, in []float32, rate int, timeRatio, pitch, formant float64) ([]float32, error) {
	if len(in) == 0 {
		return nil, nil
	}
	opts := C.RubberBandOptions(rbOptions)
	st := C.rubberband_new(C.uint(rate), 1, opts, C.double(timeRatio), C.double(pitch))
	if st == nil {
		return nil, errors.New("rubberband: cannot create a stretcher")
	}
	defer C.rubberband_delete(st)
	C.rubberband_set_formant_scale(st, C.double(formant))
	C.rubberband_set_max_process_size(st, block)
	C.rubberband_set_expected_input_duration(st, C.uint(len(in)))

	// The samples are copied to C memory: cgo forbids keeping Go pointers, and one copy is cheap.
	cin := (*C.float)(C.malloc(C.size_t(len(in)) * 4))
	defer C.free(unsafe.Pointer(cin))
	copy(unsafe.Slice((*float32)(unsafe.Pointer(cin)), len(in)), in)
	cout := (*C.float)(C.malloc(block * 4))
	defer C.free(unsafe.Pointer(cout))
	outBuf := unsafe.Slice((*float32)(unsafe.Pointer(cout)), block)

	feed := func(fn func(C.RubberBandState, *C.float, C.uint, C.int)) {
		for off := 0; off < len(in); off += block {
			n := min(block, len(in)-off)
			final := 0
			if off+n == len(in) {
				final = 1
			}
			fn(st, (*C.float)(unsafe.Add(unsafe.Pointer(cin), off*4)), C.uint(n), C.int(final))
		}
	}
	feed(func(s C.RubberBandState, p *C.float, n C.uint, f C.int) { C.rb_study(s, p, n, f) })

	out := make([]float32, 0, len(in)+block)
	drain := func() {
		for {
			avail := int(C.rubberband_available(st))
			if avail <= 0 {
				return
			}
			got := int(C.rb_retrieve(st, cout, C.uint(min(avail, block))))
			out = append(out, outBuf[:got]...)
		}
	}
	var err error
	feed(func(s C.RubberBandState, p *C.float, n C.uint, f C.int) {
		if err != nil {
			return
		}
		if err = ctx.Err(); err != nil {
			return
		}
		C.rb_process(s, p, n, f)
		drain()
	})
	if err != nil {
		return nil, err
	}
	drain()
	return out, nil
}
