package stt

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"timbre/internal/entities"
)

// Multichannel transcription (use_multi_channel): each channel of the audio is one speaker and
// is transcribed on its own (in parallel, as far as the recognizer's pool allows). The answer is
// the reference's MultichannelSpeechToTextResponseModel, one transcript per channel, or with
// multichannel_output_style=combined one transcript of every channel's words in time order. Every
// entry carries its channel_index and the speaker of its channel (channel 0 → speaker_0, …), as
// ElevenLabs assigns them; diarize and num_speakers cannot be combined with it. A file of one
// channel gets the ordinary single transcript.

// MaxChannels is the most channels use_multi_channel transcribes (ElevenLabs' limit).
const MaxChannels = 5

// Multichannel output styles (multichannel_output_style).
const (
	StyleSeparate = "separate"
	StyleCombined = "combined"
)

// Multichannel is the API's MultichannelSpeechToTextResponseModel.
type Multichannel struct {
	Transcripts     []Transcript `json:"transcripts"`
	TranscriptionID string       `json:"transcription_id,omitempty"`
	// AudioDurationSecs is the audio transcribed across all channels: the file's duration times
	// its channels, which is also what is charged (each transcript has the file's duration).
	AudioDurationSecs float64 `json:"audio_duration_secs"`
}

// Result is what a transcription gives: one transcript, or one per channel (Multichannel) for
// use_multi_channel on audio of several channels in the separate style. Exactly one is set; it
// is encoded as that one alone, as the API returns it.
type Result struct {
	Transcript   *Transcript
	Multichannel *Multichannel
}

// MarshalJSON encodes the transcript or the multichannel model.
func (r Result) MarshalJSON() ([]byte, error) {
	if r.Multichannel != nil {
		return json.Marshal(r.Multichannel)
	}
	return json.Marshal(r.Transcript)
}

// UnmarshalJSON reads either shape (a stored result, a webhook payload).
func (r *Result) UnmarshalJSON(data []byte) error {
	var probe struct {
		Transcripts json.RawMessage `json:"transcripts"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	*r = Result{}
	if len(probe.Transcripts) > 0 && !bytes.Equal(probe.Transcripts, []byte("null")) {
		r.Multichannel = &Multichannel{}
		return json.Unmarshal(data, r.Multichannel)
	}
	r.Transcript = &Transcript{}
	return json.Unmarshal(data, r.Transcript)
}

// ID is the result's transcription id.
func (r *Result) ID() string {
	if r.Multichannel != nil {
		return r.Multichannel.TranscriptionID
	}
	return r.Transcript.TranscriptionID
}

func (r *Result) setID(id string) {
	if r.Multichannel != nil {
		r.Multichannel.TranscriptionID = id
		return
	}
	r.Transcript.TranscriptionID = id
}

// Single is the result as one transcript: the transcript itself, or the channels combined in
// time order (see Combine) without their exports.
func (r *Result) Single() *Transcript {
	if r.Multichannel == nil {
		return r.Transcript
	}
	t := Combine(r.Multichannel.Transcripts)
	t.TranscriptionID = r.Multichannel.TranscriptionID
	return t
}

// channelSpeaker is the speaker id of a channel's words.
func channelSpeaker(channel int) string { return fmt.Sprintf("speaker_%d", channel) }

// markChannel tags t and every entry of it with channel and that channel's speaker.
func markChannel(t *Transcript, channel int) {
	t.ChannelIndex = ptr(channel)
	speaker := channelSpeaker(channel)
	for i := range t.Words {
		t.Words[i].ChannelIndex = ptr(channel)
		t.Words[i].SpeakerID = ptr(speaker)
	}
}

// Combine merges per-channel transcripts into one: the words and audio events of every channel
// in order of start time (a channel's own order, then channel order, where times are equal or
// absent), a spacing between each two (carrying the channel and speaker of the entry before it,
// spanning the gap when there is one), and the text of those entries. The language is that of
// the first channel; the duration that of the longest channel (the audio's). Exports are not
// carried over.
func Combine(ts []Transcript) *Transcript {
	out := &Transcript{Words: []Word{}}
	if len(ts) == 0 {
		return out
	}
	out.LanguageCode, out.LanguageProbability = ts[0].LanguageCode, ts[0].LanguageProbability
	type entry struct {
		Word
		ch, k int // the channel and the entry's place among that channel's words
	}
	var entries []entry
	for ch, t := range ts {
		out.AudioDurationSecs = max(out.AudioDurationSecs, t.AudioDurationSecs)
		for k, w := range t.Words {
			if w.Type != "spacing" {
				entries = append(entries, entry{w, ch, k})
			}
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(deref(a.Start), deref(b.Start)) })
	texts := make([]string, 0, len(entries))
	moved := make([]map[int]int, len(ts)) // channel → entry → its rune offset in the combined text
	for ch := range moved {
		moved[ch] = map[int]int{}
	}
	at := 0
	for i, e := range entries {
		w := e.Word
		if i > 0 {
			prev := entries[i-1].Word
			sp := Word{Text: " ", Type: "spacing", SpeakerID: prev.SpeakerID, ChannelIndex: prev.ChannelIndex}
			if prev.End != nil && w.Start != nil {
				sp.Start, sp.End = ptr(*prev.End), ptr(max(*w.Start, *prev.End))
			}
			out.Words = append(out.Words, sp)
			at++
		}
		moved[e.ch][e.k] = at
		at += utf8.RuneCountInString(w.Text)
		out.Words = append(out.Words, w)
		texts = append(texts, w.Text)
	}
	out.Text = strings.Join(texts, " ")
	out.Entities = combineEntities(ts, moved, out.Text)
	if len(entries) == 0 {
		var parts []string
		for _, t := range ts {
			if s := strings.TrimSpace(t.Text); s != "" {
				parts = append(parts, s)
			}
		}
		out.Text = strings.Join(parts, " ")
	}
	return out
}

// combineEntities carries the channels' entities (offsets into each channel's text) into the
// combined text: an entity moves with the words it lies in. One whose words another channel's
// words came between (its text no longer in one piece there) is left out. Nil when no channel
// has entities (entity_detection was not asked for).
func combineEntities(ts []Transcript, moved []map[int]int, text string) *[]entities.Entity {
	var out []entities.Entity
	asked := false
	runes := []rune(text)
	for ch, t := range ts {
		if t.Entities == nil {
			continue
		}
		asked = true
		// Each entry's rune offset in the channel's text, which is its entries laid end to end.
		starts := make([]int, len(t.Words)+1)
		for k, w := range t.Words {
			starts[k+1] = starts[k] + utf8.RuneCountInString(w.Text)
		}
		if starts[len(t.Words)] != utf8.RuneCountInString(t.Text) {
			continue
		}
		for _, e := range *t.Entities {
			k, _ := slices.BinarySearch(starts[1:], e.StartChar+1) // the entry holding the first rune
			from, ok := moved[ch][k]
			if !ok || k >= len(t.Words) {
				continue
			}
			s := from + e.StartChar - starts[k]
			end := s + (e.EndChar - e.StartChar)
			if s < 0 || end > len(runes) || string(runes[s:end]) != e.Text {
				continue
			}
			out = append(out, entities.Entity{Text: e.Text, Type: e.Type, StartChar: s, EndChar: end})
		}
	}
	if !asked {
		return nil
	}
	slices.SortStableFunc(out, func(a, b entities.Entity) int { return cmp.Compare(a.StartChar, b.StartChar) })
	if out == nil {
		out = []entities.Entity{}
	}
	return &out
}
