package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --app-host and its companions, refused before anything starts: a usage error (exit
// status 2) that names the flag at fault, and a password typed into the URL nowhere in
// it. Nothing runs: only the parse step is called.
func TestAppHostFlagsRefusedByName(t *testing.T) {
	t.Setenv(dsnEnv, "")
	key := filepath.Join(t.TempDir(), "id")
	if err := os.WriteFile(key, []byte("not read at parse time\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const host, goRaw = "ssh://root@10.0.0.5:2222", "lang=go/.*layer=raw"
	ok := []string{"--app-host", host, "--ssh-key", key, "--known-hosts", key, "--variants", goRaw}
	for _, c := range []struct {
		name, flag string
		args       []string
	}{
		{"malformed URL", "app-host", []string{"--app-host", "root@10.0.0.5", "--variants", goRaw}},
		{"password in the URL", "app-host", []string{"--app-host", "ssh://root:Sesame4711@10.0.0.5", "--variants", goRaw}},
		{"missing key file", "ssh-key", append(ok, "--ssh-key", "/nonexistent/id")},
		{"missing known_hosts", "known-hosts", append(ok, "--known-hosts", "/nonexistent/known_hosts")},
		{"key without a host", "ssh-key", []string{"--ssh-key", key}},
		{"with --topology netns", "app-host", append(ok, "--topology", "netns")},
		{"a PHP variant", "app-host", append(ok, "--variants", "lang=php/.*layer=raw")},
		{"every language", "app-host", append(ok, "--variants", "")},
		{"a container database", "app-host", append(ok, "--provider", "testcontainers")},
		{"a dsn on loopback", "app-host", append(ok, "--provider", "dsn", "--dsn", "u:Sesame4711@tcp(127.0.0.1:3306)/db")},
	} {
		_, err := parseRun(newFlagSet("run", io.Discard), c.args)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--"+c.flag+":") {
			t.Errorf("%s: %v; want a usage error naming --%s", c.name, err, c.flag)
		} else if strings.Contains(err.Error(), "Sesame4711") {
			t.Errorf("%s: the password is in %q", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
	}
	for _, args := range [][]string{ok, append(ok, "--provider", "dsn", "--dsn", "u:p@tcp(127.0.0.1:3306)/db", "--rtt", "1ms")} {
		if _, err := parseRun(newFlagSet("run", io.Discard), args); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// The binary itself: a bad --app-host is exit status 2 and one line naming the flag.
func TestAppHostRefusedExitsTwo(t *testing.T) {
	code, _, stderr := dbbench(t, nil, "run", "--app-host", "ssh://root@10.0.0.5:2222", "--variants", "lang=php/.*layer=raw")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "dbbench: usage: run: --app-host: runs Go targets only") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
