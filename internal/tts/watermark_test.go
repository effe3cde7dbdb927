package tts

import (
	"context"
	"slices"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/watermark"
)

// Every sentence of a job is marked by one embedder, so the speech carries one continuous mark:
// exactly what marking the engine's whole output in one go gives. The engine's own output is
// not marked.
func TestSynthesisMarksEverySentenceContinuously(t *testing.T) {
	es, err := engine.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	wm, err := watermark.New([]byte("tts-test-watermark-key-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingEngine{Synthesizer: es}
	s := &Service{Engines: map[string]engine.Synthesizer{"espeak": rec}, Watermark: wm}
	j := testJob("The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well.")
	j.Voice.Engine, j.Voice.EngineVoice, j.Language = "espeak", "en-us", "en"
	sy, err := s.startSynthesis(context.Background(), j, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sy.stop()
	var marked []int16
	rate := 0
	if err := sy.each(func(c Chunk) error {
		rate = c.Rate
		marked = append(marked, c.PCM...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	raw := rec.raw
	if r := wm.Detect(raw, rate); r.Detected {
		t.Fatalf("the engine's own output scored %.2f", r.Score)
	}
	if r := wm.Detect(marked, rate); !r.Detected {
		t.Fatalf("Timbre's speech scored %.2f, below the threshold", r.Score)
	}
	whole, _ := wm.NewEmbedder(rate)
	want := slices.Clone(raw)
	whole.Mark(want)
	if !slices.Equal(marked, want) {
		t.Fatal("the sentences were not marked as one stream")
	}
}

// recordingEngine keeps a copy of everything its engine made, before Timbre touches it.
type recordingEngine struct {
	engine.Synthesizer
	raw []int16
}

func (e *recordingEngine) Synthesize(ctx context.Context, req engine.Request) (*engine.Result, error) {
	res, err := e.Synthesizer.Synthesize(ctx, req)
	if err == nil {
		e.raw = append(e.raw, res.Audio.Samples...)
	}
	return res, err
}
