package matrix

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"dbbench/dsn/protocol"
)

// The values the keys may take. Stmt "none" and conn "none" belong to layers that use no
// database; Kinds are how a layer writes its SQL (question 1 groups layers by kind).
// The stmt values after interpolate are pgx's execution modes, by the names its
// default_query_exec_mode takes (go/layers/pgx), then lib/pq's binary_parameters
// (layer pq, go/layers/layers.go).
var (
	Stmts = []string{"prepare", "prepared", "interpolate",
		"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol", "binary_parameters", "none"}
	Conns = []string{"persistent", "per-request", "shipped", "none"}
	Kinds = []string{"raw", "builder", "orm"}
	// Commands are the names a roundtrips rule may count: the general log's command
	// types plus Ping, which only the wire shows.
	Commands = []string{"Connect", "Quit", "Init DB", "Query", "Prepare", "Execute", "Close stmt",
		"Reset stmt", "Change user", "Reset connection", "Ping",
		// PostgreSQL's frontend messages (runners/measure/roundtrip/postgres.go), Query and
		// Execute named as above.
		"Startup", "Password", "Parse", "Bind", "Describe", "Sync", "Flush", "Close", "Terminate"}
	// Requests are what an op may send, as the load generator and the verifier know
	// them: get (GET /users/{id}), list (GET /users?after=&limit=), insert (POST
	// /users), update (POST /users/{id}/visits), orders (GET /users/{id}/orders) and
	// listorders (GET /users?after=&limit=&orders=).
	Requests = []string{"get", "list", "insert", "update", "orders", "listorders"}
	// Fetches are the forms a layer reads related rows in (an orders op's fetch):
	// go/server/orders.go says what each means.
	Fetches = []string{"join", "eager", "lazy"}
)

// None is the stmt and conn of a layer that uses no database.
const None = "none"

// Get is the op a variant name without op= means: GET /users/{id}, the one endpoint
// there was before ops.
const Get = "get"

// Matrix is the parsed matrix file.
type Matrix struct {
	File    string
	Langs   map[string]*Lang
	Exclude []Exclusion
	Rules   []Rule
	Presets map[string]*Preset
	// Ops are the endpoints a database layer serves (a variant's op=); every matrix has
	// get, which a file without ops gets by default.
	Ops map[string]*Op
	// DBs are the database servers a variant can be measured on (its db=); the first
	// is the default, which a name without db= means.
	DBs     map[string]*DB
	order   []string // langs in file order
	opOrder []string // ops in file order
	dbOrder []string // dbs in file order
}

// DB is a database server the suite can start (runners/measure/provider) and measure on.
type DB struct {
	Name  string
	Title string // as its users name it in a sentence: "MySQL 8.0", "PgBouncer 1.18"
	About string // what it is, in words: product, version, where it comes from
	// Protocol is the wire protocol its clients speak: mysql (MariaDB, MySQL) or
	// postgres. A layer reads the databases of either or both (Layer.DBs).
	Protocol string
	// Server and Pooler: the db is a server of db Server's kind reached through a pooler
	// (pgbouncer), the targets' connections through it, the runner's direct; a run
	// starts it beside Server's own. A layer that reads Server reads it too. Both "" for
	// a server reached directly.
	Server, Pooler string
}

// Poolers are the poolers the provider can put in front of a server.
var Poolers = []string{"pgbouncer"}

// StartedServer is the server a db runs: its own name, or the one behind its pooler.
func (d *DB) StartedServer() string { return cmp.Or(d.Server, d.Name) }

// Protocols a database may speak (package protocol's, which the Go target's layers
// read too); a db without one speaks the first.
var Protocols = protocol.Names()

// Op is one endpoint: the request it sends and, for a list, the rows it asks for.
type Op struct {
	Name    string
	Request string // one of Requests
	Rows    int    // list and listorders: the limit of each request; 0 otherwise
	// Orders and Fetch are the orders ops': the orders per user each request asks for,
	// and the form (one of Fetches) the target reads them in.
	Orders int
	Fetch  string
	// Texts is get's statement working set: the target reads the row through one of
	// this many statement texts (the same statement, a comment numbering it), chosen
	// by the id, so that only the texts differ from get; 0 is get's one text.
	Texts int
}

