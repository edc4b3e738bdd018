package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"dbbench/runners/units"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/delay"
	"dbbench/runners/measure/run"
	"dbbench/runners/results"
)

// RTTOptions configure a network-distance sweep.
type RTTOptions struct {
	// Run holds what every run shares (see PoolOptions.Run); List, Connections, Rate,
	// Out and TargetDBAddr are set by the sweep.
	Run         run.Options
	Variants    []matrix.Variant
	Delays      []time.Duration // added in each direction between targets and database
	Concurrency int             // closed loop
	Rate        float64         // open loop, requests per second in all; 0 skips it
	Out         string
}

// RTTPlan is written to plan.json so the report knows which delay each run had.
type RTTPlan struct {
	DelaysMicros []int64 `json:"delays_us"`
	Concurrency  int     `json:"concurrency"`
	Rate         float64 `json:"rate"`
	// Proxy is the delay proxy's module and version ("toxiproxy v2.5.0"); "" in plans
	// written before it was recorded.
	Proxy string `json:"proxy,omitempty"`
}

// Modes of an rtt sweep's runs at one delay.
const (
	Closed = "closed"
	Open   = "open"
)

// RTTDir is where the run at one delay and mode goes.
func RTTDir(out string, delay time.Duration, mode string) string {
	return filepath.Join(out, fmt.Sprintf("d%gms", float64(delay.Microseconds())/1000), mode)
}

// RTT runs the sweep: for every delay a closed-loop run and, with a rate, an open-loop
// run of the variants, each with a delay proxy between its targets and the database.
// The proxy is there at delay 0 as well, so every point pays the same proxy hop. Each
// run provisions its own database; the runner's own connections to it stay direct.
func RTT(ctx context.Context, o RTTOptions) error {
	plan := RTTPlan{Concurrency: o.Concurrency, Rate: o.Rate, Proxy: delay.Module()}
	for _, d := range o.Delays {
		if d < 0 {
			return fmt.Errorf("rtt sweep: delay %v is negative", d)
		}
		plan.DelaysMicros = append(plan.DelaysMicros, d.Microseconds())
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("rtt sweep: %w", err)
	}
	if err := results.WriteJSON(filepath.Join(o.Out, "plan.json"), plan); err != nil {
		return err
	}
	start, n, runs := time.Now(), 0, o.runs()
	for _, d := range o.Delays {
		for _, mode := range o.modes() {
			n++
			fmt.Fprintln(o.Run.Log, rttProgress(n, runs, time.Since(start), RTTEstimate(o), d, mode, RTTDir(o.Out, d, mode)))
			if err := rttRun(ctx, o, d, mode); err != nil {
				return err
			}
		}
	}
	return nil
}

// rttProgress says where the sweep is as run n of runs starts: the time left at the
// pace of the runs so far, before the first at the plan's estimate.
func rttProgress(n, runs int, spent, estimate, d time.Duration, mode, dir string) string {
	return fmt.Sprintf("[rtt run %d of %d] %s spent, about %s left: %s each way, %s loop, into %s", n, runs,
		spent.Round(time.Second), run.TimeLeft(spent, n-1, runs, estimate), units.DelayMillis(d), mode, dir)
}

// modes are the loops the sweep runs at each delay: closed, and open with a rate.
func (o RTTOptions) modes() []string {
	if o.Rate > 0 {
		return []string{Closed, Open}
	}
	return []string{Closed}
}

// runs is how many whole runs the sweep makes, one per delay and mode.
func (o RTTOptions) runs() int { return len(o.Delays) * len(o.modes()) }

// RTTEstimate is how long the sweep takes, every variant measured Run.Reps times in
// every run (Estimate).
func RTTEstimate(o RTTOptions) time.Duration {
	runs := o.runs()
	return Estimate(runs*len(o.Variants), runs, o.Run.Reps, o.Run.Warmup, o.Run.Duration)
}

func rttRun(ctx context.Context, o RTTOptions, d time.Duration, mode string) error {
	ro := o.Run
	ro.List, ro.Connections, ro.Rate, ro.Out = o.Variants, o.Concurrency, 0, RTTDir(o.Out, d, mode)
	if mode == Open {
		ro.Rate = o.Rate
	}
	var proxy *delay.Proxy
	ro.TargetDBAddr = func(host, addr string) (string, error) {
		var err error
		if proxy, err = delay.StartOn(host, addr, d); err != nil {
			return "", err
		}
		return proxy.Addr(), nil
	}
	_, err := run.Run(ctx, ro)
	if proxy != nil {
		proxy.Close()
	}
	if err != nil {
		return fmt.Errorf("rtt sweep at %s each way, %s loop: %w", units.DelayMillis(d), mode, err)
	}
	return nil
}

// RTTPoint is one run of an rtt sweep, read back.
type RTTPoint struct {
	Delay time.Duration `json:"delay_ns"`
	Mode  string        `json:"mode"`
	Run   *results.Run  `json:"-"` // its results.json
	// Figures are Run's variants' figures as the page prints them, by key.
	Figures map[string]*RTTFigures `json:"figures"`
}

// LoadRTT reads an rtt sweep's plan and every run of it that exists.
func LoadRTT(dir string) (*RTTPlan, []RTTPoint, error) {
	b, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("%s holds no rtt sweep: %w", dir, err)
	}
	var plan RTTPlan
	if err := json.Unmarshal(b, &plan); err != nil {
		return nil, nil, fmt.Errorf("%s: plan.json: %w", dir, err)
	}
	var out []RTTPoint
	for _, us := range plan.DelaysMicros {
		d := time.Duration(us) * time.Microsecond
		for _, mode := range []string{Closed, Open} {
			path := filepath.Join(RTTDir(dir, d, mode), "results.json")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			r, err := results.Read(path)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, RTTPoint{Delay: d, Mode: mode, Run: r, Figures: rttFiguresOf(r)})
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: no run of the rtt sweep has results yet", dir)
	}
	return &plan, out, nil
}
