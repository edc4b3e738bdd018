package run

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"dbbench/runners/measure/provider"
)

// The churn check fails when it should: database/sql's pool as shipped (no limit, 2
// idle) under Poisson arrivals at 2000 req/s dials again and again and is flagged;
// the same pool with idle = open (conn=persistent) is not. Both are read by the
// server's own count of connections around each slice.
func TestChurnFlaggedUnderPoissonArrivals(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run skipped in -short mode")
	}
	root, binDir, m, _ := smokeSetup(t)
	quick, err := m.Preset("quick")
	if err != nil {
		t.Fatal(err)
	}
	p := *quick
	p.Handshakes = 0 // the connection-cost measurement is not this test's
	var log strings.Builder
	res, err := Run(context.Background(), Options{
		Selection: Selection{Root: root, BinDir: binDir, Matrix: m, Preset: &p, Variants: regexp.MustCompile(`^lang=go/server=nethttp/layer=raw/stmt=prepare/conn=(persistent|shipped)/`), DB: provider.Options{Rows: 2000}},
		Output:    Output{Out: t.TempDir(), Log: &log},
		Shape:     Shape{KeepAlive: true, Seed: 7, Rate: 2000, Poisson: true, Warmup: 300 * time.Millisecond, Duration: 400 * time.Millisecond, Reps: 4},
		Checks:    Checks{Profile: ProfileOff},
		Pairing:   Pairing{Design: Walk, Budget: 10 * time.Second},
	})
	if err != nil {
		t.Log(log.String())
		t.Fatal(err)
	}
	seen := 0
	for _, v := range res.Variants {
		dials, churns, ok := v.Churns()
		t.Logf("%s: %.3f dials per request, churns %v", v.Key, dials, churns)
		if !v.Valid || !ok {
			t.Errorf("%s: valid %v (%s), server's count read %v", v.Key, v.Valid, v.InvalidReason, ok)
			continue
		}
		seen++
		if want := v.Conn == "shipped"; churns != want {
			t.Errorf("%s: churns %v at %.3f dials per request, want %v", v.Key, churns, dials, want)
		}
	}
	if seen != 2 {
		t.Errorf("%d variants judged, want 2 (persistent and shipped)", seen)
	}
}
