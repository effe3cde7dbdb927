package auth

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// referralCodeRE is what a referral code may be: 1–64 of [A-Za-z0-9_-].
var referralCodeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// MsgInvalidReferralCode answers a malformed referral_code.
const MsgInvalidReferralCode = "A referral code is 1 to 64 letters, digits, '_' or '-'."

// SignUpInput is a sign-up with its optional extras.
type SignUpInput struct {
	Email         string
	Password      string
	TermsAccepted bool
	InviteCode    string
	// ReferralCode is the code of the referral link the user arrived by (spec §5); kept on the
	// new user as referred_by_code.
	ReferralCode string
	// Client is where the sign-up comes from (sign-ups are limited per address).
	Client Client
}

// validateReferralCode adds an error for a malformed referral code ("" is none).
func validateReferralCode(v *errs.Validator, code string) {
	if code != "" && !referralCodeRE.MatchString(code) {
		v.Add("body", "referral_code", "value_error", MsgInvalidReferralCode)
	}
}

// SignUpWith is SignUp with a referral code.
func (s *Service) SignUpWith(ctx context.Context, in SignUpInput) (*store.User, error) {
	in.ReferralCode = strings.TrimSpace(in.ReferralCode)
	var v errs.Validator
	validateReferralCode(&v, in.ReferralCode)
	if err := v.Err(); err != nil {
		return nil, err
	}
	var afterCreate func(*store.User) error
	if in.ReferralCode != "" {
		afterCreate = func(u *store.User) error { return s.DB.SetReferredBy(ctx, u.ID, in.ReferralCode) }
	}
	return s.signUp(ctx, in.Client, in.Email, in.Password, in.TermsAccepted, in.InviteCode, afterCreate)
}

// ReferralLink returns the user's own referral link (spec §7 GET /v1/user/referral-link): the
// sign-up page with a code made on the first request and stable after.
func (s *Service) ReferralLink(ctx context.Context, userID string) (string, error) {
	var code string
	var err error
	for range 3 {
		code, err = s.DB.ReferralLinkCode(ctx, userID, store.RandomString(12))
		if !store.IsUniqueViolation(err) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	return httpx.PublicURL(ctx, s.PublicURL) + "/app/sign-up?ref=" + code, nil
}

type referralLinkResponse struct {
	ReferralLink string `json:"referral_link"`
}

func (h *Handlers) referralLink(w http.ResponseWriter, r *http.Request) error {
	link, err := h.Svc.ReferralLink(r.Context(), access.CallerFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, referralLinkResponse{ReferralLink: link})
	return nil
}
