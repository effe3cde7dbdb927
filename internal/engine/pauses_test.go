package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// speechLike appends seconds of a loud tone (as speech) or of faint noise (as a pause).
func speechLike(dst []int16, rate int, seconds float64, loud bool, rng *rand.Rand) []int16 {
	for i := range int(seconds * float64(rate)) {
		if loud {
			dst = append(dst, int16(8000*math.Sin(2*math.Pi*180*float64(i)/float64(rate))+rng.NormFloat64()*200))
		} else {
			dst = append(dst, int16(rng.NormFloat64()*30))
		}
	}
	return dst
}

func TestSplitPieces(t *testing.T) {
	const rate = 16000
	rng := rand.New(rand.NewPCG(1, 2))
	sec := func(s float64) int { return int(s * rate) }

	// Short audio stays whole.
	short := speechLike(nil, rate, 2, true, rng)
	short = speechLike(short, rate, 0.5, false, rng)
	short = speechLike(short, rate, 1, true, rng)
	p := splitPieces(short, rate)
	if len(p) != 1 || p[0].Start != 0 || p[0].End != len(short) {
		t.Fatalf("short audio: %v", p)
	}
	// Its pause is shortened to pauseKeepFrames on either side of the speech, the rest of it is
	// skipped, and positions in what the decoder hears map back across the skip.
	keep := float64(pauseKeepFrames) * frameSeconds
	if len(p[0].Skips) != 1 || math.Abs(float64(p[0].Skips[0].At-sec(2+keep))) > 0.02*rate ||
		math.Abs(float64(p[0].Skips[0].Len-sec(0.5-2*keep))) > 0.02*rate {
		t.Fatalf("skips of the short audio: %+v", p[0].Skips)
	}
	s := p[0].Skips[0]
	if heard := p[0].samples(short); len(heard) != len(short)-s.Len {
		t.Errorf("heard %d samples of %d with %d skipped", len(heard), len(short), s.Len)
	}
	if o := p[0].origin(sec(1), false); o != sec(1) {
		t.Errorf("before the skip: %d → %d", sec(1), o)
	}
	if o := p[0].origin(s.At, false); o != s.At+s.Len {
		t.Errorf("a start at the skip: %d → %d, want %d", s.At, o, s.At+s.Len)
	}
	if o := p[0].origin(s.At, true); o != s.At {
		t.Errorf("an end at the skip: %d → %d, want %d", s.At, o, s.At)
	}
	if o := p[0].origin(sec(3), false); o != sec(3)+s.Len {
		t.Errorf("after the skip: %d → %d", sec(3), o)
	}

	// 3 s phrases with 0.6 s pauses: cuts in pauses once a piece has 4 s, a brief 0.1 s gap
	// inside a phrase is no pause, and the long silence at the end is dropped.
	var a []int16
	var pauseMids []int
	for i := range 6 {
		a = speechLike(a, rate, 1.5, true, rng)
		a = speechLike(a, rate, 0.1, false, rng)
		a = speechLike(a, rate, 1.4, true, rng)
		start := len(a)
		a = speechLike(a, rate, 0.6, false, rng)
		if i < 5 {
			pauseMids = append(pauseMids, (start+len(a))/2)
		}
	}
	a = speechLike(a, rate, 8, false, rng) // a long silence with nothing in it
	pieces := splitPieces(a, rate)
	// A cut in a pause leaves pauseKeepFrames of it on either side of the speech, as within
	// pieces: the rest of the pause up to the cut is skipped.
	for i, p := range pieces {
		if i > 0 {
			if len(p.Skips) == 0 || p.Skips[0].At != p.Start || math.Abs(float64(p.Skips[0].At+p.Skips[0].Len-(p.Start+sec(0.3-keep)))) > 0.02*rate {
				t.Errorf("piece %d (%d–%d) does not start with %.2f s of its pause skipped: %+v", i, p.Start, p.End, 0.3-keep, p.Skips)
			}
		}
		if i < len(pieces)-1 {
			var last skip
			if len(p.Skips) > 0 {
				last = p.Skips[len(p.Skips)-1]
			}
			if last.At+last.Len != p.End || math.Abs(float64(last.At-(p.End-sec(0.3-keep)))) > 0.02*rate {
				t.Errorf("piece %d (%d–%d) does not end with %.2f s of its pause skipped: %+v", i, p.Start, p.End, 0.3-keep, p.Skips)
			}
		}
	}
	if len(pieces) < 3 {
		t.Fatalf("%d pieces, want at least 3: %v", len(pieces), pieces)
	}
	for i, p := range pieces {
		if i > 0 && p.Start != pieces[i-1].End {
			t.Errorf("piece %d starts at %d, not where %d ended (%d)", i, p.Start, i-1, pieces[i-1].End)
		}
		if i < len(pieces)-1 {
			if p.End-p.Start < sec(minPieceSeconds) {
				t.Errorf("piece %d is %.2f s, shorter than %g s", i, float64(p.End-p.Start)/rate, minPieceSeconds)
			}
			near := false
			for _, m := range pauseMids {
				near = near || math.Abs(float64(p.End-m)) < 0.05*rate
			}
			if !near {
				t.Errorf("piece %d ends at %.2f s, not in the middle of a pause", i, float64(p.End)/rate)
			}
		}
	}
	if last := pieces[len(pieces)-1]; last.End > len(a)-sec(7) {
		t.Errorf("the trailing silence was kept: the last piece ends at %.2f s of %.2f", float64(last.End)/rate, float64(len(a))/rate)
	}

	// Speech with no pause is cut by length.
	long := speechLike(nil, rate, 70, true, rng)
	pieces = splitPieces(long, rate)
	if len(pieces) < 3 {
		t.Fatalf("70 s without pauses: %v", pieces)
	}
	for _, p := range pieces {
		if p.End-p.Start > sec(maxPieceSeconds) {
			t.Errorf("piece of %.1f s, longer than %g s", float64(p.End-p.Start)/rate, maxPieceSeconds)
		}
	}

	// Digital silence has nothing to decode.
	if p := splitPieces(make([]int16, sec(3)), rate); len(p) != 0 {
		t.Errorf("silence: %v", p)
	}
}

