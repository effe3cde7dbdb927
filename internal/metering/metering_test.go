package metering_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"timbre/internal/metering"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

type fixture struct {
	db    *store.DB
	user  *store.User
	ws    *store.Workspace
	keyID string
}

func newFixture(t *testing.T, db *store.DB, email string, keyLimit *int64) *fixture {
	t.Helper()
	ctx := context.Background()
	u, w, err := db.CreateUserWithWorkspace(ctx, email, "argon2id$hash", true, "free", t0)
	if err != nil {
		t.Fatal(err)
	}
	k := store.APIKey{ID: store.NewID(), WorkspaceID: w.ID, UserID: u.ID, Name: "k", Preview: "sk_…", CreatedAt: t0.Unix(), CharacterLimit: keyLimit}
	if err := db.CreateAPIKey(ctx, k, store.NewID()); err != nil {
		t.Fatal(err)
	}
	return &fixture{db: db, user: u, ws: w, keyID: k.ID}
}

func (f *fixture) charge(units, credits, allowance int64) metering.Charge {
	return metering.Charge{WorkspaceID: f.ws.ID, UserID: f.user.ID, APIKeyID: f.keyID, VoiceID: "v1", ModelID: "m1",
		Product: metering.TTS, Kind: metering.Characters, Units: units, Credits: credits, Allowance: allowance}
}

func (f *fixture) reserve(t *testing.T, c metering.Charge, now time.Time) (*metering.Reservation, error) {
	t.Helper()
	var r *metering.Reservation
	err := f.db.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		r, err = metering.Reserve(context.Background(), tx, c, now)
		return err
	})
	return r, err
}

// counts reads the workspace's, the key's and the member's counts in the current period.
func (f *fixture) counts(t *testing.T, now time.Time) (ws, key, member int64) {
	t.Helper()
	ctx := context.Background()
	w, err := f.db.Workspace(ctx, f.ws.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	err = f.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if _, key, err = tx.APIKeyUsage(ctx, f.ws.ID, f.keyID); err != nil {
			return err
		}
		_, member, err = tx.MemberUsage(ctx, f.ws.ID, f.user.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return w.CharacterCount, key, member
}

func settle(t *testing.T, db *store.DB, fn func(ctx context.Context, tx *store.Tx) (bool, error)) bool {
	t.Helper()
	var ok bool
	err := db.InTx(context.Background(), func(tx *store.Tx) error {
		var err error
		ok, err = fn(context.Background(), tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A reservation counts against the workspace, the key and the member at once; committing part of
// it gives the rest back to all three; a second settlement changes nothing; a refund gives all back.
func TestReserveCommitRefund(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, "a@example.com", nil)
		now := t0.Add(time.Hour)
		r, err := f.reserve(t, f.charge(200, 100, 10_000), now)
		if err != nil {
			t.Fatal(err)
		}
		if r.From != 0 || r.To != 100 {
			t.Fatalf("from %d to %d, want 0 and 100", r.From, r.To)
		}
		if ws, key, member := f.counts(t, now); ws != 100 || key != 100 || member != 100 {
			t.Fatalf("after reserve: workspace %d, key %d, member %d; want 100 each", ws, key, member)
		}
		if err := metering.Progress(ctx, db, r, 50, 25, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if e, _ := db.LedgerEntry(ctx, f.ws.ID, r.ID); e.State != store.LedgerReserved || e.DeliveredUnits != 50 || e.DeliveredCredits != 25 || e.HeartbeatUnix != now.Unix()+1 {
			t.Fatalf("after progress: %+v", e)
		}
		if !settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) {
			return metering.Commit(ctx, tx, r, 120, 60, now)
		}) {
			t.Fatal("Commit of an open reservation reported it settled already")
		}
		if ws, key, member := f.counts(t, now); ws != 60 || key != 60 || member != 60 {
			t.Fatalf("after commit of 60: workspace %d, key %d, member %d; want 60 each", ws, key, member)
		}
		e, err := db.LedgerEntry(ctx, f.ws.ID, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e.State != store.LedgerCommitted || e.Units != 200 || e.Credits != 100 || e.DeliveredUnits != 120 || e.DeliveredCredits != 60 ||
			e.Product != "tts" || e.UnitKind != "characters" || e.VoiceID != "v1" || e.ModelID != "m1" || e.APIKeyID != f.keyID || e.UserID != f.user.ID || e.SettledAtUnix != now.Unix() {
			t.Fatalf("committed entry %+v", e)
		}
		// Settled once: a refund (or a second commit) changes nothing.
		if settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) { return metering.Refund(ctx, tx, r, now) }) {
			t.Fatal("Refund of a committed reservation settled it again")
		}
		if ws, _, _ := f.counts(t, now); ws != 60 {
			t.Fatalf("workspace %d after a second settlement, want 60", ws)
		}

		r2, err := f.reserve(t, f.charge(10, 10, 10_000), now)
		if err != nil {
			t.Fatal(err)
		}
		settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) { return metering.Refund(ctx, tx, r2, now) })
		if ws, key, member := f.counts(t, now); ws != 60 || key != 60 || member != 60 {
			t.Fatalf("after a refund: workspace %d, key %d, member %d; want 60 each", ws, key, member)
		}
		if e, _ := db.LedgerEntry(ctx, f.ws.ID, r2.ID); e.State != store.LedgerRefunded || e.DeliveredCredits != 0 {
			t.Fatalf("refunded entry %+v", e)
		}
		// A commit never charges more than was reserved.
		r3, _ := f.reserve(t, f.charge(10, 10, 10_000), now)
		settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) {
			return metering.Commit(ctx, tx, r3, 10, 999, now)
		})
		if ws, _, _ := f.counts(t, now); ws != 70 {
			t.Fatalf("workspace %d after committing more than reserved, want 70", ws)
		}
	})
}

