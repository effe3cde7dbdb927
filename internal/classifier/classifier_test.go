package classifier

import (
	"context"
	"errors"
	"math"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/watermark"
)

// A marked recording is recognised through an mp3; the same audio unmarked is not; audio too
// short to tell is refused naming the file.
func TestClassify(t *testing.T) {
	wm, err := watermark.New([]byte("classifier-test-key-0123456789ab"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Watermark: wm}
	ctx := context.Background()
	const rate = 22050
	tone := func(sec float64) []int16 { // a warbling tone: loud enough in the mark's band
		out := make([]int16, int(sec*rate))
		for i := range out {
			x := float64(i) / rate
			out[i] = int16(6000 * math.Sin(2*math.Pi*(300+200*math.Sin(2*math.Pi*3*x))*x) * (1 + math.Sin(2*math.Pi*1.5*x)) / 2)
		}
		return out
	}
	mp3, _ := audio.ParseFormat("mp3_44100_128")
	encode := func(pcm []int16) []byte {
		b, err := audio.Encode(ctx, pcm, rate, mp3)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain := tone(3)
	marked := append([]int16(nil), plain...)
	e, _ := wm.NewEmbedder(rate)
	e.Mark(marked)

	r, err := s.Classify(ctx, encode(marked))
	if err != nil || !r.WatermarkDetected || r.AIGeneratedProbability < 0.9 || math.Abs(r.DurationSecs-3) > 0.1 {
		t.Fatalf("marked: %+v, %v", r, err)
	}
	r, err = s.Classify(ctx, encode(plain))
	if err != nil || r.WatermarkDetected || r.AIGeneratedProbability > 0.1 {
		t.Fatalf("unmarked: %+v, %v", r, err)
	}
	for name, data := range map[string][]byte{"empty": nil, "text": []byte("not audio"), "300 ms": encode(plain[:rate*3/10])} {
		_, err := s.Classify(ctx, data)
		var fe *errs.Validation
		if !errors.As(err, &fe) || len(fe.Fields) != 1 || fe.Fields[0].Loc[1] != "file" {
			t.Errorf("%s: %v", name, err)
		}
	}
}
