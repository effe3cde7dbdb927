package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine/enginetest"
)

var (
	testSphinxOnce sync.Once
	testSphinx     *Pocketsphinx
	testSphinxErr  error
)

// sharedPocketsphinx is one recognizer with two decoders for all tests (each decoder takes
// seconds to load); tests skip when pocketsphinx's model or command is not installed.
func sharedPocketsphinx(tb testing.TB) *Pocketsphinx {
	tb.Helper()
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		tb.Skip(why)
	}
	testSphinxOnce.Do(func() { testSphinx, testSphinxErr = NewPocketsphinx(PocketsphinxConfig{Workers: 2}) })
	if testSphinxErr != nil {
		tb.Fatal(testSphinxErr)
	}
	return testSphinx
}

// harvardSpeech is the Harvard sentences [from, to) spoken by a flite voice.
func harvardSpeech(tb testing.TB, voice string, from, to int) []PCM {
	tb.Helper()
	fl, err := NewFlite()
	if err != nil {
		tb.Fatal(err)
	}
	var out []PCM
	for _, s := range enginetest.HarvardSentences()[from:to] {
		res, err := fl.Synthesize(context.Background(), Request{Text: s, Voice: voice})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, res.Audio)
	}
	return out
}

// joinWithPauses puts pause seconds of silence between the clips (all at one rate).
func joinWithPauses(clips []PCM, pause float64) PCM {
	out := PCM{SampleRate: clips[0].SampleRate}
	for i, c := range clips {
		if i > 0 {
			out.Samples = append(out.Samples, make([]int16, int(pause*float64(out.SampleRate)))...)
		}
		out.Samples = append(out.Samples, c.Samples...)
	}
	return out
}

// werComparison is Harvard sentences spoken by each flite voice, transcribed by the recognizer
// and by the pocketsphinx_batch command from the same 16 kHz audio.
type werComparison struct {
	voices               []string
	ids, refs, cmd, ours []string // per utterance; ids are <voice>-<n>
}

// compareWER speaks Harvard sentences [0, n) with every flite voice (fliteVoiceOrder) and
// transcribes them with r (two at a time, on r's decoders) and with the pocketsphinx_batch
// command (default settings, two processes). Every transcript's shape is checked.
func compareWER(tb testing.TB, r *Pocketsphinx, n int) werComparison {
	tb.Helper()
	sentences := enginetest.HarvardSentences()[:n]
	dir := tb.TempDir()
	c := werComparison{voices: fliteVoiceOrder}
	var clips []PCM
	for _, voice := range fliteVoiceOrder {
		for i, pcm := range harvardSpeech(tb, voice, 0, n) {
			id := fmt.Sprintf("%s-%02d", voice, i)
			if err := enginetest.WriteRaw(filepath.Join(dir, id+".raw"), pcm.Samples, pcm.SampleRate); err != nil {
				tb.Fatal(err)
			}
			c.ids, c.refs, clips = append(c.ids, id), append(c.refs, sentences[i]), append(clips, pcm)
		}
	}
	cmd, err := enginetest.PocketsphinxBatch(dir, c.ids, 2)
	if err != nil {
		tb.Fatal(err)
	}
	for _, id := range c.ids {
		c.cmd = append(c.cmd, cmd.Hyps[id])
	}

	c.ours = make([]string, len(clips))
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(clips); i += 2 {
				tr, err := r.Transcribe(context.Background(), clips[i], TranscribeOptions{Language: "en"})
				if err != nil {
					tb.Error(err)
					return
				}
				checkTranscriptShape(tb, tr, clips[i].Seconds())
				c.ours[i] = tr.Text
			}
		}()
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	return c
}

// wer is the recognizer's and the command's word error rate (%) over the utterances of voice
// ("" for all of them).
func (c werComparison) wer(voice string) (ours, cmd float64) {
	var refs, o, k []string
	for i, id := range c.ids {
		if voice == "" || strings.HasPrefix(id, voice+"-") {
			refs, o, k = append(refs, c.refs[i]), append(o, c.ours[i]), append(k, c.cmd[i])
		}
	}
	return enginetest.WER(refs, o), enginetest.WER(refs, k)
}

// werTolerance is how many percentage points the recognizer's word error rate may exceed the
// command's. It is needed because the recognizer decodes with the front end's voice activity
// detector off (it drops frames, which shifts every later word's time), so a few utterances
// decode differently from the command's, some better, some worse; and the audio flite makes
// differs with what the process synthesized before (this test alone gives the same audio every
// time, the whole package's run other audio). Measured: 26.88 % against 26.88 % (this test
// alone, twice), and 30.31 % against 29.06 % (4 words of 320, in the package's run).
const werTolerance = 2.0

