package stt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"timbre/internal/engine"
	"timbre/internal/entities"
	"timbre/internal/listen"
)

// Transcript is the API's SpeechToTextChunkResponseModel.
type Transcript struct {
	LanguageCode        string             `json:"language_code"`
	LanguageProbability float64            `json:"language_probability"`
	Text                string             `json:"text"`
	Words               []Word             `json:"words"`
	ChannelIndex        *int               `json:"channel_index,omitempty"`
	AdditionalFormats   []AdditionalFormat `json:"additional_formats,omitempty"`
	TranscriptionID     string             `json:"transcription_id,omitempty"`
	// Entities are those found with entity_detection (absent without it, and with redaction).
	Entities          *[]entities.Entity `json:"entities,omitempty"`
	AudioDurationSecs float64            `json:"audio_duration_secs"`
}

// Word is one entry of a transcript's words: a word, the spacing between two words, or an
// audio event. Start and End are null when timestamps were not asked for.
type Word struct {
	Text      string   `json:"text"`
	Start     *float64 `json:"start"`
	End       *float64 `json:"end"`
	Type      string   `json:"type"` // word, spacing or audio_event
	SpeakerID *string  `json:"speaker_id,omitempty"`
	// ChannelIndex is the channel the entry was heard on (use_multi_channel only).
	ChannelIndex *int        `json:"channel_index,omitempty"`
	Logprob      float64     `json:"logprob"`
	Characters   []Character `json:"characters,omitempty"`
}

// Character is one character of a word with its time (timestamps_granularity=character).
type Character struct {
	Text  string   `json:"text"`
	Start *float64 `json:"start"`
	End   *float64 `json:"end"`
}

// AdditionalFormat is one export of the transcript (see Export).
type AdditionalFormat struct {
	RequestedFormat string `json:"requested_format"`
	FileExtension   string `json:"file_extension"`
	ContentType     string `json:"content_type"`
	IsBase64Encoded bool   `json:"is_base64_encoded"`
	Content         string `json:"content"`
}

// sentenceGap is the pause after which a lower-case recognizer's words start a new sentence.
const sentenceGap = 0.6

// Heard is what the audio holds beside the words (see package listen): who speaks when, for
// diarize, and the sounds that are not speech, for tag_audio_events.
type Heard struct {
	Turns  []listen.Turn
	Events []listen.Event
	Names  map[int]string // speaker ids of the turns' speakers found in the speaker library
}

// Build shapes a recognizer's transcript as the API returns it for request r: words with
// spacing entries between them (the spacing spans the pause), times rounded to milliseconds,
// characters with times spread evenly over their word when r asks for character granularity,
// and the exports r asks for. A recognizer that gives lower-case words without punctuation
// (pocketsphinx) gets sentence case: a capital after each pause of sentenceGap, a full stop
// before it, and "I" for "i". Audio events of heard ("(music)") join the words in time
// order; with r.Diarize every entry carries the speaker of the turn it falls in (speaker_0,
// speaker_1, … in order of first appearance; a spacing has its preceding word's).
func Build(tr *engine.Transcript, r *Request, heard Heard) *Transcript {
	words := tr.Words
	if plainLowerCase(tr.Text) {
		words = sentenceCase(words)
	}
	t := &Transcript{
		LanguageCode: iso6393(tr.Language), LanguageProbability: tr.LanguageProbability,
		Words: []Word{}, AudioDurationSecs: round3(tr.Duration),
	}
	timed := r.Granularity != "none"
	entries := make([]Word, 0, len(words)+len(heard.Events))
	var spans []listen.Segment // of each entry, for the speakers
	for _, w := range words {
		out := Word{Text: w.Text, Type: "word", Logprob: round3(w.Logprob)}
		if timed {
			out.Start, out.End = ptr(round3(w.Start)), ptr(round3(w.End))
		}
		if r.Granularity == "character" {
			out.Characters = characters(w)
		}
		entries, spans = append(entries, out), append(spans, listen.Segment{Start: w.Start, End: w.End})
	}
	if r.TagAudioEvents {
		for _, e := range heard.Events {
			i, _ := slices.BinarySearchFunc(spans, e.Start, func(s listen.Segment, at float64) int { return cmp.Compare(s.Start, at) })
			out := Word{Text: "(" + e.Kind + ")", Type: "audio_event"}
			if timed {
				out.Start, out.End = ptr(round3(e.Start)), ptr(round3(e.End))
			}
			entries, spans = slices.Insert(entries, i, out), slices.Insert(spans, i, e.Segment)
		}
	}
	speakers := map[int]string{}
	unnamed := 0 // speakers not found in the library are speaker_0, speaker_1, …
	var text strings.Builder
	for i, out := range entries {
		if r.Diarize {
			sp := listen.SpeakerAt(heard.Turns, spans[i].Start, spans[i].End)
			id, ok := speakers[sp]
			if !ok {
				if id = heard.Names[sp]; id == "" {
					id = fmt.Sprintf("speaker_%d", unnamed)
					unnamed++
				}
				speakers[sp] = id
			}
			out.SpeakerID = &id
		}
		if i > 0 {
			sp := Word{Text: " ", Type: "spacing", SpeakerID: t.Words[len(t.Words)-1].SpeakerID}
			if timed {
				sp.Start, sp.End = ptr(round3(spans[i-1].End)), ptr(round3(max(spans[i].Start, spans[i-1].End)))
			}
			t.Words = append(t.Words, sp)
			text.WriteByte(' ')
		}
		t.Words = append(t.Words, out)
		text.WriteString(out.Text)
	}
	t.Text = text.String()
	if len(entries) == 0 {
		t.Text = strings.TrimSpace(tr.Text)
	}
	return t
}

