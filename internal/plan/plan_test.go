package plan

import "testing"

// The spec (§9) gives these numbers; a change here must be a change of the spec.
func TestTiersMatchSpec(t *testing.T) {
	want := []struct {
		id          string
		chars       int64
		voices      int
		concurrency int
		seats       int
		price       int64
	}{
		{"free", 10000, 3, 2, 1, 0},
		{"starter", 30000, 10, 3, 1, 500},
		{"creator", 100000, 30, 5, 1, 2200},
		{"pro", 500000, 160, 10, 1, 9900},
		{"growing_business", 2000000, 660, 15, 3, 33000},
		{"scale_2024_08_10", 11000000, 660, 15, 5, 132000},
	}
	for _, w := range want {
		got := Get(w.id)
		if got.ID != w.id || got.CharacterLimit != w.chars || got.VoiceLimit != w.voices || got.Concurrency != w.concurrency || got.Seats != w.seats || got.PriceCentsUSD != w.price {
			t.Errorf("%s: got %+v", w.id, got)
		}
	}
	if Get("nope").ID != "free" {
		t.Error("unknown tier should fall back to free")
	}
	if !AtLeast("pro", "creator") || AtLeast("starter", "creator") {
		t.Error("tier order wrong")
	}
	if MaxVoiceAddEdits(Get("free")) != 55 {
		t.Errorf("max voice add/edits for free = %d, want round(1.5*3+50)=55", MaxVoiceAddEdits(Get("free")))
	}
}

// TestIsolationCredits pins the voice isolator's price: 1,000 credits a minute, per started second.
func TestIsolationCredits(t *testing.T) {
	for secs, want := range map[float64]int64{60: 1000, 3600: 60000, 0.1: 17, 1: 17, 61.2: 1034, 30: 500} {
		if got := IsolationCredits(secs); got != want {
			t.Errorf("IsolationCredits(%v) = %d, want %d", secs, got, want)
		}
	}
}

// TestSTSCredits pins speech to speech's price: 1,000 credits a minute, per started second.
func TestSTSCredits(t *testing.T) {
	for secs, want := range map[float64]int64{60: 1000, 5.83: 100, 0.1: 17, 61.2: 1034} {
		if got := STSCredits(secs); got != want {
			t.Errorf("STSCredits(%v) = %d, want %d", secs, got, want)
		}
	}
}

// TestSFXSeconds pins spec §9's sound-effect seconds per tier and what a second costs: the
// month's credits buy exactly those seconds (40 credits a second on every plan).
func TestSFXSeconds(t *testing.T) {
	want := []float64{250, 750, 2500, 12500, 50000, 275000}
	for i, s := range want {
		tier := Tiers[i]
		if tier.SFXSeconds != s {
			t.Errorf("%s: %g sound-effect seconds, want %g", tier.ID, tier.SFXSeconds, s)
		}
		if got := SFXCredits(tier, s); got != tier.CharacterLimit {
			t.Errorf("%s: %g s cost %d credits, want the month's %d", tier.ID, s, got, tier.CharacterLimit)
		}
		if got := SFXCredits(tier, 2.2); got != 120 {
			t.Errorf("%s: 2.2 s cost %d, want 120 (3 whole seconds)", tier.ID, got)
		}
	}
	if got := SFXCredits(Get("enterprise"), 1); got != 40 {
		t.Errorf("enterprise: %d credits a second", got)
	}
}
