package engine

import (
	"context"
	"math"
	"testing"

	"timbre/internal/engine/enginetest"
)

// TestPocketsphinxStream: speech fed in 100 ms chunks at flite's own rate (resampled inside)
// gives partial hypotheses while it arrives, and the committed words are (within a word or two)
// batch transcription's words of the same audio, timed from the session's start across two
// commits.
func TestPocketsphinxStream(t *testing.T) {
	p := sharedPocketsphinx(t)
	clips := harvardSpeech(t, "rms", 0, 2)
	st, err := p.OpenStream(context.Background(), StreamOptions{SampleRate: clips[0].SampleRate})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var offset float64
	for i, clip := range clips {
		want, err := p.Transcribe(context.Background(), clip, TranscribeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		chunk := clip.SampleRate / 10
		partials := 0
		for at := 0; at < len(clip.Samples); at += chunk {
			if err := st.Feed(clip.Samples[at:min(at+chunk, len(clip.Samples))]); err != nil {
				t.Fatal(err)
			}
			if st.Partial() != "" {
				partials++
			}
		}
		if partials == 0 {
			t.Errorf("clip %d: no partial hypothesis while feeding", i)
		}
		words, err := st.Commit()
		if err != nil {
			t.Fatal(err)
		}
		// The live search never sees the whole utterance (live CMN), so it may differ from
		// batch decoding in a word or two.
		got := joinWords(words)
		wer := enginetest.WER([]string{want.Text}, []string{got})
		t.Logf("clip %d: committed %q, batch %q (%.0f %% apart)", i, got, want.Text, wer)
		if wer > 35 {
			t.Errorf("clip %d: committed and batch transcripts %.0f %% apart", i, wer)
		}
		// Times count from the session's start: the first word where batch decoding puts it.
		if len(words) == 0 || len(want.Words) == 0 || math.Abs(words[0].Start-(offset+want.Words[0].Start)) > 0.1 {
			t.Errorf("clip %d: first word at %+v, batch %+v (clip starts at %.2f s)", i, words[:min(1, len(words))], want.Words[:min(1, len(want.Words))], offset)
		}
		offset += clip.Seconds()
		if d := st.Seconds() - offset; d > 0.01 || d < -0.01 {
			t.Errorf("clip %d: %.3f s fed, want %.3f", i, st.Seconds(), offset)
		}
	}
}