// Lang is one language: the servers that can run its code, its layers, the layer
// question 1 compares the others with, and the pools its sweep visits.
type Lang struct {
	Name     string
	Baseline string // the layer every other database layer is compared with
	// BaselineBy, where the baseline depends on the protocol, names it on each
	// (BaselineOn); Baseline is then the mysql protocol's.
	BaselineBy map[string]string
	Servers    map[string]*Server
	PoolSweep  []int
	Layers     map[string]*Layer
	// Modes says, for a statement mode other than prepare and for a pooled connection,
	// what a team sets to get it in this language's drivers, their default and its
	// caveat (the report's answers 2 and 3).
	Modes map[string]*ModeSetting
	// Tuned are the modes a layer as shipped (Layer.Shipped) is measured against: what
	// the answers advise setting.
	Tuned   *Setting
	servers []string // in file order; the first is the default
	order   []string // layers in file order
}

// Setting is a statement mode and a connection mode: a layer's as its library ships
// them (Layer.Shipped), or the language's tuned ones (Lang.Tuned). The statement mode
// may depend on the protocol (StmtBy, else Stmt).
type Setting struct {
	Stmt   string
	StmtBy map[string]string
	Conn   string
}

// On is the setting's statement and connection modes on protocol.
func (s *Setting) On(protocol string) (stmt, conn string) {
	return onProtocol(s.StmtBy, protocol, s.Stmt), s.Conn
}

// onProtocol is by's value for protocol, else otherwise: a fact the matrix says once,
// or per protocol where it differs.
func onProtocol(by map[string]string, protocol, otherwise string) string {
	if v, ok := by[protocol]; ok {
		return v
	}
	return otherwise
}

// ModeSetting is how a statement mode is chosen in a language's own terms.
type ModeSetting struct {
	Set     string // what to set: "interpolateParams=true in go-sql-driver's DSN"
	Default string // what the libraries do unless told, on every protocol
	// DefaultBy is Default on one protocol, where that is shorter to say (a run on
	// PostgreSQL need not hear pdo_mysql's); DefaultOn reads it.
	DefaultBy map[string]string
	Caveat    string // the one thing to know before switching; may be ""
}

// DefaultOn is the setting's default as a run on protocol says it.
func (s *ModeSetting) DefaultOn(protocol string) string {
	return onProtocol(s.DefaultBy, protocol, s.Default)
}

// Server is who runs a language's code (net/http; nginx + php-fpm; resident workers),
// the launcher that starts it and what a variant's pool means under it.
type Server struct {
	Name     string
	Launcher string // a name runners/measure/target knows
	Pool     string // what pool=N sets, in words
}

// Layer is one way of reading the row, and the modes it offers.
type Layer struct {
	Name      string
	DB        bool   // false for the HTTP-only baseline (hello)
	Kind      string // raw, builder or orm; "" when DB is false
	Library   string // as people name it: "Beego ORM v2", "Eloquent"
	VersionOf string // whose version the environment records: a Go module or a Debian package
	// Stmt are the statement modes the layer offers on any database it reads, in file
	// order; StmtBy, when the layer's modes depend on the protocol (its driver's: Go's
	// layers offer go-sql-driver's on MySQL and pgx's on PostgreSQL), those on each
	// protocol, whose union Stmt is (StmtsOn).
	Stmt   []string
	StmtBy map[string][]string
	Conn   []string
	// DBs are the databases the layer reads; nil: every database of the protocols StmtBy
	// names, or of the mysql protocol, as every layer did before dbs of another protocol.
	DBs []string
	// StmtRef is the statement mode the layer's other modes are compared with (question
	// 2): prepare unless the layer says otherwise (pgx's default, cache_statement);
	// StmtRefBy, where it depends on the protocol (RefOn).
	StmtRef   string
	StmtRefBy map[string]string
	// Shipped are the layer's modes as its library ships them, set up as its own
	// documentation's first example does (README.md, "As shipped", has each with its
	// source); nil where the matrix does not say.
	Shipped *Setting
	// Fetch are the forms (Fetches) the layer reads related rows in, by request (orders,
	// listorders): what its library offers (go/layers/layers.go, php/src/Layer's
	// declarations; runners/measure/target.Agree holds the two to each other). An orders op
	// whose form the layer lacks is not one of its variants.
	Fetch map[string][]string
	// FetchAPI names, by form, the library call that reads related rows in it, as a
	// team writes it ("`with('orders')`"): the report's advice quotes it.
	FetchAPI map[string]string
	// Was is the name the layer had before layers were named by their library (orm,
	// builder): variant keys and patterns written with it still mean this layer (saved
	// results are renamed on read, runners/results), and the targets serve it under it,
	// as a revision built before the rename knows no other (dbbench ab). "" when the
	// name never changed.
	Was string
}

