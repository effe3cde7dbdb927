package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestServiceKeyInsertIfAbsent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.ServiceKey(ctx, "saml-sp"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("ServiceKey before any: %v, want ErrNotFound", err)
		}
		// Eight first uses at once: one row wins and every caller reads that one back.
		const n = 8
		got := make([]*store.ServiceKey, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				got[i], errs[i] = db.EnsureServiceKey(ctx, store.ServiceKey{Name: "saml-sp", PrivateKeyEnc: fmt.Sprintf("v1:key-%d", i),
					Certificate: fmt.Sprintf("cert-%d", i)}, t0)
			})
		}
		wg.Wait()
		for i := range n {
			must(t, "EnsureServiceKey", errs[i])
			if *got[i] != *got[0] {
				t.Fatalf("caller %d got %+v, caller 0 %+v", i, got[i], got[0])
			}
		}
		if got[0].Name != "saml-sp" || got[0].CreatedAt != t0.Unix() || got[0].PrivateKeyEnc[len("v1:key-"):] != got[0].Certificate[len("cert-"):] {
			t.Fatalf("stored %+v", got[0])
		}
		k, err := db.ServiceKey(ctx, "saml-sp")
		must(t, "ServiceKey", err)
		if *k != *got[0] {
			t.Fatalf("ServiceKey %+v, want %+v", k, got[0])
		}
		// A later call with another pair changes nothing; another name is its own row.
		again, err := db.EnsureServiceKey(ctx, store.ServiceKey{Name: "saml-sp", PrivateKeyEnc: "v1:other", Certificate: "other"}, t0)
		must(t, "EnsureServiceKey again", err)
		if *again != *got[0] {
			t.Fatalf("second EnsureServiceKey replaced the pair: %+v", again)
		}
		other, err := db.EnsureServiceKey(ctx, store.ServiceKey{Name: "other", PrivateKeyEnc: "v1:o", Certificate: "o"}, t0)
		must(t, "EnsureServiceKey other", err)
		if other.Name != "other" || other.Certificate != "o" {
			t.Fatalf("other name: %+v", other)
		}
	})
}
