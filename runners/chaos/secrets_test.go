package chaos

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"dbbench/runners/measure/dbtest"
)

// passwords are issue 32's: short ones that are also digits and common words (masking
// them as text would mangle every line), ones with the DSN's own separators, a long one
// and a non-ASCII one. The shortened form (make test) takes three of them.
var passwords = []string{"1", "a", "tcp", "root", "127.0.0.1", "p@ss:w/rd?x=1", strings.Repeat("Zq8-x", 40), "pässwörd-ßœ-密码"}

func shortPasswords() []string { return []string{"1", "p@ss:w/rd?x=1", "pässwörd-ßœ-密码"} }

// masked is a mask where it may stand: a DSN's password field, or the PHP targets'
// password variable.
var masked = regexp.MustCompile(`[^\s:"'(]*:\*\*\*\*@|DBBENCH_DB_PASSWORD(=|\] = )\*\*\*\*`)

// 6. A password given to a real run, through --dsn-file, is masked where it stands as a
// password and nowhere else: no line of anything the run prints or writes holds it in a
// DSN or variable, a distinctive one appears nowhere at all, no child process has it in
// its arguments, and no other text was replaced (a mask stands only in a password
// field). A malformed, an unreachable and a wrong database name fail without showing it.
func TestSecrets(t *testing.T) {
	db := dbtest.Start(t, 1000)
	keep := map[int]bool{db.PID: true}
	addr := db.Config.Addr
	pws := shortPasswords()
	if full {
		pws = passwords
	}
	var left int
	for i, pw := range pws {
		user := "pw" + strconv.Itoa(i)
		db.RootSQL(t, fmt.Sprintf("CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s'; GRANT ALL PRIVILEGES ON *.* TO '%s'@'127.0.0.1'", user, pw, user))
		t.Run(fmt.Sprintf("password %d (%d characters)", i, len([]rune(pw))), func(t *testing.T) {
			tmp := newTmp(t)
			dsn := filepath.Join(tmp, "dsn")
			os.WriteFile(dsn, []byte(user+":"+pw+"@tcp("+addr+")/dbbench\n"), 0o600)
			out := filepath.Join(tmp, "run")
			p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw, "--provider", "dsn", "--dsn-file", dsn)...)
			argv := watchArgv(pw, p)
			code := p.wait(180 * time.Second)
			if code != 0 {
				t.Fatalf("smoke run failed (%d):\n%s", code, p.errText())
			}
			changed, found := scan(t, pw, map[string]string{"stdout": p.outText(), "stderr": p.errText()}, tmp)
			found = append(found, argv()...)
			for _, f := range append(changed, found...) {
				t.Error(f)
			}
			left += leftovers(t, tmp, keep)
			table.Add(Row{"secrets", fmt.Sprintf("password %q via --dsn-file: a smoke run", abbreviate(pw)),
				fmt.Sprintf("%d lines changed but a password field, %d occurrences found (argv included)", len(changed), len(found)), left, "-"})
		})
	}
	// Failing runs, with the password on the command line (--dsn, which warns).
	const pw = "Chaos-Pw-9F3kQ7-zeta"
	db.RootSQL(t, "CREATE USER 'chaos'@'127.0.0.1' IDENTIFIED BY '"+pw+"'; GRANT ALL PRIVILEGES ON *.* TO 'chaos'@'127.0.0.1'")
	for _, c := range []struct{ name, dsn string }{
		{"unreachable", "chaos:" + pw + "@tcp(127.0.0.1:1)/dbbench"},
		{"malformed DSN", "chaos:" + pw + "@tcp(" + addr + "/dbbench"},
		{"no such database", "chaos:" + pw + "@tcp(" + addr + ")/nosuchdb"},
	} {
		tmp := newTmp(t)
		p := dbbench(t, tmp, runArgs(filepath.Join(tmp, "run"), goRaw, "--provider", "dsn", "--dsn", c.dsn)...)
		if code := p.wait(60 * time.Second); code == 0 {
			t.Errorf("%s: exit status 0", c.name)
		}
		changed, found := scan(t, pw, map[string]string{"stdout": p.outText(), "stderr": p.errText()}, tmp)
		for _, f := range append(changed, found...) {
			t.Errorf("%s: %s", c.name, f)
		}
		if !strings.Contains(p.errText(), "warning: the password in --dsn") {
			t.Errorf("%s: no warning about a password on the command line:\n%s", c.name, p.errText())
		}
		left += leftovers(t, tmp, keep)
	}
}

// scan reads every output and every file under tmp (the run directory, the PHP and
// nginx logs beside it), and returns the lines where a mask stands elsewhere than in a
// password field, and every place the password stands in one (or, for a distinctive
// password, anywhere).
func scan(t *testing.T, pw string, where map[string]string, tmp string) (changed, found []string) {
	t.Helper()
	filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(path) != "dsn" {
			b, _ := os.ReadFile(path)
			where[path] = string(b)
		}
		return nil
	})
	for name, text := range where {
		for n, line := range strings.Split(text, "\n") {
			if strings.Count(line, "****") > len(masked.FindAllString(line, -1)) {
				changed = append(changed, fmt.Sprintf("%s:%d: a mask outside a password field: %s", name, n+1, abbreviate(line)))
			}
			if inField(line, pw) || distinctive(pw) && strings.Contains(line, pw) {
				found = append(found, fmt.Sprintf("%s:%d holds the password: %s", name, n+1, abbreviate(line)))
			}
		}
	}
	return changed, found
}

// inField says whether line holds pw as a DSN's password or the PHP password variable.
func inField(line, pw string) bool {
	return strings.Contains(line, ":"+pw+"@") || strings.Contains(line, "DBBENCH_DB_PASSWORD="+pw)
}

// distinctive passwords are ones no other text of a run would contain.
func distinctive(pw string) bool { return len(pw) >= 12 }

// watchArgv reads the arguments of every process on the machine while the run goes on,
// and returns those that held the password (in a field, or a distinctive one anywhere).
func watchArgv(pw string, p *proc) func() []string {
	var mu sync.Mutex
	var found []string
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, d := range dirs {
				b, _ := os.ReadFile(d)
				argv := strings.ReplaceAll(string(b), "\x00", " ")
				if inField(argv, pw) || distinctive(pw) && strings.Contains(argv, pw) {
					mu.Lock()
					found = append(found, fmt.Sprintf("%s: %s", d, abbreviate(argv)))
					mu.Unlock()
				}
			}
		}
	}()
	return func() []string {
		close(stop)
		mu.Lock()
		defer mu.Unlock()
		return found
	}
}

func abbreviate(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}
