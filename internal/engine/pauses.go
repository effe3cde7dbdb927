package engine

import (
	"math"
	"slices"

	"timbre/internal/listen"
)

// A piece is a stretch of audio decoded as one utterance: samples [Start, End) but for the
// Skips, the middles of its pauses, which are left out of what the decoder hears.
type piece struct {
	Start, End int
	Skips      []skip // in order
}

// skip is a stretch of silence left out of a piece: samples [At, At+Len).
type skip struct{ At, Len int }

// samples is what the decoder hears of the piece.
func (p piece) samples(all []int16) []int16 {
	if len(p.Skips) == 0 {
		return all[p.Start:p.End]
	}
	out := make([]int16, 0, p.End-p.Start)
	from := p.Start
	for _, s := range p.Skips {
		out = append(out, all[from:s.At]...)
		from = s.At + s.Len
	}
	return append(out, all[from:p.End]...)
}

// origin maps a position in what the decoder heard (samples from the piece's start) back to the
// audio. A position where a skip was removed is placed before the skip when it ends a word
// (end) and after it when it starts one.
func (p piece) origin(heard int, end bool) int {
	pos := p.Start + heard
	for _, s := range p.Skips {
		if pos < s.At || (end && pos == s.At) {
			break
		}
		pos += s.Len
	}
	return pos
}

// Pause finding (splitPieces): the audio is measured in 10 ms frames; a frame is quiet when its
// energy is within pauseMarginDB of the recording's noise floor (its 10th-percentile frame) and
// a pause is at least pauseMinFrames quiet frames in a row. Long audio is cut in the middle of
// pauses into pieces of at least minPieceSeconds, so several decoders can share it and each
// piece's words are whole. A piece that reaches maxPieceSeconds without a pause is cut at its
// quietest frame in the last few seconds. Silences of longPauseFrames or more (and the one that
// ends the audio) are cut out whatever the pieces' lengths, the pieces around them ending and
// starting longPauseKeep into them (of which the decoder hears pauseKeepFrames); pieces with
// no frame above the quiet level are dropped: there is nothing in them to hear, and decoding
// them would cost time (and invite made-up words).
//
// Every pause is shortened to pauseKeepFrames of silence on either side of the speech, within
// pieces and at their edges alike (a piece cut in a pause hears only pauseKeepFrames of it), and
// origin maps the words' times back. The silence the decoder hears is what made it slower than
// the pocketsphinx_batch command, whose own voice activity detector (off here, as it loses the
// words' times) drops most of each pause: in silence any word may start, and the decoder scores
// more senones per frame there than on speech. On BenchmarkPocketsphinxTranscribe's audio
// (36.3 s), keeping 150 ms on either side of the speech and 300 ms at the pieces' edges, the
// decoder heard 34.5 s against the command's 32.2 s and ran 7.9 % more instructions (callgrind,
// decoding only); keeping 50 ms it hears 30.8 s and runs 2.3 % more, with the same word error
// rates (TestPocketsphinxWERNotWorseThanCommand: 24.69 % against the command's 25.00 %, as
// before; TestPocketsphinxLongAudio 18.8 %, as before).
//
// The energy detector suits clean recordings such as synthesized speech or dictation; at
// RecognitionRate WebRTC's voice activity detector (listen.VoiceFrames) keeps it from cutting
// into words in noisy audio (see quiet below). Audio with no contrast at all (speech under
// loud steady noise) is cut only by length, which costs speed, not accuracy: the VAD, tried
// there, took held tones for long pauses and heard speech throughout noise at 0 dB.
const (
	frameSeconds    = 0.01
	pauseMarginDB   = 12
	pauseMinFrames  = 25  // 250 ms
	longPauseFrames = 150 // 1.5 s
	longPauseKeep   = 20  // 200 ms
	pauseKeepFrames = 5   // 50 ms
	minPieceSeconds = 4.0
	maxPieceSeconds = 30.0
	forcedCutWindow = 5.0 // seconds before maxPieceSeconds searched for the quietest frame
	silentDB        = 20  // frame energy (dB over 1 unit²) below which audio is silent: an RMS of 10 of 32768
)

// splitPieces cuts samples (at rate Hz) into pieces at pauses; see the constants above.
func splitPieces(samples []int16, rate int) []piece {
	return splitPiecesAtLeast(samples, rate, minPieceSeconds)
}

