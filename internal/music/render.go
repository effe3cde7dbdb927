package music

import (
	"context"
	"math"
)

// Mastering targets: integrated loudness (EBU R128 / ITU-R BS.1770, as streaming services
// normalise) and the peak ceiling of the limiter.
const (
	TargetLUFS  = -14.0
	CeilingDBFS = -1.0
)

// Render plays the score on the soundfont and masters it, calling emit with each section's
// mono 16-bit PCM at SampleRate as soon as it is rendered, so that the song can be streamed.
// Exactly sc.Total samples are emitted, ending in a fade-out. The same score gives the same
// samples (the synthesizer starts each song from a reset state).
func Render(ctx context.Context, sc *Score, emit func([]int16) error) error {
	return RenderWith(ctx, SoundFont, sc, emit)
}

// RenderWith is Render with another soundfont.
func RenderWith(ctx context.Context, sf2 string, sc *Score, emit func([]int16) error) error {
	m := newMaster(sc)
	// The song's gain is set before anything is sent (songs stream): from a few seconds of its
	// loudest section, played ahead on a synthesizer of its own.
	if err := m.probe(ctx, sf2); err != nil {
		return err
	}
	s, err := getSynth(sf2)
	if err != nil {
		return err
	}
	defer putSynth(s)
	setup(s, sc)

	ev := 0
	var l, r []float32
	for i := 0; i+1 < len(sc.Bounds); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos, end := sc.Bounds[i], sc.Bounds[i+1]
		l, r = l[:0], r[:0]
		for pos < end {
			next := end
			if ev < len(sc.events) && sc.events[ev].at < end {
				next = max(sc.events[ev].at, pos)
			}
			l, r = s.render(l, r, next-pos)
			pos = next
			for ev < len(sc.events) && sc.events[ev].at <= pos && pos < end {
				e := sc.events[ev]
				if e.kind == evOn {
					s.noteOn(e.ch, e.key, e.vel)
				} else {
					s.noteOff(e.ch, e.key)
				}
				ev++
			}
		}
		if sc.Singer != nil && len(sc.sung) > 0 {
			if err := sc.Singer.mixVocals(ctx, sc, sc.Bounds[i], end, l, r); err != nil {
				return err
			}
		}
		out := m.process(i, l, r)
		if i+2 == len(sc.Bounds) {
			out = append(out, m.flush()...)
		}
		if len(out) > 0 {
			if err := emit(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// setup sets a synthesizer's instruments and mix for the score.
func setup(s *synth, sc *Score) {
	for ch, prog := range sc.programs {
		s.program(ch, prog)
	}
	for _, ch := range []int{leadChannel, chordChannel, bassChannel, padChannel, drumChannel} {
		s.cc(ch, 91, 40) // reverb send
		s.cc(ch, 10, pan(ch))
	}
	s.cc(leadChannel, 7, 110)
	s.cc(chordChannel, 7, 90)
	s.cc(bassChannel, 7, 105)
	s.cc(padChannel, 7, 70)
	s.cc(drumChannel, 7, 110)
}

func pan(ch int) int {
	switch ch {
	case leadChannel:
		return 58
	case chordChannel:
		return 44
	case padChannel:
		return 84
	}
	return 64
}

// master turns the synthesizer's stereo output into the delivered mono signal: one gain for the
// whole song (so the arrangement's dynamics are kept), set from the loudest section's measured
// loudness (see probe) and the planned energies of the others so that the song's integrated
// loudness lands on TargetLUFS; a fade-out over the end; and a look-ahead peak limiter at CeilingDBFS.
type master struct {
	sc      *Score
	gain    float64
	gainSet bool
	pos     int // samples processed
	fadeAt  int
	lim     *limiter
}

func newMaster(sc *Score) *master {
	fade := msToSamples(min(defaultFadeOutMs, sc.Total/(SampleRate/1000)/6))
	return &master{sc: sc, fadeAt: sc.Total - fade, lim: newLimiter(math.Pow(10, CeilingDBFS/20), SampleRate)}
}

// energyDB is how much louder (dB) a section of energy e plays than one of energy 1: note
// velocities scale as 0.45+0.55e, and the synthesizer's velocity curve is about quadratic.
// drumsDB is how much louder a section plays with drums than without (measured on the genres' kits).
const drumsDB = 6

func energyDB(e float64) float64 { return 40 * math.Log10(0.45+0.55*e) }

func (m *master) process(section int, l, r []float32) []int16 {
	mono := make([]float64, len(l))
	for i := range l {
		mono[i] = (float64(l[i]) + float64(r[i])) / 2
	}
	if !m.gainSet { // no probe (a silent song)
		m.gain = m.songGain(section, Loudness(mono, SampleRate))
		m.gainSet = true
	}
	for i := range mono {
		g := m.gain
		if at := m.pos + i; at >= m.fadeAt && m.sc.Total > m.fadeAt {
			x := float64(m.sc.Total-at) / float64(m.sc.Total-m.fadeAt)
			g *= x * x
		}
		if at := m.pos + i; at < 220 { // 5 ms fade-in: no click
			g *= float64(at) / 220
		}
		mono[i] *= g
	}
	m.pos += len(mono)
	return m.lim.process(mono)
}

func (m *master) flush() []int16 { return m.lim.flush() }

// probeSeconds is how much of the loudest section is played ahead to set the song's gain.
const probeSeconds = 4

// probe plays up to probeSeconds of the loudest planned section (energy, drums) on a synthesizer
// of its own and sets the song's gain from its loudness.
func (m *master) probe(ctx context.Context, sf2 string) error {
	sc := m.sc
	best, bestDB := 0, math.Inf(-1)
	for i, s := range sc.Params.Sections {
		db := energyDB(s.Energy)
		if s.Drums {
			db += drumsDB
		}
		if db > bestDB {
			best, bestDB = i, db
		}
	}
	from := sc.Bounds[best]
	to := min(sc.Bounds[best+1], from+probeSeconds*SampleRate)
	s, err := getSynth(sf2)
	if err != nil {
		return err
	}
	defer putSynth(s)
	setup(s, sc)
	var l, r []float32
	pos := from
	for _, e := range sc.events {
		if e.at < from || e.kind == evOff && e.at == from {
			continue
		}
		if e.at >= to {
			break
		}
		l, r = s.render(l, r, e.at-pos)
		pos = e.at
		if e.kind == evOn {
			s.noteOn(e.ch, e.key, e.vel)
		} else {
			s.noteOff(e.ch, e.key)
		}
	}
	l, r = s.render(l, r, to-pos)
	if err := ctx.Err(); err != nil {
		return err
	}
	mono := make([]float64, len(l))
	for i := range l {
		mono[i] = (float64(l[i]) + float64(r[i])) / 2
	}
	if lufs := Loudness(mono, SampleRate); !math.IsInf(lufs, -1) {
		m.gain, m.gainSet = m.songGain(best, lufs), true
	}
	return nil
}

// songGain predicts the song's integrated loudness from section first's measured loudness l0 and
// the sections' planned energies (power-averaged over their durations) and returns the gain that
// brings it to TargetLUFS.
func (m *master) songGain(first int, l0 float64) float64 {
	if math.IsInf(l0, -1) || math.IsNaN(l0) {
		return 1
	}
	secs := m.sc.Params.Sections
	e0 := energyDB(secs[first].Energy)
	var pow, dur float64
	for i, s := range secs {
		d := float64(m.sc.Bounds[i+1] - m.sc.Bounds[i])
		l := l0 + energyDB(s.Energy) - e0
		if !s.Drums && secs[first].Drums {
			l -= drumsDB
		} else if s.Drums && !secs[first].Drums {
			l += drumsDB
		}
		pow += d * math.Pow(10, l/10)
		dur += d
	}
	predicted := 10 * math.Log10(pow/dur)
	return math.Pow(10, (TargetLUFS-predicted)/20)
}

// limiter is a look-ahead peak limiter: the gain reaches what the loudest sample of the next
// few milliseconds needs before that sample arrives, then recovers slowly.
type limiter struct {
	ceiling float64
	look    int
	release float64
	gain    float64
	buf     []float64
}

func newLimiter(ceiling float64, rate int) *limiter {
	return &limiter{ceiling: ceiling, look: rate * 5 / 1000, release: math.Exp(-1 / (0.15 * float64(rate))), gain: 1}
}

func (l *limiter) process(in []float64) []int16 {
	l.buf = append(l.buf, in...)
	n := len(l.buf) - l.look
	if n <= 0 {
		return nil
	}
	return l.run(n)
}

func (l *limiter) flush() []int16 { return l.run(len(l.buf)) }

func (l *limiter) run(n int) []int16 {
	out := make([]int16, n)
	// peak over each sample's look-ahead window: a sliding maximum (monotonic deque), O(n).
	peaks := make([]float64, n)
	var dq []int
	for j := len(l.buf) - 1; j >= 0; j-- {
		a := math.Abs(l.buf[j])
		for len(dq) > 0 && math.Abs(l.buf[dq[len(dq)-1]]) <= a {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, j)
		for dq[0] > j+l.look {
			dq = dq[1:]
		}
		if j < n {
			peaks[j] = math.Abs(l.buf[dq[0]])
		}
	}
	for i := 0; i < n; i++ {
		peak := peaks[i]
		want := 1.0
		if peak > l.ceiling {
			want = l.ceiling / peak
		}
		if want < l.gain {
			// attack across the look-ahead, fast enough to be there in time
			l.gain += (want - l.gain) / float64(l.look/4+1)
			l.gain = min(l.gain, want*1.02)
		} else {
			l.gain = want + (l.gain-want)*l.release
		}
		x := l.buf[i] * l.gain
		x = max(min(x, l.ceiling), -l.ceiling)
		out[i] = int16(math.Round(x * 32767))
	}
	l.buf = append(l.buf[:0], l.buf[n:]...)
	return out
}
