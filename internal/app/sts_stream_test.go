package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"timbre/internal/audio"
	"timbre/internal/convert"
	"timbre/internal/engine"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voiceprint"
)

// gatedConverter is the real converter, except that its second call waits for release (or for
// its context to end): a stream that waits for the whole conversion before sending anything
// cannot send its first bytes while the second piece is held.
type gatedConverter struct {
	convert.Converter
	calls   atomic.Int32
	release chan struct{}
}

func (g *gatedConverter) Convert(ctx context.Context, pcm engine.PCM, src *voiceprint.Print, t convert.Target) (engine.PCM, error) {
	if g.calls.Add(1) == 2 {
		select {
		case <-g.release:
		case <-ctx.Done():
			return engine.PCM{}, ctx.Err()
		case <-time.After(20 * time.Second):
			return engine.PCM{}, errors.New("the first piece's audio never reached the client")
		}
	}
	return g.Converter.Convert(ctx, pcm, src, t)
}

// TestSpeechToSpeechStreamsPieceByPiece: POST …/speech-to-speech/{voice}/stream sends the first
// piece's audio (the recording up to a pause) before it converts the rest. A recording of three
// sentences with pauses between them streams in pieces: the client gets audio while the second
// piece is held, and the whole is the recording's length, charged in full and kept in the
// history as what was streamed. A client that hangs up after the first piece pays for the
// seconds it got, and the history keeps that audio.
func TestSpeechToSpeechStreamsPieceByPiece(t *testing.T) {
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	var rec []int16
	for _, s := range []string{"The birch canoe slid on the smooth planks.", "Glue the sheet to the dark blue background.", "It's easy to tell the depth of a well."} {
		pcm, rate, err := audio.Decode(ctx, e.speakAs(adam, s))
		if err != nil {
			t.Fatal(err)
		}
		rec = slices.Concat(rec, audio.Resample(pcm, rate, 16000), make([]int16, 16000*6/10)) // 0.6 s pause
	}
	seconds := float64(len(rec)) / 16000
	upload := audio.PCMBytes(rec)
	fields := map[string]any{"file_format": "pcm_s16le_16"}

	gate := &gatedConverter{Converter: e.app.STS.Converter, release: make(chan struct{})}
	e.app.STS.Converter = gate
	post := func(query string) *http.Response {
		ct, data := multipartBody(t, "audio", upload, fields)
		req, _ := http.NewRequest("POST", e.srv.URL+"/v1/speech-to-speech/"+rachel+"/stream?"+query, bytes.NewReader(data))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("xi-api-key", e.key)
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 {
			body, _ := io.ReadAll(res.Body)
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
		return res
	}

	// Whole stream: the first bytes arrive while the second piece is held.
	before := e.workspace().CharacterCount
	res := post("output_format=pcm_16000")
	first := make([]byte, 3200)
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatalf("no audio before the second piece was converted: %v", err)
	}
	close(gate.release)
	rest, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	body := append(first, rest...)
	if n := gate.calls.Load(); n < 3 {
		t.Fatalf("the recording was converted in %d pieces, want one per sentence", n)
	}
	if got := float64(len(body)/2) / 16000; math.Abs(got-seconds) > 0.001 {
		t.Fatalf("streamed %.3f s for a %.3f s recording", got, seconds)
	}
	want := plan.STSCredits(seconds)
	if got := e.workspace().CharacterCount - before; got != want || res.Header.Get("character-cost") != itoa(want) {
		t.Fatalf("charged %d (header %s), want %d", got, res.Header.Get("character-cost"), want)
	}
	id := res.Header.Get("history-item-id")
	dl := e.do("GET", "/v1/history/"+id+"/audio", e.key, nil)
	expect(t, dl, 200)
	if !bytes.Equal(dl.body, body) {
		t.Fatalf("the history audio (%d bytes) is not what was streamed (%d bytes)", len(dl.body), len(body))
	}
	// The converted speech is Rachel's pitch, not the recording's.
	conv, target := e.printOfPCM(audio.PCMSamples(body), 16000), e.printOf(rachel, "The birch canoe slid on the smooth planks.")
	if dev := math.Abs(conv.F0Median-target.F0Median) / target.F0Median; dev > 0.2 {
		t.Fatalf("streamed median F0 %.1f Hz, Rachel's %.1f Hz", conv.F0Median, target.F0Median)
	}

	// Cut short: the client reads the first piece and hangs up while the second is held.
	gate.calls.Store(0)
	gate.release = make(chan struct{})
	before = e.workspace().CharacterCount
	res = post("output_format=pcm_16000")
	got := make([]byte, 3200)
	if _, err := io.ReadFull(res.Body, got); err != nil {
		t.Fatal(err)
	}
	id = res.Header.Get("history-item-id")
	res.Body.Close()
	var charged int64
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if h := e.do("GET", "/v1/history/"+id+"/audio", e.key, nil); h.StatusCode == 200 {
			charged = e.workspace().CharacterCount - before
			got = h.body
			break
		}
	}
	part := float64(len(got)/2) / 16000
	if part < 1 || part > seconds/2 {
		t.Fatalf("the cut stream's history holds %.2f s of audio, want the first piece of %.2f s", part, seconds)
	}
	if want := plan.STSCredits(part); charged != want {
		t.Fatalf("the cut stream charged %d credits, want %d for the %.2f s sent", charged, want, part)
	}
}
