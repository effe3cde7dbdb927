package tts

import (
	"net/http"
	"sync"

	"timbre/internal/httpx"
)

// Slots limits how many speech requests a workspace runs at once (spec §9 concurrency per tier).
// The count is per process by design: a deployment of N API processes allows up to N× the tier's
// limit, which keeps the hot path free of database round trips.
type Slots struct {
	mu    sync.Mutex
	inUse map[string]int
}

// ErrTooManyConcurrent is the API's 429.
func errTooManyConcurrent(limit int) error {
	return httpx.Errorf(http.StatusTooManyRequests, "too_many_concurrent_requests",
		"Too many concurrent requests: your plan allows %d at a time. Wait for one to finish or upgrade your plan.", limit)
}

// Acquire takes a slot or fails with 429; call the returned release when done.
func (s *Slots) Acquire(workspaceID string, limit int) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inUse == nil {
		s.inUse = map[string]int{}
	}
	if s.inUse[workspaceID] >= limit {
		return nil, errTooManyConcurrent(limit)
	}
	s.inUse[workspaceID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.inUse[workspaceID]--; s.inUse[workspaceID] <= 0 {
				delete(s.inUse, workspaceID)
			}
		})
	}, nil
}

// InUse reports the slots a workspace holds.
func (s *Slots) InUse(workspaceID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inUse[workspaceID]
}