// Offers says whether the layer serves op: every op but an orders op, which it serves
// in the forms its Fetch lists.
func (l *Layer) Offers(op *Op) bool {
	return op == nil || op.Fetch == "" || slices.Contains(l.Fetch[op.Request], op.Fetch)
}

// Reads says whether a layer reads database db (by its name in the matrix): a layer
// without database reads every one, which it never touches.
func (m *Matrix) Reads(l *Layer, db string) bool {
	if !l.DB {
		return true
	}
	d := m.DBs[db]
	switch {
	case l.DBs != nil:
		return slices.Contains(l.DBs, db) || d != nil && d.Server != "" && slices.Contains(l.DBs, d.Server)
	case l.StmtBy != nil:
		return d != nil && l.StmtBy[d.Protocol] != nil
	}
	return d != nil && d.Protocol == string(protocol.MySQL)
}

// Offers says whether the layer offers statement mode stmt on database db, which it
// reads.
func (m *Matrix) Offers(l *Layer, stmt, db string) bool {
	return m.Reads(l, db) && slices.Contains(l.StmtsOn(m.ProtocolOf(db)), stmt)
}

// ProtocolOf is the wire protocol of database db (mysql for an unknown one).
func (m *Matrix) ProtocolOf(db string) string {
	if d := m.DBs[db]; d != nil {
		return d.Protocol
	}
	return string(protocol.MySQL)
}

// StmtsOn are the statement modes the layer offers on databases of the protocol.
func (l *Layer) StmtsOn(protocol string) []string {
	if l.StmtBy != nil {
		return l.StmtBy[protocol]
	}
	return l.Stmt
}

// RefOn is the statement mode the layer's others are compared with on the protocol.
func (l *Layer) RefOn(protocol string) string {
	return onProtocol(l.StmtRefBy, protocol, l.StmtRef)
}

// BaselineOn is the layer the language's others are compared with on databases of the
// protocol: Baseline unless the language names one per protocol.
func (l *Lang) BaselineOn(protocol string) string {
	return onProtocol(l.BaselineBy, protocol, l.Baseline)
}

// ReadBy lists the databases of the matrix the layer reads, in file order.
func (m *Matrix) ReadBy(l *Layer) []string {
	var out []string
	for _, db := range m.dbOrder {
		if m.Reads(l, db) {
			out = append(out, db)
		}
	}
	return out
}

// firstOffering is the first database of the matrix on which the layer offers stmt.
func (m *Matrix) firstOffering(l *Layer, stmt string) string {
	for _, db := range m.dbOrder {
		if m.Offers(l, stmt, db) {
			return db
		}
	}
	return m.DefaultDB()
}

// TargetName is the name the targets serve the layer under.
func (l *Layer) TargetName() string { return cmp.Or(l.Was, l.Name) }

// Exclusion is a combination the lists would produce but that is not run.
type Exclusion struct {
	Match *regexp.Regexp
	Why   string
}

