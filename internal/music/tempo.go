package music

/*
#cgo pkg-config: aubio
#include <aubio/aubio.h>

static double timbre_tempo(const float *x, int n, int rate) {
	uint_t win = 1024, hop = 512;
	aubio_tempo_t *t = new_aubio_tempo("default", win, hop, rate);
	fvec_t *in = new_fvec(hop), *out = new_fvec(2);
	for (int i = 0; i + (int)hop <= n; i += hop) {
		for (uint_t j = 0; j < hop; j++) in->data[j] = x[i + j];
		aubio_tempo_do(t, in, out);
	}
	double bpm = aubio_tempo_get_bpm(t);
	del_fvec(in); del_fvec(out); del_aubio_tempo(t);
	return bpm;
}
*/
import "C"

import "unsafe"

// Tempo measures the tempo (beats per minute) of mono 16-bit samples with aubio's beat tracker:
// how the tests check that a song plays at its plan's tempo.
func Tempo(samples []int16, rate int) float64 {
	if len(samples) == 0 {
		return 0
	}
	x := make([]float32, len(samples))
	for i, v := range samples {
		x[i] = float32(v) / 32768
	}
	return float64(C.timbre_tempo((*C.float)(unsafe.Pointer(&x[0])), C.int(len(x)), C.int(rate)))
}
