package engine

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary double as the pool's worker executable.
func TestMain(m *testing.M) {
	MaybeRunWorker()
	code := m.Run()
	if testPool != nil {
		testPool.Close()
	}
	if testSphinx != nil {
		testSphinx.Close()
	}
	os.Exit(code)
}

var (
	testPoolOnce sync.Once
	testPool     *Pool
	testPoolErr  error
)

// sharedEspeakPool is one pool (a worker per CPU) for all tests and benchmarks.
func sharedEspeakPool(tb testing.TB) *Pool {
	tb.Helper()
	testPoolOnce.Do(func() { testPool, testPoolErr = NewEspeakPool(0) })
	if testPoolErr != nil {
		tb.Fatal(testPoolErr)
	}
	return testPool
}

// speechCase is a sentence, the words a synthesizer must mark in it, and the plausible length of
// its audio.
type speechCase struct {
	req              Request
	words            []string
	minSecs, maxSecs float64
}

var englishCases = []speechCase{
	{Request{Text: "Hello world, this is a test."}, []string{"Hello", "world", "this", "is", "a", "test"}, 1, 4},
	{Request{Text: "In 1990, Dr. Smith paid $45 — really?!"}, []string{"In", "1990", "Dr", "Smith", "paid", "45", "really"}, 2, 7},
	{Request{Text: "  “Quoted” words, and a second sentence. Then a third one!  "}, []string{"Quoted", "words", "and", "a", "second", "sentence", "Then", "a", "third", "one"}, 2, 7},
}

// checkSpeech synthesizes c with s and checks the audio and the word marks.
func checkSpeech(t *testing.T, s Synthesizer, c speechCase) *Result {
	t.Helper()
	res, err := s.Synthesize(context.Background(), c.req)
	if err != nil {
		t.Fatalf("%s %q: %v", s.Name(), c.req.Text, err)
	}
	checkResult(t, c, res)
	return res
}

func checkResult(t *testing.T, c speechCase, res *Result) {
	t.Helper()
	secs := res.Audio.Seconds()
	if res.Audio.SampleRate < 8000 || secs < c.minSecs || secs > c.maxSecs {
		t.Errorf("%q: %.2f s at %d Hz, want %.1f–%.1f s", c.req.Text, secs, res.Audio.SampleRate, c.minSecs, c.maxSecs)
	}
	if db := rmsDBFS(res.Audio.Samples); db < -35 {
		t.Errorf("%q: loudness %.1f dBFS, too quiet for speech", c.req.Text, db)
	}
	var got []string
	for i, w := range res.Words {
		if w.Offset < 0 || w.Length <= 0 || w.Offset+w.Length > len(c.req.Text) {
			t.Fatalf("%q: word %d has bad span %+v", c.req.Text, i, w)
		}
		got = append(got, c.req.Text[w.Offset:w.Offset+w.Length])
		if w.Start < 0 || w.End < w.Start || w.End > secs+1e-9 {
			t.Errorf("%q: word %q at %.3f–%.3f s, audio is %.3f s", c.req.Text, got[i], w.Start, w.End, secs)
		}
		if i > 0 {
			p := res.Words[i-1]
			if w.Offset < p.Offset+p.Length || w.Start < p.End-1e-9 {
				t.Errorf("%q: word %q (%.3f s) does not follow %q (ends %.3f s)", c.req.Text, got[i], w.Start, got[i-1], p.End)
			}
		}
	}
	if !slices.Equal(got, c.words) {
		t.Errorf("%q: marked words %q, want %q", c.req.Text, got, c.words)
	}
	if n := len(res.Words); n > 0 {
		// The marks should cover the speech: no long unmarked audio at either end.
		if res.Words[0].Start > 0.6 || secs-res.Words[n-1].End > 0.8 {
			t.Errorf("%q: words span %.2f–%.2f s of %.2f s", c.req.Text, res.Words[0].Start, res.Words[n-1].End, secs)
		}
	}
}

// checkConcurrent synthesizes from 8 goroutines at once and checks every result.
func checkConcurrent(t *testing.T, s Synthesizer, voice string) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				c := englishCases[(g+i)%len(englishCases)]
				c.req.Voice = voice
				res, err := s.Synthesize(context.Background(), c.req)
				if err != nil {
					t.Error(err)
					return
				}
				checkResult(t, c, res)
			}
		}()
	}
	wg.Wait()
}

func checkUnknownVoice(t *testing.T, s Synthesizer, reqs ...Request) {
	t.Helper()
	for _, r := range reqs {
		if r.Text == "" {
			r.Text = "Hello."
		}
		_, err := s.Synthesize(context.Background(), r)
		if !errors.Is(err, ErrUnknownVoice) {
			t.Errorf("%s voice %q language %q: err = %v, want ErrUnknownVoice", s.Name(), r.Voice, r.Language, err)
		}
	}
}

