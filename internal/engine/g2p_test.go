package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// modelPhones reads the phone names (CI phones) of the en-us acoustic model's binary mdef:
// a "BMDF" header, a text description, then int32 n_ciphone and nine more counts, then the
// NUL-terminated phone names.
func modelPhones(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(PocketsphinxModelDir, "en-us", "mdef"))
	if err != nil {
		t.Skip("pocketsphinx-en-us not installed: ", err)
	}
	end := []byte("END FILE FORMAT DESCRIPTION\n")
	i := bytes.Index(b, end)
	if !bytes.HasPrefix(b, []byte("BMDF")) || i < 0 {
		t.Fatal("mdef is not a binary model definition")
	}
	i += len(end)
	i = (i + 3) &^ 3 // the counts are 4-byte aligned
	n := int(binary.LittleEndian.Uint32(b[i:]))
	names := bytes.Split(b[i+40:], []byte{0})[:n]
	out := make([]string, n)
	for k, s := range names {
		out[k] = string(s)
	}
	return out
}

// TestG2PPhonesInModel: every phone the IPA table maps to is a phone of the acoustic model,
// and arpabetPhones is exactly the model's phones less silence and noise.
func TestG2PPhonesInModel(t *testing.T) {
	model := modelPhones(t)
	var speech []string
	for _, p := range model {
		if p != "SIL" && !strings.HasPrefix(p, "+") {
			speech = append(speech, p)
		}
	}
	if !slices.Equal(speech, arpabetPhones) {
		t.Fatalf("model phones %v, table %v", speech, arpabetPhones)
	}
	for ipa, ps := range ipaPhones {
		for _, p := range ps {
			if !slices.Contains(speech, p) {
				t.Errorf("%q maps to %q, not a phone of the model", ipa, p)
			}
		}
	}
}

// TestG2PPronounce: espeak-ng's reading of words cmudict knows comes out as cmudict writes them
// (stress dropped), and invented words get plausible pronunciations.
func TestG2PPronounce(t *testing.T) {
	for word, want := range map[string]string{
		"church":  "CH ER CH",
		"judge":   "JH AH JH",
		"thing":   "TH IH NG",
		"measure": "M EH ZH ER",
		"boy":     "B OY",
		"cow":     "K AW",
		"bite":    "B AY T",
		"bait":    "B EY T",
		"boat":    "B OW T",
		"car":     "K AA R",
		"ear":     "IH R",
		"fire":    "F AY ER",
		"zorvath": "Z AO R V AE TH",
		"":        "",
	} {
		got, err := Pronounce(word)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q: %q, want %q", word, got, want)
		}
	}
}

func TestG2PIPAToARPAbet(t *testing.T) {
	for ipa, want := range map[string]string{
		"b_ˈɑː_ɾ_əl":            "B AA T AH L",
		"b_ˈʌ_ʔ_n̩":             "B AH AH N",
		"k_j_ˈuː_b_ɚ_n_ˌiː_t_s": "K Y UW B ER N IY T S",
		"ˈɑːɹ t_ˈuː":            "AA R T UW",
		"ˈaʊ_ɚ":                 "AW ER",
		"tʃɜː":                  "CH ER", // not separated: longest known phonemes first
		"q":                     "",      // no English phoneme
	} {
		if got := strings.Join(ipaToARPAbet(ipa), " "); got != want {
			t.Errorf("%q: %q, want %q", ipa, got, want)
		}
	}
}

