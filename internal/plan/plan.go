// Package plan holds the subscription tiers and their limits: the numbers of the product
// specification (§9), kept as data in one place and pinned by tests.
package plan

import "math"

// Tier is one subscription plan.
type Tier struct {
	ID               string // plan_id / tier
	Name             string
	PriceCentsUSD    int64 // monthly
	CharacterLimit   int64 // credits per month; -1 = unlimited
	VoiceLimit       int   // custom voices
	Concurrency      int   // simultaneous speech requests
	Seats            int
	ProVoiceLimit    int
	ExtraCostPer1000 string // overage price per 1000 characters, "" when not offered
	Paying           bool
	// STTHours is the hours of speech to text the monthly credits buy when spent on nothing else
	// (ElevenLabs' published Scribe allowances); it sets what a second of audio costs.
	STTHours float64
	// SFXSeconds is the seconds of sound effects the monthly credits buy when spent on nothing
	// else (spec §9); it sets what a second of sound effect costs.
	SFXSeconds float64
}

// Tiers in the spec's order (free … Business). Enterprise is custom and unlimited.
var Tiers = []Tier{
	{ID: "free", Name: "Free", PriceCentsUSD: 0, CharacterLimit: 10_000, VoiceLimit: 3, Concurrency: 2, Seats: 1, ProVoiceLimit: 0, STTHours: 2.5, SFXSeconds: 250},
	{ID: "starter", Name: "Starter", PriceCentsUSD: 500, CharacterLimit: 30_000, VoiceLimit: 10, Concurrency: 3, Seats: 1, ProVoiceLimit: 0, Paying: true, STTHours: 12.5, SFXSeconds: 750},
	{ID: "creator", Name: "Creator", PriceCentsUSD: 2200, CharacterLimit: 100_000, VoiceLimit: 30, Concurrency: 5, Seats: 1, ProVoiceLimit: 1, ExtraCostPer1000: "0.30", Paying: true, STTHours: 63, SFXSeconds: 2500},
	{ID: "pro", Name: "Pro", PriceCentsUSD: 9900, CharacterLimit: 500_000, VoiceLimit: 160, Concurrency: 10, Seats: 1, ProVoiceLimit: 1, ExtraCostPer1000: "0.24", Paying: true, STTHours: 320, SFXSeconds: 12500},
	{ID: "growing_business", Name: "Scale", PriceCentsUSD: 33000, CharacterLimit: 2_000_000, VoiceLimit: 660, Concurrency: 15, Seats: 3, ProVoiceLimit: 1, ExtraCostPer1000: "0.18", Paying: true, STTHours: 1220, SFXSeconds: 50000},
	{ID: "scale_2024_08_10", Name: "Business", PriceCentsUSD: 132000, CharacterLimit: 11_000_000, VoiceLimit: 660, Concurrency: 15, Seats: 5, ProVoiceLimit: 3, ExtraCostPer1000: "0.10", Paying: true, STTHours: 6000, SFXSeconds: 275000},
	{ID: "enterprise", Name: "Enterprise", CharacterLimit: -1, VoiceLimit: 10_000, Concurrency: 15, Seats: 25, ProVoiceLimit: 3, STTHours: 6000, SFXSeconds: 275000},
}

// Default is the tier of a new workspace.
const Default = "free"

// Get returns the tier with id, or the free tier for an unknown id.
func Get(id string) Tier {
	for _, t := range Tiers {
		if t.ID == id {
			return t
		}
	}
	return Tiers[0]
}

// Rank orders tiers (free = 0); used for "creator or above" checks.
func Rank(id string) int {
	for i, t := range Tiers {
		if t.ID == id {
			return i
		}
	}
	return 0
}

// AtLeast says whether tier id is minimum or above.
func AtLeast(id, minimum string) bool { return Rank(id) >= Rank(minimum) }

// STTCredits is what seconds of audio cost to transcribe on tier t: the tier's monthly credits
// spread over its speech-to-text hours, so that those hours use up exactly the month's credits
// (at least 1 credit). Enterprise is priced as Business.
func STTCredits(t Tier, seconds float64) int64 {
	credits, hours := t.CharacterLimit, t.STTHours
	if credits < 0 {
		b := Get("scale_2024_08_10")
		credits, hours = b.CharacterLimit, b.STTHours
	}
	return max(1, int64(math.Ceil(seconds*float64(credits)/(hours*3600))))
}

// IsolationCreditsPerMinute is what the voice isolator costs: ElevenLabs charges 1,000 credits per
// minute of audio, on every plan.
const IsolationCreditsPerMinute = 1000

// IsolationCredits is what seconds of audio cost to isolate: IsolationCreditsPerMinute pro-rated
// per second (rounded up), at least 1 credit.
func IsolationCredits(seconds float64) int64 {
	return max(1, int64(math.Ceil(math.Ceil(seconds)*IsolationCreditsPerMinute/60)))
}

// SFXCredits is what seconds of sound effect cost on tier t: the tier's monthly credits spread
// over its sound-effect seconds (40 credits a second on every plan), per whole second delivered.
// Enterprise is priced as Business.
func SFXCredits(t Tier, seconds float64) int64 {
	credits, secs := t.CharacterLimit, t.SFXSeconds
	if credits < 0 || secs <= 0 {
		b := Get("scale_2024_08_10")
		credits, secs = b.CharacterLimit, b.SFXSeconds
	}
	return max(1, int64(math.Ceil(math.Ceil(seconds)*float64(credits)/secs)))
}

// ProVoiceLimit is the spec's derived professional voice limit: the plan's limit plus the
// workspace's extra slots.
func ProVoiceLimit(t Tier, extraSlots int) int { return t.ProVoiceLimit + max(0, extraSlots) }

// MaxVoiceAddEdits is the spec's derived limit: round(1.5 × voice_limit + 50).
func MaxVoiceAddEdits(t Tier) int { return int(1.5*float64(t.VoiceLimit) + 50 + 0.5) }

// Text limits per request (characters), as the API's models document them.
const (
	MaxCharsFree       = 2500
	MaxCharsSubscribed = 5000
	MaxCharsPerRequest = 10000
)

// STSCreditsPerMinute is what speech to speech costs: ElevenLabs charges 1,000 credits per minute
// of recording, on every plan.
const STSCreditsPerMinute = 1000

// STSCredits is what seconds of recording cost to convert: STSCreditsPerMinute pro-rated per
// second (rounded up), at least 1 credit.
func STSCredits(seconds float64) int64 {
	return max(1, int64(math.Ceil(math.Ceil(seconds)*STSCreditsPerMinute/60)))
}

// VoiceSlotCategories are the workspace voice categories that take one of the plan's voice
// slots (VoiceLimit): instant clones and designed voices.
var VoiceSlotCategories = []string{"cloned", "generated"}

// CanCloneInstantly says whether a plan includes instant voice cloning (every paid plan, as
// ElevenLabs: the free plan has none).
func CanCloneInstantly(t Tier) bool { return t.Paying || t.ID == "enterprise" }

// MusicCreditsPerMinute is what music costs. The spec names no price for music; Timbre charges
// it from the workspace's credit allowance like the other per-minute audio products (the voice
// isolator, speech to speech): 1,000 credits per minute of music, pro-rated per second.
const MusicCreditsPerMinute = 1000

// MusicCredits is what a song of ms milliseconds costs: MusicCreditsPerMinute per started
// second, at least 1 credit.
func MusicCredits(ms int) int64 {
	secs := math.Ceil(float64(ms) / 1000)
	return max(1, int64(math.Ceil(secs*MusicCreditsPerMinute/60)))
}
