package engine_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"

	"timbre/internal/engine"
	"timbre/internal/engine/enginetest"
)

func TestOpenAICloner(t *testing.T) {
	fake := &enginetest.CustomVoiceServer{Key: "sk-clone"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := engine.NewOpenAICloner(engine.OpenAICloneConfig{BaseURL: srv.URL, APIKey: "sk-clone", Model: "gpt-4o-mini-tts", Consent: "cons_1"})
	if err != nil {
		t.Fatal(err)
	}
	sample := []byte("RIFF....WAVE sample bytes")
	id, err := c.CreateVoice(context.Background(), "Ada", "ada.wav", "audio/wav", sample)
	if err != nil {
		t.Fatal(err)
	}
	created, _ := fake.Snapshot()
	if id != "voice_1" || len(created) != 1 {
		t.Fatalf("id %q, created %d", id, len(created))
	}
	got := created[0]
	if got.Name != "Ada" || got.Consent != "cons_1" || got.FileName != "ada.wav" || got.ContentType != "audio/wav" || !bytes.Equal(got.Audio, sample) {
		t.Fatalf("server received %+v", got)
	}

	// Speech with the created voice sends its id as {"id": …}.
	s := c.Synthesizer()
	if s.Name() != c.Engine() || c.Engine() != "openai-clone" {
		t.Fatalf("names %q %q", s.Name(), c.Engine())
	}
	res, err := s.Synthesize(context.Background(), engine.Request{Text: "Hello there.", Voice: id})
	if err != nil {
		t.Fatal(err)
	}
	if res.Audio.SampleRate != enginetest.CustomVoiceRate || len(res.Audio.Samples) != enginetest.CustomVoiceRate*3/2 {
		t.Fatalf("audio %d Hz, %d samples", res.Audio.SampleRate, len(res.Audio.Samples))
	}
	if _, speeches := fake.Snapshot(); len(speeches) != 1 || speeches[0] != "voice_1" {
		t.Fatalf("speech requests %v", speeches)
	}
	// An unknown id and an empty one fail.
	if _, err := s.Synthesize(context.Background(), engine.Request{Text: "Hi.", Voice: "voice_9"}); err == nil {
		t.Fatal("unknown voice id spoke")
	}
	if _, err := s.Synthesize(context.Background(), engine.Request{Text: "Hi."}); err == nil {
		t.Fatal("no voice id spoke")
	}

	// A failing server is an error naming the engine, no id.
	fake.SetFail(true)
	if id, err := c.CreateVoice(context.Background(), "Bob", "b.wav", "audio/wav", sample); err == nil || id != "" {
		t.Fatalf("failing server: id %q err %v", id, err)
	}
}
