package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
)

// OpenAICloneConfig configures a neural voice cloner that speaks OpenAI's custom-voices protocol:
// POST /v1/audio/voices (multipart: name, audio_sample, consent) answers a voice object whose id
// ("voice_…") POST /v1/audio/speech then takes as {"voice": {"id": …}}.
type OpenAICloneConfig struct {
	BaseURL string // with or without "/v1"
	APIKey  string // bearer token when set
	Model   string // the speech model (e.g. "gpt-4o-mini-tts")
	// Consent is the id of a consent recording (POST /v1/audio/voice_consents, "cons_…") the
	// server requires with every voice; empty sends none (servers that do not ask for one).
	Consent    string
	Name       string // the engine's name; default "openai-clone"
	HTTPClient *http.Client
}

// OpenAICloner creates voices on the server; Synthesizer speaks with them.
type OpenAICloner struct {
	cfg    OpenAICloneConfig
	server openAIServer
	synth  *OpenAI
}

// NewOpenAICloner checks cfg and fills in its defaults.
func NewOpenAICloner(cfg OpenAICloneConfig) (*OpenAICloner, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai clone: BaseURL is required")
	}
	if cfg.Name == "" {
		cfg.Name = "openai-clone"
	}
	synth, err := NewOpenAI(OpenAIConfig{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Name: cfg.Name,
		VoiceIDs: true, HTTPClient: cfg.HTTPClient})
	if err != nil {
		return nil, err
	}
	return &OpenAICloner{cfg: cfg, server: newOpenAIServer(cfg.Name, cfg.BaseURL, cfg.APIKey, "/audio/voices", cfg.HTTPClient), synth: synth}, nil
}

// Engine is the name of the synthesizer that speaks the created voices.
func (c *OpenAICloner) Engine() string { return c.cfg.Name }

// Synthesizer speaks with the server's custom voices (voice names are their ids).
func (c *OpenAICloner) Synthesizer() *OpenAI { return c.synth }

// CreateVoice uploads one reference recording and returns the server's voice id.
func (c *OpenAICloner) CreateVoice(ctx context.Context, name, fileName, contentType string, sample []byte) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("name", name)
	if c.cfg.Consent != "" {
		_ = w.WriteField("consent", c.cfg.Consent)
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="audio_sample"; filename=%q`, fileName))
	h.Set("Content-Type", contentType)
	part, err := w.CreatePart(h)
	if err != nil {
		return "", err
	}
	if _, err := part.Write(sample); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	resp, data, err := c.server.post(ctx, w.FormDataContentType(), "application/json", &body, 1<<20, "the voice")
	if err != nil {
		return "", err
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: server answered %s: %s", c.cfg.Name, resp.Status, strings.TrimSpace(string(data[:min(len(data), 512)])))
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.ID == "" {
		return "", fmt.Errorf("%s: the answer is not a voice object with an id", c.cfg.Name)
	}
	return v.ID, nil
}