// splitPiecesFor cuts samples into pieces for a transcription by workers decoders. One decoder
// takes the pieces splitPieces makes. Several share the audio in pieces as long as it allows,
// about one each (within the bounds below), so that they finish together: a decoder left alone
// with the last short piece while the other idles costs more than the pieces' set-ups save.
// Measured on 42 s of Harvard sentences with two decoders (four interleaved rounds each, wall
// time): two pieces of about 20 s took 12 % less time than splitPieces' six; with one decoder,
// longer pieces were 6 % slower, so it keeps splitPieces'.
func splitPiecesFor(samples []int16, rate, workers int) []piece {
	if workers <= 1 {
		return splitPieces(samples, rate)
	}
	share := float64(len(samples)) / float64(rate) / float64(workers)
	return splitPiecesAtLeast(samples, rate, min(max(0.9*share, minPieceSeconds), maxPieceSeconds-forcedCutWindow))
}

// splitPiecesAtLeast is splitPieces whose pieces, but for the last, are at least minSeconds long
// (unless a long pause ends them).
func splitPiecesAtLeast(samples []int16, rate int, minSeconds float64) []piece {
	frame := int(float64(rate) * frameSeconds)
	if frame <= 0 || len(samples) < frame {
		return []piece{{Start: 0, End: len(samples)}}
	}
	n := len(samples) / frame
	energy := make([]float64, n) // dB
	for i := range n {
		var sum float64
		for _, s := range samples[i*frame : (i+1)*frame] {
			sum += float64(s) * float64(s)
		}
		energy[i] = 10 * math.Log10(sum/float64(frame)+1)
	}
	sorted := slices.Clone(energy)
	slices.Sort(sorted)
	floor, loud := sorted[n/10], sorted[n*95/100]
	if loud < silentDB {
		return nil
	}
	quietLevel := floor + pauseMarginDB
	// WebRTC's VAD (at its rate) vetoes energy pauses that hold speech: frames in the upper
	// three quarters of the quiet range that it takes for speech are the weak starts and ends
	// of words, sunk below the quiet level because noise lifted the floor. Should the VAD fail,
	// energy alone decides, as before.
	var voice []bool
	if rate == listen.Rate {
		voice, _ = listen.VoiceFrames(samples)
	}
	vetoLevel := floor + pauseMarginDB/4
	quiet := func(i int) bool {
		if energy[i] > quietLevel {
			return false
		}
		return energy[i] <= vetoLevel || len(voice) == 0 || !voice[min(i*frame/listen.VADFrame, len(voice)-1)]
	}
	if loud-floor < pauseMarginDB { // no contrast: sound throughout; cut only by length, keep all
		quiet = func(int) bool { return false }
	}

	minFrames, maxFrames := int(minSeconds/frameSeconds), int(maxPieceSeconds/frameSeconds)
	var cuts []int // frame indexes where a new piece begins
	start := 0
	for i := 0; i < n; {
		if !quiet(i) {
			i++
			if i-start >= maxFrames { // no pause in time: cut at the quietest recent frame
				lo := max(start+1, i-int(forcedCutWindow/frameSeconds))
				cut := lo
				for j := lo; j < i; j++ {
					if energy[j] < energy[cut] {
						cut = j
					}
				}
				cuts, start = append(cuts, cut), cut
			}
			continue
		}
		j := i
		for j < n && quiet(j) {
			j++
		}
		switch mid := (i + j) / 2; {
		case j-i >= longPauseFrames || (j == n && j-i >= pauseMinFrames):
			// A long silence (or the one that ends the audio) becomes a piece of its own, with
			// a little of it left on the pieces around it; splitPieces then drops it.
			if i > 0 && i+longPauseKeep > start {
				cuts, start = append(cuts, i+longPauseKeep), i+longPauseKeep
			}
			if j < n {
				cuts, start = append(cuts, j-longPauseKeep), j-longPauseKeep
			}
		case j-i >= pauseMinFrames && j < n && mid-start >= minFrames:
			cuts, start = append(cuts, mid), mid
		}
		i = j
	}

	var out []piece
	prev := 0
	for _, c := range append(cuts, n) {
		end := c * frame
		if c == n {
			end = len(samples)
		}
		p := piece{Start: prev * frame, End: end}
		prev = c
		if hasSound(quiet, p.Start/frame, min((p.End+frame-1)/frame, n)) {
			out = append(out, p)
		}
	}

	// The middles of the pauses, each given to the piece it falls in.
	for i := 0; i < n; {
		if !quiet(i) {
			i++
			continue
		}
		j := i
		for j < n && quiet(j) {
			j++
		}
		if from, to := i+pauseKeepFrames, j-pauseKeepFrames; to > from && j-i >= pauseMinFrames {
			for k := range out {
				p := &out[k]
				at, end := max(from*frame, p.Start), min(to*frame, p.End)
				if end > at {
					p.Skips = append(p.Skips, skip{At: at, Len: end - at})
				}
			}
		}
		i = j
	}
	return out
}

func hasSound(quiet func(int) bool, from, to int) bool {
	for i := from; i < to; i++ {
		if !quiet(i) {
			return true
		}
	}
	return false
}
