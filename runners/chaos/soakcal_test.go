package chaos

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"dbbench/runners/provider"
	"dbbench/runners/soak"
	"dbbench/runners/soak/soaktest"
)

// The soak's two-sided calibration: how often a soak of clean code ends non-zero (a
// false alarm), and how often one with an outside client leaking statements and
// connections flags them (detection). Each case is DURATION:MULTIPLE, the multiple of
// soaktest's leak rates (0 for clean code), e.g.
//
//	CHAOS_SOAK_CALIBRATION="5m:0 5m:0.5 5m:2" SOAK_CALIBRATION_OUT=$PWD/runs.tsv \
//	  go test ./runners/chaos -run TestSoakCalibration -timeout 0
//
// Each soak is the default one (every variant the matrix soaks, at 70% of capacity) on
// an embedded server given as a dsn, as a user's would be, with performance_schema on.
// One line per soak is appended to SOAK_CALIBRATION_OUT as it ends, so that hours of
// soaks survive an interruption; the table of every line so far is printed at the end.
func TestSoakCalibration(t *testing.T) {
	cases, out := os.Getenv("CHAOS_SOAK_CALIBRATION"), os.Getenv("SOAK_CALIBRATION_OUT")
	if cases == "" || out == "" {
		t.Skip("CHAOS_SOAK_CALIBRATION and SOAK_CALIBRATION_OUT: soaks of minutes to an hour each")
	}
	for _, c := range strings.Fields(cases) {
		d, m, ok := strings.Cut(c, ":")
		duration, err := time.ParseDuration(d)
		multiple, err2 := strconv.ParseFloat(m, 64)
		if !ok || err != nil || err2 != nil || duration <= 0 || multiple < 0 {
			t.Fatalf("case %q: want DURATION:MULTIPLE, as 5m:0.5", c)
		}
		row := calibrationSoak(t, duration, multiple)
		if err := appendRow(out, row); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", strings.Join(row, "  "))
	}
	printCalibration(t, out)
}

// calibrationHead names the columns of SOAK_CALIBRATION_OUT.
var calibrationHead = []string{"started", "duration", "leak_multiple", "exit", "stmts_leaked", "conns_leaked",
	"outside_connections", "outside_statements", "threads_connected", "prepared_stmt_count", "flagged", "rising"}

// calibrationSoak runs one soak with the outside leak at multiple of its rates (none
// at 0) and returns its line.
func calibrationSoak(t *testing.T, duration time.Duration, multiple float64) []string {
	started := time.Now().UTC()
	tmp := newTmp(t)
	server, dsnFile := dsnServer(t, tmp, provider.Options{Instruments: true, Log: os.Stderr})
	var leak *soaktest.Leak
	if multiple > 0 {
		pool, err := server.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		every := func(d time.Duration) time.Duration { return time.Duration(float64(d) / multiple) }
		if leak, err = soaktest.StartLeak(pool, every(soaktest.StmtEvery), every(soaktest.ConnEvery)); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(tmp, "soak")
	p := dbbench(t, tmp, "soak", "--provider", "dsn", "--dsn-file", dsnFile, "--duration", duration.String(), "--out", dir)
	code := p.wait(duration + 15*time.Minute)
	stmts, conns := 0, 0
	if leak != nil {
		var lerr error
		if stmts, conns, lerr = leak.Stop(); lerr != nil {
			t.Error(lerr)
		}
	}
	f, err := soak.Read(dir)
	if err != nil {
		t.Fatalf("soak of %v, leak ×%g: exit %d, %v\n%s", duration, multiple, code, err, p.errText())
	}
	return []string{started.Format(time.RFC3339), duration.String(), strconv.FormatFloat(multiple, 'g', -1, 64),
		strconv.Itoa(code), strconv.Itoa(stmts), strconv.Itoa(conns),
		verdictOf(f, "outside_connections"), verdictOf(f, "outside_statements"),
		verdictOf(f, "threads_connected"), verdictOf(f, "prepared_stmt_count"),
		strings.Join(flaggedOf(f), "; "), strings.Join(f.Rising(), "; ")}
}

// verdictOf is a database series' verdict and slope an hour, as "grows +900/h".
func verdictOf(f *soak.File, name string) string {
	for _, s := range f.Database.Series {
		if s.Name == name && s.Verdict != nil {
			return fmt.Sprintf("%s %+.0f/h", s.Verdict.Verdict, 3600*s.Verdict.Slope)
		}
	}
	return "–"
}

// flaggedOf lists the flagged series as "role: name verdict".
func flaggedOf(f *soak.File) []string {
	var out []string
	names, roles := f.Roles()
	for i, r := range roles {
		for _, s := range r.Series {
			if s.Verdict != nil && s.Verdict.Flagged() {
				out = append(out, fmt.Sprintf("%s: %s %s", names[i], s.Name, s.Verdict.Verdict))
			}
		}
	}
	return out
}

// appendRow appends row to the TSV file at path, with the head line if it is new.
func appendRow(path string, row []string) error {
	_, statErr := os.Stat(path)
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := csv.NewWriter(file)
	w.Comma = '\t'
	if os.IsNotExist(statErr) {
		w.Write(calibrationHead)
	}
	w.Write(row)
	w.Flush()
	return errors.Join(w.Error(), file.Close())
}

// printCalibration prints, per duration and leak multiple, how many soaks ended
// non-zero and how many flagged the outside client's connections and statements.
func printCalibration(t *testing.T, path string) {
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r := csv.NewReader(file)
	r.Comma = '\t'
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v, %d lines", path, err, len(rows))
	}
	type cell struct{ soaks, nonzero, conns, stmts int }
	cells, order := map[string]*cell{}, []string{}
	for _, row := range rows[1:] {
		key := row[1] + " ×" + row[2]
		c := cells[key]
		if c == nil {
			c = &cell{}
			cells[key], order = c, append(order, key)
		}
		c.soaks++
		if row[3] != "0" {
			c.nonzero++
		}
		if strings.HasPrefix(row[6], soak.Grows) {
			c.conns++
		}
		if strings.HasPrefix(row[7], soak.Grows) {
			c.stmts++
		}
	}
	fmt.Printf("\nsoak calibration (%s):\n%-14s %6s %9s %18s %18s\n", path, "soak × leak", "soaks", "non-zero", "outside conns grow", "outside stmts grow")
	for _, k := range order {
		c := cells[k]
		fmt.Printf("%-14s %6d %9d %18d %18d\n", k, c.soaks, c.nonzero, c.conns, c.stmts)
	}
}

// dsnServer starts an embedded server for a scenario that gives it to dbbench as a
// user's own (--provider dsn), and writes its DSN file (0600) into tmp. The server is
// stopped when the test ends, if the scenario has not stopped it first.
func dsnServer(t *testing.T, tmp string, o provider.Options) (*provider.DB, string) {
	t.Helper()
	server, err := provider.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	dsnFile := filepath.Join(tmp, "dsn")
	if err := os.WriteFile(dsnFile, []byte(server.DSN()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return server, dsnFile
}
