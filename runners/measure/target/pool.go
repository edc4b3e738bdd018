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

// adminClient reads a Go target's admin listener: one kept-alive connection per target,
// so sampling adds one constant descriptor rather than a churn of them.
var adminClient = &http.Client{Timeout: 2 * time.Second}

// ReadPool reads the pool counters of the Go target whose admin listener is adminURL.
func ReadPool(ctx context.Context, adminURL string) (*PoolStats, error) {
	if adminURL == "" {
		return nil, fmt.Errorf("pool counters: the target has no admin listener")
	}
	var s PoolStats
	return &s, getJSON(ctx, adminClient, adminURL+"/debug/dbstats", "pool counters", &s)
}

// ReadMetrics reads a Go target's runtime counters (GET /debug/metrics): runtime/metrics
// name to value.
func ReadMetrics(ctx context.Context, adminURL string) (map[string]float64, error) {
	var m map[string]float64
	return m, getJSON(ctx, adminClient, adminURL+"/debug/metrics", "runtime metrics", &m)
}

// getJSON decodes the JSON that GET url answers with 200 into v; what names the
// reading in errors.
func getJSON(ctx context.Context, client *http.Client, url, what string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{what: what, status: resp.Status, code: resp.StatusCode}
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// statusError is a page that answered with another status than 200 OK.
type statusError struct {
	what, status string
	code         int
}

func (e *statusError) Error() string { return e.what + ": " + e.status }

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