// Rule adds commands to the expected round trips of every variant it matches.
// LogOnly are commands the server's general log shows and the wire does not: work the
// server does on its own (MySQL 8 preparing a statement again), said in Why.
type Rule struct {
	Match    *regexp.Regexp
	Commands map[string]int
	LogOnly  map[string]int
	Why      string
	// Protocol is whose commands the rule counts: it adds to the variants on databases
	// of that protocol only (mysql unless it says postgres).
	Protocol string
}

// Preset picks variants and says how long to measure them.
type Preset struct {
	Name        string
	About       string
	Include     []*regexp.Regexp
	Pools       map[string][]int
	Ops         []string // the ops measured on each database variant; [get] by default
	Connections int
	Warmup      time.Duration // load for each target after it starts
	Duration    time.Duration // one measured slice
	Reps        int           // slices of a variant in no comparison
	Budget      time.Duration // time for all the paired slices of a run
	// Precision is the stopping rule's target, a fraction: a comparison stops once its
	// ratios' 95% intervals are within ±Precision; 0 means the runner's default.
	Precision float64
	// Profile, when not 0, adds a profiled slice of this length per variant after its
	// measured ones (runners/measure/run/profile.go), as dbbench run --profile does.
	Profile time.Duration
	// Handshakes, when not 0, is how many connections the run opens on each of a
	// server's authentication paths to measure what one costs (runners/measure/connectcost).
	Handshakes int
}

// Load reads and validates a matrix file. Errors name the file and line.
func Load(path string) (*Matrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	return Parse(path, b)
}

// LangNames lists the languages in file order.
func (m *Matrix) LangNames() []string { return slices.Clone(m.order) }

// ServerNames lists the language's servers in file order; the first is the default.
func (l *Lang) ServerNames() []string { return slices.Clone(l.servers) }

// OpNames lists the ops in file order, get first.
func (m *Matrix) OpNames() []string { return slices.Clone(m.opOrder) }

// DBNames lists the database servers in file order; the first is the default.
func (m *Matrix) DBNames() []string { return slices.Clone(m.dbOrder) }

// DefaultDB is the database a variant name without db= means.
func (m *Matrix) DefaultDB() string { return m.dbOrder[0] }

// DBName is the variant's database, the default when the key names none.
func (m *Matrix) DBName(v Variant) string { return cmp.Or(v.Database, m.DefaultDB()) }

// OnDB is v on database db, which may be the default's name (then v's key has no db=).
func (m *Matrix) OnDB(v Variant, db string) Variant {
	v.Database = db
	if db == m.DefaultDB() {
		v.Database = ""
	}
	return v
}

// LayerNames lists the language's layers in file order.
func (l *Lang) LayerNames() []string { return slices.Clone(l.order) }

// DefaultServer is the server a variant name without server= means.
func (l *Lang) DefaultServer() string { return l.servers[0] }

