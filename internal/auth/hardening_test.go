package auth_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/pquerna/otp/totp"

	"timbre/internal/auth"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// parallel sends n copies of a request at once and counts the answers by HTTP status.
func (e *secEnv) parallel(n int, method, path string, body map[string]any, opts ...opt) map[int]int {
	e.t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			w := e.do(method, path, body, opts...)
			mu.Lock()
			got[w.Code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return got
}

// TestParallelGuessesStayWithinLimits: attempts are counted before the slow check, so 200
// parallel wrong passwords (or codes) get no more checks than the limit allows. Every 401/400
// below is an answer that ran the check; the rest were refused before it.
func TestParallelGuessesStayWithinLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		e := newSecEnv(t, db)
		const email, password = "par@example.com", "par's long password"
		signUpVerified(t, e.svc, e.mail, email, password)

		got := e.parallel(200, "POST", "/api/auth/sign-in", map[string]any{"email": email, "password": "wrong guess"}, fromAddr("198.51.100.20:1"))
		if got[http.StatusUnauthorized] > int(auth.LimitSignInAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong passwords → %v: at most %d may be checked", got, auth.LimitSignInAccount.Max)
		}
		t.Logf("200 parallel wrong passwords: %d checked, %d refused before the check", got[http.StatusUnauthorized], got[http.StatusTooManyRequests])
		e.signIn(email, password) // the owner elsewhere is not locked out

		got = e.parallel(200, "POST", "/api/auth/check-reset-code", map[string]any{"code": "wrong"}, fromAddr("198.51.100.21:1"))
		if got[http.StatusBadRequest] > int(auth.LimitCodeIP.Max) || got[http.StatusBadRequest]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong reset codes → %v: at most %d may be checked", got, auth.LimitCodeIP.Max)
		}

		b := e.signIn(email, password, fromAddr("198.51.100.22:1"))
		m := wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/enroll", map[string]any{"password": password}, b.opts()...), http.StatusOK, "")
		code, _ := totp.GenerateCode(m["secret"].(string), e.clk.Now())
		wantHTTP(t, e.do("POST", "/api/auth/mfa/totp/confirm", map[string]any{"code": code}, b.opts()...), http.StatusOK, "")
		tok := wantHTTP(t, e.do("POST", "/api/auth/sign-in", map[string]any{"email": email, "password": password}, fromAddr("198.51.100.22:1")), http.StatusOK, "")["mfa_token"].(string)
		got = e.parallel(200, "POST", "/api/auth/mfa/verify", map[string]any{"mfa_token": tok, "code": "000000"}, fromAddr("198.51.100.23:1"))
		if got[http.StatusUnauthorized] > int(auth.LimitMFAAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong MFA codes → %v: at most %d may be checked", got, auth.LimitMFAAccount.Max)
		}

		// Sensitive-action password proofs (here: turning 2FA off with the password).
		got = e.parallel(200, "POST", "/api/auth/mfa/totp/disable", map[string]any{"code": "000000", "password": "wrong guess"}, append(b.opts(), fromAddr("198.51.100.24:1"))...)
		if got[http.StatusUnauthorized] > int(auth.LimitSignInAccount.Max) || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 200 {
			t.Fatalf("200 parallel wrong sensitive-action passwords → %v: at most %d may be checked", got, auth.LimitSignInAccount.Max)
		}
		_ = strconv.Itoa
	})
}
