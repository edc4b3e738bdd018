package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/loadgen"
	"dbbench/runners/matrix"
	"dbbench/runners/procstat"
	"dbbench/runners/results"
)

// measure runs one repetition of one variant on a freshly started target: warm-up,
// then the measured interval with CPU, memory and pool counters sampled around it.
func (r *runner) measure(ctx context.Context, v matrix.Variant, rep int) error {
	rv := r.byKey[v.Key()]
	t, err := r.startTarget(ctx, v, r.dsnFile)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.failRep(ctx, rv, rep, "target did not start", err)
	}
	defer t.Stop()
	cfg := loadgen.Config{
		Target: t.URL, Rows: uint32(r.db.Rows), Connections: r.o.Connections, Rate: r.o.Rate,
		DisableKeepAlives: !r.o.KeepAlive, Check: CheckUser,
	}
	if !rv.DB {
		cfg.Path, cfg.Check = "/hello", checkHello
	}
	warm := cfg
	warm.Duration, warm.Seed = r.o.Warmup, r.o.Seed^0x7761726d // "warm"
	if _, err := loadgen.Run(ctx, warm); err != nil {
		return r.failRep(ctx, rv, rep, "warm-up", err)
	}

	pids := t.PIDs()
	procstat.ResetPeakRSS(pids...)
	appStart, err := procstat.Take(pids...)
	if err != nil {
		return r.failRep(ctx, rv, rep, "sample target CPU", err)
	}
	dbStart := r.sampleDB()
	poolStart := dbStats(t.AdminURL)

	cfg.Duration, cfg.Seed = r.o.Duration, r.o.Seed+uint64(rep)
	started := time.Now().UTC()
	threads := sampleThreadsRunning(ctx, r.admin)
	res, err := loadgen.Run(ctx, cfg)
	threadsMean, threadsMax := threads()
	if ctx.Err() != nil {
		return ctx.Err() // a repetition cut short is not a repetition: it is not recorded
	}
	if err != nil {
		return r.failRep(ctx, rv, rep, "load", err)
	}
	appEnd, appErr := procstat.Take(pids...)
	dbEnd := r.sampleDB()
	poolEnd := dbStats(t.AdminURL)
	rss, _ := procstat.PeakRSS(t.PIDs()...)

	lat, svc := histogram.Summarize(res.Latency), res.Service
	out := &results.Repetition{
		Rep: rep, Started: started, Seconds: res.Elapsed.Seconds(),
		Requests: res.Requests, OK: res.OK, QPS: res.QPS,
		P50: lat.P50.Seconds(), P90: lat.P90.Seconds(), P99: lat.P99.Seconds(),
		P999: lat.P999.Seconds(), Max: lat.Max.Seconds(),
		AppCPU: -1, DBCPU: -1, GenCPU: res.CPUPerRequest(), AppRSS: rss,
		ThreadsRunningMean: threadsMean, ThreadsRunningMax: threadsMax,
	}
	for class, n := range res.Errors {
		if n > 0 {
			if out.Errors == nil {
				out.Errors = map[string]int64{}
			}
			out.Errors[class] = n
		}
	}
	if res.Requests > 0 {
		if appErr == nil {
			out.AppCPU = appEnd.Sub(appStart).CPU().Seconds() / float64(res.Requests)
		}
		if dbStart != nil && dbEnd != nil {
			out.DBCPU = dbEnd.Sub(dbStart).CPU().Seconds() / float64(res.Requests)
		}
	}
	if poolStart != nil && poolEnd != nil {
		out.PoolCounted = true
		out.PoolWaits = poolEnd.WaitCount - poolStart.WaitCount
		out.PoolWaitSeconds = time.Duration(poolEnd.WaitDuration - poolStart.WaitDuration).Seconds()
	}
	if out.Latency, err = histogram.Encode(res.Latency); err != nil {
		return err
	}
	if out.Service, err = histogram.Encode(svc); err != nil {
		return err
	}
	rv.Reps = append(rv.Reps, out)
	if err := r.writeHistogram(rv); err != nil {
		return err
	}

	errs := res.ErrorCount()
	switch {
	case res.Requests == 0:
		r.invalidate(rv, fmt.Sprintf("rep %d: no request finished", rep))
	case float64(errs)/float64(res.Requests) > r.o.MaxErrorRate:
		r.invalidate(rv, fmt.Sprintf("rep %d: %d of %d requests failed (%s), more than %.2g%%",
			rep, errs, res.Requests, describeErrors(res), 100*r.o.MaxErrorRate))
	case appErr != nil:
		r.invalidate(rv, fmt.Sprintf("rep %d: target died during the repetition: %v", rep, appErr))
	}
	if !rv.Valid {
		return r.databaseAlive(ctx)
	}
	if p99 := lat.P99; p99 > r.o.SaturatedP99 {
		flag := fmt.Sprintf("saturated: p99 %v in rep %d is above %v; requests mostly queued (for a pool, or in the server's backlog)",
			p99.Round(time.Millisecond), rep, r.o.SaturatedP99)
		rv.Flags = append(rv.Flags, flag)
		fmt.Fprintf(r.o.Log, "flagged: %s: %s\n", rv.Key, flag)
	}
	return nil
}