// All lists every variant the matrix knows for the given pools (lang → pools), in file
// order, exclusions left out, at get (Expand adds a preset's other ops), each on the
// first database on which its layer offers its stmt (a run moves it to its own,
// Options.perDB).
func (m *Matrix) All(pools map[string][]int) []Variant {
	var out []Variant
	for _, ln := range m.order {
		l := m.Langs[ln]
		for _, server := range l.servers {
			for _, layer := range l.order {
				spec := l.Layers[layer]
				for _, stmt := range spec.Stmt {
					for _, conn := range spec.Conn {
						for _, pool := range pools[ln] {
							v := m.OnDB(Variant{Lang: ln, Server: server, Layer: layer, Stmt: stmt, Conn: conn, Pool: pool}, m.firstOffering(spec, stmt))
							if m.excluded(v) == "" {
								out = append(out, v)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// Expand lists the variants a preset runs: each variant of All at each of the
// preset's ops (a layer without database serves get alone), a variant's ops together.
func (m *Matrix) Expand(p *Preset) []Variant {
	ops := p.Ops
	if len(ops) == 0 {
		ops = []string{Get}
	}
	var out []Variant
	for _, base := range m.All(p.Pools) {
		for _, op := range ops {
			v := base
			if op != Get {
				if l := m.Langs[v.Lang].Layers[v.Layer]; !l.DB || !l.Offers(m.Ops[op]) {
					continue
				}
				v.Op = op
			}
			spelled := m.Spellings(v)
			if slices.ContainsFunc(p.Include, func(re *regexp.Regexp) bool { return slices.ContainsFunc(spelled, re.MatchString) }) {
				out = append(out, v)
			}
		}
	}
	return out
}

// Match says whether a pattern (a preset's include, an exclusion, a roundtrips rule,
// --variants) selects v. Patterns written before servers had a name keep working: on
// its language's first server, a variant also matches by its LegacyKey. A get variant
// also matches with op=get spelled out, so that op=get selects it beside the other
// ops. Patterns written before revisions and databases too: a variant with a rev or a
// db also matches as it would without; on the default database it also matches with
// db= spelled out.
func (m *Matrix) Match(re *regexp.Regexp, v Variant) bool {
	return slices.ContainsFunc(m.Spellings(v), re.MatchString)
}

// Spellings are every name a pattern may select v by (Match): a caller testing many
// patterns against one variant spells it once.
func (m *Matrix) Spellings(v Variant) []string { return m.allSpellings(v, true) }

// allSpellings are v's spellings, and a layer renamed since by the name it had
// (Layer.Was); spellDB adds the default database's spelling (db=mariadb), which a
// variant on another database, spelled as it would be without db=, must not get.
func (m *Matrix) allSpellings(v Variant, spellDB bool) []string {
	out := m.spellings(v, spellDB)
	if l, ok := m.Langs[v.Lang]; ok && l.Layers[v.Layer] != nil && l.Layers[v.Layer].Was != "" {
		v.Layer = l.Layers[v.Layer].Was
		out = append(out, m.spellings(v, spellDB)...)
	}
	return out
}

// spellings are v's key in each form a name written before may take, and those of v
// without its db and its rev.
func (m *Matrix) spellings(v Variant, spellDB bool) []string {
	out := []string{v.Key()}
	if v.Op == "" {
		out = append(out, v.OpKey())
	}
	if spellDB && v.Database == "" && len(m.dbOrder) > 0 {
		out = append(out, m.spelledDB(v))
	}
	if l, ok := m.Langs[v.Lang]; ok && v.Server == l.DefaultServer() {
		legacy := v.LegacyKey()
		out = append(out, legacy)
		if v.Op == "" {
			out = append(out, strings.TrimSuffix(legacy, v.revPart())+"/op="+Get+v.revPart())
		}
	}
	if v.Database != "" {
		out = append(out, m.spellings(v.WithoutDB(), false)...)
	}
	if v.Rev != "" {
		out = append(out, m.spellings(v.WithoutRev(), spellDB)...)
	}
	return out
}

// spelledDB is v's key with the default database spelled out as db=.
func (m *Matrix) spelledDB(v Variant) string {
	v.Database = m.DefaultDB()
	return v.Key()
}

// Preset returns the named preset or an error listing the known ones.
func (m *Matrix) Preset(name string) (*Preset, error) {
	if p, ok := m.Presets[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown preset %q (%s defines %s)", name, m.File, strings.Join(sortedKeys(m.Presets), ", "))
}

// Resolve reads a variant name, fills in the language's first server when the name has
// no server=, reads a layer's former name as the layer, and checks that the matrix
// knows the variant.
func (m *Matrix) Resolve(name string) (Variant, error) { return m.resolveOn(name, "") }

// resolveOn is Resolve with db (a db of the matrix) for a name without db= ("": the
// matrix's first).
func (m *Matrix) resolveOn(name, db string) (Variant, error) {
	v, err := ParseName(name)
	if err != nil {
		return Variant{}, err
	}
	if l, ok := m.Langs[v.Lang]; ok && v.Server == "" {
		v.Server = l.DefaultServer()
	}
	if l, ok := m.Langs[v.Lang]; ok && l.Layers[v.Layer] == nil {
		for _, name := range l.order { // a name the layer had before (Layer.Was)
			if l.Layers[name].Was == v.Layer {
				v.Layer = name
			}
		}
	}
	v = m.OnDB(v, cmp.Or(v.Database, db, m.DefaultDB()))
	return v, m.Check(v)
}

// ResolveList resolves a comma-separated list of variant keys, in order, skipping blank
// entries. A key that leaves out its pool gets pool(its lang); its server, as in Resolve.
func (m *Matrix) ResolveList(list string, pool func(lang string) int) ([]Variant, error) {
	return m.ResolveListOn(list, pool, "")
}

// ResolveListOn is ResolveList on database db: a key without db= is on db ("": the
// matrix's first). The soak's and the sweeps' --variants flags read their lists with it.
func (m *Matrix) ResolveListOn(list string, pool func(lang string) int, db string) ([]Variant, error) {
	var out []Variant
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/pool=") {
			s = withPool(s, pool(strings.TrimPrefix(strings.SplitN(s, "/", 2)[0], "lang=")))
		}
		v, err := m.resolveOn(s, db)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("no variant given")
	}
	return out, nil
}

// withPool puts pool=n into a key without one, where a name spells it: after conn=,
// before the optional op=, db= and rev=.
func withPool(key string, n int) string {
	parts := Parts(key)
	i := len(parts)
	for i > 0 && slices.Contains([]string{"op", "db", "rev"}, parts[i-1].Name) {
		i--
	}
	return Spell(slices.Insert(parts, i, Part{"pool", strconv.Itoa(n)}))
}

// Check says whether v is a variant of the matrix, and if not, why.
func (m *Matrix) Check(v Variant) error {
	l, ok := m.Langs[v.Lang]
	if !ok {
		return fmt.Errorf("variant %s: unknown lang %q (want one of %s)", v.Key(), v.Lang, strings.Join(m.order, ", "))
	}
	if _, ok := l.Servers[v.Server]; !ok {
		return fmt.Errorf("variant %s: %s has no server %q (want one of %s)", v.Key(), v.Lang, v.Server, strings.Join(l.servers, ", "))
	}
	spec, ok := l.Layers[v.Layer]
	if !ok {
		return fmt.Errorf("variant %s: %s has no layer %q (want one of %s)", v.Key(), v.Lang, v.Layer, strings.Join(l.order, ", "))
	}
	// An exclusion says why a layer lacks a mode: say that rather than only that it does.
	if why := m.excluded(v); why != "" {
		return fmt.Errorf("variant %s is excluded by %s: %s", v.Key(), m.File, why)
	}
	if !slices.Contains(spec.Stmt, v.Stmt) {
		return fmt.Errorf("variant %s: %s layer %s has no stmt %q (want one of %s)", v.Key(), v.Lang, v.Layer, v.Stmt, strings.Join(spec.Stmt, ", "))
	}
	if p := m.ProtocolOf(m.DBName(v)); m.Reads(spec, m.DBName(v)) && !slices.Contains(spec.StmtsOn(p), v.Stmt) {
		return fmt.Errorf("variant %s: %s layer %s has no stmt %q on %s (want one of %s)", v.Key(), v.Lang, v.Layer, v.Stmt, m.DBName(v), strings.Join(spec.StmtsOn(p), ", "))
	}
	if !slices.Contains(spec.Conn, v.Conn) {
		return fmt.Errorf("variant %s: %s layer %s has no conn %q (want one of %s)", v.Key(), v.Lang, v.Layer, v.Conn, strings.Join(spec.Conn, ", "))
	}
	if v.Pool < 1 {
		return fmt.Errorf("variant %s: pool must be at least 1", v.Key())
	}
	if _, ok := m.Ops[v.OpName()]; !ok {
		return fmt.Errorf("variant %s: unknown op %q (want one of %s)", v.Key(), v.OpName(), strings.Join(m.opOrder, ", "))
	}
	if v.Op != "" && !spec.DB {
		return fmt.Errorf("variant %s: %s layer %s uses no database and serves get only", v.Key(), v.Lang, v.Layer)
	}
	if op := m.Ops[v.OpName()]; !spec.Offers(op) {
		forms := strings.Join(spec.Fetch[op.Request], ", ")
		if forms == "" {
			return fmt.Errorf("variant %s: %s layer %s reads no related rows (matrix.yaml, its fetch)", v.Key(), v.Lang, v.Layer)
		}
		return fmt.Errorf("variant %s: %s layer %s reads related rows by %s, not by %s (its library's forms: matrix.yaml, its fetch)",
			v.Key(), v.Lang, v.Layer, forms, op.Fetch)
	}
	if v.Database == m.DefaultDB() {
		return fmt.Errorf("variant %s: db=%s is meant without db= (Resolve reads it so)", v.Key(), v.Database)
	}
	if _, ok := m.DBs[m.DBName(v)]; !ok {
		return fmt.Errorf("variant %s: unknown db %q (want one of %s)", v.Key(), v.Database, strings.Join(m.dbOrder, ", "))
	}
	if !m.Reads(spec, m.DBName(v)) {
		return fmt.Errorf("variant %s: %s layer %s does not read %s (it reads %s)", v.Key(), v.Lang, v.Layer, m.DBName(v), strings.Join(m.ReadBy(spec), ", "))
	}
	if v.Rev != "" {
		if err := CheckRev(v.Rev); err != nil {
			return fmt.Errorf("variant %s: %w", v.Key(), err)
		}
	}
	return nil
}

// Spec is a variant with the matrix's facts about it.
type Spec struct {
	Variant
	Server *Server
	Layer  *Layer
	Op     *Op
}

// Spec returns v's facts; v must pass Check.
func (m *Matrix) Spec(v Variant) (Spec, error) {
	if err := m.Check(v); err != nil {
		return Spec{}, err
	}
	l := m.Langs[v.Lang]
	return Spec{Variant: v, Server: l.Servers[v.Server], Layer: l.Layers[v.Layer], Op: m.Ops[v.OpName()]}, nil
}

// Expected is the commands per request the matrix's roundtrips rules predict for v.
func (m *Matrix) Expected(v Variant) map[string]int {
	return m.sum(v, func(r Rule) map[string]int { return r.Commands })
}

// LogOnly is the commands per request the general log shows beyond Expected (and the
// wire does not), and why: the rules' LogOnly and Why for v.
func (m *Matrix) LogOnly(v Variant) (map[string]int, []string) {
	var why []string
	spelled := m.Spellings(v)
	for _, r := range m.Rules {
		if len(r.LogOnly) > 0 && slices.ContainsFunc(spelled, r.Match.MatchString) {
			why = append(why, r.Why)
		}
	}
	return m.sum(v, func(r Rule) map[string]int { return r.LogOnly }), why
}

func (m *Matrix) sum(v Variant, counts func(Rule) map[string]int) map[string]int {
	out := map[string]int{}
	protocol := m.ProtocolOf(m.DBName(v))
	spelled := m.Spellings(v)
	for _, r := range m.Rules {
		if r.Protocol == protocol && slices.ContainsFunc(spelled, r.Match.MatchString) {
			for k, n := range counts(r) {
				out[k] += n
			}
		}
	}
	for k, n := range out {
		if n == 0 {
			delete(out, k)
		}
	}
	return out
}

// MaxPool is the largest pool any of the variants uses.
func MaxPool(vs []Variant) int {
	max := 0
	for _, v := range vs {
		if v.Pool > max {
			max = v.Pool
		}
	}
	return max
}

// Excluded is the reason the matrix gives for not running v, "" if it runs.
func (m *Matrix) Excluded(v Variant) string { return m.excluded(v) }

func (m *Matrix) excluded(v Variant) string {
	spelled := m.Spellings(v)
	for _, e := range m.Exclude {
		if slices.ContainsFunc(spelled, e.Match.MatchString) {
			return e.Why
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
