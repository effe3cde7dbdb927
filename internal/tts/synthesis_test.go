package tts

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"timbre/internal/engine"
	"timbre/internal/store"
	"timbre/internal/textnorm"
)

// countingEngine makes 100 ms of silence per request and counts the requests it started.
type countingEngine struct{ started atomic.Int32 }

func (e *countingEngine) Name() string                                       { return "counting" }
func (e *countingEngine) Voices(context.Context) ([]engine.VoiceInfo, error) { return nil, nil }
func (e *countingEngine) Synthesize(ctx context.Context, req engine.Request) (*engine.Result, error) {
	e.started.Add(1)
	return &engine.Result{Audio: engine.PCM{Samples: make([]int16, 1600), SampleRate: 16000}}, nil
}

func testJob(text string) *Job {
	j := &Job{Voice: &store.Voice{Engine: "counting"}, Text: text, Normalized: text, Mapping: identity(len(text))}
	j.Spans = textnorm.SplitSentences(text)
	return j
}

// The engine runs one sentence ahead of the consumer; with holdSecond, the second sentence waits
// for releaseSecond; stop ends a synthesis that waits.
func TestSynthesisRunsOneAheadAndHoldsSecond(t *testing.T) {
	eng := &countingEngine{}
	s := &Service{Engines: map[string]engine.Synthesizer{"counting": eng}}
	j := testJob("One. Two. Three. Four.")
	if len(j.Spans) != 4 {
		t.Fatalf("%d spans", len(j.Spans))
	}
	settle := func() { time.Sleep(50 * time.Millisecond) }

	sy, err := s.startSynthesis(context.Background(), j, false)
	if err != nil {
		t.Fatal(err)
	}
	settle()
	if n := eng.started.Load(); n != 1 {
		t.Errorf("%d syntheses before anything was consumed, want 1", n)
	}
	n := 0
	if err := sy.each(func(Chunk) error {
		n++
		if n == 2 {
			settle()
			if got := eng.started.Load(); got != 3 { // sentence 3 is under way, not 4
				t.Errorf("%d syntheses while emitting sentence 2, want 3", got)
			}
		}
		return nil
	}); err != nil || n != 4 {
		t.Fatalf("%d chunks, %v", n, err)
	}
	sy.stop()

	eng.started.Store(0)
	held, err := s.startSynthesis(context.Background(), j, true)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int32)
	go held.each(func(Chunk) error {
		settle()
		got <- eng.started.Load()
		held.releaseSecond()
		return nil
	})
	if n := <-got; n != 1 {
		t.Errorf("%d syntheses before the second was released, want 1", n)
	}
	for range 3 {
		<-got
	}
	held.stop()

	// Stopped while the second sentence waits: the goroutine ends, nothing more is made.
	eng.started.Store(0)
	stopped, _ := s.startSynthesis(context.Background(), j, true)
	<-stopped.results
	stopped.stop()
	settle()
	if _, open := <-stopped.results; open || eng.started.Load() != 1 {
		t.Errorf("a stopped synthesis went on (%d syntheses)", eng.started.Load())
	}
}