// Each quota refuses a reservation that does not fit, naming itself, and nothing is charged.
func TestQuotaErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keyLimit := int64(50)
		f := newFixture(t, db, "q@example.com", &keyLimit)
		now := t0.Add(time.Hour)
		var q *metering.QuotaError
		if _, err := f.reserve(t, f.charge(60, 60, 100), now); !errors.As(err, &q) || q.Scope != metering.ScopeAPIKey || q.Limit != 50 || q.Remaining() != 50 || q.Need != 60 {
			t.Fatalf("over the key's limit: %v", err)
		}
		if _, err := f.reserve(t, f.charge(101, 101, 100), now); !errors.As(err, &q) || q.Scope != metering.ScopeWorkspace || q.Limit != 100 {
			t.Fatalf("over the allowance: %v", err)
		}
		memberLimit := int64(30)
		if err := db.SetMemberCharacterLimit(ctx, f.ws.ID, f.user.ID, &memberLimit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reserve(t, f.charge(20, 20, 100), now); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reserve(t, f.charge(20, 20, 100), now); !errors.As(err, &q) || q.Scope != metering.ScopeMember || q.Limit != 30 || q.Remaining() != 10 {
			t.Fatalf("over the member's limit: %v", err)
		}
		if ws, key, member := f.counts(t, now); ws != 20 || key != 20 || member != 20 {
			t.Fatalf("refused reservations charged something: workspace %d, key %d, member %d", ws, key, member)
		}
		// Without a key, another user without a membership: only the workspace is charged.
		c := f.charge(5, 5, 100)
		c.APIKeyID, c.UserID = "", "not-a-member"
		if _, err := f.reserve(t, c, now); err != nil {
			t.Fatal(err)
		}
		if err := db.SetMemberCharacterLimit(ctx, f.ws.ID, f.user.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reserve(t, f.charge(20, 20, 100), now); err != nil {
			t.Fatalf("after the member's limit was removed: %v", err)
		}
		if ws, key, member := f.counts(t, now); ws != 45 || key != 40 || member != 40 {
			t.Fatalf("workspace %d, key %d, member %d; want 45, 40, 40", ws, key, member)
		}
	})
}

