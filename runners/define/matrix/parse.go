package matrix

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"dbbench/dsn/protocol"
)

// Parse validates a matrix given as bytes; file is used in error messages only.
func Parse(file string, b []byte) (*Matrix, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty matrix", file)
	}
	p := parser{file: file}
	m := &Matrix{File: file, Langs: map[string]*Lang{}, Presets: map[string]*Preset{}, Ops: map[string]*Op{}, DBs: map[string]*DB{}}
	top, err := p.mapping(doc.Content[0], "the matrix", "langs", "ops", "dbs", "exclude", "roundtrips", "presets")
	if err != nil {
		return nil, err
	}
	if err := p.required(doc.Content[0], top, "langs", "presets"); err != nil {
		return nil, err
	}
	if err := p.langs(m, top["langs"]); err != nil {
		return nil, err
	}
	if err := p.ops(m, top["ops"]); err != nil {
		return nil, err
	}
	if err := p.dbs(m, top["dbs"]); err != nil {
		return nil, err
	}
	if err := m.checkLayerDBs(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if n := top["exclude"]; n != nil {
		if err := p.exclude(m, n); err != nil {
			return nil, err
		}
	}
	if n := top["roundtrips"]; n != nil {
		if err := p.rules(m, n); err != nil {
			return nil, err
		}
	}
	if err := p.presets(m, top["presets"]); err != nil {
		return nil, err
	}
	return m, nil
}

// parser walks the YAML node tree by hand so that every error can name the file, the
// line and what would have been allowed.
type parser struct{ file string }

func (p parser) errorf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, n.Line, fmt.Sprintf(format, args...))
}

// mapping reads a mapping whose keys must be among allowed (any key when allowed is empty).
func (p parser) mapping(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errorf(n, "%s must be a mapping", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode { // a value given once (&name) and repeated (*name)
			v = v.Alias
		}
		if len(allowed) > 0 && !slices.Contains(allowed, k.Value) {
			return nil, p.errorf(k, "unknown key %q in %s (allowed: %s)", k.Value, what, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errorf(k, "key %q given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

// keys returns a mapping's keys in file order.
func keys(n *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i])
	}
	return out
}

func (p parser) required(at *yaml.Node, m map[string]*yaml.Node, names ...string) error {
	for _, k := range names {
		if m[k] == nil {
			return p.errorf(at, "missing key %q", k)
		}
	}
	return nil
}

func (p parser) strings(n *yaml.Node, what string, allowed []string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "%s must be a list", what)
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return nil, p.errorf(c, "%s must hold plain values", what)
		}
		if allowed != nil && !slices.Contains(allowed, c.Value) {
			return nil, p.errorf(c, "unknown %s %q (allowed: %s)", what, c.Value, strings.Join(allowed, ", "))
		}
		out = append(out, c.Value)
	}
	if len(out) == 0 {
		return nil, p.errorf(n, "%s is empty", what)
	}
	return out, nil
}

func (p parser) ints(n *yaml.Node, what string) ([]int, error) {
	vals, err := p.strings(n, what, nil)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(vals))
	for i, s := range vals {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return nil, p.errorf(n.Content[i], "%s: %q is not a positive integer", what, s)
		}
		out[i] = v
	}
	return out, nil
}

func (p parser) positive(n *yaml.Node, what string) (int, error) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 1 {
		return 0, p.errorf(n, "%s: %q is not a positive integer", what, n.Value)
	}
	return v, nil
}

func (p parser) duration(n *yaml.Node, what string) (time.Duration, error) {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return 0, p.errorf(n, "%s: %q is not a positive duration (like 500ms or 3s)", what, n.Value)
	}
	return d, nil
}

// percent reads "3%" as 0.03: a percentage above 0 and below 100.
func (p parser) percent(n *yaml.Node, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(n.Value, "%"), 64)
	if n.Kind != yaml.ScalarNode || !strings.HasSuffix(n.Value, "%") || err != nil || v <= 0 || v >= 100 {
		return 0, p.errorf(n, "%s: %q is not a percentage (like 2%%)", what, n.Value)
	}
	return v / 100, nil
}

func (p parser) regexp(n *yaml.Node, what string) (*regexp.Regexp, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, p.errorf(n, "%s must be a pattern", what)
	}
	re, err := regexp.Compile(n.Value)
	if err != nil {
		return nil, p.errorf(n, "%s: %v", what, err)
	}
	return re, nil
}

