// Command gotarget serves one Go variant of the benchmark: GET /hello and the users
// endpoints (get, list, insert, update: go/README.md) through the layer, statement mode
// and connection mode its flags name.
//
//	gotarget --layer raw --stmt prepared --conn persistent --pool 64 \
//	         --dsn-file db.dsn --listen 127.0.0.1:8080 --admin-listen 127.0.0.1:8081
//
// It refuses at start every flag combination that is not a variant. SIGTERM or SIGINT
// stops it gracefully: in-flight requests finish, then the pool is closed.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	beego "github.com/beego/beego/v2/client/orm"
	"github.com/go-sql-driver/mysql"

	"dbbench/dsn"
	"dbbench/go/config"
	"dbbench/go/held"
	"dbbench/go/layers"
	"dbbench/go/server"
)

// connMaxLifetime is far below MariaDB's default wait_timeout (8 h), so the server never
// drops a pooled connection first, and long enough that no measurement sees the pool
// reconnect: 64 reconnects an hour are noise next to thousands of requests a second.
const connMaxLifetime = time.Hour

// Timeouts. requestTimeout bounds one lookup, waiting for a pooled connection included;
// startTimeout bounds connecting and the layer's start-up queries.
const (
	requestTimeout  = 5 * time.Second
	startTimeout    = 15 * time.Second
	shutdownTimeout = 10 * time.Second
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	c, err := config.Parse(args, stderr, layers.Catalog())
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && c.Texts > 1 && !layers.All[c.Layer].Texts {
		err = fmt.Errorf("--texts %d: layer %s reads get through its one statement (a working set: %s)", c.Texts, c.Layer, strings.Join(layers.WithTexts(), ", "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "gotarget: %v\n", err)
		return 2
	}
	if c.Describe {
		if err := describe(stdout); err != nil {
			fmt.Fprintf(stderr, "gotarget: %v\n", err)
			return 1
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if c.Ping > 0 {
		if err := ping(ctx, c, stdout); err != nil {
			fmt.Fprintf(stderr, "gotarget: %v\n", err)
			return 1
		}
		return 0
	}
	if err := serve(ctx, c, stderr); err != nil {
		fmt.Fprintf(stderr, "gotarget: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, c config.Config, stderr io.Writer) error {
	logger := log.New(stderr, "", log.LstdFlags)
	var (
		store server.Store
		stats func() server.PoolStats
	)
	if c.UsesDB() {
		open := openSQLLayer
		if layers.All[c.Layer].Driver == server.PgxPool {
			open = openPgxLayer
		}
		l, err := open(ctx, c, stderr)
		if err != nil {
			return err
		}
		defer l.close()
		store, stats, logger = l.store, l.stats, l.logger
	}

	api, err := listen("--listen", c.Listen)
	if err != nil {
		return err
	}
	servers := []*http.Server{newServer(server.New(store, server.Options{Timeout: requestTimeout, Log: logger, Fetches: layers.All[c.Layer].Fetches}), logger)}
	listeners := []net.Listener{api}
	if c.AdminListen != "" {
		admin, err := listen("--admin-listen", c.AdminListen)
		if err != nil {
			api.Close()
			return err
		}
		servers = append(servers, newServer(server.Admin(stats), logger))
		listeners = append(listeners, admin)
		logger.Printf("admin (DBStats, pprof) on http://%s/debug/", admin.Addr())
	}
	logger.Printf("layer=%s stmt=%s conn=%s pool=%d serving on http://%s", c.Layer, orNone(c.Stmt), orNone(c.Conn), c.Pool, api.Addr())

	failed := make(chan error, len(servers))
	for i, s := range servers {
		go func() {
			if err := s.Serve(listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				failed <- err
			}
		}()
	}
	var serveErr error
	select {
	case <-ctx.Done():
		logger.Printf("signal received, shutting down")
	case serveErr = <-failed:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, s := range servers {
		if err := s.Shutdown(sctx); err != nil && serveErr == nil {
			serveErr = fmt.Errorf("graceful shutdown: %w", err)
		}
	}
	if serveErr != nil {
		return serveErr
	}
	logger.Printf("stopped")
	return nil
}

// openLayer is a variant's layer, opened on its pool: its store, its pool statistics
// for /debug/dbstats, the logger that scrubs the password, and what closes the pool.
type openLayer struct {
	store  server.Store
	stats  func() server.PoolStats
	logger *log.Logger
	close  func()
}

// openSQLLayer opens the layer on database/sql's pool (openPool).
func openSQLLayer(ctx context.Context, c config.Config, stderr io.Writer) (*openLayer, error) {
	var holds held.Counter
	db, target, err := openPool(ctx, c, &holds)
	if err != nil {
		return nil, err
	}
	// From here on every line the target prints passes the scrubber, the driver's and
	// beego's own loggers included: their errors are quoted verbatim and must not
	// carry the password.
	out := dsn.Writer(stderr, target.scrub)
	logger := log.New(out, "", log.LstdFlags)
	mysql.SetLogger(log.New(out, "[mysql] ", log.LstdFlags))
	beego.DebugLog = beego.NewLog(out)
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	store, err := layers.All[c.Layer].Open(sctx, db, server.LayerOptions{Prepared: c.Stmt == server.Prepared, Postgres: target.postgres, Texts: c.Texts})
	cancel()
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("start layer %s on %s: %s", c.Layer, target.redacted, target.scrub(err.Error()))
	}
	if c.Conn == "per-request" {
		store = server.Limit(store, c.Pool)
	}
	// A no-op in the release build; a test build can plant a leak, a slowdown or a
	// lost update here.
	if store, err = plantLeak(store, db, c.Layer, logger); err != nil {
		db.Close()
		return nil, err
	}
	stats := func() server.PoolStats {
		n, d := holds.Stats()
		return server.PoolStats{DBStats: db.Stats(), Holds: n, HeldDuration: int64(d)}
	}
	return &openLayer{store: store, stats: stats, logger: logger, close: func() { db.Close() }}, nil
}

// openPool opens the database/sql pool the way the variant says, its connections'
// holds timed into holds, and checks that the database answers, so a wrong DSN fails
// at start rather than as 503s.
func openPool(ctx context.Context, c config.Config, holds *held.Counter) (*sql.DB, *database, error) {
	target, err := connect(c)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(held.Wrap(target.connector, holds))
	switch c.Conn {
	case "persistent":
		db.SetMaxOpenConns(c.Pool)
		db.SetMaxIdleConns(c.Pool)
		db.SetConnMaxLifetime(connMaxLifetime)
	case config.Shipped: // nothing set: as a service that never tuned it runs
	default:
		db.SetMaxOpenConns(c.Pool)
		db.SetMaxIdleConns(0) // keep none: every request dials and hangs up
		db.SetConnMaxLifetime(connMaxLifetime)
	}
	pctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("cannot reach the database at %s: %s", target.redacted, target.scrub(err.Error()))
	}
	return db, target, nil
}

// ping times c.Ping COM_PINGs on one connection (after one that may pay its set-up)
// and prints their median in seconds: the runner's probe of the distance from the app's
// host to the database, where the app runs (dbbench run --app-host).
func ping(ctx context.Context, c config.Config, stdout io.Writer) error {
	c.Pool = 1
	db, target, err := openPool(ctx, c, &held.Counter{})
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("ping %s: %s", target.redacted, target.scrub(err.Error()))
	}
	defer conn.Close()
	rtts := make([]time.Duration, 0, c.Ping+1)
	for range c.Ping + 1 {
		t0 := time.Now()
		if err := conn.PingContext(ctx); err != nil {
			return fmt.Errorf("ping %s: %s", target.redacted, target.scrub(err.Error()))
		}
		rtts = append(rtts, time.Since(t0))
	}
	rtts = rtts[1:]
	slices.Sort(rtts)
	// The median as runners/stats takes it (the target cannot import the runners):
	// the mean of the two middles of an even count, as the links measured here are.
	mid := rtts[len(rtts)/2]
	if len(rtts)%2 == 0 {
		mid = (rtts[len(rtts)/2-1] + mid) / 2
	}
	_, err = fmt.Fprintf(stdout, "%.9f\n", mid.Seconds())
	return err
}

func listen(flag, addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	return l, nil
}

func newServer(h http.Handler, logger *log.Logger) *http.Server {
	return &http.Server{
		Handler: h,
		// A client that never finishes its headers does not hold a goroutine forever. Not
		// less: net/http counts it from accept for a connection's first request, and a
		// block parks every variant's connections before its first turn (runners/measure/run/
		// block.go), which comes a round of turns later: at 10 s, the ops preset's 39 Go
		// variants lost each connection of the later ones (64 EOFs per variant).
		ReadHeaderTimeout: 2 * time.Minute,
		ErrorLog:          logger,
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// described is one layer as --describe prints it; runners/measure/target reads the same shape
// from the PHP targets.
type described struct {
	Name string   `json:"name"`
	DB   bool     `json:"db"`
	Stmt []string `json:"stmt,omitempty"`
	Conn []string `json:"conn,omitempty"`
	// Protocols are the wire protocols the layer reads, StmtBy its modes on each:
	// matrix.yaml must say the same (runners/measure/target.Agree).
	Protocols []string            `json:"protocols,omitempty"`
	StmtBy    map[string][]string `json:"stmt_by,omitempty"`
	// Texts: the layer reads get through --texts statement texts (runners/measure/target.Agree
	// checks matrix.yaml's exclusions against it).
	Texts bool `json:"texts,omitempty"`
	// Fetch are the forms the layer reads users' orders in, for one user (orders) and
	// for a list (listorders); runners/measure/target.Agree checks matrix.yaml's exclusions.
	Fetch *fetches `json:"fetch,omitempty"`
}

type fetches struct {
	One  []string `json:"orders"`
	List []string `json:"listorders"`
}

// describe prints every layer gotarget serves, sorted by name, as JSON.
func describe(w io.Writer) error {
	out := struct {
		Layers []described `json:"layers"`
	}{}
	for name, stmts := range layers.Catalog() {
		d := described{Name: name, DB: len(stmts) > 0, Texts: layers.All[name].Texts}
		if f := layers.All[name].Fetches; len(f.One)+len(f.List) > 0 {
			d.Fetch = &fetches{One: f.One, List: f.List}
		}
		if d.DB {
			d.Stmt, d.Conn, d.StmtBy = stmts, config.Conns, map[string][]string{}
			for _, p := range []string{server.MySQL, server.Postgres} {
				if by := layers.All[name].Stmts[p]; by != nil {
					d.Protocols, d.StmtBy[p] = append(d.Protocols, p), by
				}
			}
		}
		out.Layers = append(out.Layers, d)
	}
	slices.SortFunc(out.Layers, func(a, b described) int { return strings.Compare(a.Name, b.Name) })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
