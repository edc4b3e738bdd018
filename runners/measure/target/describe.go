package target

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
)

// Description is what a target's code says it serves (gotarget --describe,
// php/bin/describe.php): every layer, whether it reads the database, and its modes.
type Description struct {
	Layers []DescribedLayer `json:"layers"`
}

// DescribedLayer is one layer of a Description. Kind, Library and Package are given by
// targets whose code declares them (php/); where given, they must match the matrix.
type DescribedLayer struct {
	Name string   `json:"name"`
	DB   bool     `json:"db"`
	Stmt []string `json:"stmt"`
	Conn []string `json:"conn"`
	// Protocols are the wire protocols the layer reads (php/ and gotarget say so); a
	// gotarget built before said Postgres instead, a layer reading PostgreSQL alone.
	// Neither: MySQL alone. StmtBy, where given (gotarget), are the layer's modes on
	// each protocol, Stmt their union.
	Protocols []string            `json:"protocols,omitempty"`
	Postgres  bool                `json:"postgres,omitempty"`
	StmtBy    map[string][]string `json:"stmt_by,omitempty"`
	Kind      string              `json:"kind,omitempty"`
	Library   string              `json:"library,omitempty"`
	Package   string              `json:"package,omitempty"`
	// Texts: the layer reads get through a statement working set (gotarget --texts);
	// matrix.yaml must exclude its texts ops exactly where this is false.
	Texts bool `json:"texts,omitempty"`
	// Fetch are the forms the layer reads related rows in, by request (orders,
	// listorders): matrix.yaml's fetch must list the same.
	Fetch map[string][]string `json:"fetch,omitempty"`
}

// protocols are the wire protocols the layer says it reads.
func (dl DescribedLayer) protocols() []string {
	switch {
	case dl.Protocols != nil:
		return dl.Protocols
	case dl.Postgres:
		return []string{string(protocol.Postgres)}
	}
	return []string{string(protocol.MySQL)}
}

func parseDescription(who string, b []byte) (*Description, error) {
	var d Description
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("target: %s printed no description: %v", who, err)
	}
	if len(d.Layers) == 0 {
		return nil, fmt.Errorf("target: %s describes no layer", who)
	}
	return &d, nil
}

// Agree checks that the matrix and the code of every server of l serve the same layers
// with the same modes, and names every difference. Run before a run starts, and by a
// test, so a library added on one side only fails loudly instead of silently missing.
func Agree(m *matrix.Matrix, l *matrix.Lang, o Options) error {
	var diffs []string
	for _, name := range l.ServerNames() {
		launcher, err := LauncherOf(l.Servers[name])
		if err != nil {
			return err
		}
		d, err := launcher.Describe(o)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", l.Name, name, err)
		}
		diffs = append(diffs, disagreements(m, l, name, d)...)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("matrix.yaml and the %s targets disagree: %s", l.Name, strings.Join(diffs, "; "))
	}
	return nil
}

func disagreements(m *matrix.Matrix, l *matrix.Lang, server string, d *Description) []string {
	var diffs []string
	// The targets name each layer by its TargetName (matrix.yaml's was, if any).
	code := map[string]DescribedLayer{}
	listed := map[string]bool{}
	for _, name := range l.LayerNames() {
		listed[l.Layers[name].TargetName()] = true
	}
	for _, dl := range d.Layers {
		code[dl.Name] = dl
		if !listed[dl.Name] {
			diffs = append(diffs, fmt.Sprintf("server %s serves layer %s, which matrix.yaml does not list", server, dl.Name))
		}
	}
	for _, name := range l.LayerNames() {
		ml := l.Layers[name]
		dl, ok := code[ml.TargetName()]
		switch {
		case !ok:
			as := ""
			if ml.Was != "" {
				as = " (served as " + ml.Was + ")"
			}
			diffs = append(diffs, fmt.Sprintf("matrix.yaml lists layer %s%s, which server %s does not serve", name, as, server))
		case ml.DB != dl.DB:
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml says db: %v, server %s says %v", name, ml.DB, server, dl.DB))
		case ml.DB && !sameSet(ml.Stmt, dl.Stmt):
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml offers stmt %s, server %s %s", name, strings.Join(ml.Stmt, ","), server, strings.Join(dl.Stmt, ",")))
		case ml.DB && !sameSet(ml.Conn, dl.Conn):
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml offers conn %s, server %s %s", name, strings.Join(ml.Conn, ","), server, strings.Join(dl.Conn, ",")))
		case ml.DB && !sameSet(protocolsRead(m, ml), dl.protocols()):
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml says it reads %s (%s), server %s that it reads %s", name, strings.Join(m.ReadBy(ml), ","), strings.Join(protocolsRead(m, ml), ","), server, strings.Join(dl.protocols(), ",")))
		case ml.DB && dl.StmtBy != nil:
			for _, p := range dl.protocols() {
				if !sameSet(ml.StmtsOn(p), dl.StmtBy[p]) {
					diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml offers stmt %s on %s, server %s %s", name, strings.Join(ml.StmtsOn(p), ","), p, server, strings.Join(dl.StmtBy[p], ",")))
				}
			}
		}
		if ok && ml.DB {
			diffs = append(diffs, textsDisagreement(m, l, server, name, dl)...)
			diffs = append(diffs, fetchDisagreement(ml, server, dl)...)
		}
		for _, f := range []struct{ what, matrix, code string }{
			{"kind", ml.Kind, dl.Kind}, {"library", ml.Library, dl.Library}, {"version_of", ml.VersionOf, dl.Package},
		} {
			if ok && f.code != "" && f.code != f.matrix {
				diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml says %s %q, server %s %q", name, f.what, f.matrix, server, f.code))
			}
		}
	}
	return diffs
}

// protocolsRead are the wire protocols of the databases the matrix has layer l read.
func protocolsRead(m *matrix.Matrix, l *matrix.Layer) []string {
	var out []string
	for _, db := range m.ReadBy(l) {
		if p := m.DBs[db].Protocol; !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// fetchDisagreement says where the matrix has a layer read related rows in forms its
// code does not offer, or leaves out one it does.
func fetchDisagreement(ml *matrix.Layer, server string, dl DescribedLayer) []string {
	var diffs []string
	for _, request := range []string{"orders", "listorders"} {
		if !sameSet(ml.Fetch[request], dl.Fetch[request]) {
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml reads %s by %s, server %s by %s",
				ml.Name, request, formsText(ml.Fetch[request]), server, formsText(dl.Fetch[request])))
		}
	}
	return diffs
}

// formsText is "join,eager", or "no form".
func formsText(forms []string) string {
	if len(forms) == 0 {
		return "no form"
	}
	return strings.Join(forms, ",")
}

// textsDisagreement says where the matrix runs a statement working set (an op with
// texts) on a layer whose code does not read one, or excludes it from one that does.
func textsDisagreement(m *matrix.Matrix, l *matrix.Lang, server, name string, dl DescribedLayer) []string {
	var diffs []string
	ml := l.Layers[name]
	for _, op := range m.OpNames() {
		if m.Ops[op].Texts == 0 || len(ml.Stmt) == 0 || len(ml.Conn) == 0 {
			continue
		}
		v := matrix.Variant{Lang: l.Name, Server: server, Layer: name, Stmt: ml.Stmt[0], Conn: ml.Conn[0], Op: op}
		if runs := m.Excluded(v) == ""; runs != dl.Texts {
			diffs = append(diffs, fmt.Sprintf("layer %s: matrix.yaml runs op %s: %v, server %s reads a working set: %v", name, op, runs, server, dl.Texts))
		}
	}
	return diffs
}
