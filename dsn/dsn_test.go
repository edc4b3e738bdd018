package dsn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const pw = "S3cretPassw0rdABC"

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRead(t *testing.T) {
	cfg, err := Read(write(t, "dbbench:"+pw+"@tcp(127.0.0.1:3307)/dbbench\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "dbbench" || cfg.Passwd != pw || cfg.Addr != "127.0.0.1:3307" || cfg.DBName != "dbbench" || cfg.Timeout != DialTimeout {
		t.Errorf("Read = %+v", cfg)
	}
	// A timeout the file sets is kept.
	cfg, err = Read(write(t, "u:p@tcp(127.0.0.1:1)/d?timeout=2s"))
	if err != nil || cfg.Timeout != 2*time.Second {
		t.Errorf("Read with timeout=2s = %v, %v", cfg.Timeout, err)
	}
}

func TestReadErrorsNeverShowThePassword(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"", "is empty"},
		{"\n\n", "is empty"},
		{"dbbench:" + pw + "@tcp(127.0.0.1:1)/dbbench\ndbbench:" + pw + "@tcp(127.0.0.1:1)/dbbench", "more than one line"},
		{"dbbench:" + pw + "@tcp(127.0.0.1:1/dbbench", "malformed DSN"},
		{"dbbench:" + pw + "@tcp(127.0.0.1:1)/dbbench?interpolateParams=" + pw, "malformed DSN"},
		{"dbbench:" + pw + "@tcp(127.0.0.1:1)/", "names no database"},
		{"dbbench:" + pw + "@tcp(127.0.0.1:1)", "malformed DSN"},
	} {
		_, err := Read(write(t, tc.content))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%q) = %v, want %q", tc.content, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("Read(%q) error shows the password: %v", tc.content, err)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "read DSN file") {
		t.Errorf("Read(missing) = %v", err)
	}
}

func TestRedactAndScrub(t *testing.T) {
	cfg, err := Read(write(t, "dbbench:"+pw+"@tcp(127.0.0.1:3307)/dbbench"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Redact(cfg); strings.Contains(got, pw) || !strings.HasPrefix(got, "dbbench:****@tcp(127.0.0.1:3307)/dbbench") {
		t.Errorf("Redact = %q", got)
	}
	if cfg.Passwd != pw {
		t.Error("Redact changed the config it was given")
	}
	in := "dial dbbench:" + pw + "@tcp(127.0.0.1:3307)/dbbench: " + pw + " elsewhere stays"
	if got, want := MaskPassword(in, cfg.Passwd), "dial dbbench:****@tcp(127.0.0.1:3307)/dbbench: "+pw+" elsewhere stays"; got != want {
		t.Errorf("MaskPassword = %q, want %q", got, want)
	}
	// A short password that is also a digit leaves the rest of a line alone.
	if got, want := MaskPassword("Error 1049: u:1@tcp(127.0.0.1:3311)/db", "1"), "Error 1049: u:****@tcp(127.0.0.1:3311)/db"; got != want {
		t.Errorf("MaskPassword(1) = %q, want %q", got, want)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"ssh://root:hunter2@10.0.0.5:2222": "ssh://root:****@10.0.0.5:2222",
		"ssh://root@10.0.0.5":              "ssh://root@10.0.0.5",
		"root:pw@host":                     "root:****@host",
		"no at sign":                       "no at sign",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriterMasksEachWrite(t *testing.T) {
	var b strings.Builder
	w := Writer(&b, func(s string) string { return MaskPassword(s, "s3cret") })
	line := "dial u:s3cret@tcp(127.0.0.1:3306)/db failed\n"
	n, err := w.Write([]byte(line))
	if err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if got, want := b.String(), "dial u:****@tcp(127.0.0.1:3306)/db failed\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestPostgresURLs(t *testing.T) {
	line := "postgres://dbbench:" + pw + "@127.0.0.1:5432/dbbench?sslmode=disable"
	if got := MaskURLPassword("connect "+line+" failed", pw); strings.Contains(got, pw) || !strings.Contains(got, "dbbench:****@127.0.0.1") {
		t.Errorf("MaskURLPassword = %q", got)
	}
	if got, err := ReadLine(write(t, line+"\n")); err != nil || got != line {
		t.Errorf("ReadLine = %q, %v", got, err)
	}
}

// TestPasswordOfEachProtocol: the password a driver would read, from a good line or a
// malformed one, on either protocol (each line file's own reading).
func TestPasswordOfEachProtocol(t *testing.T) {
	for line, want := range map[string]string{
		"u:s3cr@t@tcp(127.0.0.1:3306)/db":                       "s3cr@t",
		"u:pw@tcp(127.0.0.1:3306)/db?x=a@b":                     "pw",
		"u@tcp(127.0.0.1:3306)/db":                              "",
		"postgres://u:p%40ss@127.0.0.1:5432/db?sslmode=disable": "p@ss",
		"postgresql://u:pw@localhost/db":                        "pw",
		"postgres://u:bad%zz@127.0.0.1:5432/db":                 "bad%zz", // malformed escape: read as a DSN would be
		"postgres://u@127.0.0.1/db":                             "",
	} {
		if got := PasswordOf(line); got != want {
			t.Errorf("PasswordOf(%q) = %q, want %q", line, got, want)
		}
	}
}

// A parse error is about the DSN alone: the password is masked wherever the driver
// quotes it, on either protocol.
func TestMaskedIn(t *testing.T) {
	for line, msg := range map[string]string{
		"u:S3cret@tcp(127.0.0.1:1)/db?interpolateParams=S3cret": "invalid bool value: S3cret",
		"postgres://u:S3cret@127.0.0.1/db?x=S3cret":             "bad value S3cret",
	} {
		if got := MaskedIn(msg, line); strings.Contains(got, "S3cret") || !strings.Contains(got, Mask) {
			t.Errorf("MaskedIn(%q) = %q", msg, got)
		}
	}
	// The driver's own message, end to end.
	if _, err := Parse("u:S3cret@tcp(127.0.0.1:1)/db?interpolateParams=S3cret"); err == nil || strings.Contains(err.Error(), "S3cret") {
		t.Errorf("Parse's error = %v, want one without the password", err)
	}
}
