package stt

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/errs"
)

// Two sentences spoken by two flite voices, one on each channel of a stereo file.
const (
	leftSentence  = "It is a nice day to go for a walk in the park."
	rightSentence = "The box was thrown beside the parked truck."
)

// Words only one of the sentences has (the short, common ones a recognizer may insert anywhere
// are left out): neither channel's transcript may contain the other's.
var (
	leftOnly  = []string{"nice", "day", "walk", "park"}
	rightOnly = []string{"box", "thrown", "beside", "parked", "truck"}
)

var (
	testEnginesOnce sync.Once
	testSphinx      *engine.Pocketsphinx
	testFlite       *engine.Flite
	testEnginesErr  error
)

func engines(t *testing.T) (*engine.Pocketsphinx, *engine.Flite) {
	t.Helper()
	testEnginesOnce.Do(func() {
		if testSphinx, testEnginesErr = engine.NewPocketsphinx(engine.PocketsphinxConfig{Workers: 2}); testEnginesErr == nil {
			testFlite, testEnginesErr = engine.NewFlite()
		}
	})
	if testEnginesErr != nil {
		t.Fatal(testEnginesErr)
	}
	return testSphinx, testFlite
}

// speakPCM synthesizes text with a flite voice, at the recognition rate.
func speakPCM(t *testing.T, fl *engine.Flite, voice, text string) []int16 {
	t.Helper()
	res, err := fl.Synthesize(context.Background(), engine.Request{Text: text, Voice: voice})
	if err != nil {
		t.Fatal(err)
	}
	if res.Audio.SampleRate != engine.RecognitionRate {
		t.Fatalf("flite %s speaks at %d Hz", voice, res.Audio.SampleRate)
	}
	return res.Audio.Samples
}

// multiWAV is a 16-bit WAV file with one channel per slice; shorter channels are padded with
// silence to the longest.
func multiWAV(rate int, chans ...[]int16) []byte {
	n := 0
	for _, c := range chans {
		n = max(n, len(c))
	}
	c := len(chans)
	h := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(36+2*n*c))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, uint16(c))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(2*rate*c))
	h = binary.LittleEndian.AppendUint16(h, uint16(2*c))
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(2*n*c))
	for i := range n {
		for _, ch := range chans {
			var v int16
			if i < len(ch) {
				v = ch[i]
			}
			h = binary.LittleEndian.AppendUint16(h, uint16(v))
		}
	}
	return h
}

// heardWords is the set of words in text, lower case, without punctuation.
func heardWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		out[strings.Trim(w, ".,;:!?")] = true
	}
	return out
}

// checkChannel fails unless text holds most of want's words and none of the other sentence's.
func checkChannel(t *testing.T, channel int, text, want string, others []string) {
	t.Helper()
	got := heardWords(text)
	words := strings.Fields(want)
	found := 0
	for _, w := range words {
		if got[strings.ToLower(strings.Trim(w, "."))] {
			found++
		}
	}
	if found*10 < len(words)*7 {
		t.Errorf("channel %d: %d of %d words of %q in %q", channel, found, len(words), want, text)
	}
	for _, w := range others {
		if got[w] {
			t.Errorf("channel %d: %q (the other channel's) in %q", channel, w, text)
		}
	}
}