// TestAlignInventedWords: words cmudict lacks ("zorvath", "kubernetes", "timbre's") spoken by
// flite are placed by the acoustic model through espeak-ng's pronunciations, within 50 ms of
// the times flite reports for them.
func TestAlignInventedWords(t *testing.T) {
	ps := sharedPocketsphinx(t)
	fl, err := NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	text := "Yesterday Zorvath moved the whole cluster to Kubernetes, and Timbre's voices kept talking."
	unknown := map[string]bool{"zorvath": true, "kubernetes": true, "timbre's": true}
	for _, voice := range []string{"rms", "slt"} {
		res, err := fl.Synthesize(context.Background(), Request{Text: text, Voice: voice})
		if err != nil {
			t.Fatal(err)
		}
		var words []string
		var truth []AlignedWord
		for _, m := range res.Words {
			w := strings.ToLower(strings.Trim(text[m.Offset:m.Offset+m.Length], ",."))
			words = append(words, w)
			truth = append(truth, AlignedWord{Text: w, Start: m.Start, End: m.End})
		}
		got, err := ps.Align(context.Background(), res.Audio, words)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range got {
			e := (math.Abs(w.Start-truth[i].Start) + math.Abs(w.End-truth[i].End)) / 2
			t.Logf("%s %-10s %.3f–%.3f (flite %.3f–%.3f) loss %.2f heard %v", voice, w.Text, w.Start, w.End, truth[i].Start, truth[i].End, w.Loss, w.Heard)
			if !w.Heard {
				t.Errorf("%s: %q not placed", voice, w.Text)
			}
			if unknown[w.Text] && e > 0.050 {
				t.Errorf("%s: %q %.3f–%.3f, flite says %.3f–%.3f", voice, w.Text, w.Start, w.End, truth[i].Start, truth[i].End)
			}
		}
	}
}

// TestKeytermUnknownWord: a keyterm cmudict lacks is recognised (through espeak-ng's
// pronunciation) in speech that says it, and is not heard without the keyterm — before or after.
func TestKeytermUnknownWord(t *testing.T) {
	r := sharedPocketsphinx(t)
	fl, err := NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	res, err := fl.Synthesize(context.Background(), Request{Text: "Please send the report to Zorvath tomorrow morning.", Voice: "rms"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	plain, err := r.Transcribe(ctx, res.Audio, TranscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	biased, err := r.Transcribe(ctx, res.Audio, TranscribeOptions{Keyterms: []string{"Zorvath"}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Transcribe(ctx, res.Audio, TranscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plain %q, with the keyterm %q, plain again %q", plain.Text, biased.Text, again.Text)
	if strings.Contains(plain.Text, "zorvath") || strings.Contains(again.Text, "zorvath") {
		t.Error("heard without the keyterm")
	}
	if !strings.Contains(biased.Text, "zorvath") {
		t.Errorf("keyterm not heard: %q", biased.Text)
	}
}

// TestG2PWordsStayOutOfTheLanguageModel: a decoder that learnt pronunciations for one request
// transcribes later audio exactly as before (the words are in its dictionary, not its language
// model), even audio that says them; adding them takes one rebuild of its search.
func TestG2PWordsStayOutOfTheLanguageModel(t *testing.T) {
	r := sharedPocketsphinx(t)
	fl, err := NewFlite()
	if err != nil {
		t.Fatal(err)
	}
	res, err := fl.Synthesize(context.Background(), Request{Text: "Zorvath and Quellmar met at the Kubernetes office.", Voice: "rms"})
	if err != nil {
		t.Fatal(err)
	}
	pcm := toRecognitionRate(res.Audio)
	pc := piece{Start: 0, End: len(pcm.Samples)}
	ps, err := r.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.release(ps)
	text := func() string {
		ws, err := r.decodePiece(ps, pcm, pc)
		if err != nil {
			t.Fatal(err)
		}
		return joinWords(ws)
	}
	before := text()
	t0 := time.Now()
	r.addWords(ps, []string{"zorvath", "quellmar", "kubernetes"})
	took := time.Since(t0)
	for _, w := range []string{"zorvath", "quellmar", "kubernetes"} {
		if !inDict(ps, w) {
			t.Errorf("%q not added", w)
		}
	}
	after := text()
	t.Logf("before %q, after adding (%v) %q", before, took, after)
	if after != before {
		t.Errorf("the decoder transcribes differently after learning words: %q, before %q", after, before)
	}
}
