package voiceprint

import "math"

// Merge combines prints of one speaker (several samples) into one, each weighted by its seconds
// of speech; nil prints are skipped and Merge of none is nil.
func Merge(prints []*Print) *Print {
	var total float64
	var n int
	for _, p := range prints {
		if p != nil {
			total += weight(p)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := &Print{}
	for _, p := range prints {
		if p == nil {
			continue
		}
		w := weight(p) / total
		out.F0Median += w * p.F0Median
		out.F0P10 += w * p.F0P10
		out.F0P90 += w * p.F0P90
		out.Rate += w * p.Rate
		for i := range out.Formants {
			out.Formants[i] += w * p.Formants[i]
		}
		out.Tilt += w * p.Tilt
		out.Centroid += w * p.Centroid
		if out.Embedding == nil {
			out.Embedding = make([]float64, len(p.Embedding))
		}
		if len(p.Embedding) == len(out.Embedding) {
			for i, v := range p.Embedding {
				out.Embedding[i] += w * v
			}
		}
		out.SpeechSeconds += p.SpeechSeconds
	}
	if out.F0P10 > 0 {
		out.F0Range = 12 * math.Log2(out.F0P90/out.F0P10)
	}
	out.Gender = guessGender(out)
	out.round()
	return out
}

// weight is a print's share of a merge: its speech seconds (1 s when it does not say).
func weight(p *Print) float64 {
	if p.SpeechSeconds > 0 {
		return p.SpeechSeconds
	}
	return 1
}
