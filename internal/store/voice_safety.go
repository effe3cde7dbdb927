package store

import (
	"context"
	"errors"
)

// Voice safety controls (the API's safety_control enum; no row means NONE).
const (
	SafetyNone    = "NONE"
	SafetyBan     = "BAN"
	SafetyCaptcha = "CAPTCHA"
)

// VoiceSafety is the safety control on a voice and when it was set.
type VoiceSafety struct {
	Control string // SafetyNone, SafetyBan or SafetyCaptcha
	SetAt   int64
}

// SetVoiceSafety sets the control on any voice (an operator's act: not scoped to a workspace).
// NONE removes it. ErrNotFound when there is no such voice.
func (db *DB) SetVoiceSafety(ctx context.Context, voiceID, control string, nowUnix int64) error {
	return db.InTx(ctx, func(tx *Tx) error {
		var one int
		if err := tx.queryRow(ctx, `SELECT 1 FROM voices WHERE id = ?`, voiceID).Scan(&one); err != nil {
			return notFound(err)
		}
		if control == SafetyNone {
			_, err := tx.exec(ctx, `DELETE FROM voice_safety WHERE voice_id = ?`, voiceID)
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO voice_safety (voice_id, control, set_at_unix) VALUES (?, ?, ?)
			ON CONFLICT (voice_id) DO UPDATE SET control = excluded.control, set_at_unix = excluded.set_at_unix`, voiceID, control, nowUnix)
		return err
	})
}

// OperatorVoice reads any voice by id, whichever workspace it belongs to: for the operator's
// commands only (never for a request of a workspace).
func (db *DB) OperatorVoice(ctx context.Context, id string) (*Voice, error) {
	return scanVoice(db.queryRow(ctx, `SELECT `+voiceSelect+` FROM voices WHERE id = ?`, id))
}

// VoiceSafetyOf returns the control on a voice (NONE when none is set).
func (db *DB) VoiceSafetyOf(ctx context.Context, voiceID string) (VoiceSafety, error) {
	s := VoiceSafety{Control: SafetyNone}
	err := db.queryRow(ctx, `SELECT control, set_at_unix FROM voice_safety WHERE voice_id = ?`, voiceID).Scan(&s.Control, &s.SetAt)
	if err = notFound(err); errors.Is(err, ErrNotFound) {
		return VoiceSafety{Control: SafetyNone}, nil
	}
	return s, err
}

// VoiceCaptcha is a workspace's captcha for a voice: the sentence to read and its state.
type VoiceCaptcha struct {
	WorkspaceID, VoiceID, Text string
	IssuedAt                   int64 // Unix nanoseconds
	PassedAt                   int64 // Unix seconds (0: not passed)
	Attempts                   int
}

// IssueVoiceCaptcha gives the workspace a new sentence for the voice (its failed attempts start
// again; a pass already recorded stays).
func (db *DB) IssueVoiceCaptcha(ctx context.Context, workspaceID, voiceID, text string, nowNano int64) error {
	_, err := db.exec(ctx, `INSERT INTO voice_captchas (workspace_id, voice_id, text, issued_at_ns, attempts, passed_at_unix) VALUES (?, ?, ?, ?, 0, 0)
		ON CONFLICT (workspace_id, voice_id) DO UPDATE SET text = excluded.text, issued_at_ns = excluded.issued_at_ns, attempts = 0`,
		workspaceID, voiceID, text, nowNano)
	return err
}

// VoiceCaptchaOf returns the workspace's captcha for the voice, or ErrNotFound.
func (db *DB) VoiceCaptchaOf(ctx context.Context, workspaceID, voiceID string) (*VoiceCaptcha, error) {
	c := &VoiceCaptcha{}
	err := db.queryRow(ctx, `SELECT workspace_id, voice_id, text, issued_at_ns, attempts, passed_at_unix FROM voice_captchas
		WHERE workspace_id = ? AND voice_id = ?`, workspaceID, voiceID).Scan(&c.WorkspaceID, &c.VoiceID, &c.Text, &c.IssuedAt, &c.Attempts, &c.PassedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return c, nil
}

// FailVoiceCaptcha counts a failed attempt at the sentence issued at issuedAt and returns the
// attempts made (ErrNotFound when another sentence was issued meanwhile).
func (db *DB) FailVoiceCaptcha(ctx context.Context, workspaceID, voiceID string, issuedAt int64) (int, error) {
	var n int
	err := db.queryRow(ctx, `UPDATE voice_captchas SET attempts = attempts + 1 WHERE workspace_id = ? AND voice_id = ? AND issued_at_ns = ?
		RETURNING attempts`, workspaceID, voiceID, issuedAt).Scan(&n)
	return n, notFound(err)
}

// PassVoiceCaptcha records that the workspace read the sentence.
func (db *DB) PassVoiceCaptcha(ctx context.Context, workspaceID, voiceID string, nowUnix int64) error {
	return affected(db.exec(ctx, `UPDATE voice_captchas SET passed_at_unix = ? WHERE workspace_id = ? AND voice_id = ?`, nowUnix, workspaceID, voiceID))
}