// characters spreads a word's time evenly over its characters.
func characters(w engine.TranscriptWord) []Character {
	n := utf8.RuneCountInString(w.Text)
	out := make([]Character, 0, n)
	step := (w.End - w.Start) / float64(max(n, 1))
	i := 0
	for _, c := range w.Text {
		s := w.Start + float64(i)*step
		out = append(out, Character{Text: string(c), Start: ptr(round3(s)), End: ptr(round3(s + step))})
		i++
	}
	return out
}

// plainLowerCase says whether a recognizer's text has neither capitals nor punctuation.
func plainLowerCase(s string) bool {
	for _, c := range s {
		if unicode.IsUpper(c) || unicode.IsPunct(c) && c != '\'' {
			return false
		}
	}
	return true
}

func sentenceCase(words []engine.TranscriptWord) []engine.TranscriptWord {
	out := make([]engine.TranscriptWord, len(words))
	copy(out, words)
	for i := range out {
		if out[i].Text == "i" || strings.HasPrefix(out[i].Text, "i'") {
			out[i].Text = "I" + out[i].Text[1:]
		}
		if i == 0 || out[i].Start-out[i-1].End >= sentenceGap {
			out[i].Text = capitalize(out[i].Text)
			if i > 0 {
				out[i-1].Text += "."
			}
		}
	}
	if n := len(out); n > 0 {
		out[n-1].Text += "."
	}
	return out
}

func capitalize(s string) string {
	c, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(c)) + s[size:]
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func ptr[T any](v T) *T { return &v }

// iso6393 gives the ISO 639-3 code the API reports ("eng" for English) for an ISO 639-1 code;
// codes it does not know pass through.
func iso6393(code string) string {
	if c, ok := iso6393Codes[code]; ok {
		return c
	}
	return code
}

var iso6393Codes = map[string]string{
	"ar": "ara", "bg": "bul", "ca": "cat", "cs": "ces", "da": "dan", "de": "deu", "el": "ell", "en": "eng",
	"es": "spa", "fi": "fin", "fr": "fra", "hi": "hin", "hr": "hrv", "hu": "hun", "id": "ind", "it": "ita",
	"ja": "jpn", "ko": "kor", "ms": "msa", "nl": "nld", "no": "nor", "pl": "pol", "pt": "por", "ro": "ron",
	"ru": "rus", "sk": "slk", "sv": "swe", "ta": "tam", "tr": "tur", "uk": "ukr", "vi": "vie", "zh": "zho",
}