func (p parser) langs(m *Matrix, n *yaml.Node) error {
	langs, err := p.mapping(n, "langs")
	if err != nil {
		return err
	}
	for _, k := range keys(n) {
		l, err := p.lang(k.Value, langs[k.Value])
		if err != nil {
			return err
		}
		m.Langs[l.Name] = l
		m.order = append(m.order, l.Name)
	}
	return nil
}

func (p parser) lang(name string, n *yaml.Node) (*Lang, error) {
	spec, err := p.mapping(n, "lang "+name, "about", "baseline", "servers", "pool_sweep", "layers", "modes", "tuned")
	if err != nil {
		return nil, err
	}
	if err := p.required(n, spec, "baseline", "servers", "layers"); err != nil {
		return nil, err
	}
	l := &Lang{Name: name, Servers: map[string]*Server{}, Layers: map[string]*Layer{}}
	if err := p.baseline(l, spec["baseline"]); err != nil {
		return nil, err
	}
	if s := spec["pool_sweep"]; s != nil {
		if l.PoolSweep, err = p.ints(s, "pool_sweep"); err != nil {
			return nil, err
		}
	}
	if err := p.servers(l, spec["servers"]); err != nil {
		return nil, err
	}
	if n := spec["modes"]; n != nil {
		l.Modes = map[string]*ModeSetting{}
		fields := []string{"set", "default", "caveat", "default_by"}
		err := p.eachEntry(n, "modes of "+name, "mode", fields, fields[:2], func(k, _ *yaml.Node, f map[string]*yaml.Node) error {
			if !slices.Contains([]string{"prepared", "interpolate", "persistent"}, k.Value) {
				return p.errorf(k, "modes of %s: %q is not a mode another is set against (prepared, interpolate, persistent)", name, k.Value)
			}
			st := &ModeSetting{Set: f["set"].Value, Default: f["default"].Value}
			if c := f["caveat"]; c != nil {
				st.Caveat = c.Value
			}
			if d := f["default_by"]; d != nil {
				var err error
				if st.DefaultBy, err = p.valuesByProtocol(d, "default_by of mode "+k.Value); err != nil {
					return err
				}
			}
			l.Modes[k.Value] = st
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if t := spec["tuned"]; t != nil {
		if l.Tuned, err = p.setting(t, "tuned of "+name); err != nil {
			return nil, err
		}
	}
	layers, err := p.mapping(spec["layers"], "layers of "+name)
	if err != nil {
		return nil, err
	}
	for _, lk := range keys(spec["layers"]) {
		layer, err := p.layer(lk.Value, layers[lk.Value])
		if err != nil {
			return nil, err
		}
		l.Layers[layer.Name] = layer
		l.order = append(l.order, layer.Name)
	}
	for _, lk := range keys(spec["layers"]) {
		if was := l.Layers[lk.Value].Was; was != "" && (l.Layers[was] != nil || slices.ContainsFunc(l.order, func(o string) bool { return o != lk.Value && l.Layers[o].Was == was })) {
			return nil, p.errorf(lk, "layer %s of %s was %q, which names another layer too", lk.Value, name, was)
		}
	}
	for _, b := range append([]string{l.Baseline}, slices.Collect(maps.Values(l.BaselineBy))...) {
		if bl := l.Layers[b]; bl == nil || !bl.DB || bl.Kind != "raw" {
			return nil, p.errorf(spec["baseline"], "baseline of %s is %q: want a layer of kind raw that uses the database", name, b)
		}
	}
	return l, nil
}

// baseline reads a language's baseline: one layer, or a mapping from protocol to
// layer (Baseline is then the first protocol's).
func (p parser) baseline(l *Lang, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		l.Baseline = n.Value
		return nil
	}
	by, err := p.valuesByProtocol(n, "baseline of "+l.Name)
	if err != nil {
		return err
	}
	mysql, ok := by[string(protocol.MySQL)]
	if !ok {
		return p.errorf(n, "baseline of %s: name the %s protocol's too (the baseline of a run before protocols)", l.Name, string(protocol.MySQL))
	}
	l.BaselineBy, l.Baseline = by, mysql
	return nil
}

func (p parser) servers(l *Lang, n *yaml.Node) error {
	fields := []string{"launcher", "pool"}
	err := p.eachEntry(n, "servers of "+l.Name, "server", fields, fields, func(k, _ *yaml.Node, f map[string]*yaml.Node) error {
		l.Servers[k.Value] = &Server{Name: k.Value, Launcher: f["launcher"].Value, Pool: f["pool"].Value}
		l.servers = append(l.servers, k.Value)
		return nil
	})
	if err != nil {
		return err
	}
	if len(l.servers) == 0 {
		return p.errorf(n, "lang %s has no server", l.Name)
	}
	return nil
}

// eachEntry reads n, the mapping what of named entries (servers, ops, presets), and
// hands each to add in file order: its key, its node and its fields, a mapping (called
// kind and its name) of allowed keys that holds the required ones.
func (p parser) eachEntry(n *yaml.Node, what, kind string, allowed, required []string, add func(k, v *yaml.Node, f map[string]*yaml.Node) error) error {
	all, err := p.mapping(n, what)
	if err != nil {
		return err
	}
	for _, k := range keys(n) {
		v := all[k.Value]
		f, err := p.mapping(v, kind+" "+k.Value, allowed...)
		if err != nil {
			return err
		}
		if err := p.required(v, f, required...); err != nil {
			return err
		}
		if err := add(k, v, f); err != nil {
			return err
		}
	}
	return nil
}

// layer reads one layer. A layer with db: false serves no database: it takes no stmt,
// conn, kind or library, and its stmt and conn are none.
func (p parser) layer(name string, n *yaml.Node) (*Layer, error) {
	f, err := p.mapping(n, "layer "+name, "db", "kind", "library", "version_of", "stmt", "conn", "was", "dbs", "stmt_ref", "shipped", "fetch")
	if err != nil {
		return nil, err
	}
	layer := &Layer{Name: name, DB: true}
	if d := f["db"]; d != nil {
		if d.Value != "true" && d.Value != "false" {
			return nil, p.errorf(d, "db of layer %s: %q, want true or false", name, d.Value)
		}
		layer.DB = d.Value == "true"
	}
	if !layer.DB {
		for _, k := range []string{"kind", "library", "version_of", "stmt", "conn", "dbs", "stmt_ref", "shipped", "fetch"} {
			if f[k] != nil {
				return nil, p.errorf(f[k], "layer %s uses no database (db: false), so it takes no %s", name, k)
			}
		}
		layer.Stmt, layer.Conn = []string{None}, []string{None}
		return layer, nil
	}
	if err := p.required(n, f, "kind", "library", "version_of", "stmt", "conn"); err != nil {
		return nil, err
	}
	if !slices.Contains(Kinds, f["kind"].Value) {
		return nil, p.errorf(f["kind"], "unknown kind %q (allowed: %s)", f["kind"].Value, strings.Join(Kinds, ", "))
	}
	layer.Kind, layer.Library, layer.VersionOf = f["kind"].Value, f["library"].Value, f["version_of"].Value
	if w := f["was"]; w != nil {
		layer.Was = w.Value
	}
	if layer.Stmt, layer.StmtBy, err = p.stmts(f["stmt"], name); err != nil {
		return nil, err
	}
	if layer.Conn, err = p.strings(f["conn"], "conn", Conns[:len(Conns)-1]); err != nil {
		return nil, err
	}
	if d := f["dbs"]; d != nil { // checked against the dbs once they are read (checkLayerDBs)
		if layer.DBs, err = p.strings(d, "dbs", nil); err != nil {
			return nil, err
		}
	}
	if err := p.stmtRef(layer, f["stmt_ref"]); err != nil {
		return nil, err
	}
	if err := p.fetch(f["fetch"], layer); err != nil {
		return nil, err
	}
	if sh := f["shipped"]; sh != nil {
		if layer.Shipped, err = p.setting(sh, "shipped of layer "+name); err != nil {
			return nil, err
		}
		if err := p.offers(layer, layer.Shipped, sh); err != nil {
			return nil, err
		}
	}
	return layer, nil
}

// fetch reads the forms a layer reads related rows in, by request: {orders: [join,
// eager], listorders: [join, eager, lazy]}; none when absent. Its
// api names, by form, the library call a team writes for it ("`with('orders')`"), which
// the report's advice quotes.
func (p parser) fetch(n *yaml.Node, layer *Layer) error {
	if n == nil {
		return nil
	}
	f, err := p.mapping(n, "fetch of layer "+layer.Name, "orders", "listorders", "api")
	if err != nil {
		return err
	}
	layer.Fetch = map[string][]string{}
	for request, forms := range f {
		if request == "api" {
			continue
		}
		if layer.Fetch[request], err = p.strings(forms, "fetch", Fetches); err != nil {
			return err
		}
	}
	if a := f["api"]; a != nil {
		api, err := p.mapping(a, "api of layer "+layer.Name+"'s fetch", Fetches...)
		if err != nil {
			return err
		}
		layer.FetchAPI = map[string]string{}
		for form, call := range api {
			layer.FetchAPI[form] = call.Value
		}
	}
	return nil
}

// setting reads a Setting: {stmt: mode, conn: mode}, the stmt a mapping from protocol
// to mode where it depends on the protocol.
func (p parser) setting(n *yaml.Node, what string) (*Setting, error) {
	f, err := p.mapping(n, what, "stmt", "conn")
	if err != nil {
		return nil, err
	}
	if err := p.required(n, f, "stmt", "conn"); err != nil {
		return nil, err
	}
	s := &Setting{Conn: f["conn"].Value}
	if f["stmt"].Kind != yaml.MappingNode {
		s.Stmt = f["stmt"].Value
		return s, nil
	}
	if s.StmtBy, err = p.valuesByProtocol(f["stmt"], "stmt of "+what); err != nil {
		return nil, err
	}
	return s, nil
}

// valuesByProtocol reads a mapping from protocol to one value each.
func (p parser) valuesByProtocol(n *yaml.Node, what string) (map[string]string, error) {
	by, err := p.byProtocol(n, what)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for protocol, v := range by {
		out[protocol] = v.Value
	}
	return out, nil
}

// offers checks that layer offers the modes of s on every protocol it reads.
func (p parser) offers(layer *Layer, s *Setting, n *yaml.Node) error {
	if !slices.Contains(layer.Conn, s.Conn) {
		return p.errorf(n, "shipped of layer %s: conn %q is not one of its conn (%s)", layer.Name, s.Conn, strings.Join(layer.Conn, ", "))
	}
	for _, protocol := range Protocols {
		stmt, _ := s.On(protocol)
		if offered := layer.StmtsOn(protocol); len(offered) > 0 && stmt != "" && !slices.Contains(offered, stmt) {
			return p.errorf(n, "shipped of layer %s: stmt %q is not one of its stmt on %s (%s)", layer.Name, stmt, protocol, strings.Join(offered, ", "))
		}
	}
	return nil
}

// stmts reads a layer's stmt: a list, its modes on every database it reads, or a
// mapping from protocol to list, its modes on each (then the first list is the union's
// start, and the union is returned beside the mapping).
func (p parser) stmts(n *yaml.Node, layer string) ([]string, map[string][]string, error) {
	if n.Kind != yaml.MappingNode {
		list, err := p.strings(n, "stmt", Stmts[:len(Stmts)-1])
		return list, nil, err
	}
	by, err := p.byProtocol(n, "stmt of layer "+layer)
	if err != nil {
		return nil, nil, err
	}
	var union []string
	out := map[string][]string{}
	for protocol, v := range by {
		if out[protocol], err = p.strings(v, "stmt", Stmts[:len(Stmts)-1]); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range keys(n) {
		for _, s := range out[k.Value] {
			if !slices.Contains(union, s) {
				union = append(union, s)
			}
		}
	}
	return union, out, nil
}

// byProtocol reads a mapping whose keys are protocols.
func (p parser) byProtocol(n *yaml.Node, what string) (map[string]*yaml.Node, error) {
	f, err := p.mapping(n, what, Protocols...)
	if err != nil {
		return nil, err
	}
	if len(f) == 0 {
		return nil, p.errorf(n, "%s is empty", what)
	}
	return f, nil
}

// stmtRef reads a layer's stmt_ref: one mode, prepare by default, or a mapping from
// protocol to mode for the protocols whose reference is not that default. Each must be
// one of the layer's modes on its protocol.
func (p parser) stmtRef(layer *Layer, n *yaml.Node) error {
	layer.StmtRef = "prepare"
	if n == nil {
		return nil
	}
	refs := map[string]*yaml.Node{"": n}
	if n.Kind == yaml.MappingNode {
		var err error
		if refs, err = p.byProtocol(n, "stmt_ref of layer "+layer.Name); err != nil {
			return err
		}
		layer.StmtRefBy = map[string]string{}
	}
	for protocol, r := range refs {
		var lists [][]string // where the reference must be offered
		switch {
		case protocol != "":
			layer.StmtRefBy[protocol], lists = r.Value, [][]string{layer.StmtsOn(protocol)}
		case layer.StmtBy != nil: // one reference for every protocol
			layer.StmtRef, lists = r.Value, slices.Collect(maps.Values(layer.StmtBy))
		default:
			layer.StmtRef, lists = r.Value, [][]string{layer.Stmt}
		}
		for _, offered := range lists {
			if !slices.Contains(offered, r.Value) {
				return p.errorf(r, "stmt_ref of layer %s: %q is not one of its stmt (%s)", layer.Name, r.Value, strings.Join(offered, ", "))
			}
		}
	}
	return nil
}

// related reads an orders op's orders per user and fetch form, which it alone takes.
func (p parser) related(op *Op, k, v *yaml.Node, f map[string]*yaml.Node) error {
	reads := op.Request == "orders" || op.Request == "listorders"
	if reads != (f["orders"] != nil && f["fetch"] != nil) {
		return p.errorf(v, "op %s: the orders requests take orders (per user) and fetch (%s), and only they", k.Value, strings.Join(Fetches, ", "))
	}
	if !reads {
		return nil
	}
	var err error
	if op.Orders, err = p.positive(f["orders"], "orders"); err != nil {
		return err
	}
	if op.Fetch = f["fetch"].Value; !slices.Contains(Fetches, op.Fetch) {
		return p.errorf(f["fetch"], "op %s: unknown fetch %q (allowed: %s)", k.Value, op.Fetch, strings.Join(Fetches, ", "))
	}
	return nil
}

// ops reads the endpoints; a matrix without them knows get alone. get must be there,
// as the request get: it is what a name without op= means.
func (p parser) ops(m *Matrix, n *yaml.Node) error {
	if n == nil {
		m.Ops[Get], m.opOrder = &Op{Name: Get, Request: "get"}, []string{Get}
		return nil
	}
	err := p.eachEntry(n, "ops", "op", []string{"request", "rows", "texts", "orders", "fetch"}, []string{"request"}, func(k, v *yaml.Node, f map[string]*yaml.Node) error {
		if k.Value == "" || strings.ContainsAny(k.Value, "/= ") {
			return p.errorf(k, "op name %q: want a word without '/', '=' or spaces", k.Value)
		}
		op := &Op{Name: k.Value, Request: f["request"].Value}
		if !slices.Contains(Requests, op.Request) {
			return p.errorf(f["request"], "unknown request %q (allowed: %s)", op.Request, strings.Join(Requests, ", "))
		}
		lists := op.Request == "list" || op.Request == "listorders"
		if lists != (f["rows"] != nil) {
			return p.errorf(v, "op %s: a list takes rows (its limit), and only a list", k.Value)
		}
		if err := p.related(op, k, v, f); err != nil {
			return err
		}
		if r := f["rows"]; r != nil {
			var err error
			if op.Rows, err = p.positive(r, "rows"); err != nil {
				return err
			}
		}
		if t := f["texts"]; t != nil {
			if op.Request != "get" {
				return p.errorf(t, "op %s: texts (a statement working set) is get's, not %s's", k.Value, op.Request)
			}
			var err error
			if op.Texts, err = p.positive(t, "texts"); err != nil {
				return err
			}
		}
		m.Ops[op.Name] = op
		m.opOrder = append(m.opOrder, op.Name)
		return nil
	})
	if err != nil {
		return err
	}
	if g := m.Ops[Get]; g == nil || g.Request != "get" {
		return p.errorf(n, "ops: want %s, the request get (a name without op= means it)", Get)
	}
	return nil
}

// dbs reads the database servers; a matrix without them knows mariadb alone, the one
// server there was before dbs.
func (p parser) dbs(m *Matrix, n *yaml.Node) error {
	if n == nil {
		m.DBs["mariadb"], m.dbOrder = &DB{Name: "mariadb", Title: "MariaDB", Protocol: string(protocol.MySQL)}, []string{"mariadb"}
		return nil
	}
	return p.eachEntry(n, "dbs", "db", []string{"title", "about", "protocol", "server", "pooler"}, []string{"about"}, func(k, v *yaml.Node, f map[string]*yaml.Node) error {
		if err := CheckRev(k.Value); err != nil || strings.ContainsAny(k.Value, ".+") {
			return p.errorf(k, "db name %q: want letters, digits, '_' or '-'", k.Value)
		}
		db := &DB{Name: k.Value, Title: k.Value, About: f["about"].Value, Protocol: string(protocol.MySQL)}
		if t := f["title"]; t != nil {
			db.Title = t.Value
		}
		if pr := f["protocol"]; pr != nil {
			if !slices.Contains(Protocols, pr.Value) {
				return p.errorf(pr, "protocol of db %s: %q (want one of %s)", k.Value, pr.Value, strings.Join(Protocols, ", "))
			}
			db.Protocol = pr.Value
		}
		if err := p.dbPooler(m, db, f); err != nil {
			return err
		}
		m.DBs[k.Value] = db
		m.dbOrder = append(m.dbOrder, k.Value)
		return nil
	})
}

// dbPooler reads a db that is another db's server behind a pooler: server names that
// db, listed before it, of the same protocol; pooler one the provider starts.
func (p parser) dbPooler(m *Matrix, db *DB, f map[string]*yaml.Node) error {
	sv, pl := f["server"], f["pooler"]
	if sv == nil && pl == nil {
		return nil
	}
	if sv == nil || pl == nil {
		return p.errorf(cmp.Or(sv, pl), "db %s: server and pooler go together (a server behind a pooler)", db.Name)
	}
	under := m.DBs[sv.Value]
	if under == nil || under.Pooler != "" || under.Protocol != db.Protocol {
		return p.errorf(sv, "server of db %s: %q (want a db listed above it, without pooler, of protocol %s)", db.Name, sv.Value, db.Protocol)
	}
	if !slices.Contains(Poolers, pl.Value) {
		return p.errorf(pl, "pooler of db %s: %q (want one of %s)", db.Name, pl.Value, strings.Join(Poolers, ", "))
	}
	db.Server, db.Pooler = sv.Value, pl.Value
	return nil
}

// checkLayerDBs refuses a layer's dbs that names a database the matrix does not list.
// A layer may read databases of both protocols (PHP's, whose PDO has a driver for
// each); the targets say which they read, and target.Agree checks them.
func (m *Matrix) checkLayerDBs() error {
	for _, ln := range m.order {
		l := m.Langs[ln]
		for protocol, b := range l.BaselineBy {
			if !m.readsProtocol(l.Layers[b], protocol) {
				return fmt.Errorf("baseline of %s on %s is %s, which reads no database of that protocol", ln, protocol, b)
			}
		}
		for _, name := range m.Langs[ln].order {
			l := m.Langs[ln].Layers[name]
			for _, db := range l.DBs {
				d := m.DBs[db]
				if d == nil {
					return fmt.Errorf("layer %s/%s reads db %q, which dbs does not list (want one of %s)", ln, name, db, strings.Join(m.dbOrder, ", "))
				}
			}
		}
	}
	return nil
}

func (p parser) exclude(m *Matrix, n *yaml.Node) error {
	return p.matchList(n, "exclude", "an exclude entry", "why", nil, func(re *regexp.Regexp, e map[string]*yaml.Node) error {
		m.Exclude = append(m.Exclude, Exclusion{Match: re, Why: e["why"].Value})
		return nil
	})
}

func (p parser) rules(m *Matrix, n *yaml.Node) error {
	return p.matchList(n, "roundtrips", "a roundtrips rule", "commands", []string{"log_only", "why", "protocol"}, func(re *regexp.Regexp, r map[string]*yaml.Node) error {
		rule := Rule{Match: re, Protocol: string(protocol.MySQL)}
		if pr := r["protocol"]; pr != nil {
			if !slices.Contains(Protocols, pr.Value) {
				return p.errorf(pr, "protocol of a roundtrips rule: %q (want one of %s)", pr.Value, strings.Join(Protocols, ", "))
			}
			rule.Protocol = pr.Value
		}
		var err error
		if rule.Commands, err = p.counts(r["commands"], "commands"); err != nil {
			return err
		}
		if n := r["log_only"]; n != nil {
			if rule.LogOnly, err = p.counts(n, "log_only"); err != nil {
				return err
			}
			if r["why"] == nil || r["why"].Value == "" {
				return p.errorf(n, "log_only needs a why: what the server does that the wire does not show")
			}
			rule.Why = r["why"].Value
		}
		m.Rules = append(m.Rules, rule)
		return nil
	})
}

// counts reads a mapping of command names to counts.
func (p parser) counts(n *yaml.Node, what string) (map[string]int, error) {
	cmds, err := p.mapping(n, what, Commands...)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for k, v := range cmds {
		c, err := strconv.Atoi(v.Value)
		if err != nil {
			return nil, p.errorf(v, "count of %s: %q is not an integer", k, v.Value)
		}
		out[k] = c
	}
	return out, nil
}

// matchList reads list, the exclude or roundtrips list: entries that each hold a
// pattern under match and the key other (exclude's why, a rule's commands), both
// required, and may hold the keys optional. add takes each entry with its pattern
// compiled.
func (p parser) matchList(n *yaml.Node, list, entry, other string, optional []string, add func(*regexp.Regexp, map[string]*yaml.Node) error) error {
	if n.Kind != yaml.SequenceNode {
		return p.errorf(n, "%s must be a list", list)
	}
	for _, c := range n.Content {
		f, err := p.mapping(c, entry, append([]string{"match", other}, optional...)...)
		if err != nil {
			return err
		}
		if err := p.required(c, f, "match", other); err != nil {
			return err
		}
		re, err := p.regexp(f["match"], "match")
		if err != nil {
			return err
		}
		if err := add(re, f); err != nil {
			return err
		}
	}
	return nil
}

func (p parser) presets(m *Matrix, n *yaml.Node) error {
	allowed := []string{"about", "include", "pools", "ops", "connections", "warmup", "duration", "reps", "budget", "precision", "profile", "handshakes"}
	required := []string{"include", "pools", "connections", "warmup", "duration", "reps", "budget"}
	return p.eachEntry(n, "presets", "preset", allowed, required, func(k, v *yaml.Node, f map[string]*yaml.Node) error {
		ps, err := p.preset(m, k.Value, f)
		if err != nil {
			return err
		}
		if len(m.Expand(ps)) == 0 {
			return p.errorf(v, "preset %s selects no variant", k.Value)
		}
		m.Presets[k.Value] = ps
		return nil
	})
}

// preset reads the fields of the preset name.
func (p parser) preset(m *Matrix, name string, f map[string]*yaml.Node) (*Preset, error) {
	ps := &Preset{Name: name, Pools: map[string][]int{}}
	if a := f["about"]; a != nil {
		ps.About = a.Value
	}
	if _, err := p.strings(f["include"], "include", nil); err != nil {
		return nil, err
	}
	for _, c := range f["include"].Content {
		re, err := p.regexp(c, "include")
		if err != nil {
			return nil, err
		}
		ps.Include = append(ps.Include, re)
	}
	pools, err := p.mapping(f["pools"], "pools", m.order...)
	if err != nil {
		return nil, err
	}
	for ln, pn := range pools {
		if ps.Pools[ln], err = p.ints(pn, "pools of "+ln); err != nil {
			return nil, err
		}
	}
	ps.Ops = []string{Get}
	if n := f["ops"]; n != nil {
		if ps.Ops, err = p.strings(n, "op", m.opOrder); err != nil {
			return nil, err
		}
	}
	if ps.Connections, err = p.positive(f["connections"], "connections"); err != nil {
		return nil, err
	}
	if ps.Reps, err = p.positive(f["reps"], "reps"); err != nil {
		return nil, err
	}
	if ps.Warmup, err = p.duration(f["warmup"], "warmup"); err != nil {
		return nil, err
	}
	if ps.Duration, err = p.duration(f["duration"], "duration"); err != nil {
		return nil, err
	}
	if ps.Budget, err = p.duration(f["budget"], "budget"); err != nil {
		return nil, err
	}
	if n := f["precision"]; n != nil {
		if ps.Precision, err = p.percent(n, "precision"); err != nil {
			return nil, err
		}
	}
	if n := f["profile"]; n != nil {
		if ps.Profile, err = p.duration(n, "profile"); err != nil {
			return nil, err
		}
	}
	if n := f["handshakes"]; n != nil {
		if ps.Handshakes, err = p.positive(n, "handshakes"); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// readsProtocol says whether layer l reads a database of the protocol, or the matrix
// has none of it.
func (m *Matrix) readsProtocol(l *Layer, protocol string) bool {
	has := false
	for _, db := range m.dbOrder {
		if m.DBs[db].Protocol == protocol {
			has = true
			if m.Reads(l, db) {
				return true
			}
		}
	}
	return !has
}
