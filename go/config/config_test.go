package config

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// catalog is a fake of layers.Catalog: config is checked against what it is given.
var catalog = Catalog{
	"hello": nil, "raw": {"prepare", "prepared", "interpolate"}, "builder": {"prepare", "prepared", "interpolate"},
	"orm": {"prepare", "prepared", "interpolate"}, "gorm": {"prepare", "prepared", "interpolate"}, "textonly": {"interpolate"},
}

func TestParseAcceptsVariants(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Config
	}{
		{[]string{"--layer", "hello"}, Config{Layer: "hello", Listen: "127.0.0.1:8080"}},
		{[]string{"--layer", "hello", "--stmt", "none", "--conn", "none", "--listen", "127.0.0.1:0", "--admin-listen", "[::1]:9"},
			Config{Layer: "hello", Listen: "127.0.0.1:0", AdminListen: "[::1]:9"}},
		{[]string{"--layer", "gorm", "--stmt", "prepared", "--conn", "persistent", "--pool", "64", "--dsn-file", "f", "--admin-listen", "localhost:0"},
			Config{DSNFile: "f", Layer: "gorm", Stmt: "prepared", Conn: "persistent", Pool: 64, Listen: "127.0.0.1:8080", AdminListen: "localhost:0"}},
		{[]string{"--layer", "raw", "--stmt", "interpolate", "--conn", "per-request", "--pool", "1", "--dsn-file", "f"},
			Config{DSNFile: "f", Layer: "raw", Stmt: "interpolate", Conn: "per-request", Pool: 1, Listen: "127.0.0.1:8080"}},
		{[]string{"--ping", "50", "--dsn-file", "f"}, Config{DSNFile: "f", Ping: 50, Listen: "127.0.0.1:8080"}},
	} {
		got, err := Parse(tc.args, io.Discard, catalog)
		if got.UsesDB() != (tc.want.Layer != "hello") {
			t.Errorf("Parse(%q).UsesDB() = %v", tc.args, got.UsesDB())
		}
		got.usesDB = false
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}

func TestParseRefusesNonVariants(t *testing.T) {
	db := []string{"--dsn-file", "f", "--pool", "4"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--layer is required"},
		{[]string{"--layer", "Raw"}, `--layer "Raw" is unknown`},
		{[]string{"--layer", "hello", "--stmt", "interpolate"}, "layer hello uses no database, so --stmt interpolate makes no sense"},
		{[]string{"--layer", "hello", "--conn", "per-request"}, "so --conn per-request makes no sense"},
		{[]string{"--layer", "hello", "--pool", "1"}, "so --pool 1 makes no sense"},
		{[]string{"--layer", "hello", "--dsn-file", "f"}, "so --dsn-file makes no sense"},
		{append([]string{"--layer", "orm", "--conn", "persistent"}, db...), "--stmt is required"},
		{append([]string{"--layer", "orm", "--stmt", "none", "--conn", "persistent"}, db...), `--stmt "none" is unknown for layer orm`},
		{append([]string{"--layer", "textonly", "--stmt", "prepare", "--conn", "persistent"}, db...), `--stmt "prepare" is unknown for layer textonly (want one of interpolate)`},
		{append([]string{"--layer", "orm", "--stmt", "prepare"}, db...), "--conn is required"},
		{append([]string{"--layer", "orm", "--stmt", "prepare", "--conn", "none"}, db...), `--conn "none" is unknown`},
		{[]string{"--layer", "orm", "--stmt", "prepare", "--conn", "persistent", "--dsn-file", "f"}, "--pool must be at least 1"},
		{[]string{"--layer", "orm", "--stmt", "prepare", "--conn", "persistent", "--pool", "2"}, "--dsn-file is required"},
		{append([]string{"--layer", "builder", "--stmt", "prepared", "--conn", "per-request"}, db...), "is not a variant"},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--listen", "8080"}, db...), `--listen "8080" is not host:port`},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--admin-listen", ":6060"}, db...), "must be a loopback address"},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--admin-listen", "10.0.0.1:6060"}, db...), "must be a loopback address"},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "now"}, db...), `unexpected argument "now"`},
		{[]string{"--layer", "raw", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--ping", "5"}, "--ping 5: want a count of 1 or more, and --dsn-file"},
		{[]string{"--ping", "-1", "--dsn-file", "f"}, "--ping -1"},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--texts", "-1"}, db...), "--texts -1: want 0 to 100000 statement texts"},
		{append([]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--texts", "100001"}, db...), "--texts 100001"},
	} {
		_, err := Parse(tc.args, io.Discard, catalog)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	var out strings.Builder
	if _, err := Parse([]string{"-h"}, &out, catalog); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-stmt") {
		t.Errorf("Parse(-h) = %v, usage %q", err, out.String())
	}
}
