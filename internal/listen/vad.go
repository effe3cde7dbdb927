// Package listen analyses speech audio (16 kHz mono PCM) for speech to text: voice activity
// (WebRTC's VAD), speaker diarization (MFCC statistics clustered per speaker) and audio events
// (music, noise, laughter-like bursts). It knows nothing of recognizers or HTTP.
package listen

/*
#cgo pkg-config: webrtc-audio-processing
#include <stdint.h>
#include <stdlib.h>

// Debian's libwebrtc-audio-processing-dev (0.3) exports WebRTC's GMM voice activity detector
// from its library but ships only the audio-processing headers, so the four functions used
// here are declared as webrtc/common_audio/vad/include/webrtc_vad.h of that version has them.
typedef struct WebRtcVadInst VadInst;
VadInst *WebRtcVad_Create(void);
void WebRtcVad_Free(VadInst *handle);
int WebRtcVad_Init(VadInst *handle);
int WebRtcVad_set_mode(VadInst *handle, int mode);
int WebRtcVad_Process(VadInst *handle, int fs, const int16_t *audio_frame, size_t frame_length);

// timbre_vad_frames classifies n whole frames of frame samples each, writing 1 (speech), 0
// (not) or -1 (error) per frame into out: one cgo call for the whole recording.
static int timbre_vad_frames(int mode, int rate, const int16_t *pcm, size_t frame, size_t n, int8_t *out) {
	VadInst *v = WebRtcVad_Create();
	if (v == NULL)
		return -1;
	if (WebRtcVad_Init(v) != 0 || WebRtcVad_set_mode(v, mode) != 0) {
		WebRtcVad_Free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (int8_t)WebRtcVad_Process(v, rate, pcm + i * frame, frame);
	WebRtcVad_Free(v);
	return 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Rate is the sample rate everything in this package works at.
const Rate = 16000

// Voice activity: WebRTC's VAD (a Gaussian mixture model over six sub-band energies, adapting
// to the noise floor) classifies 30 ms frames in its "aggressive" mode; the frame decisions are
// then smoothed into segments: speech begins at a voiced frame, ends after vadHangFrames
// unvoiced ones, gets vadPad of context on each side, and segments shorter than vadMinSpeech
// are dropped as clicks.
const (
	vadMode       = 2
	VADFrame      = 480 // samples per frame of VoiceFrames: 30 ms at 16 kHz
	vadHangFrames = 10  // 300 ms of non-speech ends a segment
	vadPad        = 0.06
	vadMinSpeech  = 0.12
)

// Segment is a stretch of audio in seconds from the start of the recording.
type Segment struct{ Start, End float64 }

// Duration is the segment's length in seconds.
func (s Segment) Duration() float64 { return s.End - s.Start }

// VoiceFrames classifies each whole 30 ms frame of samples (16 kHz) as speech or not.
func VoiceFrames(samples []int16) ([]bool, error) {
	n := len(samples) / VADFrame
	if n == 0 {
		return nil, nil
	}
	flags := make([]int8, n)
	if C.timbre_vad_frames(vadMode, Rate, (*C.int16_t)(unsafe.Pointer(&samples[0])), VADFrame, C.size_t(n),
		(*C.int8_t)(unsafe.Pointer(&flags[0]))) != 0 {
		return nil, errors.New("listen: cannot start the WebRTC voice activity detector")
	}
	out := make([]bool, n)
	for i, f := range flags {
		if f < 0 {
			return nil, errors.New("listen: the WebRTC voice activity detector refused a frame")
		}
		out[i] = f == 1
	}
	return out, nil
}

// SpeechSegments finds the stretches of speech in samples (16 kHz mono); see the constants above.
func SpeechSegments(samples []int16) ([]Segment, error) {
	frames, err := VoiceFrames(samples)
	if err != nil {
		return nil, err
	}
	return smoothVoice(frames, float64(len(samples))/Rate), nil
}

// smoothVoice turns frame decisions into padded segments, merging those the padding joins.
func smoothVoice(frames []bool, total float64) []Segment {
	const frameSec = float64(VADFrame) / Rate
	var out []Segment
	start, quiet := -1, 0
	emit := func(from, to int) {
		s := Segment{max(0, float64(from)*frameSec-vadPad), min(total, float64(to)*frameSec+vadPad)}
		if float64(to-from)*frameSec < vadMinSpeech {
			return
		}
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = s.End
			return
		}
		out = append(out, s)
	}
	for i, v := range frames {
		switch {
		case v && start < 0:
			start, quiet = i, 0
		case v:
			quiet = 0
		case start >= 0:
			quiet++
			if quiet >= vadHangFrames {
				emit(start, i-quiet+1)
				start = -1
			}
		}
	}
	if start >= 0 {
		emit(start, len(frames)-quiet)
	}
	return out
}