// A stereo file of two speakers, one per channel: each channel's transcript has its own words
// and not the other's, every entry carries its channel and that channel's speaker, and each
// transcript has the exports asked for; combined, the words of both are in time order.
func TestMultichannelRecognize(t *testing.T) {
	rec, fl := engines(t)
	ctx := context.Background()
	left := speakPCM(t, fl, "slt", leftSentence)
	// The right speaker starts a second later, so that the channels' words interleave in time.
	right := append(make([]int16, engine.RecognitionRate), speakPCM(t, fl, "rms", rightSentence)...)
	stereo := multiWAV(engine.RecognitionRate, left, right)

	s := &Service{}
	r := &Request{Audio: stereo, MultiChannel: true, ChannelStyle: StyleSeparate, Granularity: "word",
		Exports: []ExportOptions{{Format: "txt"}}}
	chans, err := s.decode(ctx, r)
	if err != nil || len(chans) != 2 {
		t.Fatalf("decode: %d channels, %v", len(chans), err)
	}
	if len(chans[0].Samples) != len(chans[1].Samples) || chans[0].SampleRate != engine.RecognitionRate {
		t.Fatalf("channels of %d and %d samples at %d Hz", len(chans[0].Samples), len(chans[1].Samples), chans[0].SampleRate)
	}
	res, err := recognize(ctx, rec, chans, r)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Multichannel
	if m == nil || res.Transcript != nil || len(m.Transcripts) != 2 {
		t.Fatalf("result %+v", res)
	}
	wantSecs := float64(len(right)) / engine.RecognitionRate
	if d := m.AudioDurationSecs - 2*wantSecs; d > 0.01 || d < -0.01 {
		t.Errorf("audio_duration_secs %v, want both channels' %v", m.AudioDurationSecs, 2*wantSecs)
	}
	for i, tr := range m.Transcripts {
		if tr.ChannelIndex == nil || *tr.ChannelIndex != i || tr.LanguageCode != "eng" {
			t.Fatalf("transcript %d: channel %v, language %q", i, tr.ChannelIndex, tr.LanguageCode)
		}
		for _, w := range tr.Words {
			if w.ChannelIndex == nil || *w.ChannelIndex != i || w.SpeakerID == nil || *w.SpeakerID != channelSpeaker(i) {
				t.Fatalf("transcript %d: entry %+v lacks its channel or speaker", i, w)
			}
		}
		if len(tr.AdditionalFormats) != 1 || tr.AdditionalFormats[0].RequestedFormat != "txt" || !strings.Contains(tr.AdditionalFormats[0].Content, tr.Words[0].Text) {
			t.Fatalf("transcript %d: exports %+v", i, tr.AdditionalFormats)
		}
	}
	checkChannel(t, 0, m.Transcripts[0].Text, leftSentence, rightOnly)
	checkChannel(t, 1, m.Transcripts[1].Text, rightSentence, leftOnly)
	if first := m.Transcripts[1].Words[0]; *first.Start < 0.9 {
		t.Errorf("the right channel's first word at %v s, before its speaker starts", *first.Start)
	}

	// The API's JSON: the multichannel model, read back the same.
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	if _, ok := raw["transcripts"]; !ok || raw["language_code"] != nil {
		t.Fatalf("encoded as %s", data)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil || back.Multichannel == nil || back.Multichannel.Transcripts[1].Text != m.Transcripts[1].Text {
		t.Fatalf("decoded back: %+v, %v", back, err)
	}

	// Combined: one transcript of both channels' words in time order.
	r.ChannelStyle = StyleCombined
	res, err = recognize(ctx, rec, chans, r)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Transcript
	if c == nil || res.Multichannel != nil || c.ChannelIndex != nil || len(c.AdditionalFormats) != 1 {
		t.Fatalf("combined: %+v", res)
	}
	var last float64
	seen := map[int]bool{}
	for _, w := range c.Words {
		if w.ChannelIndex == nil {
			t.Fatalf("combined entry without channel: %+v", w)
		}
		if w.Type == "word" {
			if *w.Start < last {
				t.Fatalf("combined words out of order at %+v", w)
			}
			last = *w.Start
			seen[*w.ChannelIndex] = true
		}
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("combined has words of channels %v", seen)
	}
	got := heardWords(c.Text)
	if !got["box"] && !got["truck"] || !got["park"] && !got["walk"] {
		t.Errorf("combined text %q lacks one channel", c.Text)
	}
}

// A mono file with use_multi_channel gives the ordinary single transcript; more than
// MaxChannels channels are refused naming use_multi_channel.
func TestMultichannelMonoAndTooMany(t *testing.T) {
	rec, fl := engines(t)
	ctx := context.Background()
	speech := speakPCM(t, fl, "rms", rightSentence)
	s := &Service{}
	r := &Request{Audio: multiWAV(engine.RecognitionRate, speech), MultiChannel: true, ChannelStyle: StyleSeparate, Granularity: "word"}
	chans, err := s.decode(ctx, r)
	if err != nil || len(chans) != 1 {
		t.Fatalf("mono: %d channels, %v", len(chans), err)
	}
	res, err := recognize(ctx, rec, chans, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Multichannel != nil || res.Transcript.ChannelIndex != nil || res.Transcript.Words[0].ChannelIndex != nil {
		t.Fatalf("mono gave %+v", res)
	}
	checkChannel(t, 0, res.Transcript.Text, rightSentence, leftOnly)

	six := slices.Repeat([][]int16{speech[:8000]}, 6)
	_, err = s.decode(ctx, &Request{Audio: multiWAV(engine.RecognitionRate, six...), MultiChannel: true})
	if err == nil || !strings.Contains(err.Error(), "6 channels") {
		t.Fatalf("six channels: %v", err)
	}
	if loc := fieldOf(t, err); loc != "use_multi_channel" {
		t.Fatalf("six channels name %q", loc)
	}
	// Without use_multi_channel the same file is mixed down and transcribed as one.
	chans, err = s.decode(ctx, &Request{Audio: multiWAV(engine.RecognitionRate, six...)})
	if err != nil || len(chans) != 1 {
		t.Fatalf("six channels mixed: %d, %v", len(chans), err)
	}
}

// Combine orders entries by start across channels and puts spacing between them.
func TestCombine(t *testing.T) {
	a := Build(&engine.Transcript{Text: "hello there", Language: "en", LanguageProbability: 1, Duration: 3, Words: []engine.TranscriptWord{
		{Text: "hello", Start: 0.1, End: 0.5}, {Text: "there", Start: 2.0, End: 2.4}}}, &Request{Granularity: "word"}, Heard{})
	b := Build(&engine.Transcript{Text: "hi", Language: "en", LanguageProbability: 0.9, Duration: 3, Words: []engine.TranscriptWord{
		{Text: "hi", Start: 1.0, End: 1.3}}}, &Request{Granularity: "word"}, Heard{})
	markChannel(a, 0)
	markChannel(b, 1)
	c := Combine([]Transcript{*a, *b})
	if c.Text != "Hello. Hi. There." || c.AudioDurationSecs != 3 || c.LanguageCode != "eng" {
		t.Fatalf("combined %q, %v s, %q", c.Text, c.AudioDurationSecs, c.LanguageCode)
	}
	var kinds, channels []string
	for _, w := range c.Words {
		kinds = append(kinds, w.Type)
		channels = append(channels, *w.SpeakerID)
	}
	if strings.Join(kinds, ",") != "word,spacing,word,spacing,word" ||
		strings.Join(channels, ",") != "speaker_0,speaker_0,speaker_1,speaker_1,speaker_0" {
		t.Fatalf("entries %v of %v", kinds, channels)
	}
	if sp := c.Words[1]; *sp.Start != 0.5 || *sp.End != 1.0 {
		t.Fatalf("spacing %v–%v", *sp.Start, *sp.End)
	}
	one := Result{Multichannel: &Multichannel{Transcripts: []Transcript{*a, *b}, TranscriptionID: "x"}}
	if s := one.Single(); s.Text != c.Text || s.TranscriptionID != "x" {
		t.Fatalf("Single: %+v", s)
	}
}

// fieldOf is the field a validation error names.
func fieldOf(t *testing.T, err error) string {
	t.Helper()
	var v *errs.Validation
	if !errors.As(err, &v) || len(v.Fields) == 0 {
		t.Fatalf("not a field error: %v", err)
	}
	loc := v.Fields[0].Loc
	name, _ := loc[len(loc)-1].(string)
	return name
}