// checkProsody checks that rate changes the length and pitch changes the pitch.
func checkProsody(t *testing.T, s Synthesizer, voice string) {
	t.Helper()
	text := "The quick brown fox jumps over the lazy dog."
	synth := func(p Prosody) *Result {
		res, err := s.Synthesize(context.Background(), Request{Text: text, Voice: voice, Prosody: p})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	normal := synth(Prosody{Rate: 1, Pitch: 50, PitchRange: 50})
	fast := synth(Prosody{Rate: 2, Pitch: 50, PitchRange: 50})
	high := synth(Prosody{Rate: 1, Pitch: 100, PitchRange: 50})
	if r := fast.Audio.Seconds() / normal.Audio.Seconds(); r < 0.4 || r > 0.7 {
		t.Errorf("rate 2: %.2f of the normal length, want about half", r)
	}
	f0, f0High := medianF0(normal.Audio), medianF0(high.Audio)
	if f0 < 60 || f0 > 300 || f0High < f0*1.2 {
		t.Errorf("median F0 %.0f Hz normally, %.0f Hz at pitch 100; want higher", f0, f0High)
	}
}

func rmsDBFS(samples []int16) float64 {
	var sum float64
	for _, s := range samples {
		sum += float64(s) * float64(s)
	}
	return 20 * math.Log10(math.Sqrt(sum/float64(max(len(samples), 1)))/32768+1e-12)
}

// medianF0 estimates the median pitch of the loud frames by autocorrelation.
func medianF0(p PCM) float64 {
	frame := p.SampleRate * 40 / 1000
	var f0s []float64
	for off := 0; off+frame <= len(p.Samples); off += frame / 2 {
		x := p.Samples[off : off+frame]
		if rmsDBFS(x) < -36 {
			continue
		}
		best, bestLag := 0.0, 0
		for lag := p.SampleRate / 400; lag <= p.SampleRate/60; lag++ {
			var c, e1, e2 float64
			for i := 0; i+lag < frame; i++ {
				a, b := float64(x[i]), float64(x[i+lag])
				c, e1, e2 = c+a*b, e1+a*a, e2+b*b
			}
			if c /= math.Sqrt(e1*e2) + 1; c > best {
				best, bestLag = c, lag
			}
		}
		if best > 0.6 {
			f0s = append(f0s, float64(p.SampleRate)/float64(bestLag))
		}
	}
	if len(f0s) == 0 {
		return 0
	}
	slices.Sort(f0s)
	return f0s[len(f0s)/2]
}

// benchSynth reports the speed of s as seconds of audio per second of wall time.
func benchSynth(b *testing.B, s Synthesizer, req Request, parallel bool) {
	if _, err := s.Synthesize(context.Background(), req); err != nil { // warm up, fail fast
		b.Fatal(err)
	}
	var mu sync.Mutex
	var audio float64
	one := func() {
		res, err := s.Synthesize(context.Background(), req)
		if err != nil {
			b.Error(err)
			return
		}
		mu.Lock()
		audio += res.Audio.Seconds()
		mu.Unlock()
	}
	start := time.Now()
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				one()
			}
		})
	} else {
		for b.Loop() {
			one()
		}
	}
	b.ReportMetric(audio/time.Since(start).Seconds(), "audio-s/s")
}

const benchText = "The quick brown fox jumps over the lazy dog, and then it runs back into the forest to rest."

func TestSplitWords(t *testing.T) {
	text := " “Hello,” she said—twice... 3:30pm; e.g. ¿qué? -- ok "
	var got []string
	for _, s := range splitWords(text) {
		got = append(got, text[s.Start:s.End])
	}
	want := []string{"Hello", "she", "said", "twice", "3:30pm", "e.g", "qué", "ok"}
	if !slices.Equal(got, want) {
		t.Errorf("splitWords = %q, want %q", got, want)
	}
}

func TestTrimSilence(t *testing.T) {
	p := PCM{Samples: make([]int16, 1000), SampleRate: 1000}
	for i := 300; i < 600; i++ {
		p.Samples[i] = 5000
	}
	start, end := trimSilence(p, 0.1, 0.9)
	if math.Abs(start-0.3) > 0.006 || math.Abs(end-0.6) > 0.006 {
		t.Errorf("trimSilence = %.3f, %.3f, want 0.3, 0.6", start, end)
	}
	if s, e := trimSilence(p, 0.7, 0.9); s != 0.7 || e != 0.9 {
		t.Errorf("silent word moved to %.3f, %.3f", s, e)
	}
}

func TestProsodyDefaults(t *testing.T) {
	if got := (Prosody{}).normalized(); got != (Prosody{Rate: 1, Pitch: 50, PitchRange: 50}) {
		t.Errorf("zero prosody = %+v", got)
	}
	if got := (Prosody{Pitch: 120, PitchRange: 0}).normalized(); got != (Prosody{Rate: 1, Pitch: 100}) {
		t.Errorf("normalized = %+v", got)
	}
}
