package music

import (
	"context"
	"math"
	"slices"
	"testing"
)

func render(t testing.TB, p *Plan, seed uint64) []int16 {
	t.Helper()
	var out []int16
	err := Render(context.Background(), Compose(Derive(p), seed), func(s []int16) error {
		out = append(out, s...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeriveReadsStyles(t *testing.T) {
	p := &Plan{PositiveGlobalStyles: []string{"jazz", "saxophone", "D minor", "132 bpm"}, Sections: []Section{{SectionName: "Chorus", DurationMs: 5000}}}
	prm := Derive(p)
	if prm.Genre.Name != "jazz" || prm.BPM != 132 || prm.Root != 2 || !prm.Minor || prm.Genre.Lead != 65 {
		t.Fatalf("derived %+v", prm)
	}
	if prm.Sections[0].Role != "chorus" || !prm.Sections[0].Drums {
		t.Fatalf("section %+v", prm.Sections[0])
	}
	p.NegativeGlobalStyles = []string{"drums"}
	if Derive(p).Sections[0].Drums {
		t.Fatal("negative style drums kept the drums")
	}
}

func TestPlanFromPrompt(t *testing.T) {
	p := PlanFromPrompt("An upbeat rock song in E major with electric guitar, no piano", 45000)
	if p.DurationMs() != 45000 {
		t.Fatalf("plan lasts %d ms", p.DurationMs())
	}
	if f, msg := Validate(p); f != nil {
		t.Fatalf("invalid plan: %v %s", f, msg)
	}
	prm := Derive(p)
	if prm.Genre.Name != "rock" || prm.Root != 4 || prm.Minor {
		t.Fatalf("round trip: %+v from %v", prm, p.PositiveGlobalStyles)
	}
	if !slices.Contains(p.NegativeGlobalStyles, "piano") {
		t.Fatalf("negative styles %v", p.NegativeGlobalStyles)
	}
	for _, ms := range []int{3000, 7000, 20000, 120000, 600000} {
		p := PlanFromPrompt("pop", ms)
		if f, msg := Validate(p); f != nil || p.DurationMs() != ms {
			t.Fatalf("%d ms: %v %s (%d ms)", ms, f, msg, p.DurationMs())
		}
	}
}

// TestRenderMeasured: exact length, the plan's tempo, the loudness target, peaks under the
// ceiling, and the same seed giving the same samples.
func TestRenderMeasured(t *testing.T) {
	p := PlanFromPrompt("energetic pop, 120 bpm", 20000)
	a := render(t, p, 7)
	if want := msToSamples(20000); len(a) != want {
		t.Fatalf("%d samples, want %d", len(a), want)
	}
	if bpm := Tempo(a, SampleRate); math.Abs(bpm-120)/120 > 0.05 {
		t.Fatalf("measured tempo %.1f bpm, plan 120", bpm)
	}
	if l := LoudnessPCM(a, SampleRate); math.Abs(l-TargetLUFS) > 2 {
		t.Fatalf("loudness %.1f LUFS, target %.1f", l, TargetLUFS)
	}
	peak := 0
	for _, v := range a {
		peak = max(peak, int(math.Abs(float64(v))))
	}
	if float64(peak)/32767 > math.Pow(10, CeilingDBFS/20)+1e-3 {
		t.Fatalf("peak %d over the ceiling", peak)
	}
	if b := render(t, p, 7); !slices.Equal(a, b) {
		t.Fatal("the same seed gave different samples")
	}
	if c := render(t, p, 8); slices.Equal(a, c) {
		t.Fatal("another seed gave the same samples")
	}
}

// BenchmarkRender30s: a 30-second song from a prompt, composed, played and mastered (scripts/bench.sh
// music). Goal: under 5 s per song here.
func BenchmarkRender30s(b *testing.B) {
	p := PlanFromPrompt("upbeat pop, 120 bpm", 30000)
	out := render(b, p, 1) // loads the soundfont
	b.ResetTimer()
	for b.Loop() {
		out = render(b, p, 1)
	}
	secs := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/song")
	b.ReportMetric(30/secs, "x-rt")
	b.ReportMetric(100*math.Abs(Tempo(out, SampleRate)-120)/120, "bpm-err-%")
	b.ReportMetric(LoudnessPCM(out, SampleRate), "LUFS")
}

// TestConcurrentRenders: songs rendered at the same time (synthesizers sharing the soundfont)
// are the ones rendered alone.
func TestConcurrentRenders(t *testing.T) {
	p, q := PlanFromPrompt("rock", 5000), PlanFromPrompt("jazz", 5000)
	wantP, wantQ := render(t, p, 1), render(t, q, 2)
	for range 2 {
		done := make(chan []int16)
		go func() {
			var out []int16
			_ = Render(context.Background(), Compose(Derive(q), 2), func(s []int16) error { out = append(out, s...); return nil })
			done <- out
		}()
		gotP := render(t, p, 1)
		gotQ := <-done
		if !slices.Equal(gotP, wantP) || !slices.Equal(gotQ, wantQ) {
			t.Fatal("a concurrent render differs")
		}
	}
}
