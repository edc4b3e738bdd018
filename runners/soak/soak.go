package soak

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/environment"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/run"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

// soaker is one soak's state. mu guards file: the sampler and every variant's load
// goroutine write into it, and the writer reads it.
type soaker struct {
	o       Options
	specs   []matrix.Spec
	mu      sync.Mutex
	file    *File
	db      *provider.DB
	admin   *sql.DB
	dbPort  int
	secrets string // private directory of the DSN file
	targets []*target.Target
	topo    *topology.Topology
	tlog    *os.File  // the targets' own output
	started time.Time // of the soak proper: t = 0 of every series
	noPorts bool      // the server's list shows none of the targets' ports: said once
	server  servers.Server
	traced  servers.Traced // what the server tells of each client (outside.go)
}

// Run performs the soak: provision the database, start every variant's target, measure
// the capacities together, then serve each variant open loop at RateFraction of its
// capacity for Duration while sampling every Interval. soak.json in o.Out is replaced
// after every sample; the verdicts are added at the end, however the soak ends.
func Run(ctx context.Context, o Options) (*File, error) {
	o.Defaults()
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(o.Root, "bin")
	}
	s := &soaker{o: o}
	if err := s.resolve(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("soak directory: %w", err)
	}
	s.file = s.newFile()
	err := s.run(ctx)
	s.mu.Lock()
	f := s.file
	f.Finished = time.Now().UTC()
	f.Status, err = run.Ending(ctx, "soak", err)
	if err != nil {
		f.Error = err.Error()
	}
	f.Judge()
	s.mu.Unlock()
	if werr := s.write(); werr != nil && err == nil {
		err = werr
	}
	return f, err
}

// resolve gets every variant's facts and checks that the matrix and the targets' code
// agree, before anything starts.
func (s *soaker) resolve() error {
	langs := map[string]bool{}
	for _, v := range s.o.Variants {
		sp, err := s.o.Matrix.Spec(v)
		if err != nil {
			return err
		}
		if !sp.Layer.DB {
			return fmt.Errorf("variant %s uses no database: there is nothing of it to soak", v.Key())
		}
		s.specs = append(s.specs, sp)
		langs[v.Lang] = true
	}
	for lang := range langs {
		if err := target.Agree(s.o.Matrix, s.o.Matrix.Langs[lang], s.targetOptions()); err != nil {
			return err
		}
	}
	return nil
}

func (s *soaker) targetOptions() target.Options {
	var log io.Writer = io.Discard
	if s.tlog != nil {
		log = s.tlog
	}
	o := target.Options{DSNFile: s.dsnFile(), RepoRoot: s.o.Root, BinDir: s.o.BinDir, Log: log}
	if s.topo != nil {
		o.Host, o.From = s.topo.App, s.topo.Load.Addr
	}
	return o
}

func (s *soaker) dsnFile() string {
	if s.secrets == "" {
		return ""
	}
	return filepath.Join(s.secrets, "dsn")
}

func (s *soaker) newFile() *File {
	o := s.o
	pools := map[string]int{}
	for _, v := range o.Variants {
		pools[v.Lang] = max(pools[v.Lang], v.Pool)
	}
	f := &File{
		Schema: Schema, Status: results.Running, Started: time.Now().UTC(),
		Settings: Settings{
			Mode: "concurrent", Duration: o.Duration.String(), Interval: o.Interval.String(),
			Warmup: o.Warmup.String(), WarmupSeconds: o.Warmup.Seconds(),
			CapacityWarmup: o.CapacityWarmup.String(), CapacityTime: o.CapacityTime.String(),
			RateFraction: o.RateFraction, Connections: o.Connections, Pools: pools,
			Provider: o.DB.KindName(), Rows: o.DB.Rows, Seed: o.Seed,
		},
		Environment: s.environment(),
		Database:    &Role{Series: []*Series{}},
	}
	for _, v := range o.Variants {
		f.Variants = append(f.Variants, &Variant{
			Key:         v.Key(),
			Variant:     v,
			Connections: o.connections(v),
			Windows:     []Window{},
			Role:        Role{Series: []*Series{}},
		})
	}
	return f
}

// environment is the machine's facts plus what each language's launcher records.
func (s *soaker) environment() map[string]string {
	env := environment.Collect(s.o.Root)
	done := map[string]bool{}
	for _, sp := range s.specs {
		if done[sp.Lang+"/"+sp.Server.Name] {
			continue
		}
		done[sp.Lang+"/"+sp.Server.Name] = true
		l := s.o.Matrix.Langs[sp.Lang]
		launcher, err := target.LauncherOf(sp.Server)
		if err != nil {
			continue
		}
		var layers []*matrix.Layer
		for _, name := range l.LayerNames() {
			layers = append(layers, l.Layers[name])
		}
		maps.Copy(env, launcher.Environment(s.targetOptions(), sp.Lang, layers))
	}
	return env
}

