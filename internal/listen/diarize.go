package listen

import (
	"math"
	"slices"
)

// Diarization: speech segments (SpeechSegments) are cut into chunks of at most chunkMaxSec;
// each chunk's embedding is the mean and standard deviation of its MFCCs c1…c19 and the
// standard deviation of their deltas, over its frames within 30 dB of its loudest (silence
// says nothing of the speaker). Each coefficient is scaled by its typical spread in the
// recording (scaleByFrames), chunks are clustered by average-linkage agglomeration on the RMS
// distance of their embeddings — until no two clusters are
// closer than the threshold's cutoff and, when the caller gives NumSpeakers, at most that many
// remain (the API's num_speakers is a maximum); a cluster with less than minSpeakerSec of
// speech then joins its nearest (mergeSmall), and chunks too short to embed reliably take the
// speaker of the nearest cluster.
const (
	chunkMaxSec = 2.0
	chunkMinSec = 0.4 // shorter chunks are assigned after clustering
	// minSpeakerSec is the least speech (in clustered chunks) a speaker of its own must hold;
	// a smaller cluster joins its nearest one (see mergeSmall).
	minSpeakerSec = 1.5
	loudRangeDB   = 30
	// DefaultThreshold is ElevenLabs' default diarization_threshold.
	DefaultThreshold = 0.22
)

// cutoff maps diarization_threshold (0.1–0.4; higher means fewer speakers) onto the distance
// at which clusters stop merging. Calibrated on flite's four voices (8 Harvard sentences each):
// chunks of one voice are 0.27–0.35 apart on average, of two voices 0.45–0.60.
// The default sits between them; the API's range 0.1–0.4 spans 0.36–0.51, narrow because at
// 0.3 single voices already split and at 0.6 every voice merges.
func cutoff(threshold float64) float64 { return 0.42 + 0.5*(threshold-DefaultThreshold) }

// DiarizeOptions are the caller's choices.
type DiarizeOptions struct {
	NumSpeakers int     // the most speakers there may be; 0 = no limit
	Threshold   float64 // diarization_threshold; 0 = DefaultThreshold
}

// Turn is a stretch of speech by one speaker: speakers are numbered from 0 in order of their
// first turn.
type Turn struct {
	Segment
	Speaker int
}

// Diarize says who speaks when in samples (16 kHz mono); see the constants above.
func Diarize(samples []int16, opts DiarizeOptions) ([]Turn, error) {
	segs, err := SpeechSegments(samples)
	if err != nil || len(segs) == 0 {
		return nil, err
	}
	return diarizeSegments(samples, segs, opts), nil
}

