package stt

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/listen"
)

// twoSentences is what pocketsphinx gives for two sentences with a pause between them.
var twoSentences = &engine.Transcript{
	Text: "the birch canoe slid i think it was smooth", Language: "en", LanguageProbability: 1, Duration: 4.2,
	Words: []engine.TranscriptWord{
		{Text: "the", Start: 0.10, End: 0.25, Logprob: -0.1},
		{Text: "birch", Start: 0.25, End: 0.60, Logprob: -0.2},
		{Text: "canoe", Start: 0.62, End: 1.10, Logprob: -0.3},
		{Text: "slid", Start: 1.10, End: 1.40, Logprob: -0.05},
		{Text: "i", Start: 2.30, End: 2.40, Logprob: -0.5},
		{Text: "think", Start: 2.40, End: 2.70, Logprob: -0.4},
		{Text: "it", Start: 2.70, End: 2.80, Logprob: -0.1},
		{Text: "was", Start: 2.80, End: 3.00, Logprob: -0.1},
		{Text: "smooth", Start: 3.00, End: 3.50, Logprob: -0.2},
	},
}

func TestBuildWordsAndSpacing(t *testing.T) {
	tr := Build(twoSentences, &Request{Granularity: "word"}, Heard{})
	if tr.Text != "The birch canoe slid. I think it was smooth." {
		t.Fatalf("text %q", tr.Text)
	}
	if tr.LanguageCode != "eng" || tr.LanguageProbability != 1 || tr.AudioDurationSecs != 4.2 {
		t.Fatalf("language %q %v, duration %v", tr.LanguageCode, tr.LanguageProbability, tr.AudioDurationSecs)
	}
	if len(tr.Words) != 2*9-1 {
		t.Fatalf("%d entries, want 9 words and 8 spacings", len(tr.Words))
	}
	sp := tr.Words[7] // between "slid." and "I"
	if sp.Type != "spacing" || sp.Text != " " || *sp.Start != 1.4 || *sp.End != 2.3 {
		t.Fatalf("spacing %+v", sp)
	}
	if w := tr.Words[0]; w.Type != "word" || w.Text != "The" || *w.Start != 0.1 || w.Logprob != -0.1 || w.Characters != nil {
		t.Fatalf("first word %+v", w)
	}
	// The required keys of the API's word model are present on every entry.
	data, _ := json.Marshal(tr)
	var raw struct {
		Words []map[string]any `json:"words"`
	}
	_ = json.Unmarshal(data, &raw)
	for _, w := range raw.Words {
		for _, k := range []string{"text", "type", "logprob", "start", "end"} {
			if _, ok := w[k]; !ok {
				t.Fatalf("word %v lacks %s", w, k)
			}
		}
	}
}

func TestBuildGranularity(t *testing.T) {
	none := Build(twoSentences, &Request{Granularity: "none"}, Heard{})
	if w := none.Words[0]; w.Start != nil || w.End != nil {
		t.Fatalf("granularity none kept times: %+v", w)
	}
	ch := Build(twoSentences, &Request{Granularity: "character"}, Heard{})
	cs := ch.Words[2].Characters // "birch"
	if len(cs) != 5 || cs[0].Text != "b" || *cs[0].Start != 0.25 || *cs[4].End != 0.6 {
		t.Fatalf("characters of birch: %+v", cs)
	}
}

func TestBuildKeepsPunctuatedText(t *testing.T) {
	tr := Build(&engine.Transcript{Text: "Hello, World", Language: "en", Words: []engine.TranscriptWord{
		{Text: "Hello,", Start: 0, End: 0.5}, {Text: "World", Start: 2, End: 2.5}}}, &Request{Granularity: "word"}, Heard{})
	if tr.Text != "Hello, World" {
		t.Fatalf("a punctuated transcript was re-cased: %q", tr.Text)
	}
}

func TestExports(t *testing.T) {
	tr := Build(twoSentences, &Request{Granularity: "word"}, Heard{})
	srt, err := Export(tr, ExportOptions{Format: "srt"})
	if err != nil {
		t.Fatal(err)
	}
	want := "1\n00:00:00,100 --> 00:00:01,400\nThe birch canoe slid.\n\n2\n00:00:02,300 --> 00:00:03,500\nI think it was smooth.\n\n"
	if srt.Content != want || srt.FileExtension != "srt" || srt.IsBase64Encoded {
		t.Fatalf("srt:\n%q", srt.Content)
	}
	txt, _ := Export(tr, ExportOptions{Format: "txt", IncludeTimestamps: ptr(false)})
	if txt.Content != "The birch canoe slid.\n\nI think it was smooth.\n" {
		t.Fatalf("txt:\n%q", txt.Content)
	}
	sj, _ := Export(tr, ExportOptions{Format: "segmented_json"})
	var segs struct {
		Segments []segment `json:"segments"`
	}
	if err := json.Unmarshal([]byte(sj.Content), &segs); err != nil || len(segs.Segments) != 2 || segs.Segments[1].Start != 2.3 {
		t.Fatalf("segmented_json %v: %s", err, sj.Content)
	}
	h, _ := Export(tr, ExportOptions{Format: "html"})
	if !strings.Contains(h.Content, "<p><strong>[00:00:00.100 - 00:00:01.400]</strong><br>The birch canoe slid.</p>") {
		t.Fatalf("html:\n%s", h.Content)
	}
	d, err := Export(tr, ExportOptions{Format: "docx"})
	if err != nil || !d.IsBase64Encoded {
		t.Fatal(err)
	}
	if doc := docxText(t, d.Content); !strings.Contains(doc, "The birch canoe slid.") || !strings.Contains(doc, "I think it was smooth.") {
		t.Fatalf("docx document.xml lacks the text: %.400s", doc)
	}
	p, err := Export(tr, ExportOptions{Format: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := base64.StdEncoding.DecodeString(p.Content); !bytes.HasPrefix(data, []byte("%PDF-")) || len(data) < 500 {
		t.Fatalf("not a PDF: %.40q", data)
	}
}

// docxText is the word/document.xml of a base64 docx.
func docxText(t *testing.T, b64 string) string {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("docx is not a zip: %v", err)
	}
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return string(b)
		}
	}
	t.Fatal("docx has no word/document.xml")
	return ""
}

