// Package audio turns mono 16-bit PCM into every output format the ElevenLabs-compatible API
// offers (mp3, opus, raw pcm, µ-law, A-law, wav), both in one go and as a low-latency stream,
// and decodes/probes audio with ffmpeg.
//
// opus is encoded by an ffmpeg child process; mp3 by libmp3lame in this process (cgo), and pcm,
// ulaw, alaw and wav in pure Go (resampling in Go for all of them), which keeps the hot paths free
// of process start-up, pipes and muxer latency.
package audio

import (
	"fmt"
	"strings"
)

// Codec names used in Format.Codec.
const (
	CodecMP3  = "mp3"
	CodecPCM  = "pcm" // raw signed 16-bit little-endian mono, no header
	CodecULaw = "ulaw"
	CodecALaw = "alaw"
	CodecOpus = "opus" // Opus in an Ogg container
	CodecWAV  = "wav"  // RIFF/WAVE, 16-bit PCM mono
	CodecAAC  = "aac"  // AAC-LC in ADTS frames (OpenAI protocol only)
	CodecFLAC = "flac" // FLAC, 16-bit mono (OpenAI protocol only)
)

// Format is one API output_format value, e.g. "mp3_44100_128".
type Format struct {
	Name       string // the API value
	Codec      string // one of the Codec* constants
	SampleRate int    // Hz, exact output sample rate
	Bitrate    int    // bits per second; for uncompressed formats the raw rate (pcm: 16·rate, ulaw/alaw: 8·rate)
}

// DefaultFormat is the output_format used when a request does not name one.
const DefaultFormat = "mp3_44100_128"

// AutoFormat is the extra "auto" value of the music set; ParseFormat resolves it to DefaultFormat.
const AutoFormat = "auto"

// StreamingFormats is the general / streaming output_format set (21 values).
var StreamingFormats = []string{
	"mp3_22050_32", "mp3_24000_48", "mp3_44100_32", "mp3_44100_64", "mp3_44100_96", "mp3_44100_128", "mp3_44100_192",
	"pcm_8000", "pcm_16000", "pcm_22050", "pcm_24000", "pcm_32000", "pcm_44100", "pcm_48000",
	"ulaw_8000", "alaw_8000",
	"opus_48000_32", "opus_48000_64", "opus_48000_96", "opus_48000_128", "opus_48000_192",
}

// WAVFormats are the wav values that only the non-streaming endpoints accept.
var WAVFormats = []string{"wav_8000", "wav_16000", "wav_22050", "wav_24000", "wav_32000", "wav_44100", "wav_48000"}

// NonStreamingFormats is StreamingFormats plus the wav values (28 values).
var NonStreamingFormats = concat(StreamingFormats, WAVFormats)

// FormatsFor is the output_format set of a speech route: StreamingFormats for its streaming
// form, NonStreamingFormats otherwise.
func FormatsFor(stream bool) []string {
	if stream {
		return StreamingFormats
	}
	return NonStreamingFormats
}

// MusicFormats is StreamingFormats plus "auto" and the 48 kHz mp3 values, without wav (26 values).
var MusicFormats = concat(StreamingFormats, []string{AutoFormat, "mp3_48000_128", "mp3_48000_192", "mp3_48000_240", "mp3_48000_320"})

// OpenAIOnlyFormats are what the OpenAI protocol's response_format aac and flac map onto; no
// ElevenLabs endpoint offers them (they are in none of the sets above).
var OpenAIOnlyFormats = []string{"aac_24000_64", "flac_24000"}

func concat(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// known holds every concrete format name of all three sets.
var known = func() map[string]bool {
	m := map[string]bool{}
	for _, set := range [][]string{NonStreamingFormats, MusicFormats, OpenAIOnlyFormats} {
		for _, n := range set {
			if n != AutoFormat {
				m[n] = true
			}
		}
	}
	return m
}()

// ParseFormat parses an output_format value. Only values listed in one of the API sets are
// accepted; whether a value is allowed on a particular endpoint is up to the caller (check the
// set with slices.Contains). "auto" resolves to DefaultFormat.
func ParseFormat(name string) (Format, error) {
	if name == AutoFormat {
		name = DefaultFormat
	}
	if !known[name] {
		return Format{}, fmt.Errorf("audio: unsupported output_format %q", name)
	}
	parts := strings.Split(name, "_")
	f := Format{Name: name, Codec: parts[0]}
	fmt.Sscan(parts[1], &f.SampleRate)
	switch f.Codec {
	case CodecMP3, CodecOpus, CodecAAC:
		var kbps int
		fmt.Sscan(parts[2], &kbps)
		f.Bitrate = kbps * 1000
	case CodecPCM, CodecWAV, CodecFLAC:
		f.Bitrate = 16 * f.SampleRate
	case CodecULaw, CodecALaw:
		f.Bitrate = 8 * f.SampleRate
	}
	return f, nil
}

// ContentType is the HTTP Content-Type of audio in this format.
func (f Format) ContentType() string {
	switch f.Codec {
	case CodecMP3:
		return "audio/mpeg"
	case CodecWAV:
		return "audio/wav"
	case CodecOpus:
		return "audio/ogg"
	case CodecAAC:
		return "audio/aac"
	case CodecFLAC:
		return "audio/flac"
	case CodecULaw:
		return "audio/basic"
	case CodecALaw:
		return "audio/x-alaw-basic"
	default:
		return "audio/pcm"
	}
}

// FFmpegEncoded says whether ffmpeg encodes f (opus, aac, flac); the rest is done in this process.
func (f Format) FFmpegEncoded() bool {
	switch f.Codec {
	case CodecOpus, CodecAAC, CodecFLAC: // mp3 is encoded in process by libmp3lame
		return true
	}
	return false
}

// Ext is the file name extension (without dot) for this format.
func (f Format) Ext() string { return f.Codec }

// Tiers named by RequiresTier.
const (
	TierCreator = "creator"
	TierPro     = "pro"
)

// tierRules are the subscription requirements described in the API spec, first match wins.
var tierRules = []struct {
	match func(Format) bool
	tier  string
}{
	// "mp3_*_192 needs Creator or above"; the music-only 240/320 kbps values are higher still,
	// so they get the same rule.
	{func(f Format) bool { return f.Codec == CodecMP3 && f.Bitrate >= 192000 }, TierCreator},
	// "44.1 kHz PCM/WAV needs Pro or above".
	{func(f Format) bool { return (f.Codec == CodecPCM || f.Codec == CodecWAV) && f.SampleRate == 44100 }, TierPro},
}

// RequiresTier returns the minimum subscription tier ("creator", "pro") needed for f, or "".
func RequiresTier(f Format) string {
	for _, r := range tierRules {
		if r.match(f) {
			return r.tier
		}
	}
	return ""
}
