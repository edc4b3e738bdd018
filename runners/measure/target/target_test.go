package target

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"dbbench/runners/define/matrix"
)

// Start picks again when a port it picked was taken before the target bound it (up to
// three tries in all); any other failure is reported at once.
func TestStartRetriesTakenPorts(t *testing.T) {
	inUse := errors.New("gotarget: --admin-listen 127.0.0.1:38991: listen tcp 127.0.0.1:38991: bind: address already in use")
	other := errors.New("no Go target at bin/gotarget")
	hello := specOf(t, matrix.Variant{Lang: "go", Layer: "hello", Stmt: "none", Conn: "none", Pool: 1})
	for _, c := range []struct {
		name      string
		fails     []error
		wantCalls int
		wantOK    bool
	}{
		{"taken twice then free", []error{inUse, inUse}, 3, true},
		{"taken every time", []error{inUse, inUse, inUse, inUse}, 3, false},
		{"another failure", []error{other}, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			saved := startOnce
			startOnce = func(context.Context, Launcher, matrix.Spec, Options) (*Target, error) {
				calls++
				if calls <= len(c.fails) {
					return nil, c.fails[calls-1]
				}
				return &Target{}, nil
			}
			defer func() { startOnce = saved }()
			tg, err := Start(context.Background(), hello, Options{Log: io.Discard})
			if calls != c.wantCalls || (err == nil) != c.wantOK || (tg != nil) != c.wantOK {
				t.Fatalf("%d calls, target %v, err %v; want %d calls, ok %v", calls, tg, err, c.wantCalls, c.wantOK)
			}
		})
	}
}

// repoMatrix is runners/matrix.yaml, read once for every test of the package.
var repoMatrix = sync.OnceValues(func() (*matrix.Matrix, error) { return matrix.Load("../../matrix.yaml") })

// specOf returns v's facts from the repository's matrix; a variant without a server is
// on its language's first server.
func specOf(t *testing.T, v matrix.Variant) matrix.Spec {
	t.Helper()
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := m.Langs[v.Lang]; ok && v.Server == "" {
		v.Server = l.DefaultServer()
	}
	s, err := m.Spec(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The matrix and the code of every target agree on the layers and their modes: adding a
// library on one side only fails here (and at the start of every run).
func TestMatrixAndTargetsAgree(t *testing.T) {
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{RepoRoot: phpRepoRoot, BinDir: goBinDir(t)}
	for _, lang := range m.LangNames() {
		if err := Agree(m, m.Langs[lang], o); err != nil {
			t.Error(err)
		}
	}
}

// Agree names every way the two sides can differ.
func TestDisagreementsAreNamed(t *testing.T) {
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	l := m.Langs["go"]
	d := &Description{Layers: []DescribedLayer{
		{Name: "hello", DB: false},
		{Name: "raw", DB: true, Stmt: []string{"prepare", "interpolate"}, Conn: []string{"persistent", "per-request"}},
		{Name: "newlib", DB: true, Stmt: []string{"interpolate"}, Conn: []string{"persistent"}},
		{Name: "gorm", DB: true, Stmt: []string{"prepare", "prepared", "interpolate"}, Conn: []string{"persistent", "per-request"}, Kind: "builder"},
		// A gotarget built before protocols: Postgres, a layer reading PostgreSQL alone.
		{Name: "sqlx", DB: true, Stmt: l.Layers["sqlx"].Stmt, Conn: l.Layers["sqlx"].Conn, Postgres: true},
		{Name: "ent", DB: true, Stmt: l.Layers["ent"].Stmt, Conn: l.Layers["ent"].Conn, Protocols: []string{"mysql"}},
		{Name: "bun", DB: true, Stmt: []string{"interpolate", "simple_protocol"}, Conn: l.Layers["bun"].Conn, Protocols: []string{"mysql", "postgres"},
			StmtBy: map[string][]string{"mysql": {"interpolate"}, "postgres": {"cache_statement"}}},
	}}
	got := strings.Join(disagreements(m, l, "nethttp", d), "\n")
	for _, want := range []string{
		"server nethttp serves layer newlib, which matrix.yaml does not list",
		"matrix.yaml lists layer beego (served as orm), which server nethttp does not serve",
		"layer raw: matrix.yaml offers stmt prepare,prepared,interpolate, server nethttp prepare,interpolate",
		`layer gorm: matrix.yaml says kind "orm", server nethttp "builder"`,
		"layer sqlx: matrix.yaml says it reads mariadb,mysql,postgres,pgbouncer,pgbouncer-118,pgbouncer-off (mysql,postgres), server nethttp that it reads postgres",
		"layer ent: matrix.yaml says it reads mariadb,mysql,postgres,pgbouncer,pgbouncer-118,pgbouncer-off (mysql,postgres), server nethttp that it reads mysql",
		"layer bun: matrix.yaml offers stmt simple_protocol on postgres, server nethttp cache_statement",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("disagreements lack %q:\n%s", want, got)
		}
	}
}
