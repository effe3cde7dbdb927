// Package dialogue is text to dialogue: several lines, each spoken by its own voice, made into
// one audio with turn gaps between speakers, voice segments and character alignments. Each
// line's text goes through the text-to-speech pipeline (internal/tts: voices, engines,
// settings, pronunciation dictionaries, watermark); the dialogue is charged and logged once.
package dialogue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/history"
	"timbre/internal/metering"
	"timbre/internal/store"
	"timbre/internal/tts"
	"timbre/internal/voice"
)

// Limits of a request (spec §9: dialogue max 3000; §5: at most 50 lines).
const (
	MaxInputs  = history.MaxDialogueLines
	MaxChars   = 3000
	MaxLocator = 3
	// DefaultModel is the reference's default for text to dialogue.
	DefaultModel = "eleven_v3"
)

// Turn gaps: another speaker answers after 250–450 ms, the same speaker goes on after 120–200 ms.
const (
	turnGapMin, turnGapSpread = 0.25, 0.20
	sameGapMin, sameGapSpread = 0.12, 0.08
	// tagSilence is what a non-speech tag leaves without TagSounds, when the tag has no length of its own.
	tagSilence = 0.3
)

// Service makes dialogues.
type Service struct {
	TTS  *tts.Service
	Tags TagSounds // nil: non-speech tags become a short silence
	Now  func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Input is one line of the request.
type Input struct {
	Text    string `json:"text"`
	VoiceID string `json:"voice_id"`
}

// Settings are the model settings text to dialogue takes.
type Settings struct {
	Stability *float64 `json:"stability"`
}

// Body is the JSON body of the four text-to-dialogue routes.
type Body struct {
	Inputs                          []Input           `json:"inputs"`
	ModelID                         *string           `json:"model_id"`
	LanguageCode                    *string           `json:"language_code"`
	Settings                        *Settings         `json:"settings"`
	PronunciationDictionaryLocators []json.RawMessage `json:"pronunciation_dictionary_locators"`
	Seed                            *int64            `json:"seed"`
	ApplyTextNormalization          *string           `json:"apply_text_normalization"`
}

// line is one input, prepared.
type line struct {
	index  int
	text   string
	voice  *store.Voice
	pieces []piece
	jobs   []*tts.Job // per piece: the text's synthesis (nil for tags and unspeakable text)
	chars  int        // runes of text
	offset int        // runes of the joined text before this line
}

// Job is a validated dialogue, ready to charge and run.
type Job struct {
	WorkspaceID, UserID, APIKeyID string
	Lines                         []*line
	Joined                        string // the lines' texts joined by single spaces: the alignment's text
	Model                         tts.Model
	Format                        audio.Format
	Logging                       bool
	RequestID, HistoryID          string
	Chars, Cost                   int64
	Settings                      Settings
	seed                          uint64
	tierConcurrency               int
	reservation                   *metering.Reservation
	charFrom                      int64
}

func field(fields *[]errs.FieldError, typ, msg string, loc ...any) {
	*fields = append(*fields, errs.FieldError{Loc: append([]any{"body"}, loc...), Msg: msg, Type: typ})
}

// Prepare validates a request and prepares every line's synthesis; nothing is charged or stored.
func (s *Service) Prepare(ctx context.Context, c *access.Caller, b *Body, format audio.Format, logging bool) (*Job, error) {
	var fields []errs.FieldError
	switch {
	case len(b.Inputs) == 0:
		field(&fields, "missing", "Field required: inputs must hold at least one line.", "inputs")
	case len(b.Inputs) > MaxInputs:
		field(&fields, "too_long", fmt.Sprintf("A dialogue has at most %d lines; got %d.", MaxInputs, len(b.Inputs)), "inputs")
	}
	total := 0
	for i, in := range b.Inputs {
		if strings.TrimSpace(in.Text) == "" {
			field(&fields, "missing", fmt.Sprintf("inputs[%d].text must not be empty.", i), "inputs", i, "text")
		}
		if strings.TrimSpace(in.VoiceID) == "" {
			field(&fields, "missing", fmt.Sprintf("inputs[%d].voice_id is required.", i), "inputs", i, "voice_id")
		}
		total += utf8.RuneCountInString(in.Text)
	}
	if total > MaxChars {
		field(&fields, "too_long", fmt.Sprintf("The dialogue's texts have %d characters in all; the limit is %d.", total, MaxChars), "inputs")
	}
	if len(b.PronunciationDictionaryLocators) > MaxLocator {
		field(&fields, "too_long", fmt.Sprintf("At most %d pronunciation dictionaries per request.", MaxLocator), "pronunciation_dictionary_locators")
	}
	modelID := DefaultModel
	if b.ModelID != nil && *b.ModelID != "" {
		modelID = *b.ModelID
	}
	model, ok := tts.FindModel(modelID)
	if !ok {
		field(&fields, "value_error", fmt.Sprintf("Unknown model_id '%s'. GET /v1/models lists the models.", modelID), "model_id")
	}
	var st Settings
	if b.Settings != nil && b.Settings.Stability != nil {
		if x := *b.Settings.Stability; x < 0 || x > 1 || math.IsNaN(x) {
			field(&fields, "value_error", "Input should be between 0 and 1.", "settings", "stability")
		}
		st.Stability = b.Settings.Stability
	}
	if b.Seed != nil && (*b.Seed < 0 || *b.Seed > math.MaxUint32) {
		field(&fields, "value_error", "Input should be between 0 and 4294967295.", "seed")
	}
	if len(fields) > 0 {
		return nil, &errs.Validation{Fields: fields}
	}
	// Every voice must exist in the workspace; a missing one is named by its line.
	voices := map[string]*store.Voice{}
	for i, in := range b.Inputs {
		if _, ok := voices[in.VoiceID]; ok {
			continue
		}
		v, err := s.TTS.Voices.Get(ctx, c.WorkspaceID, in.VoiceID)
		var e *errs.Error
		if errors.As(err, &e) && e.Kind == errs.NotFound {
			// 404 voice_not_found as text to speech answers, the message naming the line.
			return nil, errs.Errorf(errs.NotFound, "voice_not_found", "inputs[%d].voice_id: a voice with voice_id '%s' was not found.", i, in.VoiceID)
		}
		if err != nil {
			return nil, err
		}
		voices[in.VoiceID] = v
	}

	j := &Job{WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Model: model, Format: format,
		Logging: logging, RequestID: store.NewID(), Settings: st}
	texts := make([]string, len(b.Inputs))
	offset := 0
	for i, in := range b.Inputs {
		texts[i] = in.Text
		l := &line{index: i, text: in.Text, voice: voices[in.VoiceID], pieces: split(in.Text), chars: utf8.RuneCountInString(in.Text), offset: offset}
		offset += l.chars + 1 // the joining space
		l.jobs = make([]*tts.Job, len(l.pieces))
		for k, p := range l.pieces {
			if p.isTag || !speakable(in.Text[p.from:p.to]) {
				continue
			}
			tb := &tts.Body{Text: in.Text[p.from:p.to], ModelID: &model.ID, LanguageCode: b.LanguageCode, Seed: b.Seed,
				PronunciationDictionaryLocators: b.PronunciationDictionaryLocators, ApplyTextNormalization: b.ApplyTextNormalization}
			if st.Stability != nil {
				tb.VoiceSettings = &voice.Settings{Stability: st.Stability}
			}
			tj, err := s.TTS.Prepare(ctx, c, in.VoiceID, tb, format, false)
			if err != nil {
				return nil, err
			}
			l.jobs[k] = tj
			if j.tierConcurrency == 0 {
				j.tierConcurrency = tj.Tier().Concurrency
			}
		}
		j.Lines = append(j.Lines, l)
		j.Chars += int64(l.chars)
	}
	if j.tierConcurrency == 0 {
		return nil, errs.Field("body", "inputs", "value_error", "The dialogue has nothing to say: every line is only tags or punctuation.")
	}
	j.Joined = strings.Join(texts, " ")
	j.Cost = int64(math.Ceil(float64(j.Chars) * model.CostFactor))
	if b.Seed != nil {
		j.seed = uint64(*b.Seed)
	} else {
		// No seed: the same dialogue still gets the same gaps.
		h := fnv.New64a()
		for _, in := range b.Inputs {
			h.Write([]byte(in.VoiceID + "\x00" + in.Text + "\x00"))
		}
		j.seed = h.Sum64()
	}
	return j, nil
}

// firstJob is any prepared synthesis of the dialogue (for the workspace's plan).
func (j *Job) firstJob() *tts.Job {
	for _, l := range j.Lines {
		for _, tj := range l.jobs {
			if tj != nil {
				return tj
			}
		}
	}
	return nil
}

// begin reserves the dialogue's characters and, when logging, adds its one history row, in one
// transaction.
func (s *Service) begin(ctx context.Context, j *Job) error {
	tier := j.firstJob().Tier()
	if j.Logging {
		j.HistoryID = store.NewID()
	}
	first := j.Lines[0].voice
	lines := make([]history.DialogueLine, len(j.Lines))
	var names []string
	seen := map[string]bool{}
	for i, l := range j.Lines {
		lines[i] = history.DialogueLine{Text: l.text, VoiceID: l.voice.ID, VoiceName: l.voice.Name}
		if !seen[l.voice.Name] {
			seen[l.voice.Name] = true
			names = append(names, l.voice.Name)
		}
	}
	err := s.TTS.DB.InTx(ctx, func(tx *store.Tx) error {
		r, err := metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: j.WorkspaceID, UserID: j.UserID, APIKeyID: j.APIKeyID, VoiceID: first.ID, ModelID: j.Model.ID,
			HistoryID: j.HistoryID, Product: metering.TTS, Kind: metering.Characters,
			Units: j.Chars, Credits: j.Cost, Allowance: tier.CharacterLimit,
		}, s.now())
		if err != nil {
			return metering.QuotaAPIError(err)
		}
		j.reservation, j.charFrom = r, r.From
		if !j.Logging {
			return nil
		}
		settings, _ := json.Marshal(j.Settings)
		dlg, _ := json.Marshal(lines)
		return tx.InsertHistory(ctx, &store.HistoryItem{
			ID: j.HistoryID, WorkspaceID: j.WorkspaceID, UserID: j.UserID, RequestID: j.RequestID,
			VoiceID: first.ID, VoiceName: strings.Join(names, ", "), VoiceCategory: first.Category, ModelID: j.Model.ID,
			Text: j.Joined, Settings: string(settings), DateUnix: s.now().Unix(), CharFrom: r.From, CharTo: r.To,
			ContentType: j.Format.ContentType(), OutputFormat: j.Format.Name, Source: "TTS", State: store.StateProcessing,
			Dialogue: string(dlg),
		})
	})
	if err != nil {
		j.HistoryID, j.reservation = "", nil
	}
	return err
}

