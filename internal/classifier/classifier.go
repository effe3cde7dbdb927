// Package classifier answers "did this Timbre server make this audio?": it decodes an uploaded
// file and looks for the server's watermark (internal/watermark), which every audio Timbre's
// text to speech produces carries. It recognises this server's audio only; it is not a general
// detector of synthetic speech. The check is free and stores nothing.
package classifier

import (
	"context"
	"errors"
	"fmt"

	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/watermark"
)

// Service classifies audio against one server's watermark.
type Service struct {
	Watermark *watermark.Watermark
}

// Result is the answer of POST /v1/speech-classifier.
type Result struct {
	// AIGeneratedProbability is the probability that this server made the audio (from the
	// watermark's score; ~0 for audio it did not make, whoever made that).
	AIGeneratedProbability float64 `json:"ai_generated_probability"`
	WatermarkDetected      bool    `json:"watermark_detected"`
	// WatermarkScore is the detector's correlation peak in standard deviations; unmarked audio
	// scores about 4–5, marked audio ≥ WatermarkThreshold.
	WatermarkScore     float64 `json:"watermark_score"`
	WatermarkThreshold float64 `json:"watermark_threshold"`
	DurationSecs       float64 `json:"duration_secs"`
	// AnalyzedSecs is how much of the audio was examined (the first MaxSeconds).
	AnalyzedSecs float64 `json:"analyzed_secs"`
	// Detector names what was checked: this server's watermark.
	Detector string `json:"detector"`
}

// Detector is the Result's detector value.
const Detector = "timbre_watermark_v1"

// Classify decodes data (any container and codec ffmpeg reads) and looks for the watermark.
// Empty, undecodable or too short files are a 422 naming the file field.
func (s *Service) Classify(ctx context.Context, data []byte) (*Result, error) {
	if len(data) == 0 {
		return nil, fileError("The file is empty.")
	}
	pcm, err := engine.DecodeForRecognition(ctx, data)
	switch {
	case errors.Is(err, engine.ErrAudioTooShort):
		return nil, fileError(fmt.Sprintf("The audio is shorter than %g s, too short to look for the watermark.", watermark.MinSeconds))
	case errors.Is(err, engine.ErrNotAudio):
		return nil, fileError("The file is not audio or video that can be decoded (or it is corrupt).")
	case err != nil:
		return nil, err
	}
	secs := pcm.Seconds()
	// Below MinSeconds the detector cannot tell; "no watermark found" would be a guess.
	if secs < watermark.MinSeconds {
		return nil, fileError(fmt.Sprintf("The audio is %.0f ms long; at least %.0f ms is needed to look for the watermark.", 1000*secs, 1000*watermark.MinSeconds))
	}
	r := s.Watermark.Detect(pcm.Samples, pcm.SampleRate)
	return &Result{
		AIGeneratedProbability: r.Probability,
		WatermarkDetected:      r.Detected,
		WatermarkScore:         r.Score,
		WatermarkThreshold:     watermark.Threshold,
		DurationSecs:           secs,
		AnalyzedSecs:           min(secs, watermark.MaxSeconds),
		Detector:               Detector,
	}, nil
}

func fileError(msg string) error {
	var v errs.Validator
	v.Add("body", "file", "value_error", msg)
	return v.Err()
}
