package voice

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/store"
	"timbre/internal/webhook"
)

// Voice safety (spec §4): an operator sets a voice's safety_control with
// `timbre admin voice-safety`. BAN: nobody may use the voice (Get refuses it; it is still shown).
// CAPTCHA: each workspace that wants to use the voice again must first read a sentence aloud
// (GET then POST /v1/voices/{voice_id}/captcha); a pass lasts until the control is set anew.
// The captcha is per workspace, not per member: the voice is the workspace's (or premade, shared
// by all), and one member proving a person is behind the account unblocks the team.

// Captcha limits.
const (
	// CaptchaMaxWER is the highest word error rate (percent) of the recording against the
	// sentence that passes. The embedded recogniser (pocketsphinx) mishears about a quarter of
	// the words of clean speech, so half is the line between reading the sentence and not.
	CaptchaMaxWER = 50.0
	// CaptchaMaxAttempts is how many failed recordings one sentence allows; then a new one must
	// be fetched (GET), so the check cannot be ground through by guessing.
	CaptchaMaxAttempts = 5
	// MaxCaptchaBytes bounds the uploaded recording; MaxCaptchaSeconds its length.
	MaxCaptchaBytes   = 10 << 20
	MaxCaptchaSeconds = 60
)

// ErrVoiceBanned refuses the use of a voice under BAN.
func ErrVoiceBanned(id string) error {
	return errs.Errorf(errs.Forbidden, "voice_banned",
		"The voice with voice_id '%s' has been blocked for violating the terms of use and can no longer be used.", id)
}

// ErrVoiceCaptchaRequired refuses the use of a voice under CAPTCHA until the workspace passes it.
func ErrVoiceCaptchaRequired(id string) error {
	return errs.Errorf(errs.Forbidden, "voice_captcha_required",
		"The voice with voice_id '%s' needs a voice captcha before it can be used: fetch the sentence with GET /v1/voices/%s/captcha, read it aloud and send the recording to POST /v1/voices/%s/captcha.", id, id, id)
}

func errCaptchaNotNeeded(id string) error {
	return errs.Errorf(errs.Conflict, "voice_captcha_not_required", "The voice with voice_id '%s' does not need a voice captcha.", id)
}

// CheckSafety says whether the workspace may use the voice now.
func (s *Service) CheckSafety(ctx context.Context, workspaceID string, v *store.Voice) error {
	switch v.SafetyControl {
	case store.SafetyBan:
		return ErrVoiceBanned(v.ID)
	case store.SafetyCaptcha:
		passed, err := s.captchaPassed(ctx, workspaceID, v.ID)
		if err != nil {
			return err
		}
		if !passed {
			return ErrVoiceCaptchaRequired(v.ID)
		}
	}
	return nil
}

