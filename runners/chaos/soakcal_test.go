package chaos

import (
	"cmp"
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

	"dbbench/runners/measure/provider"
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
// CHAOS_SOAK_DB=postgres calibrates on PostgreSQL (mariadb by default), where each
// leaked connection also leaves a transaction open, and the outside statements, which
// PostgreSQL does not list, show as their backends' memory (runners/measure/servers).
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
		row := calibrationSoak(t, calibrationDB(), duration, multiple)
		if err := appendRow(out, calibrationHead(calibrationDB()), row); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", strings.Join(row, "  "))
	}
	printCalibration(t, out)
}

// calibrationDB is the server calibrated: CHAOS_SOAK_DB, mariadb by default.
func calibrationDB() string { return cmp.Or(os.Getenv("CHAOS_SOAK_DB"), "mariadb") }

// judgedSeries are the database series whose verdicts a line holds on each server:
// the outside connections, the outside statements (their backends' memory on
// PostgreSQL), and two global counts.
var judgedSeries = map[string][]string{
	"mariadb":  {"outside_connections", "outside_statements", "threads_connected", "prepared_stmt_count"},
	"postgres": {"outside_connections", "outside_memory", "connections", "idle_in_transaction"},
}

// calibrationHead names the columns of SOAK_CALIBRATION_OUT.
func calibrationHead(db string) []string {
	head := []string{"started", "duration", "leak_multiple", "exit", "stmts_leaked", "conns_leaked"}
	head = append(append(head, judgedSeries[db]...), "flagged", "rising")
	if runtimeLeaks() {
		head = append(head, "go_heap_live", "php_worker_runtime_memory")
	}
	return head
}

// runtimeLeaks: CHAOS_SOAK_RUNTIME_LEAK is set, so that the soaks with a leak
// (multiple > 0) also run targets that leak inside their runtime (runtimeLeakRoot), and
// every line holds the verdicts of the two planted variants' runtime memory.
func runtimeLeaks() bool { return os.Getenv("CHAOS_SOAK_RUNTIME_LEAK") != "" }

// plantedLayers are, by server, the Go layer and the PHP layer the runtime leaks are
// planted in: each one's baseline on the server's protocol.
var plantedLayers = map[string][2]string{"mariadb": {"raw", "raw"}, "postgres": {"pgx", "raw"}}

// calibrationSoak runs one soak with the outside leak at multiple of its rates (none
// at 0) and returns its line.
func calibrationSoak(t *testing.T, db string, duration time.Duration, multiple float64) []string {
	started := time.Now().UTC()
	tmp := newTmp(t)
	if judgedSeries[db] == nil {
		t.Fatalf("CHAOS_SOAK_DB=%s: want mariadb or postgres", db)
	}
	server, dsnFile := dsnServer(t, tmp, provider.Options{Server: db, Instruments: true, Log: os.Stderr})
	var leak *soaktest.Leak
	if multiple > 0 {
		pool, err := server.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		every := func(d time.Duration) time.Duration { return time.Duration(float64(d) / multiple) }
		sp := soaktest.Spec{Stmt: server.Rebind("SELECT ? + 1"), StmtEvery: every(soaktest.StmtEvery), ConnEvery: every(soaktest.ConnEvery),
			OpenTx: db == "postgres"}
		if leak, err = soaktest.StartLeak(pool, sp); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(tmp, "soak")
	soakRoot, env := root, []string(nil)
	if runtimeLeaks() && multiple > 0 {
		soakRoot = runtimeLeakRoot(t, plantedLayers[db][1])
		env = []string{"DBBENCH_LEAK=" + runtimeLeakGo + ",layer:" + plantedLayers[db][0]}
	}
	p := dbbenchIn(t, tmp, soakRoot, env, "soak", "--db", db, "--provider", "dsn", "--dsn-file", dsnFile, "--duration", duration.String(), "--out", dir)
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
	// Each soak's file beside the lines, for what a line does not hold.
	kept := filepath.Join(filepath.Dir(os.Getenv("SOAK_CALIBRATION_OUT")), started.Format("20060102-150405")+"-soak.json")
	if b, err := os.ReadFile(filepath.Join(dir, "soak.json")); err == nil {
		os.WriteFile(kept, b, 0o644)
	}
	row := []string{started.Format(time.RFC3339), duration.String(), strconv.FormatFloat(multiple, 'g', -1, 64),
		strconv.Itoa(code), strconv.Itoa(stmts), strconv.Itoa(conns)}
	for _, name := range judgedSeries[db] {
		row = append(row, verdictOf(f, name))
	}
	row = append(row, strings.Join(flaggedOf(f), "; "), strings.Join(f.Rising(), "; "))
	if runtimeLeaks() {
		layers := plantedLayers[db]
		row = append(row, variantVerdict(f, "lang=go/server=nethttp/layer="+layers[0]+"/", "heap_live"),
			variantVerdict(f, "lang=php/server=worker/layer="+layers[1]+"/", "runtime_memory"))
	}
	return row
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

// variantVerdict is the verdict and slope an hour of the named series of the first
// variant whose key starts with prefix, as "grows +2.1 MB/h".
func variantVerdict(f *soak.File, prefix, name string) string {
	for _, v := range f.Variants {
		if !strings.HasPrefix(v.Key, prefix) {
			continue
		}
		for _, s := range v.Series {
			if s.Name == name && s.Verdict != nil {
				return fmt.Sprintf("%s %+.2f MB/h", s.Verdict.Verdict, 3600*s.Verdict.Slope/1e6)
			}
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
func appendRow(path string, head, row []string) error {
	_, statErr := os.Stat(path)
	file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := csv.NewWriter(file)
	w.Comma = '\t'
	if os.IsNotExist(statErr) {
		w.Write(head)
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
	fmt.Printf("\nsoak calibration (%s):\n%-14s %6s %9s %20s %20s\n", path, "soak × leak", "soaks", "non-zero", rows[0][6]+" grows", rows[0][7]+" grows")
	for _, k := range order {
		c := cells[k]
		fmt.Printf("%-14s %6d %9d %20d %20d\n", k, c.soaks, c.nonzero, c.conns, c.stmts)
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
