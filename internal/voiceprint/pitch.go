package voiceprint

/*
#cgo pkg-config: aubio
#include <aubio/aubio.h>

// timbre_yin tracks the pitch of n samples (16-bit) with aubio's YIN ("yinfast": the same
// difference function as "yin", computed through the FFT), writing one estimate (Hz, 0 when
// unvoiced) and its confidence per hop of hop samples: one cgo call for the whole recording.
static int timbre_yin(const short *pcm, unsigned n, unsigned rate, unsigned buf, unsigned hop,
		float tolerance, float *f0, float *conf) {
	aubio_pitch_t *p = new_aubio_pitch("yinfast", buf, hop, rate);
	if (p == NULL)
		return -1;
	aubio_pitch_set_unit(p, "Hz");
	aubio_pitch_set_tolerance(p, tolerance);
	aubio_pitch_set_silence(p, -60);
	fvec_t *in = new_fvec(hop), *out = new_fvec(1);
	unsigned frames = n / hop;
	for (unsigned f = 0; f < frames; f++) {
		for (unsigned i = 0; i < hop; i++)
			in->data[i] = pcm[f * hop + i] / 32768.0f;
		aubio_pitch_do(p, in, out);
		f0[f] = out->data[0];
		conf[f] = aubio_pitch_get_confidence(p);
	}
	del_fvec(in);
	del_fvec(out);
	del_aubio_pitch(p);
	return 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"timbre/internal/listen"
)

// Pitch tracking: YIN over 64 ms windows (periods down to 32 Hz fit twice), one estimate per
// 10 ms hop, aligned with listen.Spectrogram's frames. An estimate counts as voiced when YIN's
// confidence (1 − the dip of its normalised difference function) reaches yinMinConfidence and
// the pitch lies in the range of human speech.
const (
	yinBuf           = 1024
	yinTolerance     = 0.15 // YIN's usual threshold
	yinMinConfidence = 0.8
	minF0, maxF0     = 55.0, 500.0
)

// trackPitch gives each listen.Spectrogram frame of samples (16 kHz) its pitch in Hz, 0 where
// unvoiced.
func trackPitch(samples []int16, frames int) ([]float64, error) {
	hop := listen.HopSamples
	n := len(samples) / hop
	if n == 0 || frames == 0 {
		return make([]float64, frames), nil
	}
	f0 := make([]float32, n)
	conf := make([]float32, n)
	if C.timbre_yin((*C.short)(unsafe.Pointer(&samples[0])), C.uint(len(samples)), C.uint(listen.Rate),
		yinBuf, C.uint(hop), yinTolerance, (*C.float)(unsafe.Pointer(&f0[0])), (*C.float)(unsafe.Pointer(&conf[0]))) != 0 {
		return nil, errors.New("voiceprint: cannot start aubio's pitch tracker")
	}
	// aubio's estimate after hop i covers the yinBuf samples ending at (i+1)·hop; spectrogram
	// frame f is centred at f·hop + WinSamples/2. Matching centres: i = f + lag.
	lag := int((float64(listen.WinSamples)/2+yinBuf/2)/float64(hop)+0.5) - 1
	out := make([]float64, frames)
	for f := range out {
		i := f + lag
		if i >= n {
			break
		}
		if hz := float64(f0[i]); conf[i] >= yinMinConfidence && hz >= minF0 && hz <= maxF0 {
			out[f] = hz
		}
	}
	return out, nil
}