// 50 concurrent reservations against a member quota with room for exactly 7 charge exactly 7.
func TestConcurrentMemberQuota(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, "c@example.com", nil)
		const workers, per, fit = 50, 20, 7
		limit := int64(fit*per + per/2)
		if err := db.SetMemberCharacterLimit(context.Background(), f.ws.ID, f.user.ID, &limit); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		var other []error
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := f.charge(per, per, -1)
				c.APIKeyID = ""
				_, err := f.reserve(t, c, now)
				var q *metering.QuotaError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.As(err, &q) && q.Scope == metering.ScopeMember:
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		wg.Wait()
		if len(other) > 0 || ok != fit || refused != workers-fit {
			t.Fatalf("%d reserved, %d refused, errors %v; want %d and %d", ok, refused, other, fit, workers-fit)
		}
		if ws, _, member := f.counts(t, now); ws != fit*per || member != fit*per {
			t.Fatalf("workspace %d, member %d; want %d", ws, member, fit*per)
		}
	})
}

// A reservation settled after its period ended gives nothing back to the new period.
func TestRefundAfterRollOverLeavesNewPeriod(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, "p@example.com", nil)
		old := t0.Add(time.Hour)
		r, err := f.reserve(t, f.charge(100, 100, 10_000), old)
		if err != nil {
			t.Fatal(err)
		}
		next := time.Unix(f.ws.NextResetUnix, 0).Add(time.Hour)
		if _, err := f.reserve(t, f.charge(30, 30, 10_000), next); err != nil { // rolls the period over
			t.Fatal(err)
		}
		settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) { return metering.Refund(ctx, tx, r, next) })
		if ws, key, member := f.counts(t, next); ws != 30 || key != 30 || member != 30 {
			t.Fatalf("new period: workspace %d, key %d, member %d; want 30 each", ws, key, member)
		}
	})
}

