package run

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/connectcost"
	"dbbench/runners/measure/delay"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/roundtrip"
	"dbbench/runners/measure/servers"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// database is one server a run measures on (a variant's db=) and what reaches it: the
// runner's own connections, the DSN files its targets read (direct, and through the
// counting proxy), the proxy, --rtt's delay, and the ledger of its writes (writes.go).
// A run of two servers measures their variants side by side, each against its own.
type database struct {
	name     string // the variant's Database: "" for the matrix's first db
	server   string // the matrix's name for it: mariadb, mysql
	db       *provider.DB
	admin    *sql.DB
	dsnFile  string // direct to the database
	viaProxy string // through the counting proxy
	proxied  string // viaProxy's DSN, password included: for the link's measurement only
	proxy    *roundtrip.Proxy
	delay    *delay.Proxy
	ledger   *ledger // writes of the slice or block under way
}

// dbNames are the servers a run measures on, as the matrix names them: DBs, else the
// one server of DB (the sweeps' --db), else the matrix's first.
func (o *Options) dbNames() []string {
	if len(o.DBs) == 0 {
		return []string{cmp.Or(o.DB.Server, o.Matrix.DefaultDB())}
	}
	return o.DBs
}

// checkDBs refuses a server the matrix does not know, one given twice, and two
// servers for a provider that brings up one (a dsn names one server).
func (o *Options) checkDBs() error {
	for i, name := range o.DBs {
		if _, ok := o.Matrix.DBs[name]; !ok {
			return fmt.Errorf("--db %q: want one of %s", name, strings.Join(o.Matrix.DBNames(), ", "))
		}
		if slices.Index(o.DBs, name) != i {
			return fmt.Errorf("--db %s is given twice", name)
		}
	}
	if len(o.DBs) > 1 && o.DB.KindName() != "embedded" {
		return fmt.Errorf("--db %s: the %s provider brings up one server; a run of several starts each embedded", strings.Join(o.DBs, ","), o.DB.KindName())
	}
	return nil
}

// perDB lists each variant once per server on which its layer offers its stmt, next to
// each other, so that tables read as pairs; on one server, each variant on it. A layer
// without database (hello) is measured once, on the first: it reads nothing from
// either. A variant offered on none of the run's servers (pgx on a MySQL run; sqlx's
// MySQL modes on a PostgreSQL run) is left out.
func (o *Options) perDB(vs []matrix.Variant) []matrix.Variant {
	var out []matrix.Variant
	for _, v := range vs {
		layer := o.Matrix.Langs[v.Lang].Layers[v.Layer]
		for i, name := range o.dbNames() {
			if i > 0 && !layer.DB {
				break
			}
			if o.Matrix.Reads(layer, name) && (!layer.DB || o.Matrix.Offers(layer, v.Stmt, name)) {
				out = append(out, o.Matrix.OnDB(v, name))
			}
		}
	}
	return out
}

// pids are the server's processes when it is ours to read (nil when not), as its
// server lists them (runners/measure/servers).
func (d *database) pids() []int {
	if d.db.PID == 0 {
		return nil
	}
	return servers.For(d.db.Protocol()).Processes(d.db.PID)
}

// serverCounts reads the server's running totals of dials and prepares; nil when they
// cannot be read (the run goes on without them).
func (d *database) serverCounts(ctx context.Context) *servers.Counts {
	if d.admin == nil {
		return nil
	}
	c, err := servers.For(d.db.Protocol()).Counts(ctx, d.admin)
	if err != nil {
		return nil
	}
	return &c
}

// privateMemory is what the server's processes hold privately (RssAnon summed over
// them: its backends' own memory on PostgreSQL, mysqld's heap on MySQL); false when
// the server is not ours to read.
func (d *database) privateMemory() (int64, bool) {
	var sum int64
	pids := d.pids()
	for _, pid := range pids {
		n, err := procstat.AnonRSS(pid)
		if err != nil {
			continue // a backend that exited meanwhile
		}
		sum += n
	}
	return sum, len(pids) > 0
}

// poolerPID is the pooler's process where the targets reach the server through one the
// run started; 0 otherwise.
func (d *database) poolerPID() int {
	if d.db.Pooler == nil {
		return 0
	}
	return d.db.Pooler.PID()
}

// light reads the server's light counters, of all its processes (servers.Server.Light);
// ok is false when it is not ours to read.
func (d *database) light() (l procstat.Light, ok bool, err error) {
	if d.db.PID == 0 {
		return l, false, nil
	}
	l, err = servers.For(d.db.Protocol()).Light(d.db.PID)
	return l, true, err
}

// on is the server rv is measured on.
func (r *runner) on(rv *results.Variant) *database { return r.dbs[rv.Database] }

// first is the run's first server: the one its link and rows are read from (every
// server holds the same rows, on the same host).
func (r *runner) first() *database { return r.dbs[r.dbOrder[0]] }

// provision starts every server the run measures on, then its proxies and DSN files:
// each 0600 in one private directory outside the run directory.
func (r *runner) provision(ctx context.Context) error {
	secrets, err := os.MkdirTemp("", "dbbench-secrets-")
	if err != nil {
		return err
	}
	r.secrets = secrets
	r.dbs = map[string]*database{}
	for _, server := range r.o.dbNames() {
		d := &database{name: r.o.Matrix.OnDB(matrix.Variant{}, server).Database, server: server}
		r.dbs[d.name] = d
		r.dbOrder = append(r.dbOrder, d.name)
		if err := r.provisionOne(ctx, d); err != nil {
			return err
		}
	}
	f := r.first()
	if r.topo.Remote != nil {
		r.res.Link, r.res.Topology.Links, err = r.measureRemoteLink(ctx, f.db.DSN(), f.proxied)
		return err
	}
	r.res.Link, r.res.Topology.Links, err = measureLink(ctx, r.topo, f.db.DSN(), f.proxied, r.o.RTT)
	return err
}