// fail refunds the reservation and removes the history row, in one transaction. With delivered
// > 0 (a stream cut after some lines went out), those characters are charged instead.
func (s *Service) fail(j *Job, delivered int64) {
	if j.reservation == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.TTS.DB.InTx(ctx, func(tx *store.Tx) error {
		credits := int64(math.Ceil(float64(delivered) * j.Model.CostFactor))
		if _, err := metering.Commit(ctx, tx, j.reservation, delivered, min(credits, j.Cost), s.now()); err != nil {
			return err
		}
		if j.HistoryID != "" {
			return tx.DeleteHistoryRow(ctx, j.WorkspaceID, j.HistoryID)
		}
		return nil
	})
}

// finish commits the whole charge and, when logging, stores the audio and completes the row.
func (s *Service) finish(ctx context.Context, j *Job, encoded []byte, al *Alignments) error {
	key, alJSON := "", ""
	if j.Logging {
		key = "history/" + j.WorkspaceID + "/" + j.HistoryID + "." + j.Format.Ext()
		if err := s.TTS.Blob.Put(ctx, key, encoded, j.Format.ContentType()); err != nil {
			s.fail(j, 0)
			return err
		}
		alJSON = (&tts.Alignments{Alignment: al.Alignment, NormalizedAlignment: al.NormalizedAlignment}).StoredJSON()
	}
	err := s.TTS.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, j.reservation, j.Chars, j.Cost, s.now()); err != nil || !j.Logging {
			return err
		}
		return tx.SettleHistory(ctx, j.WorkspaceID, j.HistoryID, j.Joined, j.charFrom+j.Cost, key, alJSON)
	})
	if err != nil && key != "" {
		_ = s.TTS.Blob.Delete(context.Background(), key)
	}
	return err
}

// gaps are the silences before each line (none before the first), deterministic under the seed.
func (j *Job) gaps() []float64 {
	rng := rand.New(rand.NewPCG(j.seed, 0x6469616c6f677565))
	out := make([]float64, len(j.Lines))
	for i := 1; i < len(j.Lines); i++ {
		if j.Lines[i].voice.ID == j.Lines[i-1].voice.ID {
			out[i] = sameGapMin + rng.Float64()*sameGapSpread
		} else {
			out[i] = turnGapMin + rng.Float64()*turnGapSpread
		}
		out[i] = math.Round(out[i]*1000) / 1000
	}
	return out
}