// TestPocketsphinxWERNotWorseThanCommand: Harvard sentences spoken by each flite voice are
// transcribed by the recognizer and by the pocketsphinx_batch command (default settings) from
// the same 16 kHz audio; the recognizer's word error rate must be no higher, within
// werTolerance. Sentences 1–10 by default (40 utterances, about 320 words);
// TIMBRE_STT_WER_SENTENCES=40 runs all of them. BenchmarkPocketsphinxWER prints the same figures.
func TestPocketsphinxWERNotWorseThanCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("transcribes minutes of speech")
	}
	sharedPocketsphinx(t) // skips without the model
	// A decoder of its own: what a decoder heard before changes a word or two of its next
	// results, and the shared pool's decoders have heard whatever the tests before this one made
	// them hear (the recogniser's WER here ranged 27.8–31.9 % on the same audio).
	r, err := NewPocketsphinx(PocketsphinxConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 10
	if v := os.Getenv("TIMBRE_STT_WER_SENTENCES"); v != "" {
		fmt.Sscan(v, &n)
	}
	c := compareWER(t, r, n)
	for i := range c.ids {
		if c.ours[i] != c.cmd[i] {
			t.Logf("%s: command %q, ours %q", c.ids[i], c.cmd[i], c.ours[i])
		}
	}
	ourWER, cmdWER := c.wer("")
	t.Logf("WER over %d utterances: recognizer %.2f %%, pocketsphinx_batch %.2f %%", len(c.ids), ourWER, cmdWER)
	if ourWER > cmdWER+werTolerance {
		t.Errorf("the recognizer's WER %.2f %% is worse than the command's %.2f %% (+%g allowed)", ourWER, cmdWER, werTolerance)
	}
}

// BenchmarkPocketsphinxWER reports TestPocketsphinxWERNotWorseThanCommand's figures (Harvard
// sentences 1–10 by each flite voice): the recognizer's and the pocketsphinx_batch command's
// word error rate, per voice (<voice>-wer-%, <voice>-cmd-wer-%) and over all 40 utterances
// (wer-%, cmd-wer-%), and the tolerance the test allows (tolerance-points). Each iteration
// synthesizes and transcribes everything again; the last one is reported.
//
//	go test ./internal/engine/ -run '^$' -bench BenchmarkPocketsphinxWER -benchtime 1x
func BenchmarkPocketsphinxWER(b *testing.B) {
	r := sharedPocketsphinx(b)
	var c werComparison
	for b.Loop() {
		c = compareWER(b, r, 10)
	}
	for _, v := range c.voices {
		ours, cmd := c.wer(v)
		b.ReportMetric(ours, v+"-wer-%")
		b.ReportMetric(cmd, v+"-cmd-wer-%")
	}
	ours, cmd := c.wer("")
	b.ReportMetric(ours, "wer-%")
	b.ReportMetric(cmd, "cmd-wer-%")
	b.ReportMetric(werTolerance, "tolerance-points")
	b.ReportMetric(float64(len(c.ids)), "utterances")
	b.ReportMetric(0, "ns/op")
}

// checkTranscriptShape checks what every transcript must be: words in order inside the audio,
// with confidences, and the text made of the words.
func checkTranscriptShape(t testing.TB, tr *Transcript, seconds float64) {
	t.Helper()
	var texts []string
	prevEnd := 0.0
	for i, w := range tr.Words {
		if w.Start < prevEnd-1e-9 || w.End <= w.Start || w.End > seconds+0.02 {
			t.Errorf("word %d %q at %.2f–%.2f (previous ended %.2f, audio %.2f s)", i, w.Text, w.Start, w.End, prevEnd, seconds)
		}
		if c := w.Confidence(); w.Logprob > 0 || c <= 0 || c > 1 {
			t.Errorf("word %d %q: logprob %v", i, w.Text, w.Logprob)
		}
		if strings.ContainsAny(w.Text, "<>[]()") {
			t.Errorf("word %d %q is a marker, not a word", i, w.Text)
		}
		prevEnd = w.End
		texts = append(texts, w.Text)
	}
	if tr.Text != strings.Join(texts, " ") || tr.Language != "en" || tr.LanguageProbability != 1 {
		t.Errorf("transcript %q (%s, %v) does not match its words", tr.Text, tr.Language, tr.LanguageProbability)
	}
}