// TestSplitPiecesInNoise: speech over steady noise has no energy contrast, so the WebRTC VAD
// finds the pauses: six sentences with 1 s pauses in white noise (8 dB below the speech) are
// cut into several pieces, none within 30 ms of clearly audible speech (no word is split;
// without the VAD the energy detector alone cut five words).
func TestSplitPiecesInNoise(t *testing.T) {
	clips := harvardSpeech(t, "rms", 0, 6)
	for i := range clips {
		clips[i] = toRecognitionRate(clips[i])
	}
	pcm := joinWithPauses(clips, 1.0)
	var power float64
	for _, s := range pcm.Samples {
		power += float64(s) * float64(s)
	}
	noiseRMS := math.Sqrt(power/float64(len(pcm.Samples))) * 0.4
	rng := rand.New(rand.NewPCG(3, 4))
	noisy := make([]int16, len(pcm.Samples))
	for i, s := range pcm.Samples {
		noisy[i] = int16(max(-32768, min(32767, float64(s)+rng.NormFloat64()*noiseRMS)))
	}
	pieces := splitPieces(noisy, RecognitionRate)
	if len(pieces) < 4 {
		t.Fatalf("noisy speech was not cut at its pauses: %v", pieces)
	}
	silentAround := func(at int) bool { // the clean speech is quiet within 30 ms of at
		for i := max(0, at-480); i < min(len(pcm.Samples), at+480); i++ {
			if math.Abs(float64(pcm.Samples[i])) > 1000 { // -30 dBFS: clearly audible speech
				return false
			}
		}
		return true
	}
	for _, p := range pieces {
		for _, at := range []int{p.Start, p.End} {
			if at > 0 && at < len(noisy) && !silentAround(at) {
				t.Errorf("a cut at %.2f s splits speech; pieces %v", float64(at)/RecognitionRate, pieces)
			}
		}
	}
}

// TestSplitPiecesFor: one decoder gets splitPieces' pieces; two share 42 s of sentences in two
// pieces of about half each, cut in pauses.
func TestSplitPiecesFor(t *testing.T) {
	const rate = 16000
	rng := rand.New(rand.NewPCG(5, 6))
	var a []int16
	for range 12 { // 12 sentences of 2.9 s, 0.6 s apart: 41.4 s
		a = speechLike(a, rate, 2.9, true, rng)
		a = speechLike(a, rate, 0.6, false, rng)
	}
	if one, plain := splitPiecesFor(a, rate, 1), splitPieces(a, rate); len(one) != len(plain) {
		t.Errorf("one decoder: %d pieces, splitPieces %d", len(one), len(plain))
	}
	two := splitPiecesFor(a, rate, 2)
	if len(two) != 2 {
		t.Fatalf("two decoders: %d pieces, want 2: %v", len(two), two)
	}
	first, second := float64(two[0].End-two[0].Start)/rate, float64(two[1].End-two[1].Start)/rate
	if math.Abs(first-second) > 4 {
		t.Errorf("two decoders: pieces of %.1f s and %.1f s, want about half each", first, second)
	}
	// Long audio still comes in pieces of at most maxPieceSeconds.
	var long []int16
	for range 60 {
		long = speechLike(long, rate, 2.9, true, rng)
		long = speechLike(long, rate, 0.6, false, rng)
	}
	for _, p := range splitPiecesFor(long, rate, 2) {
		if s := float64(p.End-p.Start) / rate; s > maxPieceSeconds {
			t.Errorf("a piece of %.1f s", s)
		}
	}
}
