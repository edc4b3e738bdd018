package target

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// PoolStats is a Go target's pool counters as GET /debug/dbstats serves them
// (go/server/admin.go): database/sql's DBStats and the connections' holds (go/held).
// The run reads waits and holds per slice, the soak connections over time.
type PoolStats struct {
	OpenConnections int64
	InUse           int64
	WaitCount       int64
	WaitDuration    int64 // nanoseconds
	Holds           int64
	HeldDuration    int64 // nanoseconds
}

var adminClient = &http.Client{Timeout: 2 * time.Second}

// ReadPool reads the pool counters of the Go target whose admin listener is adminURL.
func ReadPool(ctx context.Context, adminURL string) (*PoolStats, error) {
	if adminURL == "" {
		return nil, fmt.Errorf("pool counters: the target has no admin listener")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, adminURL+"/debug/dbstats", nil)
	if err != nil {
		return nil, fmt.Errorf("pool counters: %w", err)
	}
	resp, err := adminClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pool counters: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("pool counters: GET /debug/dbstats: %s", resp.Status)
	}
	var s PoolStats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return nil, fmt.Errorf("pool counters: %w", err)
	}
	return &s, nil
}

// goHolds times each request served alone by the connections it held: the pool's
// own count of holds and their time (go/held), read before and after.
type goHolds struct {
	admin string
	last  *PoolStats
}

// Start reads the counters the first request's holds are counted from.
func (h *goHolds) Start(ctx context.Context) error {
	s, err := ReadPool(ctx, h.admin)
	h.last = s
	return err
}

// Next is the time the request served since the previous reading held connections:
// every hold it made (a write holds one for its transaction, an ORM may take more).
func (h *goHolds) Next(ctx context.Context) (time.Duration, error) {
	s, err := ReadPool(ctx, h.admin)
	if err != nil {
		return 0, err
	}
	prev := h.last
	h.last = s
	if prev == nil || s.Holds <= prev.Holds {
		return 0, fmt.Errorf("pool counters: no connection held since the last reading")
	}
	return time.Duration(s.HeldDuration - prev.HeldDuration), nil
}
