package tts

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/voice"
)

// OpenAIVoices maps OpenAI's voice names onto premade voices of similar character, so tools that
// speak the OpenAI protocol work with their defaults.
var OpenAIVoices = map[string]string{
	"alloy":   "EXAVITQu4vr4xnSDxMaL", // Sarah
	"ash":     "CwhRBWXzGAHq8TQ4Fs17", // Roger
	"ballad":  "JBFqnCBsd6RMkjVDRZzb", // George
	"coral":   "cgSgspJ2msm6clMCkdW9", // Jessica
	"echo":    "pNInz6obpgDQGcFmaJgB", // Adam
	"fable":   "onwK4e9ZLuTAKqWW03F9", // Daniel
	"nova":    "21m00Tcm4TlvDq8ikWAM", // Rachel
	"onyx":    "nPczCjzI2devNBz1zQrb", // Brian
	"sage":    "Xb7hH8MSUJpSbSDYk0k2", // Alice
	"shimmer": "FGY2WhTYpPnrIDTdsKH5", // Laura
	"verse":   "TxGEqnHWrfWFTfGW9XjX", // Josh
}

// openAIFormats maps the protocol's six response_format values onto output formats (aac and
// flac exist only for this route).
var openAIFormats = map[string]string{"mp3": "mp3_44100_128", "opus": "opus_48000_64", "aac": "aac_24000_64", "flac": "flac_24000",
	"wav": "wav_24000", "pcm": "pcm_24000"}

// openAIFieldNames are the protocol's names for the fields Prepare checks, so errors name what
// the client sent.
var openAIFieldNames = map[string]string{"text": "input", "model_id": "model"}

type openAIBody struct {
	Model          string   `json:"model"`
	Input          string   `json:"input"`
	Voice          string   `json:"voice"`
	ResponseFormat string   `json:"response_format"`
	Speed          *float64 `json:"speed"`
	Instructions   string   `json:"instructions"`
}

// openAISpeech serves POST /v1/audio/speech in the OpenAI format (model, input, voice,
// response_format, speed, instructions). The voice may be an OpenAI voice name or any Timbre
// voice_id. instructions is accepted and not used: the engines cannot follow style prompts.
func (h *Handlers) openAISpeech(w http.ResponseWriter, r *http.Request) error {
	var b openAIBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	var v errs.Validator
	if b.Voice == "" {
		v.Add("body", "voice", "missing", "Field required.")
	}
	rf := b.ResponseFormat
	if rf == "" {
		rf = "mp3"
	}
	formatName, ok := openAIFormats[rf]
	if !ok {
		v.Add("body", "response_format", "enum", fmt.Sprintf("Unsupported response_format '%s': use mp3, opus, aac, flac, wav or pcm.", rf))
	}
	speed := 1.0
	if b.Speed != nil {
		speed = *b.Speed
		if math.IsNaN(speed) || speed < 0.25 || speed > 4 {
			v.Add("body", "speed", "value_error", "Input should be between 0.25 and 4.0.")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	voiceID := b.Voice
	if id, ok := OpenAIVoices[strings.ToLower(b.Voice)]; ok {
		voiceID = id
	}
	model := b.Model
	switch model {
	case "", "tts-1", "gpt-4o-mini-tts":
		model = "eleven_flash_v2_5"
	case "tts-1-hd":
		model = DefaultModel
	}
	format, _ := audio.ParseFormat(formatName)
	body := &Body{Text: b.Input, ModelID: &model}
	job, err := h.Svc.Prepare(r.Context(), access.CallerFrom(r.Context()), voiceID, body, format, true)
	if err != nil {
		return renameFields(err, openAIFieldNames)
	}
	// OpenAI's speed range (0.25–4) is wider than the API's voice setting; the engines take 0.5–2.
	job.Settings.Speed = math.Max(0.5, math.Min(2, speed))
	job.Prosody = job.Settings.Prosody(voice.Base(job.Voice))
	return h.Svc.Serve(w, r, job, true, false)
}

// renameFields gives a validation error's body fields the names the client used.
func renameFields(err error, names map[string]string) error {
	var ve *errs.Validation
	if !errors.As(err, &ve) {
		return err
	}
	for i, f := range ve.Fields {
		if len(f.Loc) == 2 && f.Loc[0] == "body" {
			if name, ok := f.Loc[1].(string); ok && names[name] != "" {
				f.Loc[1] = names[name]
				ve.Fields[i].Msg = regexp.MustCompile(`\b`+name+`\b`).ReplaceAllString(f.Msg, names[name])
			}
		}
	}
	return ve
}
