package voice

import (
	"context"
	"testing"

	"timbre/internal/engine"
)

func TestWordErrorRate(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"The birch canoe slid on the smooth planks.", "the birch canoe slid on the smooth planks", 0},
		{"It's easy to tell the depth of a well.", "its easy to tell the death of a well", 100.0 / 9},
		{"Glue the sheet to the dark blue background.", "", 100},
		{"Rice is often served in round bowls.", "rice is served in round bowls today", 200.0 / 7},
	} {
		if got := WordErrorRate(c.ref, c.hyp); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("WordErrorRate(%q, %q) = %.2f, want %.2f", c.ref, c.hyp, got, c.want)
		}
	}
}

// TestCaptchaSentencesRecognised: every captcha sentence, spoken clearly (flite's rms voice), is
// heard by the embedded recogniser well within CaptchaMaxWER, so an honest reading passes
// whichever sentence is drawn; a different sentence is far beyond it.
func TestCaptchaSentencesRecognised(t *testing.T) {
	fl, err := engine.NewFlite()
	if err != nil {
		t.Skip("flite:", err)
	}
	ps, err := engine.NewPocketsphinx(engine.PocketsphinxConfig{})
	if err != nil {
		t.Skip("pocketsphinx:", err)
	}
	defer ps.Close()
	ctx := context.Background()
	heard := func(text string) string {
		res, err := fl.Synthesize(ctx, engine.Request{Text: text, Voice: "rms"})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ps.Transcribe(ctx, res.Audio, engine.TranscribeOptions{Language: "en"})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Text
	}
	hyps := make([]string, len(CaptchaSentences))
	for i, s := range CaptchaSentences {
		hyps[i] = heard(s)
		wer := WordErrorRate(s, hyps[i])
		t.Logf("%5.1f%%  %q → %q", wer, s, hyps[i])
		if wer > CaptchaMaxWER {
			t.Errorf("sentence %d read clearly fails: WER %.1f%% > %.0f%%", i, wer, CaptchaMaxWER)
		}
	}
	for i, s := range CaptchaSentences {
		j := (i + 1) % len(CaptchaSentences)
		if w := WordErrorRate(s, hyps[j]); w <= CaptchaMaxWER {
			t.Errorf("sentence %d passes with a reading of %q: WER %.1f%%", i, CaptchaSentences[j], w)
		}
	}
}