func TestSegmentsSplitOnLimits(t *testing.T) {
	tr := Build(twoSentences, &Request{Granularity: "word"}, Heard{})
	segs := segments(tr, exportSpec{maxChars: 12})
	for _, s := range segs {
		if len(s.Text) > 12 && len(s.Words) > 1 {
			t.Fatalf("segment over 12 characters: %q", s.Text)
		}
	}
	if got := wrap("one two three four", 9); strings.Join(got, "|") != "one two|three|four" {
		t.Fatalf("wrap: %q", got)
	}
}

func TestBuildSpeakersAndEvents(t *testing.T) {
	heard := Heard{
		Turns: []listen.Turn{
			{Segment: listen.Segment{Start: 0.5, End: 1.5}, Speaker: 1}, // "the birch canoe slid": the first voice heard
			{Segment: listen.Segment{Start: 2.2, End: 3.6}, Speaker: 0},
		},
		Events: []listen.Event{{Segment: listen.Segment{Start: 3.7, End: 4.2}, Kind: listen.Music}},
	}
	tr := Build(twoSentences, &Request{Granularity: "word", Diarize: true, TagAudioEvents: true}, heard)
	if tr.Text != "The birch canoe slid. I think it was smooth. (music)" {
		t.Fatalf("text %q", tr.Text)
	}
	var words []Word
	for _, w := range tr.Words {
		if w.SpeakerID == nil {
			t.Fatalf("entry %+v has no speaker", w)
		}
		if w.Type != "spacing" {
			words = append(words, w)
		}
	}
	for i, w := range words[:9] {
		want := "speaker_0"
		if i >= 4 {
			want = "speaker_1"
		}
		if *w.SpeakerID != want {
			t.Fatalf("word %d %q: %s, want %s", i, w.Text, *w.SpeakerID, want)
		}
	}
	if sp := tr.Words[7]; sp.Type != "spacing" || *sp.SpeakerID != "speaker_0" { // after "slid."
		t.Fatalf("spacing %+v", sp)
	}
	ev := words[9]
	if ev.Type != "audio_event" || ev.Text != "(music)" || *ev.Start != 3.7 || *ev.End != 4.2 {
		t.Fatalf("event %+v", ev)
	}

	plain := Build(twoSentences, &Request{Granularity: "word"}, heard)
	for _, w := range plain.Words {
		if w.SpeakerID != nil || w.Type == "audio_event" {
			t.Fatalf("without diarize and tag_audio_events: %+v", w)
		}
	}
}

// TestExportOptionsCamelCase: the official JavaScript SDK sends additional_formats as written
// by its caller, in camelCase; those options take effect as the snake_case ones do, and where
// both spellings are given the snake_case one wins.
func TestExportOptionsCamelCase(t *testing.T) {
	var opts []ExportOptions
	raw := `[{"format":"srt","includeSpeakers":true,"maxCharactersPerLine":12,"segmentOnSilenceLongerThanS":0.5,"maxSegmentDurationS":9,"maxSegmentChars":60},` +
		`{"format":"txt","include_timestamps":true,"includeTimestamps":false}]`
	if err := json.Unmarshal([]byte(raw), &opts); err != nil {
		t.Fatal(err)
	}
	o := opts[0]
	if o.Format != "srt" || o.IncludeSpeakers == nil || !*o.IncludeSpeakers || o.MaxCharactersPerLine == nil || *o.MaxCharactersPerLine != 12 ||
		o.SegmentOnSilenceLonger == nil || *o.SegmentOnSilenceLonger != 0.5 || o.MaxSegmentDuration == nil || *o.MaxSegmentDuration != 9 ||
		o.MaxSegmentChars == nil || *o.MaxSegmentChars != 60 {
		t.Fatalf("camelCase options: %+v", o)
	}
	if o := opts[1]; o.IncludeTimestamps == nil || !*o.IncludeTimestamps {
		t.Fatalf("include_timestamps beside includeTimestamps: %+v", o)
	}

	tr := Build(twoSentences, &Request{Granularity: "word", Diarize: true}, Heard{Turns: []listen.Turn{{Segment: listen.Segment{Start: 0, End: 10}}}})
	srt, err := Export(tr, opts[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srt.Content, "[speaker_0]") {
		t.Fatalf("includeSpeakers had no effect:\n%s", srt.Content)
	}
	for _, line := range strings.Split(srt.Content, "\n") {
		if len(line) > 12 && strings.Contains(line, " ") && !strings.Contains(line, "-->") {
			t.Fatalf("maxCharactersPerLine 12 had no effect: %q in\n%s", line, srt.Content)
		}
	}
	if err := json.Unmarshal([]byte(`[{"format":"srt","includeSpeakers":"yes"}]`), &opts); err == nil {
		t.Fatal("a camelCase option of the wrong type was accepted")
	}
}