// sampleThreadsRunning polls the server's Threads_running every 100 ms until the
// returned function is called, which gives the mean and the maximum seen: how many
// statements the database was really running at once, whatever the pools allowed.
func sampleThreadsRunning(ctx context.Context, admin *sql.DB) func() (mean float64, max int64) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var sum, n, top int64
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			var name string
			var v int64
			if admin.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_running'").Scan(&name, &v) != nil {
				continue
			}
			// The sampling connection's own statement is running too: leave it out.
			v--
			sum, n, top = sum+v, n+1, max(top, v)
		}
	}()
	return func() (float64, int64) {
		cancel()
		<-done
		if n == 0 {
			return 0, 0
		}
		return float64(sum) / float64(n), top
	}
}

// failRep marks the variant invalid unless the run itself was interrupted or the
// database is gone, which end the run.
func (r *runner) failRep(ctx context.Context, rv *results.Variant, rep int, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if derr := r.databaseAlive(ctx); derr != nil {
		return derr
	}
	r.invalidate(rv, fmt.Sprintf("rep %d: %s: %v", rep, what, err))
	return nil
}

func (r *runner) sampleDB() *procstat.Sample {
	if r.db.PID == 0 {
		return nil // not our server: its CPU is not ours to read
	}
	s, err := procstat.Take(r.db.PID)
	if err != nil {
		return nil
	}
	return s
}

// writeHistogram merges the variant's repetitions into one .hgrm file.
func (r *runner) writeHistogram(rv *results.Variant) error {
	merged, err := rv.Latency()
	if err != nil {
		return err
	}
	rel := filepath.Join("histograms", strings.NewReplacer("/", "_", "=", "-").Replace(rv.Key)+".hgrm")
	path := filepath.Join(r.o.Out, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	if err := histogram.WriteHGRM(&b, merged); err != nil {
		return err
	}
	if err := results.WriteFile(path, []byte(b.String())); err != nil {
		return err
	}
	rv.Histogram = rel
	return nil
}

func describeErrors(res *loadgen.Result) string {
	var parts []string
	for class, n := range res.Errors {
		if n > 0 {
			s := fmt.Sprintf("%s %d", class, n)
			if sample := res.ErrorSamples[class]; sample != "" {
				s += ": " + sample
			}
			parts = append(parts, s)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func checkHello(_ uint32, body []byte) error {
	if string(body) != "Hello, World!" {
		return fmt.Errorf("body %q, want \"Hello, World!\"", body)
	}
	return nil
}

// poolStats is the part of database/sql's DBStats the runner records.
type poolStats struct {
	WaitCount    int64
	WaitDuration int64 // nanoseconds
}

// dbStats reads a Go target's pool counters; nil when there is no admin endpoint.
func dbStats(adminURL string) *poolStats {
	if adminURL == "" {
		return nil
	}
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get(adminURL + "/debug/dbstats")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var s poolStats
	if json.NewDecoder(resp.Body).Decode(&s) != nil {
		return nil
	}
	return &s
}
