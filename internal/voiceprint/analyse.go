package voiceprint

import (
	"cmp"
	"math"
	"slices"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/listen"
)

// MinSpeechSeconds is the least speech (by the voice activity detector) a sample must hold.
const MinSpeechSeconds = 1.0

// Error codes of Analyse (kind errs.Invalid): callers name their upload field in the 422.
const (
	CodeNoSpeech        = "no_speech"
	CodeTooLittleSpeech = "too_little_speech"
)

// Frame selection: a voiced frame lies in a speech segment, has a YIN pitch and is within
// voicedRangeDB of the loudest speech frame (breath and reverberation tails say little).
const (
	voicedRangeDB  = 35
	minVoicedFrame = 30 // 0.3 s of voiced frames, below which a "speaker" is noise
)

// frameCentre is the time (s) at the centre of listen.Spectrogram's frame f.
func frameCentre(f int) float64 {
	return (float64(f*listen.HopSamples) + float64(listen.WinSamples)/2) / listen.Rate
}

// chunkSeconds bounds the audio analysed at once: a longer recording is analysed in chunks of
// this length whose prints are merged, so memory stays flat (the spectrogram of a minute of
// audio is about 12 MB).
const chunkSeconds = 60

// Analyse describes the speaker of pcm. It fails with errs.Invalid (CodeNoSpeech,
// CodeTooLittleSpeech) when the audio holds no voiced speech or less than MinSpeechSeconds.
func Analyse(pcm engine.PCM) (*Print, error) {
	if pcm.SampleRate <= 0 || pcm.Seconds() < MinSpeechSeconds {
		return nil, tooLittle(pcm.Seconds())
	}
	s := pcm.Samples
	if pcm.SampleRate != listen.Rate {
		s = audio.Resample(s, pcm.SampleRate, listen.Rate)
	}
	const chunk = chunkSeconds * listen.Rate
	if len(s) <= chunk+chunk/2 {
		return analyse(s)
	}
	var prints []*Print
	var firstErr error
	for from := 0; from < len(s); from += chunk {
		to := min(from+chunk, len(s))
		if len(s)-to < chunk/2 {
			to = len(s) // no short tail chunk: the last one takes it
		}
		p, err := analyse(s[from:to])
		switch {
		case err == nil:
			prints = append(prints, p)
		case errs.Is(err, errs.Invalid): // a chunk of silence or music between speech
			firstErr = cmp.Or(firstErr, err)
		default:
			return nil, err
		}
		from = to - chunk
	}
	if len(prints) == 0 {
		return nil, firstErr
	}
	return Merge(prints), nil
}

// analyse describes the speaker of at most a few minutes of 16 kHz audio.
func analyse(s []int16) (*Print, error) {
	segs, err := listen.SpeechSegments(s)
	if err != nil {
		return nil, err
	}
	var speech float64
	for _, g := range segs {
		speech += g.Duration()
	}
	if speech == 0 {
		return nil, errs.New(errs.Invalid, CodeNoSpeech, "the audio contains no speech")
	}
	spec := listen.Spectrogram(s)
	f0, err := trackPitch(s, len(spec))
	if err != nil {
		return nil, err
	}
	db := listen.FrameDB(spec)
	inSpeech := make([]bool, len(spec))
	loudest := math.Inf(-1)
	for f := range spec {
		t := frameCentre(f)
		for _, g := range segs {
			if t >= g.Start && t < g.End {
				inSpeech[f] = true
				loudest = max(loudest, db[f])
				break
			}
		}
	}
	var voiced []int
	for f := range spec {
		if inSpeech[f] && f0[f] > 0 && db[f] >= loudest-voicedRangeDB {
			voiced = append(voiced, f)
		}
	}
	if len(voiced) < minVoicedFrame {
		return nil, errs.New(errs.Invalid, CodeNoSpeech, "the audio contains no voiced speech (only silence or noise)")
	}
	if speech < MinSpeechSeconds {
		return nil, tooLittle(speech)
	}

	p := &Print{SpeechSeconds: round(speech, 3)}
	pitches := make([]float64, len(voiced))
	for i, f := range voiced {
		pitches[i] = f0[f]
	}
	slices.Sort(pitches)
	p.F0Median = percentile(pitches, 0.5)
	p.F0P10 = percentile(pitches, 0.1)
	p.F0P90 = percentile(pitches, 0.9)
	p.F0Range = 12 * math.Log2(p.F0P90/p.F0P10)
	p.Rate = syllableRate(spec, f0, inSpeech, speech)
	if p.Rate == 0 {
		return nil, errs.New(errs.Invalid, CodeNoSpeech, "the audio holds no syllables (a sustained tone or vowel, not speech)")
	}
	p.Formants = meanFormants(s, voiced, f0)
	ltas := longTermSpectrum(spec, voiced)
	p.Tilt = tilt(ltas)
	p.Centroid = centroid(ltas)
	p.Embedding = embedding(spec, voiced, p)
	p.Gender = guessGender(p)
	p.round()
	return p, nil
}

func tooLittle(seconds float64) error {
	return errs.Errorf(errs.Invalid, CodeTooLittleSpeech,
		"the audio holds %.2f s of speech; at least %g s of speech is needed", seconds, MinSpeechSeconds)
}

// percentile of sorted values (nearest rank with linear interpolation).
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	x := q * float64(len(sorted)-1)
	i := int(x)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}

// Syllable nuclei (after de Jong & Wempe's Praat script): peaks of the 300–3000 Hz band energy,
// smoothed over 30 ms, that are voiced, louder than the recording's median speech frame, and
// separated from the previous nucleus by a dip of at least nucleusDipDB. Only speech frames
// count, and the rate is over the speech segments' duration, so pauses do not lower it.
const (
	nucleusLoHz, nucleusHiHz = 300.0, 3000.0
	nucleusSmooth            = 3 // frames
	nucleusDipDB             = 2.0
)