// provisionOne starts d's server, its proxy and its --rtt delay, and writes its two DSN
// files.
func (r *runner) provisionOne(ctx context.Context, d *database) error {
	opts := r.o.DB
	opts.Server = d.server
	if opts.MaxConnections == 0 { // else --server-max-connections
		opts.MaxConnections = r.maxConnections()
	}
	if r.topo.DB.Addr != "127.0.0.1" { // where the other roles reach it
		opts.Place, opts.Clients = r.topo.DB, []string{r.topo.Load.Addr, r.topo.App.Addr}
	}
	fmt.Fprintf(r.o.Log, "provisioning %s database, %s (%d rows)\n", opts.KindName(), d.server, opts.Rows)
	db, err := provider.Start(ctx, opts)
	if err != nil {
		return err
	}
	d.db = db
	if d.admin, err = db.Open(); err != nil {
		return err
	}
	d.admin.SetMaxOpenConns(2)
	if err := r.measureConnections(ctx, d, opts); err != nil {
		return err
	}
	key := results.EnvKey("database", d.name)
	version := db.Version
	if d.server == "mysql" && !strings.Contains(version, "MySQL") {
		version = "MySQL " + version // MySQL's version says only "8.0.31"
	}
	r.res.Environment[key] = db.Kind + " " + version
	if s := provider.Settings(opts); db.Kind == "embedded" && s != nil { // an engine's options (MariaDB's, MySQL's)
		r.res.Environment[key+"-settings"] = fmt.Sprint(s)
	}
	// The targets reach the server through its pooler when it has one (--pooler); the
	// runner's own connections (admin) stay direct.
	dsn, upstream := db.DSN(), db.TargetAddr()
	if upstream != db.Addr() {
		if dsn, err = roundtrip.RewriteDSN(dsn, upstream); err != nil {
			return err
		}
		r.res.Environment[results.EnvKey("pooler", d.name)] = db.Pooler.Describe()
	}
	if toTargets := r.toTargets(d); toTargets != nil {
		if upstream, err = toTargets(r.topo.Load.Addr, upstream); err != nil {
			return err
		}
		if dsn, err = roundtrip.RewriteDSN(dsn, upstream); err != nil {
			return err
		}
	}
	d.dsnFile = filepath.Join(r.secrets, "dsn"+suffix(d))
	if err := os.WriteFile(d.dsnFile, []byte(dsn+"\n"), 0o600); err != nil {
		return err
	}
	if d.proxy, err = servers.For(db.Protocol()).CountingProxy(r.topo.Load.Addr, upstream); err != nil {
		return err
	}
	if d.proxied, err = roundtrip.RewriteDSN(dsn, d.proxy.Addr()); err != nil {
		return err
	}
	d.viaProxy = filepath.Join(r.secrets, "dsn-proxy"+suffix(d))
	return os.WriteFile(d.viaProxy, []byte(d.proxied+"\n"), 0o600)
}

// measureConnections measures what a new connection costs on each of d's
// authentication paths, with and without TLS, the preset's Handshakes on each in rounds
// of 20 (at least 10 rounds): on an embedded server on this host's loopback only, whose CPU the run can read.
func (r *runner) measureConnections(ctx context.Context, d *database, opts provider.Options) error {
	n := r.o.Preset.Handshakes
	if n == 0 || d.db.Kind != "embedded" || opts.Place != nil {
		return nil
	}
	rounds := max(10, n/20) // benchstat's interval of a median needs 6 values or more
	costs, err := connectcost.Measure(ctx, connectcost.Options{Admin: d.admin, DSN: d.db.DSN(), PID: d.db.PID, Rounds: rounds, PerRound: max(1, n/rounds)})
	if err != nil {
		return err
	}
	if r.res.Connections == nil {
		r.res.Connections = map[string][]*results.ConnectCost{}
	}
	r.res.Connections[d.server] = costs
	for _, c := range costs {
		tls := ""
		if c.TLS {
			tls = " + TLS"
		}
		fmt.Fprintf(r.o.Log, "new connection, %s, %s%s: %s, server CPU %s (median)\n",
			d.server, c.Path, tls, units.Count(c.RoundTrips, "round trip"), units.WholeEstimate(c.ServerCPU*1e6, c.ServerCPULo*1e6, c.ServerCPUHi*1e6, "µs"))
	}
	return nil
}

// suffix tells a second server's files and environment keys from the first's:
// "-mysql"; "" for the matrix's first db, as before dbs.
func suffix(d *database) string {
	if d.name == "" {
		return ""
	}
	return "-" + d.name
}

// toTargets is what moves the targets' address of d: the sweep's own (TargetDBAddr) or
// --rtt's delay proxy; nil when the targets dial the database directly.
func (r *runner) toTargets(d *database) func(host, addr string) (string, error) {
	if r.o.TargetDBAddr != nil || r.o.RTT <= 0 {
		return r.o.TargetDBAddr
	}
	return func(host, addr string) (string, error) {
		p, err := delay.StartOn(host, addr, r.o.RTT/2)
		if err != nil {
			return "", err
		}
		d.delay = p
		return p.Addr(), nil
	}
}

// close stops what provisionOne started, the server last.
func (d *database) close(log func(format string, args ...any)) {
	if d.proxy != nil {
		d.proxy.Close()
	}
	if d.delay != nil {
		d.delay.Close()
	}
	if d.admin != nil {
		d.admin.Close()
	}
	if d.db != nil {
		if err := d.db.Close(); err != nil {
			log("stopping the database %s: %v\n", d.server, err)
		}
	}
}
