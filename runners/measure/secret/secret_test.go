package secret

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// withSecrets runs f with exactly the given passwords registered.
func withSecrets(t *testing.T, pws ...string) {
	t.Helper()
	mu.Lock()
	saved := secrets
	secrets = nil
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		secrets = saved
		mu.Unlock()
	})
	for _, p := range pws {
		Register(p)
	}
}

func TestScrubMasksTheDSNPasswordField(t *testing.T) {
	withSecrets(t, "hunter2-Zq8")
	Register("") // must not turn every string into masks
	got := Scrub("dial dbbench:hunter2-Zq8@tcp(127.0.0.1:3306)/dbbench: refused")
	if want := "dial dbbench:****@tcp(127.0.0.1:3306)/dbbench: refused"; got != want {
		t.Fatalf("Scrub = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	fmt.Fprintln(Writer(&buf), "a:hunter2-Zq8@unix(/run/m.sock)/db and b:hunter2-Zq8@/db")
	if got, want := buf.String(), "a:****@unix(/run/m.sock)/db and b:****@/db\n"; got != want {
		t.Fatalf("Writer wrote %q, want %q", got, want)
	}
}

// The passwords of issue 32: each is masked where it is a DSN's password and nowhere
// else, so every other part of a line stays as it was.
func TestScrubChangesNothingButThePasswordField(t *testing.T) {
	long := strings.Repeat("Zq8-x", 40) // 200 characters
	for _, pw := range []string{"1", "a", "tcp", "root", "127.0.0.1", "p@ss:w/rd?x=1", long, "pässwörd-ßœ-密码"} {
		withSecrets(t, pw)
		lines := []string{
			"loaded 1000 users in 0.01s, checksum verified",
			"[check 1/12] lang=go/layer=raw: 200 of 200 bodies match",
			"cannot reach u:" + Mask + "@tcp(127.0.0.1:48855)/dbbench: Error 1049 (42000): Unknown database",
			"root password for a tcp socket at 127.0.0.1 is a secret",
			"DBBENCH_DB_PASSWORD=x" + pw + " is not it",
		}
		for _, line := range lines {
			if got := Scrub(line); got != line {
				t.Errorf("password %q: Scrub changed %q into %q", pw, line, got)
			}
		}
		dsn := "u:" + pw + "@tcp(127.0.0.1:48855)/dbbench"
		if got, want := Scrub("cannot reach "+dsn+": refused"), "cannot reach u:"+Mask+"@tcp(127.0.0.1:48855)/dbbench: refused"; got != want {
			t.Errorf("password %q: Scrub(DSN) = %q, want %q", pw, got, want)
		}
		if got, want := Scrub("env DBBENCH_DB_PASSWORD="+pw+"\n"), "env DBBENCH_DB_PASSWORD="+Mask+"\n"; got != want {
			t.Errorf("password %q: Scrub(env) = %q, want %q", pw, got, want)
		}
		if got, want := Scrub("env[DBBENCH_DB_PASSWORD] = "+pw), "env[DBBENCH_DB_PASSWORD] = "+Mask; got != want {
			t.Errorf("password %q: Scrub(php-fpm env) = %q, want %q", pw, got, want)
		}
	}
}

// A password is learnt even from a DSN too malformed to parse, so its error can be
// scrubbed.
func TestRegisterDSN(t *testing.T) {
	for dsn, want := range map[string]string{
		"chaos:Pw-1@tcp(127.0.0.1:3306/dbbench":           "Pw-1",
		"u:p@ss:w/rd?x=1@tcp(127.0.0.1:3306)/db":          "p@ss:w/rd?x=1",
		"u:pw@tcp(127.0.0.1:3306)/db?connectionAttrs=a@b": "pw",
		"u:@tcp(h:1)/db": "",
		"postgres://u:Pg-pw1@127.0.0.1:5433/dbbench?sslmode=disable": "Pg-pw1",
		"postgresql://u:p%40ss@h/db":                                 "p@ss",
		"postgres://u:bad%zz@h:1/db":                                 "bad%zz", // malformed: as written
	} {
		withSecrets(t)
		RegisterDSN(dsn)
		mu.RLock()
		got := append([]string(nil), secrets...)
		mu.RUnlock()
		if (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("RegisterDSN(%q) registered %q, want %q", dsn, got, want)
		}
	}
	withSecrets(t)
	RegisterDSN("no userinfo here")
	if len(secrets) != 0 {
		t.Errorf("RegisterDSN without '@' registered %q", secrets)
	}
}

// A PostgreSQL URL's password is masked where it stands in a URL, as written and
// percent-encoded, whatever follows the '@'.
func TestScrubMasksAURLsPassword(t *testing.T) {
	withSecrets(t)
	RegisterDSN("postgres://u:p%40ss-9@127.0.0.1:5433/db")
	for in, want := range map[string]string{
		"dial postgres://u:p%40ss-9@127.0.0.1:5433/db failed": "dial postgres://u:" + Mask + "@127.0.0.1:5433/db failed",
		"postgresql://u:p@ss-9@db.internal/x":                 "postgresql://u:" + Mask + "@db.internal/x",
		"the word p@ss-9 alone is not a password field":       "the word p@ss-9 alone is not a password field",
	} {
		if got := Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}