func syllableRate(spec [][]float64, f0 []float64, inSpeech []bool, speech float64) float64 {
	binHz := float64(listen.Rate) / listen.FFTSize
	lo, hi := int(nucleusLoHz/binHz), int(nucleusHiHz/binHz)
	band := make([]float64, len(spec))
	for f, p := range spec {
		var e float64
		for _, v := range p[lo : hi+1] {
			e += v
		}
		band[f] = 10 * math.Log10(e+1e-12)
	}
	sm := make([]float64, len(band))
	for f := range band {
		var s float64
		n := 0
		for j := max(0, f-nucleusSmooth/2); j <= min(len(band)-1, f+nucleusSmooth/2); j++ {
			s += band[j]
			n++
		}
		sm[f] = s / float64(n)
	}
	var speechDB []float64
	for f, ok := range inSpeech {
		if ok {
			speechDB = append(speechDB, sm[f])
		}
	}
	slices.Sort(speechDB)
	floor := percentile(speechDB, 0.5)

	voicedNear := func(f int) bool {
		for j := max(0, f-2); j <= min(len(f0)-1, f+2); j++ {
			if f0[j] > 0 {
				return true
			}
		}
		return false
	}
	var peaks []int
	for f := 1; f < len(sm)-1; f++ {
		if !inSpeech[f] || sm[f] < floor || sm[f] < sm[f-1] || sm[f] <= sm[f+1] || !voicedNear(f) {
			continue
		}
		if n := len(peaks); n > 0 {
			last := peaks[n-1]
			dip := slices.Min(sm[last : f+1])
			if min(sm[last], sm[f])-dip < nucleusDipDB {
				if sm[f] > sm[last] {
					peaks[n-1] = f // one nucleus: keep its loudest point
				}
				continue
			}
		}
		peaks = append(peaks, f)
	}
	return float64(len(peaks)) / speech
}

// meanFormants is the trimmed mean (the middle 80 %) of F1–F3 over the voiced frames that show
// three formants.
func meanFormants(s []int16, voiced []int, f0 []float64) [3]float64 {
	r := audio.Resample(s, listen.Rate, lpcRate)
	x := make([]float64, len(r))
	for i, v := range r {
		x[i] = float64(v) / 32768
	}
	var per [3][]float64
	for _, f := range voiced {
		fm, ok := frameFormants(x, int(math.Round(frameCentre(f)*lpcRate)), f0[f])
		if !ok {
			continue
		}
		for i := range per {
			per[i] = append(per[i], fm[i])
		}
	}
	var out [3]float64
	for i, v := range per {
		out[i] = trimmedMean(v, 0.1)
	}
	return out
}

func trimmedMean(v []float64, cut float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	k := int(float64(len(v)) * cut)
	v = v[k : len(v)-k]
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// longTermSpectrum is the mean power spectrum of the voiced frames.
func longTermSpectrum(spec [][]float64, voiced []int) []float64 {
	out := make([]float64, len(spec[0]))
	for _, f := range voiced {
		for k, v := range spec[f] {
			out[k] += v
		}
	}
	for k := range out {
		out[k] /= float64(len(voiced))
	}
	return out
}

// tilt is the slope (dB per octave) of a line fitted to the long-term spectrum's third-octave
// band levels from 125 Hz to 6.3 kHz: steeper (more negative) is darker.
func tilt(ltas []float64) float64 {
	binHz := float64(listen.Rate) / listen.FFTSize
	var xs, ys []float64
	for i := 0; i <= 17; i++ {
		c := 125 * math.Exp2(float64(i)/3)
		lo, hi := int(math.Ceil(c*math.Exp2(-1.0/6)/binHz)), int(c*math.Exp2(1.0/6)/binHz)
		var e float64
		for k := lo; k <= hi && k < len(ltas); k++ {
			e += ltas[k]
		}
		if e <= 0 {
			continue
		}
		xs = append(xs, math.Log2(c))
		ys = append(ys, 10*math.Log10(e))
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// centroid is the long-term spectrum's centre of mass in Hz.
func centroid(ltas []float64) float64 {
	binHz := float64(listen.Rate) / listen.FFTSize
	var num, den float64
	for k, v := range ltas {
		num += float64(k) * binHz * v
		den += v
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// guessGender says "male" or "female" from the median pitch and the second formant.
// Between genderLowF0 and genderHighF0 (where low women's and high men's voices meet) a second
// formant above genderF2 (a shorter vocal tract) says female.
const (
	genderLowF0, genderHighF0 = 140.0, 175.0
	genderF2                  = 1750.0
)

func guessGender(p *Print) string {
	switch {
	case p.F0Median < genderLowF0:
		return "male"
	case p.F0Median >= genderHighF0:
		return "female"
	case p.Formants[1] >= genderF2:
		return "female"
	}
	return "male"
}

func (p *Print) round() {
	p.F0Median, p.F0P10, p.F0P90 = round(p.F0Median, 2), round(p.F0P10, 2), round(p.F0P90, 2)
	p.F0Range, p.Rate = round(p.F0Range, 3), round(p.Rate, 3)
	for i := range p.Formants {
		p.Formants[i] = round(p.Formants[i], 1)
	}
	p.Tilt, p.Centroid = round(p.Tilt, 3), round(p.Centroid, 1)
	for i := range p.Embedding {
		p.Embedding[i] = round(p.Embedding[i], 4)
	}
}

func round(x float64, digits int) float64 {
	m := math.Pow(10, float64(digits))
	return math.Round(x*m) / m
}
