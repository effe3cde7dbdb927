// Package account serves the account extras of issue 3 (spec §3 User, §4, §6, §7): the
// onboarding survey and checklist, notifications (messages), the CCPA opt-out, the BIPA
// (biometric) terms, the alpha-access flag, the public user name and the geo location that
// GET /v1/user shows.
package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"timbre/internal/store"
)

// Onboarding checklist items (spec §4: items complete on these events).
const (
	ItemGenerateSpeech       = "generate_speech"         // start of a text-to-speech or speech-to-speech generation
	ItemAddVoiceFromLibrary  = "add_voice_from_library"  // voice added to the voice lab from the library
	ItemDesignVoice          = "design_voice"            // voice design created
	ItemCreateDub            = "create_dub"              // dub created
	ItemGenerateAffiliateURL = "generate_affiliate_link" // affiliate link generated
	ItemAPIKeyUnhidden       = "api_key_unhidden"        // API key unhidden
)

// Items are the checklist's items in the order the web app shows them.
var Items = []string{ItemGenerateSpeech, ItemAddVoiceFromLibrary, ItemDesignVoice, ItemCreateDub, ItemGenerateAffiliateURL, ItemAPIKeyUnhidden}

// Message severities.
var Severities = []string{"info", "success", "warning", "error"}

// Service holds what the account routes and the exported hooks share.
type Service struct {
	DB  Store
	Now func() time.Time
	// TrustGeoHeaders makes GET /v1/user derive geo_location from the headers a reverse proxy in
	// front of Timbre sets (see Geo). Leave it off unless the proxy sets them and strips them from
	// clients: otherwise a client chooses its own location.
	TrustGeoHeaders bool
	Log             *slog.Logger
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Notify gives a user a notification (spec §3 Message). Severity is info, success, warning or
// error; needsAttention highlights it in the bell's list. It returns the message id.
func (s *Service) Notify(ctx context.Context, userID, severity, title, description string, needsAttention bool) (string, error) {
	if !validSeverity(severity) {
		return "", fmt.Errorf("account: unknown message severity %q", severity)
	}
	if strings.TrimSpace(title) == "" {
		return "", errors.New("account: a message needs a title")
	}
	m := &store.Message{UserID: userID, Severity: severity, Title: title, Description: description,
		NeedsAttention: needsAttention, CreatedAtMs: s.now().UnixMilli()}
	if err := s.DB.CreateMessage(ctx, m); err != nil {
		return "", err
	}
	return m.ID, nil
}

func validSeverity(s string) bool {
	for _, v := range Severities {
		if s == v {
			return true
		}
	}
	return false
}

// done remembers (user, item) pairs already recorded, so the hot paths that call CompleteItem
// (every text-to-speech request) write once per user and process, not once per request.
var done sync.Map

// CompleteItem records that the user did a checklist step (one of Items). It is safe to call on
// every occurrence of the event and from any domain: after the first success it costs a map
// lookup. Failures are logged, never returned: the event itself has happened. Do not call it
// inside a store transaction (it writes through the store).
func CompleteItem(ctx context.Context, db ChecklistWriter, userID, itemID string) {
	if userID == "" {
		return
	}
	key := userID + "\x00" + itemID
	if _, ok := done.Load(key); ok {
		return
	}
	if _, err := db.CompleteOnboardingItem(ctx, userID, itemID, time.Now()); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			slog.Default().Warn("onboarding checklist item not recorded", "user_id", userID, "item", itemID, "err", err)
		}
		return
	}
	done.Store(key, struct{}{})
}

// PublicName is the name share links show for a user: the public user name they chose, else
// their first name, else the part of their email before the @.
func PublicName(ctx context.Context, db PublicNames, u *store.User) string {
	if name, err := db.PublicUserName(ctx, u.ID); err == nil && name != "" {
		return name
	}
	if u.FirstName != "" {
		return u.FirstName
	}
	return strings.SplitN(u.Email, "@", 2)[0]
}

// Geo headers a reverse proxy may set (Cloudflare's names, or generic X-Geo-* ones).
const (
	HeaderCountry   = "CF-IPCountry"   // ISO 3166-1 alpha-2, e.g. US
	HeaderRegion    = "X-Geo-Region"   // ISO 3166-2 subdivision, e.g. IL or US-IL
	HeaderRegionCF  = "CF-Region-Code" // Cloudflare's visitor-location region code
	HeaderCity      = "X-Geo-City"
	HeaderCityCF    = "CF-IPCity"
	HeaderCountryXG = "X-Geo-Country"
)

