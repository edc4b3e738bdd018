package chaos

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/dbtest"
)

// 6. A distinctive password given to a real run must appear nowhere it writes.
func TestSecrets(t *testing.T) {
	const pw = "Chaos-Pw-9F3kQ7-zeta"
	db := dbtest.Start(t, 1000)
	keep := map[int]bool{db.PID: true}
	// The dsn provider replaces the users table and reads the general log: the user
	// needs the same rights as the embedded provider's own.
	db.RootSQL(t, "CREATE USER 'chaos'@'127.0.0.1' IDENTIFIED BY '"+pw+"'; GRANT ALL PRIVILEGES ON *.* TO 'chaos'@'127.0.0.1'")
	addr := db.Config.Addr
	cases := []struct{ name, dsn string }{
		{"smoke run", "chaos:" + pw + "@tcp(" + addr + ")/dbbench"},
		{"unreachable", "chaos:" + pw + "@tcp(127.0.0.1:1)/dbbench"},
		{"malformed DSN", "chaos:" + pw + "@tcp(" + addr + "/dbbench"},
		{"no such database", "chaos:" + pw + "@tcp(" + addr + ")/nosuchdb"},
	}
	var found []string
	var left, reps int
	for _, c := range cases {
		tmp := newTmp(t)
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw, "--provider", "dsn", "--dsn", c.dsn)...)
		code := p.wait(120 * time.Second)
		if c.name == "smoke run" {
			if code != 0 {
				t.Errorf("smoke run failed (%d):\n%s", code, p.errText())
			}
			_, reps = written(t, out)
			if reps != 4 {
				t.Errorf("smoke run measured %d repetitions, want 4", reps)
			}
		} else if code == 0 {
			t.Errorf("%s: exit status 0", c.name)
		} else {
			t.Logf("%s: %s", c.name, p.lastLine())
		}
		where := map[string]string{"stdout": p.outText(), "stderr": p.errText()}
		filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				where[path] = string(b)
			}
			return nil
		})
		if len(where) < 3 && c.name == "smoke run" {
			t.Errorf("the smoke run wrote no files")
		}
		for name, text := range where {
			if strings.Contains(text, pw) {
				found = append(found, c.name+": "+name)
			}
		}
		left += leftovers(t, tmp, keep)
	}
	for _, f := range found {
		t.Errorf("the password is in %s", f)
	}
	table.Add(Row{"secrets", "password " + pw + " via --dsn: a smoke run and 3 failing ones",
		fmt.Sprintf("found in %d of the run files, logs, reports, outputs", len(found)), left,
		fmt.Sprintf("%d reps (smoke run)", reps)})
}