// captchaPassed: the workspace passed the voice's captcha since the control was last set.
func (s *Service) captchaPassed(ctx context.Context, workspaceID, voiceID string) (bool, error) {
	sf, err := s.DB.VoiceSafetyOf(ctx, voiceID)
	if err != nil {
		return false, err
	}
	c, err := s.DB.VoiceCaptchaOf(ctx, workspaceID, voiceID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return c.PassedAt > 0 && c.PassedAt >= sf.SetAt, nil
}

// SetSafety sets a voice's safety control (the operator command). control is NONE, BAN or
// CAPTCHA, any case.
func (s *Service) SetSafety(ctx context.Context, voiceID, control string) error {
	control = strings.ToUpper(strings.TrimSpace(control))
	if control != store.SafetyNone && control != store.SafetyBan && control != store.SafetyCaptcha {
		return errs.Errorf(errs.Invalid, "invalid_safety_control", "safety_control must be NONE, BAN or CAPTCHA, not %q.", control)
	}
	before, err := s.DB.VoiceSafetyOf(ctx, voiceID)
	if err != nil {
		return err
	}
	err = s.DB.SetVoiceSafety(ctx, voiceID, control, s.now().Unix())
	if errors.Is(err, store.ErrNotFound) {
		return ErrVoiceNotFound(voiceID)
	}
	if err != nil || control != store.SafetyBan || before.Control == store.SafetyBan {
		return err
	}
	return s.notifyBan(ctx, voiceID)
}

// notifyBan tells the workspaces that copied a newly banned voice from the library that it is
// gone (voice_removed). The ban stands whatever happens here; the error says who was not told.
func (s *Service) notifyBan(ctx context.Context, voiceID string) error {
	if s.CopiedBy == nil || s.Removals == nil {
		return nil
	}
	workspaces, err := s.CopiedBy(ctx, voiceID)
	if err != nil || len(workspaces) == 0 {
		return err
	}
	v, err := s.DB.OperatorVoice(ctx, voiceID)
	if err != nil {
		return err
	}
	now := s.now().Unix()
	err = s.Removals.NotifyVoiceRemoval(ctx, workspaces, webhook.VoiceRemoval{Type: webhook.VoiceRemoved, VoiceID: v.ID, VoiceName: v.Name,
		Reason: "banned", RemovalDateUnix: &now})
	if err != nil {
		return fmt.Errorf("the voice is banned, but removal notices could not be queued: %w", err)
	}
	return nil
}

// Captcha is a sentence to read aloud and, when the voice's engine can, the sentence spoken
// with the voice (MP3).
type Captcha struct {
	Text          string
	Audio         []byte
	AttemptsLeft  int
	MaxWordErrors float64
}

// IssueCaptcha gives the caller's workspace a new sentence for a voice under CAPTCHA.
func (s *Service) IssueCaptcha(ctx context.Context, c *access.Caller, voiceID string) (*Captcha, error) {
	v, err := s.Lookup(ctx, c.WorkspaceID, voiceID)
	if err != nil {
		return nil, err
	}
	if err := s.needsCaptcha(v); err != nil {
		return nil, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(len(CaptchaSentences))))
	if err != nil {
		return nil, err
	}
	text := CaptchaSentences[n.Int64()]
	// issued_at tells one sentence from the next; nanoseconds keep two fetches in a second apart.
	if err := s.DB.IssueVoiceCaptcha(ctx, c.WorkspaceID, v.ID, text, s.now().UnixNano()); err != nil {
		return nil, err
	}
	out := &Captcha{Text: text, AttemptsLeft: CaptchaMaxAttempts, MaxWordErrors: CaptchaMaxWER}
	if s.Speak != nil {
		if out.Audio, err = s.Speak(ctx, v, text); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Service) needsCaptcha(v *store.Voice) error {
	switch v.SafetyControl {
	case store.SafetyBan:
		return ErrVoiceBanned(v.ID)
	case store.SafetyCaptcha:
		return nil
	}
	return errCaptchaNotNeeded(v.ID)
}

// CaptchaResult is what the recogniser heard of a passing recording.
type CaptchaResult struct {
	Heard         string
	WordErrorRate float64 // percent
}

// VerifyCaptcha checks a recording against the workspace's sentence for the voice: the
// recogniser's transcript within CaptchaMaxWER passes and unblocks the voice for the
// workspace; otherwise the attempt is counted and a 4xx says what was heard.
func (s *Service) VerifyCaptcha(ctx context.Context, c *access.Caller, voiceID string, recording []byte) (*CaptchaResult, error) {
	v, err := s.Lookup(ctx, c.WorkspaceID, voiceID)
	if err != nil {
		return nil, err
	}
	if err := s.needsCaptcha(v); err != nil {
		return nil, err
	}
	var val errs.Validator
	if len(recording) == 0 {
		val.Add("body", "recording", "missing", "Field required: send the recording of the sentence as recording.")
		return nil, val.Err()
	}
	cp, err := s.DB.VoiceCaptchaOf(ctx, c.WorkspaceID, v.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Errorf(errs.Conflict, "voice_captcha_not_issued",
			"No captcha sentence was fetched for voice '%s': GET /v1/voices/%s/captcha first.", v.ID, v.ID)
	}
	if err != nil {
		return nil, err
	}
	if cp.Attempts >= CaptchaMaxAttempts {
		return nil, errs.Errorf(errs.RateLimited, "voice_captcha_attempts_exceeded",
			"All %d attempts at this sentence failed: fetch a new sentence with GET /v1/voices/%s/captcha.", CaptchaMaxAttempts, v.ID)
	}
	samples, rate, err := audio.Decode(ctx, recording)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		val.Add("body", "recording", "value_error", "The recording is not audio that can be decoded (or it is corrupt).")
		return nil, val.Err()
	}
	secs := float64(len(samples)) / float64(max(rate, 1))
	if secs < 0.5 || secs > MaxCaptchaSeconds {
		val.Add("body", "recording", "value_error", fmt.Sprintf("The recording is %.1f s long; read the sentence in 0.5 to %d seconds.", secs, MaxCaptchaSeconds))
		return nil, val.Err()
	}
	rec, err := engine.ChooseRecognizer(s.Recognizers, "en")
	if err != nil {
		return nil, errs.New(errs.Unavailable, "voice_captcha_unavailable", "Speech recognition is not available on this server to check the recording.")
	}
	tr, err := rec.Transcribe(ctx, engine.PCM{Samples: samples, SampleRate: rate}, engine.TranscribeOptions{Language: "en"})
	if err != nil {
		return nil, err
	}
	res := &CaptchaResult{Heard: tr.Text, WordErrorRate: WordErrorRate(cp.Text, tr.Text)}
	if res.WordErrorRate <= CaptchaMaxWER {
		if err := s.DB.PassVoiceCaptcha(ctx, c.WorkspaceID, v.ID, s.now().Unix()); err != nil {
			return nil, err
		}
		return res, nil
	}
	n, err := s.DB.FailVoiceCaptcha(ctx, c.WorkspaceID, v.ID, cp.IssuedAt)
	if errors.Is(err, store.ErrNotFound) { // a new sentence was fetched meanwhile
		return nil, errs.Errorf(errs.Conflict, "voice_captcha_not_issued", "A new captcha sentence was fetched meanwhile: read that one.")
	}
	if err != nil {
		return nil, err
	}
	return nil, errs.Errorf(errs.Invalid, "voice_captcha_failed",
		"The recording does not match the sentence %q: we heard %q (word error rate %.0f%%; at most %.0f%% passes). %d attempt(s) left for this sentence.",
		cp.Text, tr.Text, res.WordErrorRate, CaptchaMaxWER, max(CaptchaMaxAttempts-n, 0))
}

// WordErrorRate is the word-level edit distance of hyp from ref over ref's word count, in
// percent, after lower-casing and dropping punctuation.
func WordErrorRate(ref, hyp string) float64 {
	r, h := captchaWords(ref), captchaWords(hyp)
	if len(r) == 0 {
		return 0
	}
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return 100 * float64(prev[len(h)]) / float64(len(r))
}

func captchaWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(s, "'", "")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func safetyJSON(control string) *string {
	if control == "" || control == store.SafetyNone {
		return nil
	}
	return &control
}