// GeoLocation is spec §3's geo_location.
type GeoLocation struct {
	Region  string `json:"region"`
	Country string `json:"country"`
	City    string `json:"city"`
}

// Geo reads the caller's location from the proxy's headers; nil when there is no country (or
// Cloudflare's XX/T1 unknown and Tor markers).
func Geo(r *http.Request) *GeoLocation {
	first := func(names ...string) string {
		for _, n := range names {
			if v := strings.TrimSpace(r.Header.Get(n)); v != "" {
				return v
			}
		}
		return ""
	}
	country := strings.ToUpper(first(HeaderCountry, HeaderCountryXG))
	if len(country) != 2 || country == "XX" || country == "T1" {
		return nil
	}
	region := strings.ToUpper(first(HeaderRegion, HeaderRegionCF))
	region = strings.TrimPrefix(region, country+"-")
	if len(region) > 10 {
		region = region[:10]
	}
	city := first(HeaderCity, HeaderCityCF)
	if len([]rune(city)) > 100 {
		city = string([]rune(city)[:100])
	}
	return &GeoLocation{Region: region, Country: country, City: city}
}

// ChecklistItem is one entry of onboarding_checklist.items.
type ChecklistItem struct {
	ID          string `json:"onboarding_checklist_item_id"`
	IsCompleted bool   `json:"is_completed"`
}

// Checklist is spec §3's onboarding_checklist.
type Checklist struct {
	ChecklistID string          `json:"checklist_id"`
	Items       []ChecklistItem `json:"items"`
	Hidden      bool            `json:"hidden"`
}

func checklistOf(a *store.AccountExtras) *Checklist {
	if a.ChecklistID == "" {
		return nil
	}
	c := &Checklist{ChecklistID: a.ChecklistID, Hidden: a.ChecklistHidden, Items: make([]ChecklistItem, len(Items))}
	for i, id := range Items {
		_, ok := a.CompletedItems[id]
		c.Items[i] = ChecklistItem{ID: id, IsCompleted: ok}
	}
	return c
}

// UserFields are the fields GET /v1/user adds for the account extras (spec §3 User).
// onboarding_survey, geo_location and public_user_name are null when unknown.
type UserFields struct {
	IsOnboardingCompleted          bool            `json:"is_onboarding_completed"`
	OnboardingSurvey               json.RawMessage `json:"onboarding_survey"`
	IsOnboardingChecklistCompleted bool            `json:"is_onboarding_checklist_completed"`
	OnboardingChecklist            *Checklist      `json:"onboarding_checklist"`
	CCPAOptOut                     bool            `json:"ccpa_opt_out"`
	AcceptedBIPATerms              bool            `json:"accepted_bipa_terms"`
	GeoLocation                    *GeoLocation    `json:"geo_location"`
	PublicUserName                 *string         `json:"public_user_name"`
}

// UserFields reads the user's account extras for GET /v1/user.
func (s *Service) UserFields(ctx context.Context, r *http.Request, userID string) (*UserFields, error) {
	a, err := s.DB.AccountExtras(ctx, userID)
	if err != nil {
		return nil, err
	}
	var survey json.RawMessage
	if a.OnboardingSurvey != "" {
		survey = json.RawMessage(a.OnboardingSurvey)
	}
	var geo *GeoLocation
	if s.TrustGeoHeaders && r != nil {
		geo = Geo(r)
	}
	var publicName *string
	if a.PublicUserName != "" {
		publicName = &a.PublicUserName
	}
	return &UserFields{
		IsOnboardingCompleted:          a.IsOnboardingCompleted,
		OnboardingSurvey:               survey,
		IsOnboardingChecklistCompleted: a.IsOnboardingChecklistCompleted,
		OnboardingChecklist:            checklistOf(a),
		CCPAOptOut:                     a.CCPAOptOut,
		AcceptedBIPATerms:              a.AcceptedBIPATerms,
		GeoLocation:                    geo,
		PublicUserName:                 publicName,
	}, nil
}