// write replaces soak.json with what is measured so far.
func (s *soaker) write() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file.Write(s.o.Out)
}

func (s *soaker) run(ctx context.Context) error {
	if err := s.write(); err != nil {
		return err
	}
	defer s.teardown()
	if err := s.provision(ctx); err != nil {
		return err
	}
	if err := s.startTargets(ctx); err != nil {
		return err
	}
	if err := s.measureCapacity(ctx); err != nil {
		return err
	}
	if err := s.write(); err != nil {
		return err
	}
	before, beforeAt, ok := s.restSample(ctx)
	if err := s.soak(ctx); err != nil {
		return err
	}
	if after, afterAt, ok2 := s.restSample(ctx); ok && ok2 {
		s.keepRest(before, after, beforeAt, afterAt)
	}
	return nil
}

// provision starts the database and writes the DSN file targets read (0600, in a
// private directory outside the soak's).
func (s *soaker) provision(ctx context.Context) error {
	opts := s.o.DB
	// Every pool at once, twice over for per-request connections still closing, and the
	// runner's own.
	sum := 0
	for _, v := range s.o.Variants {
		sum += v.Pool
	}
	opts.MaxConnections = 2*sum + 50
	opts.Instruments = true // statements traced to their connections (outside.go)
	topo, err := topology.Start(ctx, s.o.Topology)
	if err != nil {
		return err
	}
	s.topo = topo
	s.mu.Lock()
	s.file.Settings.Topology = topo.Kind
	s.mu.Unlock()
	if topo.DB.Netns != "" {
		opts.Place, opts.Clients = topo.DB, []string{topo.Load.Addr, topo.App.Addr}
	}
	fmt.Fprintf(s.o.Log, "soak: provisioning %s database (%d rows)\n", opts.KindName(), opts.Rows)
	db, err := provider.Start(ctx, opts)
	if err != nil {
		return err
	}
	s.db = db
	if s.admin, err = db.Open(); err != nil {
		return err
	}
	s.admin.SetMaxOpenConns(1)
	s.admin.SetMaxIdleConns(1)
	_, port, err := net.SplitHostPort(db.TargetAddr())
	if err != nil {
		return fmt.Errorf("soak: database address %q: %w", db.TargetAddr(), err)
	}
	if s.dbPort, err = strconv.Atoi(port); err != nil {
		return fmt.Errorf("soak: database port %q: %w", port, err)
	}
	s.server = servers.For(db.Protocol())
	lim, err := s.server.Limits(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	s.traced = s.server.Traces(ctx, s.admin)
	s.mu.Lock()
	s.file.Environment["database"] = db.Kind + " " + db.Version
	if db.Kind == "embedded" {
		s.file.Environment["database-settings"] = fmt.Sprint(provider.Settings(opts))
	}
	st := &s.file.Settings
	st.MaxConnections, st.MaxPreparedStmtCount, st.StatementsLimit = lim.Connections, lim.Statements, lim.StatementsName
	st.DatabaseProcessSeries = db.PID != 0
	st.OutsideStatements, st.OutsideMemory = s.traced.Statements, s.traced.Memory
	if why := s.server.Untraced(s.traced); why != "" {
		fmt.Fprintln(s.o.Log, "soak: "+why)
	}
	s.mu.Unlock()
	if s.secrets, err = os.MkdirTemp("", "dbbench-secrets-"); err != nil {
		return err
	}
	return os.WriteFile(s.dsnFile(), []byte(db.DSN()+"\n"), 0o600)
}

// startTargets starts every variant's target, one after the other.
func (s *soaker) startTargets(ctx context.Context) error {
	var err error
	if s.tlog, err = os.Create(filepath.Join(s.o.Out, "targets.log")); err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	for _, sp := range s.specs {
		t, err := target.Start(ctx, sp, s.targetOptions())
		if err != nil {
			return err
		}
		s.targets = append(s.targets, t)
		fmt.Fprintf(s.o.Log, "soak: %s serving on %s\n", sp.Key(), t.URL)
	}
	return nil
}

// teardown stops what the soak started, whatever happened: targets, then the database.
func (s *soaker) teardown() {
	for _, t := range s.targets {
		if err := t.Stop(); err != nil {
			fmt.Fprintf(s.o.Log, "soak: stopping %s: %v\n", t.Variant.Key(), err)
		}
	}
	if s.admin != nil {
		s.admin.Close()
	}
	if s.secrets != "" {
		os.RemoveAll(s.secrets)
	}
	if s.db != nil {
		if err := s.db.Close(); err != nil {
			fmt.Fprintf(s.o.Log, "soak: stopping the database: %v\n", err)
		}
	}
	if s.tlog != nil {
		s.tlog.Close()
	}
	if err := s.topo.Close(); err != nil {
		fmt.Fprintf(s.o.Log, "soak: removing the topology: %v\n", err)
	}
}