// TestPocketsphinxLongAudio: speech long enough to be cut at pauses comes back as one
// transcript whose word times run on across the pieces and fall on the sentences they belong to.
func TestPocketsphinxLongAudio(t *testing.T) {
	r := sharedPocketsphinx(t)
	clips := harvardSpeech(t, "rms", 0, 6)
	const pause = 0.8
	long := joinWithPauses(clips, pause)
	if p := splitPieces(long.Samples, long.SampleRate); len(p) < 2 {
		t.Fatalf("%.1f s of speech gave %d pieces", long.Seconds(), len(p))
	}
	tr, err := r.Transcribe(context.Background(), long, TranscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkTranscriptShape(t, tr, long.Seconds())
	if tr.Duration != long.Seconds() {
		t.Errorf("duration %v, want %v", tr.Duration, long.Seconds())
	}
	// The last sentence's words ("the juice of lemons makes fine punch") start after the
	// fifth pause.
	lastStart := long.Seconds() - clips[5].Seconds()
	var inLast int
	for _, w := range tr.Words {
		if w.Start >= lastStart-0.05 {
			inLast++
		}
	}
	if inLast < 4 || inLast > 9 {
		t.Errorf("%d words fall in the last sentence (from %.2f s): %+v", inLast, lastStart, tr.Words)
	}
	wer := enginetest.WER([]string{strings.Join(enginetest.HarvardSentences()[:6], " ")}, []string{tr.Text})
	if wer > 40 {
		t.Errorf("WER %.1f %%: %q", wer, tr.Text)
	}
	t.Logf("%.1f s, WER %.1f %%: %s", long.Seconds(), wer, tr.Text)
}

func TestPocketsphinxRefusals(t *testing.T) {
	r := sharedPocketsphinx(t)
	clip := tone(1, 16000)
	var lerr *UnsupportedLanguageError
	if _, err := r.Transcribe(context.Background(), clip, TranscribeOptions{Language: "fr-FR"}); !errors.As(err, &lerr) ||
		lerr.Language != "fr-FR" || len(lerr.Supported) != 1 || lerr.Supported[0] != "en" {
		t.Errorf("French: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Transcribe(ctx, clip, TranscribeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Silence has no words.
	tr, err := r.Transcribe(context.Background(), PCM{Samples: make([]int16, 16000), SampleRate: 16000}, TranscribeOptions{})
	if err != nil || tr.Text != "" || len(tr.Words) != 0 || tr.Duration != 1 {
		t.Errorf("silence: %+v, %v", tr, err)
	}
}

func TestDecodeForRecognition(t *testing.T) {
	ctx := context.Background()
	speech := harvardSpeech(t, "slt", 0, 1)[0]
	// Any container and codec comes back as 16 kHz mono of the same length.
	for _, name := range []string{"mp3_44100_128", "opus_48000_64", "wav_22050", "wav_8000"} {
		f, err := audio.ParseFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		encoded, err := audio.Encode(ctx, speech.Samples, speech.SampleRate, f)
		if err != nil {
			t.Fatal(err)
		}
		pcm, err := DecodeForRecognition(ctx, encoded)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pcm.SampleRate != RecognitionRate || pcm.Seconds() < speech.Seconds()-0.1 || pcm.Seconds() > speech.Seconds()+0.1 {
			t.Errorf("%s: %d samples at %d Hz for %.2f s of speech", name, len(pcm.Samples), pcm.SampleRate, speech.Seconds())
		}
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"text":      []byte("this is not audio, just a few words of text\n"),
		"truncated": audio.WAV(speech.Samples, speech.SampleRate)[:30],
	} {
		if _, err := DecodeForRecognition(ctx, data); !errors.Is(err, ErrNotAudio) {
			t.Errorf("%s: %v, want ErrNotAudio", name, err)
		}
	}
	if _, err := DecodeForRecognition(ctx, audio.WAV(speech.Samples[:1500], 16000)); !errors.Is(err, ErrAudioTooShort) {
		t.Errorf("94 ms: %v, want ErrAudioTooShort", err)
	}
	if _, err := DecodeForRecognition(ctx, audio.WAV(speech.Samples[:1700], 16000)); err != nil {
		t.Errorf("106 ms: %v", err)
	}
}

// BenchmarkPocketsphinxTranscribe measures batch transcription speed against the
// pocketsphinx_batch command on the same audio: the first 12 Harvard sentences spoken by slt
// with 0.6 s pauses (about 36 s). The command decodes the file as one utterance (the decoding
// time it reports, model loading excluded); the recognizer, with its decoders loaded, cuts it at
// pauses and decodes with 1 worker (w1) and 2 (w2). Each round runs all three one after the
// other, so a busy machine slows them alike, and the best round of each counts. Reported: times
// real time (x-rt), speed over the command's (vs-cmd), CPU seconds per audio second (cpu-per-s;
// the command's is its own report), the word error rates of the command's transcript and the
// one-worker recognizer's (cmd-wer-%, wer-%) and one decoder's load time (load-ms).
//
//	go test ./internal/engine/ -run '^$' -bench BenchmarkPocketsphinxTranscribe -benchtime 3x
func BenchmarkPocketsphinxTranscribe(b *testing.B) {
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		b.Skip(why)
	}
	clips := harvardSpeech(b, "slt", 0, 12)
	long := joinWithPauses(clips, 0.6)
	warmUp := joinWithPauses(clips[:4], 0.6) // two pieces: loads two decoders
	dir := b.TempDir()
	if err := enginetest.WriteRaw(filepath.Join(dir, "long.raw"), long.Samples, long.SampleRate); err != nil {
		b.Fatal(err)
	}
	var recognizers []*Pocketsphinx
	for _, workers := range []int{1, 2} {
		r, err := NewPocketsphinx(PocketsphinxConfig{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Transcribe(context.Background(), warmUp, TranscribeOptions{}); err != nil {
			b.Fatal(err)
		}
		recognizers = append(recognizers, r)
	}
	best := func(old, v float64) float64 {
		if old == 0 || v < old {
			return v
		}
		return old
	}
	ref := []string{strings.Join(enginetest.HarvardSentences()[:12], " ")}
	var cmdWall, cmdCPU, cmdWER float64
	wall, cpu := make([]float64, len(recognizers)), make([]float64, len(recognizers))
	var ourWER float64
	for b.Loop() {
		cmd, err := enginetest.PocketsphinxBatch(dir, []string{"long"}, 1)
		if err != nil {
			b.Fatal(err)
		}
		cmdWall, cmdCPU = best(cmdWall, cmd.DecodeSeconds), best(cmdCPU, cmd.CPUSeconds)
		cmdWER = enginetest.WER(ref, []string{cmd.Hyps["long"]})
		for i, r := range recognizers {
			t0, c0 := time.Now(), cpuSeconds()
			tr, err := r.Transcribe(context.Background(), long, TranscribeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			wall[i], cpu[i] = best(wall[i], time.Since(t0).Seconds()), best(cpu[i], cpuSeconds()-c0)
			if i == 0 {
				ourWER = enginetest.WER(ref, []string{tr.Text})
			}
		}
	}
	secs := long.Seconds()
	b.ReportMetric(secs/cmdWall, "cmd-x-rt")
	b.ReportMetric(cmdCPU/secs, "cmd-cpu-per-s")
	for i := range recognizers {
		w := fmt.Sprintf("w%d-", i+1)
		b.ReportMetric(secs/wall[i], w+"x-rt")
		b.ReportMetric(cmdWall/wall[i], w+"vs-cmd")
		b.ReportMetric(cpu[i]/secs, w+"cpu-per-s")
	}
	b.ReportMetric(cmdWER, "cmd-wer-%")
	b.ReportMetric(ourWER, "wer-%")
	b.ReportMetric(float64(recognizers[0].LoadTime().Milliseconds()), "load-ms")
	b.ReportMetric(0, "ns/op")
}

// cpuSeconds is the CPU time this process has used (user + system).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// TestPocketsphinxKeyterms: keyterms lift words the recognizer otherwise mishears ("canoe slid"
// and "planks" in rms's first Harvard sentence), words outside the dictionary are harmless,
// and the decoder goes back to its plain model afterwards.
func TestPocketsphinxKeyterms(t *testing.T) {
	sharedPocketsphinx(t) // skips without the model
	// One decoder of its own: what a decoder heard before changes a word or two of its next
	// result, so every run below must meet the same decoder, and the plain reference is taken
	// after it has heard this clip (as it has when transcribing it again at the end).
	r, err := NewPocketsphinx(PocketsphinxConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	clip := harvardSpeech(t, "rms", 0, 1)[0]
	ctx := context.Background()
	plain, err := r.Transcribe(ctx, clip, TranscribeOptions{})
	if err == nil {
		plain, err = r.Transcribe(ctx, clip, TranscribeOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	biased, err := r.Transcribe(ctx, clip, TranscribeOptions{Keyterms: []string{"Canoe", "slid", "smooth planks", "zyxwq-blorft"}})
	if err != nil {
		t.Fatal(err)
	}
	checkTranscriptShape(t, biased, clip.Seconds())
	ref := []string{enginetest.HarvardSentences()[0]}
	t.Logf("plain %q (WER %.0f %%), with keyterms %q (WER %.0f %%)", plain.Text, enginetest.WER(ref, []string{plain.Text}),
		biased.Text, enginetest.WER(ref, []string{biased.Text}))
	if !strings.Contains(biased.Text, "canoe slid on the smooth planks") {
		t.Errorf("with keyterms: %q", biased.Text)
	}
	if again, err := r.Transcribe(ctx, clip, TranscribeOptions{}); err != nil || again.Text != plain.Text {
		t.Errorf("after keyterms: %q, %v; want the plain %q", again.Text, err, plain.Text)
	}
}

func TestKeytermARPA(t *testing.T) {
	if got := keytermARPA([]string{"", " ,. "}); got != "" {
		t.Errorf("no words: %q", got)
	}
	got := keytermARPA([]string{"Smooth planks", "planks", "O'Brien"})
	want := "\\data\\\nngram 1=5\nngram 2=1\n\n\\1-grams:\n-99 <s> 0\n-0.6021 </s>\n" +
		"-0.6021 smooth 0\n-0.6021 planks 0\n-0.6021 o'brien 0\n\n\\2-grams:\n-0.3010 smooth planks\n\n\\end\\\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPocketsphinxForgetsEarlierAudio: a decoder hears the same audio the same way whatever it
// decoded before (here a noisy recording, which raises the front end's noise estimate, and a
// streaming session, which switches it to live CMN), in batch transcription and in a streaming
// session (see refresh). Before, that state carried over, and a transcript could change with
// the decoder the pool handed out ("day to go", then "day go").
func TestPocketsphinxForgetsEarlierAudio(t *testing.T) {
	if why := enginetest.PocketsphinxBatchAvailable(); why != "" {
		t.Skip(why)
	}
	p, err := NewPocketsphinx(PocketsphinxConfig{Workers: 1}) // one decoder: every call uses it
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	clips := harvardSpeech(t, "slt", 0, 2)
	speech := clips[0]
	noisy := PCM{SampleRate: clips[1].SampleRate, Samples: slices.Clone(clips[1].Samples)}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noisy.Samples {
		noisy.Samples[i] = int16(max(-32768, min(32767, float64(noisy.Samples[i])+rng.NormFloat64()*1500)))
	}
	ctx := context.Background()
	transcribe := func(pcm PCM) []TranscriptWord {
		tr, err := p.Transcribe(ctx, pcm, TranscribeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Words
	}
	stream := func(pcm PCM) []TranscriptWord {
		st, err := p.OpenStream(ctx, StreamOptions{SampleRate: pcm.SampleRate})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for at := 0; at < len(pcm.Samples); at += pcm.SampleRate / 10 {
			if err := st.Feed(pcm.Samples[at:min(at+pcm.SampleRate/10, len(pcm.Samples))]); err != nil {
				t.Fatal(err)
			}
		}
		words, err := st.Commit()
		if err != nil {
			t.Fatal(err)
		}
		return words
	}
	fresh, freshLive := transcribe(speech), stream(speech)
	transcribe(noisy)
	if again := transcribe(speech); !slices.Equal(again, fresh) {
		t.Errorf("batch, after other audio:\n%+v\nfresh:\n%+v", again, fresh)
	}
	stream(noisy)
	transcribe(noisy)
	// The live search keeps a little state of its own that refresh cannot reach (measured: the
	// first word's log confidence moved by 1e-4), so the words and times must be equal and the
	// confidences close.
	if again := stream(speech); !slices.EqualFunc(again, freshLive, func(a, b TranscriptWord) bool {
		return a.Text == b.Text && a.Start == b.Start && a.End == b.End && math.Abs(a.Logprob-b.Logprob) < 1e-3
	}) {
		t.Errorf("stream, after other audio:\n%+v\nfresh:\n%+v", again, freshLive)
	}
}