// SettleStale settles quiet reservations for what they recorded as delivered and finishes their
// history rows: deleted when nothing was delivered, kept with the delivered text otherwise.
// Reservations still giving signs of life are left alone.
func TestSettleStale(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, "s@example.com", nil)
		start := t0.Add(time.Hour)
		text := "Héllo wörld, this is a test."
		open := func(historyID string) *metering.Reservation {
			t.Helper()
			var r *metering.Reservation
			err := db.InTx(ctx, func(tx *store.Tx) error {
				c := f.charge(int64(len([]rune(text))), 28, 10_000)
				c.HistoryID = historyID
				var err error
				if r, err = metering.Reserve(ctx, tx, c, start); err != nil {
					return err
				}
				return tx.InsertHistory(ctx, &store.HistoryItem{ID: historyID, WorkspaceID: f.ws.ID, UserID: f.user.ID, RequestID: "r", VoiceID: "v1",
					VoiceName: "V", VoiceCategory: "premade", ModelID: "m1", Text: text, Settings: "{}", DateUnix: start.Unix(), CharFrom: r.From, CharTo: r.To,
					ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateProcessing})
			})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		partial, none, alive := open("h-partial"), open("h-none"), open("h-alive")
		// A row a crashed process left before the ledger existed: charged, no reservation.
		err := db.InTx(ctx, func(tx *store.Tx) error {
			from, to, err := tx.Charge(ctx, f.ws.ID, 12, -1, start)
			if err != nil {
				return err
			}
			return tx.InsertHistory(ctx, &store.HistoryItem{ID: "h-legacy", WorkspaceID: f.ws.ID, UserID: f.user.ID, RequestID: "r", VoiceID: "v1",
				VoiceName: "V", VoiceCategory: "premade", ModelID: "m1", Text: "Twelve chars", Settings: "{}", DateUnix: start.Unix(), CharFrom: from, CharTo: to,
				ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateProcessing})
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := metering.Progress(ctx, db, partial, 5, 5, start.Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := metering.Progress(ctx, db, alive, 3, 3, start.Add(110*time.Second)); err != nil {
			t.Fatal(err)
		}
		n, err := metering.SettleStale(ctx, db, time.Minute, start.Add(2*time.Minute))
		if err != nil || n != 3 {
			t.Fatalf("settled %d (%v), want 3", n, err)
		}
		if _, err := db.History(ctx, f.ws.ID, "h-legacy"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the row left without a reservation: %v", err)
		}
		if ws, _, _ := f.counts(t, start); ws != 5+28 {
			t.Fatalf("workspace count %d, want 33 (5 delivered + 28 still open)", ws)
		}
		h, err := db.History(ctx, f.ws.ID, "h-partial")
		if err != nil || h.State != store.StateCreated || h.Text != "Héllo" || h.CharTo-h.CharFrom != 5 {
			t.Fatalf("partial history %+v %v", h, err)
		}
		if _, err := db.History(ctx, f.ws.ID, "h-none"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("history of a stream that delivered nothing: %v", err)
		}
		if e, _ := db.LedgerEntry(ctx, f.ws.ID, none.ID); e.State != store.LedgerRefunded {
			t.Fatalf("entry that delivered nothing: %+v", e)
		}
		if h, _ := db.History(ctx, f.ws.ID, "h-alive"); h.State != store.StateProcessing {
			t.Fatalf("a live generation was settled: %+v", h)
		}
		if n, _ := metering.SettleStale(ctx, db, time.Minute, start.Add(2*time.Minute)); n != 0 {
			t.Fatalf("a second pass settled %d", n)
		}
	})
}

// Usage sums the delivered units and credits by product, day, key, voice, user and model.
func TestUsage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, "u@example.com", nil)
		day1, day2 := t0.Add(time.Hour), t0.Add(25*time.Hour)
		commit := func(c metering.Charge, at time.Time, units, credits int64) {
			t.Helper()
			r, err := f.reserve(t, c, at)
			if err != nil {
				t.Fatal(err)
			}
			settle(t, db, func(ctx context.Context, tx *store.Tx) (bool, error) {
				return metering.Commit(ctx, tx, r, units, credits, at)
			})
		}
		commit(f.charge(100, 50, -1), day1, 100, 50)
		commit(f.charge(40, 40, -1), day2, 30, 30)
		stt := f.charge(90, 90, -1)
		stt.Product, stt.Kind, stt.APIKeyID, stt.VoiceID = metering.STT, metering.Seconds, "", ""
		commit(stt, day2, 60, 60)
		other := newFixture(t, db, "other@example.com", nil) // another workspace's usage is not counted
		if _, err := other.reserve(t, other.charge(7, 7, -1), day1); err != nil {
			t.Fatal(err)
		}
		sum := func(by store.UsageGroup, product metering.Product) map[string][2]int64 {
			t.Helper()
			rows, err := metering.Usage(context.Background(), db, f.ws.ID, t0, t0.Add(72*time.Hour), product, by)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string][2]int64{}
			for _, r := range rows {
				m[r.Key] = [2]int64{r.Units, r.Credits}
			}
			return m
		}
		check := func(name string, got, want map[string][2]int64) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v", name, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("%s: %v, want %v", name, got, want)
				}
			}
		}
		d1 := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC).Unix()
		d2 := d1 + 86400
		check("by product", sum(store.UsageByProduct, ""), map[string][2]int64{"tts": {130, 80}, "stt": {60, 60}})
		check("by day", sum(store.UsageByDay, ""), map[string][2]int64{itoa(d1): {100, 50}, itoa(d2): {90, 90}})
		check("tts by day", sum(store.UsageByDay, metering.TTS), map[string][2]int64{itoa(d1): {100, 50}, itoa(d2): {30, 30}})
		check("by key", sum(store.UsageByAPIKey, ""), map[string][2]int64{f.keyID: {130, 80}, "": {60, 60}})
		check("by voice", sum(store.UsageByVoice, metering.TTS), map[string][2]int64{"v1": {130, 80}})
		check("by user", sum(store.UsageByUser, ""), map[string][2]int64{f.user.ID: {190, 140}})
		check("by model", sum(store.UsageByModel, ""), map[string][2]int64{"m1": {190, 140}})
		if _, err := metering.Usage(context.Background(), db, f.ws.ID, t0, day2, "", "text"); err == nil {
			t.Fatal("an unknown group was accepted")
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