func diarizeSegments(samples []int16, segs []Segment, opts DiarizeOptions) []Turn {
	chunks := splitChunks(segs)
	emb := make([][]float64, len(chunks))
	for i, c := range chunks {
		emb[i] = embed(samples, c)
	}
	var long []int // chunks embedded well enough to cluster
	for i, c := range chunks {
		if c.Duration() >= chunkMinSec && emb[i] != nil {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		long = []int{slices.IndexFunc(emb, func(e []float64) bool { return e != nil })}
		if long[0] < 0 {
			return []Turn{{Segment{segs[0].Start, segs[len(segs)-1].End}, 0}}
		}
	}
	scaleByFrames(emb)
	threshold := opts.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	vecs := make([][]float64, len(long))
	for i, c := range long {
		vecs[i] = emb[c]
	}
	labels := cluster(vecs, opts.NumSpeakers, cutoff(threshold))
	durs := make([]float64, len(long))
	for i, c := range long {
		durs[i] = chunks[c].Duration()
	}
	labels = mergeSmall(vecs, labels, durs, minSpeakerSec)
	centroids := centroidsOf(vecs, labels)

	turns := make([]Turn, len(chunks))
	for i, c := range chunks {
		turns[i].Segment = c
		turns[i].Speaker = -1
	}
	for i, c := range long {
		turns[c].Speaker = labels[i]
	}
	for i := range turns {
		if turns[i].Speaker >= 0 {
			continue
		}
		if emb[i] != nil {
			turns[i].Speaker = nearest(centroids, emb[i])
		} else {
			turns[i].Speaker = nearestInTime(turns, i)
		}
	}
	return renumber(turns)
}

// splitChunks cuts segments longer than chunkMaxSec into equal parts no longer than it.
func splitChunks(segs []Segment) []Segment {
	var out []Segment
	for _, s := range segs {
		n := int(math.Ceil(s.Duration() / chunkMaxSec))
		for i := range n {
			d := s.Duration() / float64(n)
			out = append(out, Segment{s.Start + float64(i)*d, s.Start + float64(i+1)*d})
		}
	}
	return out
}

// embed is a chunk's MFCC statistics, or nil when it has too few frames.
func embed(samples []int16, c Segment) []float64 {
	from, to := int(c.Start*Rate), min(int(c.End*Rate), len(samples))
	spec := spectrogram(samples[from:to])
	if len(spec) < 10 {
		return nil
	}
	ceps, db := mfcc(spec), frameDB(spec)
	loudest := slices.Max(db)
	var frames [][]float64
	for f, c := range ceps {
		if db[f] >= loudest-loudRangeDB {
			frames = append(frames, c[1:])
		}
	}
	if len(frames) < 10 {
		return nil
	}
	d := len(frames[0])
	mean, sd, dsd := make([]float64, d), make([]float64, d), make([]float64, d)
	for _, f := range frames {
		for j, v := range f {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(len(frames))
	}
	for i, f := range frames {
		for j, v := range f {
			sd[j] += (v - mean[j]) * (v - mean[j])
			if i > 0 {
				dv := v - frames[i-1][j]
				dsd[j] += dv * dv
			}
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(len(frames)))
		dsd[j] = math.Sqrt(dsd[j] / float64(len(frames)-1))
	}
	return slices.Concat(mean, sd, dsd)
}

// distance is the root-mean-square difference of two embeddings.
func distance(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}

// cluster is average-linkage agglomerative clustering: it merges the closest pair of clusters
// while more than k remain (k > 0) or the closest pair is no farther apart than maxDist.
// The result labels each vector with its cluster (0…).
func cluster(vecs [][]float64, k int, maxDist float64) []int {
	n := len(vecs)
	dist := make([][]float64, n)
	for i := range dist {
		dist[i] = make([]float64, n)
		for j := range i {
			dist[i][j] = distance(vecs[i], vecs[j])
			dist[j][i] = dist[i][j]
		}
	}
	members := make([][]int, n)
	for i := range members {
		members[i] = []int{i}
	}
	alive := n
	for alive > 1 {
		bi, bj, best := -1, -1, math.Inf(1)
		for i := range members {
			if members[i] == nil {
				continue
			}
			for j := i + 1; j < n; j++ {
				if members[j] != nil && dist[i][j] < best {
					bi, bj, best = i, j, dist[i][j]
				}
			}
		}
		if best > maxDist && (k <= 0 || alive <= k) {
			break
		}
		// Average linkage: the merged cluster's distance to another is the size-weighted mean.
		ni, nj := float64(len(members[bi])), float64(len(members[bj]))
		for x := range members {
			if members[x] != nil && x != bi && x != bj {
				d := (ni*dist[bi][x] + nj*dist[bj][x]) / (ni + nj)
				dist[bi][x], dist[x][bi] = d, d
			}
		}
		members[bi] = append(members[bi], members[bj]...)
		members[bj] = nil
		alive--
	}
	labels := make([]int, n)
	next := 0
	for _, m := range members {
		if m == nil {
			continue
		}
		for _, i := range m {
			labels[i] = next
		}
		next++
	}
	return labels
}

// mergeSmall folds every cluster holding less than minSec of speech into the cluster whose
// centroid is nearest to it, smallest first, until each remaining one holds at least minSec
// (or one is left). Two chunks of one sentence can lie as far apart as two voices do — their
// statistics rest on a second of speech each, on different sounds — so a speaker is only told
// apart on enough speech to be told apart on.
func mergeSmall(vecs [][]float64, labels []int, durs []float64, minSec float64) []int {
	for {
		centroids := centroidsOf(vecs, labels)
		k := len(centroids)
		if k < 2 {
			return labels
		}
		total := make([]float64, k)
		for i, l := range labels {
			total[l] += durs[i]
		}
		small := -1
		for c := range k {
			if total[c] < minSec && (small < 0 || total[c] < total[small]) {
				small = c
			}
		}
		if small < 0 {
			return labels
		}
		into, bd := -1, math.Inf(1)
		for c := range k {
			if d := distance(centroids[c], centroids[small]); c != small && d < bd {
				into, bd = c, d
			}
		}
		// Relabel 0…k-2: small becomes into, the labels above small move down by one.
		for i, l := range labels {
			if l == small {
				l = into
			}
			if l > small {
				l--
			}
			labels[i] = l
		}
	}
}

func centroidsOf(vecs [][]float64, labels []int) [][]float64 {
	k := slices.Max(labels) + 1
	out := make([][]float64, k)
	for i, v := range vecs {
		c := out[labels[i]]
		if c == nil {
			c = make([]float64, len(v))
			out[labels[i]] = c
		}
		for j, x := range v {
			c[j] += x
		}
	}
	counts := make([]int, k)
	for _, l := range labels {
		counts[l]++
	}
	for i, c := range out {
		for j := range c {
			c[j] /= float64(counts[i])
		}
	}
	return out
}

func nearest(centroids [][]float64, v []float64) int {
	best, bd := 0, math.Inf(1)
	for i, c := range centroids {
		if d := distance(c, v); d < bd {
			best, bd = i, d
		}
	}
	return best
}

// nearestInTime is the speaker of the labelled turn closest in time to turns[i].
func nearestInTime(turns []Turn, i int) int {
	best, bd := 0, math.Inf(1)
	for j, t := range turns {
		if t.Speaker < 0 || j == i {
			continue
		}
		if d := math.Abs((t.Start+t.End)/2 - (turns[i].Start+turns[i].End)/2); d < bd {
			best, bd = t.Speaker, d
		}
	}
	return best
}

// renumber names speakers 0, 1, … in order of their first turn and merges neighbouring turns
// of one speaker.
func renumber(turns []Turn) []Turn {
	ids := map[int]int{}
	var out []Turn
	for _, t := range turns {
		id, ok := ids[t.Speaker]
		if !ok {
			id = len(ids)
			ids[t.Speaker] = id
		}
		t.Speaker = id
		if n := len(out); n > 0 && out[n-1].Speaker == id && t.Start-out[n-1].End < 0.05 {
			out[n-1].End = t.End
			continue
		}
		out = append(out, t)
	}
	return out
}

// SpeakerAt is the speaker of the turn that overlaps [start, end) the most, else of the turn
// nearest to it; -1 when there are no turns.
func SpeakerAt(turns []Turn, start, end float64) int {
	best, overlap, gap := -1, 0.0, math.Inf(1)
	for _, t := range turns {
		if o := min(end, t.End) - max(start, t.Start); o > overlap {
			best, overlap = t.Speaker, o
		}
	}
	if best >= 0 {
		return best
	}
	for _, t := range turns {
		d := max(t.Start-end, start-t.End)
		if d < gap {
			best, gap = t.Speaker, d
		}
	}
	return best
}

// scaleByFrames divides every dimension of the embeddings (mean, sd, delta sd, each d wide)
// by the recording's typical frame-to-frame spread of that coefficient (the mean of the sd
// and delta-sd parts), so that no coefficient dominates and distances do not depend on how
// many speakers the recording holds.
func scaleByFrames(vecs [][]float64) {
	var n int
	var d int
	for _, v := range vecs {
		if v != nil {
			n, d = n+1, len(v)/3
		}
	}
	if n == 0 {
		return
	}
	sd, dsd := make([]float64, d), make([]float64, d)
	for _, v := range vecs {
		if v != nil {
			for j := range d {
				sd[j] += v[d+j] / float64(n)
				dsd[j] += v[2*d+j] / float64(n)
			}
		}
	}
	for _, v := range vecs {
		if v != nil {
			for j := range d {
				v[j] /= sd[j] + 1e-9
				v[d+j] /= sd[j] + 1e-9
				v[2*d+j] /= dsd[j] + 1e-9
			}
		}
	}
}
