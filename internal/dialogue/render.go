package dialogue

import (
	"context"
	"math"
	"unicode/utf8"

	"timbre/internal/audio"
	"timbre/internal/tts"
)

// VoiceSegment is where one line's voice speaks (VoiceSegment of the reference): times in the
// audio, and the line's characters in the alignment's characters array (end exclusive).
type VoiceSegment struct {
	VoiceID            string  `json:"voice_id"`
	StartTimeSeconds   float64 `json:"start_time_seconds"`
	EndTimeSeconds     float64 `json:"end_time_seconds"`
	CharacterStartIdx  int     `json:"character_start_index"`
	CharacterEndIdx    int     `json:"character_end_index"`
	DialogueInputIndex int     `json:"dialogue_input_index"`
}

// Alignments are the dialogue's character alignments over its joined text.
type Alignments struct {
	Alignment           tts.Alignment
	NormalizedAlignment tts.Alignment
}

// rendered is one line's audio at the dialogue's rate and its characters' times from the
// line's start.
type rendered struct {
	pcm        []int16
	orig, norm tts.Alignment
}

// renderLine speaks one line: its text pieces through the TTS pipeline (with the prosody and
// whisper its tags ask for), its tags as silence or sounds. Every character of the line is in
// the alignments; a tag's characters span the audio it became.
func (s *Service) renderLine(ctx context.Context, j *Job, l *line, rate int) (*rendered, error) {
	out := &rendered{}
	var md mood
	whisper := false
	seconds := func() float64 { return float64(len(out.pcm)) / float64(rate) }
	for k, p := range l.pieces {
		text := l.text[p.from:p.to]
		start := seconds()
		tj := l.jobs[k]
		if p.isTag || tj == nil {
			if p.isTag {
				switch p.tag.kind {
				case tagPause:
					out.pcm = append(out.pcm, silence(p.tag.seconds, rate)...)
				case tagWhisper:
					whisper = true
				case tagEmotion:
					md = p.tag.mood
				case tagSound:
					out.pcm = append(out.pcm, s.tagSound(p.tag, rate, j.seed+uint64(l.index)<<16+uint64(k))...)
				}
			}
			spanChars(&out.orig, text, start, seconds())
			spanChars(&out.norm, text, start, seconds())
			continue
		}
		job := *tj
		if md.rate > 0 {
			job.Prosody = md.apply(job.Prosody)
		}
		filter := false
		if whisper {
			if wv, ok := whisperVoice(job.Voice.Engine, job.Voice.EngineVoice); ok {
				v := *job.Voice
				v.EngineVoice = wv
				job.Voice = &v
			} else {
				filter = true
			}
		}
		pcm, r, al, err := s.TTS.Render(ctx, &job)
		if err != nil {
			return nil, err
		}
		if r != rate && r > 0 {
			pcm = audio.Resample(pcm, r, rate)
		}
		if filter {
			whisperize(pcm, rate, j.seed+uint64(l.index)<<16+uint64(k))
		}
		out.pcm = append(out.pcm, pcm...)
		shifted(&out.orig, al.Alignment, start, seconds())
		shifted(&out.norm, al.NormalizedAlignment, start, seconds())
	}
	return out, nil
}

// tagSound is a non-speech tag's audio: TagSounds' rendering, else a short silence.
func (s *Service) tagSound(t tag, rate int, seed uint64) []int16 {
	if s.Tags != nil {
		if f, ok := s.Tags.RenderTag(t.name, rate, seed); ok {
			return floatPCM(f)
		}
	}
	if t.seconds > 0 {
		return silence(t.seconds, rate)
	}
	return silence(tagSilence, rate)
}

// spanChars adds text's characters to a, spread evenly over [from, to].
func spanChars(a *tts.Alignment, text string, from, to float64) {
	n := utf8.RuneCountInString(text)
	i := 0
	for _, r := range text {
		s := from + (to-from)*float64(i)/float64(n)
		e := from + (to-from)*float64(i+1)/float64(n)
		a.Characters = append(a.Characters, string(r))
		a.Starts = append(a.Starts, round3(s))
		a.Ends = append(a.Ends, round3(e))
		i++
	}
}

// shifted adds b's characters to a, their times moved by t and kept within [t, end].
func shifted(a *tts.Alignment, b tts.Alignment, t, end float64) {
	for i, c := range b.Characters {
		a.Characters = append(a.Characters, c)
		a.Starts = append(a.Starts, round3(min(b.Starts[i]+t, end)))
		a.Ends = append(a.Ends, round3(min(b.Ends[i]+t, end)))
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// part is one line of the dialogue placed in the whole: the audio to send (the gap before it
// and its speech), the characters it adds (the joining space and the line) and its segment.
type part struct {
	pcm        []int16
	orig, norm tts.Alignment
	segment    VoiceSegment
	chars      int64 // the line's characters (what it is charged)
}

// run renders the lines in order and hands each to emit, placed after the ones before it. The
// next line is rendered while emit encodes and sends the current one.
func (s *Service) run(ctx context.Context, j *Job, rate int, emit func(part) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends a line still being rendered when emit failed
	type result struct {
		r   *rendered
		err error
	}
	results := make(chan result, 1)
	go func() {
		defer close(results)
		for _, l := range j.Lines {
			r, err := s.renderLine(ctx, j, l, rate)
			select {
			case results <- result{r, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	gaps := j.gaps()
	samples := 0
	for i, l := range j.Lines {
		res, ok := <-results
		if !ok {
			return context.Cause(ctx)
		}
		if res.err != nil {
			return res.err
		}
		r := res.r
		var p part
		t0 := float64(samples) / float64(rate)
		if i > 0 {
			gap := silence(gaps[i], rate)
			p.pcm = gap
			samples += len(gap)
			t1 := float64(samples) / float64(rate)
			spanChars(&p.orig, " ", t0, t1)
			spanChars(&p.norm, " ", t0, t1)
		}
		start := float64(samples) / float64(rate)
		p.pcm = append(p.pcm, r.pcm...)
		samples += len(r.pcm)
		shifted(&p.orig, r.orig, start, math.Inf(1))
		shifted(&p.norm, r.norm, start, math.Inf(1))
		p.segment = VoiceSegment{VoiceID: l.voice.ID, StartTimeSeconds: round3(start), EndTimeSeconds: round3(float64(samples) / float64(rate)),
			CharacterStartIdx: l.offset, CharacterEndIdx: l.offset + l.chars, DialogueInputIndex: l.index}
		p.chars = int64(l.chars)
		if err := emit(p); err != nil {
			return err
		}
	}
	return nil
}
