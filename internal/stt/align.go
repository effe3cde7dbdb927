package stt

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/textnorm"
)

// Forced alignment (POST /v1/forced-alignment): the caller sends audio and the text spoken in it
// and gets the time of every word and character of that text.

// MaxAlignmentText is the longest text accepted for forced alignment, in characters.
const MaxAlignmentText = 100_000

// MaxAlignmentSeconds is the longest audio accepted for forced alignment: an hour, which the
// embedded aligner (one decoder, about 50× faster than real time here) takes over a minute for.
const MaxAlignmentSeconds = 3600

// AlignmentModelID is the model the ledger records forced alignments under.
const AlignmentModelID = "forced_alignment"

// Alignment is the response of POST /v1/forced-alignment (ElevenLabs' ForcedAlignmentResponseModel).
type Alignment struct {
	Characters []AlignmentCharacter `json:"characters"`
	Words      []AlignmentWord      `json:"words"`
	// Loss is the mean loss of the text's characters: each character of a word carries its
	// word's loss; spaces and characters between words carry none.
	Loss float64 `json:"loss"`
}

// AlignmentCharacter is one character of the text and its time.
type AlignmentCharacter struct {
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// AlignmentWord is one word of the text as the caller wrote it (with its punctuation) and its
// time. Loss is the acoustic model's cost of the word (see engine.Pocketsphinx.Align: nats per
// 10 ms frame, ≥ 0, lower is better); a word the engine could not place itself carries
// engine.Pocketsphinx's loss for unheard words.
type AlignmentWord struct {
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Loss  float64 `json:"loss"`
}

// textError is the 422 naming the text field.
func textError(msg string) error { return errAudio("text", msg) }

// aligner is the first recognizer that can also align.
func (s *Service) aligner() (engine.Aligner, error) {
	for _, r := range s.Recognizers {
		if a, ok := r.(engine.Aligner); ok {
			return a, nil
		}
	}
	return nil, errs.New(errs.Unavailable, "alignment_unavailable", "Forced alignment is not available on this server (it needs the embedded pocketsphinx engine).")
}

// userWord is a run of non-space characters of the text: bytes [Offset, Offset+Length).
type userWord struct{ Offset, Length int }

// splitUserWords finds the words of text as its writer sees them: runs between spaces.
func splitUserWords(text string) []userWord {
	var out []userWord
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, userWord{start, i - start})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, userWord{start, len(text) - start})
	}
	return out
}

// spokenWords are the dictionary words a written word is read as: numbers, abbreviations and
// symbols through textnorm ("$5" → five dollars, "Dr." → doctor), lower case, split at anything
// but letters, digits and apostrophes.
func spokenWords(word string) []string {
	norm, _ := textnorm.Normalize(word, "en")
	ws := strings.FieldsFunc(strings.ToLower(norm), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := ws[:0]
	for _, w := range ws {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Align checks the request, decodes the audio, charges its seconds as speech to text does and
// aligns text to it. Bad text or audio is a 422 naming text or file, with nothing charged; an
// engine failure refunds the charge.
func (s *Service) Align(ctx context.Context, c *access.Caller, audio []byte, text string) (*Alignment, error) {
	switch n := utf8.RuneCountInString(text); {
	case !utf8.ValidString(text):
		return nil, textError("The text is not valid UTF-8.")
	case strings.TrimSpace(text) == "":
		return nil, textError("The text is empty: send the words spoken in the audio.")
	case n > MaxAlignmentText:
		return nil, textError(fmt.Sprintf("The text is %d characters long; at most %d are accepted.", n, MaxAlignmentText))
	}
	uws := splitUserWords(text)
	var spoken []string
	spans := make([][2]int, len(uws)) // each user word's spoken words [from, to)
	for i, uw := range uws {
		ws := spokenWords(text[uw.Offset : uw.Offset+uw.Length])
		if len(ws) == 0 {
			// Punctuation alone ("—", "&"): a word that takes its time from the gap it is in.
			ws = []string{""}
		}
		spans[i] = [2]int{len(spoken), len(spoken) + len(ws)}
		spoken = append(spoken, ws...)
	}
	al, err := s.aligner()
	if err != nil {
		return nil, err
	}
	chans, err := s.decode(ctx, &Request{Audio: audio})
	if err != nil {
		return nil, err
	}
	pcm := chans[0] // mixed down to one channel
	if pcm.Seconds() > MaxAlignmentSeconds {
		return nil, errAudio("file", fmt.Sprintf("The audio is %.0f s long; forced alignment takes at most %d s.", pcm.Seconds(), MaxAlignmentSeconds))
	}

	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	seconds := pcm.Seconds()
	units, cost := metering.AudioUnits(seconds, 1), plan.STTCredits(tier, seconds)
	var res *metering.Reservation
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		res, err = metering.ReserveAudio(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: AlignmentModelID,
			Product: metering.STT, Credits: cost, Allowance: tier.CharacterLimit,
		}, seconds, 1, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}

	stop := s.keepAlive(ctx, res)
	aligned, err := al.Align(ctx, pcm, spoken)
	stop()
	if err == nil && len(aligned) != len(spoken) {
		err = fmt.Errorf("the aligner placed %d words of %d", len(aligned), len(spoken))
	}
	if err != nil {
		_ = metering.RefundAlone(ctx, s.DB, res, s.now())
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errs.Errorf(errs.Upstream, "alignment_failed", "The aligner failed: %v", err)
	}
	out := buildAlignment(text, uws, spans, aligned, seconds)
	done := context.WithoutCancel(ctx) // the work is done: a client that left still pays for it
	err = s.DB.InTx(done, func(tx *store.Tx) error {
		_, err := metering.Commit(done, tx, res, units, cost, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// buildAlignment maps the aligned spoken words back onto the caller's text: each user word from
// its first spoken word's start to its last one's end, with their mean loss; characters through
// textnorm.CharAlignment (a word's characters share its time; spaces span the gaps).
func buildAlignment(text string, uws []userWord, spans [][2]int, aligned []engine.AlignedWord, total float64) *Alignment {
	out := &Alignment{Words: make([]AlignmentWord, len(uws)), Characters: []AlignmentCharacter{}}
	marks := make([]textnorm.Word, len(uws))
	var lossSum float64
	var lossChars int
	for i, uw := range uws {
		ws := aligned[spans[i][0]:spans[i][1]]
		var loss float64
		for _, w := range ws {
			loss += w.Loss
		}
		loss /= float64(len(ws))
		w := AlignmentWord{Text: text[uw.Offset : uw.Offset+uw.Length], Start: ws[0].Start, End: ws[len(ws)-1].End, Loss: loss}
		out.Words[i] = w
		marks[i] = textnorm.Word{Offset: uw.Offset, Length: uw.Length, Start: w.Start, End: w.End}
		n := utf8.RuneCountInString(w.Text)
		lossSum += loss * float64(n)
		lossChars += n
	}
	chars, starts, ends := textnorm.CharAlignment(text, marks, total)
	for i, ch := range chars {
		out.Characters = append(out.Characters, AlignmentCharacter{Text: ch, Start: starts[i], End: ends[i]})
	}
	if lossChars > 0 {
		out.Loss = lossSum / float64(lossChars)
	}
	return out
}
