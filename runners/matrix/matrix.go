package matrix

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Stmts and Conns are the statement and connection modes a target may offer; "none"
// is for layers that do not touch the database.
var (
	Stmts = []string{"prepare", "prepared", "interpolate", "none"}
	Conns = []string{"persistent", "per-request", "none"}
	// Commands are the names a roundtrips rule may count: the general log's command
	// types plus Ping, which only the wire shows.
	Commands = []string{"Connect", "Quit", "Init DB", "Query", "Prepare", "Execute", "Close stmt",
		"Reset stmt", "Change user", "Reset connection", "Ping"}
)

// Matrix is the parsed matrix file.
type Matrix struct {
	File    string
	Langs   map[string]*Lang
	Exclude []Exclusion
	Rules   []Rule
	Presets map[string]*Preset
	order   []string // langs in file order
}

// Lang is one language's layers and the pools its sweep visits.
type Lang struct {
	Name      string
	PoolSweep []int
	Layers    map[string]Layer
	order     []string // layers in file order
}

// Layer lists the statement and connection modes one layer offers.
type Layer struct {
	Stmt []string
	Conn []string
}

// Exclusion is a combination the lists would produce but that is not run.
type Exclusion struct {
	Match *regexp.Regexp
	Why   string
}

// Rule adds commands to the expected round trips of every variant it matches.
type Rule struct {
	Match    *regexp.Regexp
	Commands map[string]int
}

// Preset picks variants and says how long to measure them.
type Preset struct {
	Name        string
	About       string
	Include     []*regexp.Regexp
	Pools       map[string][]int
	Connections int
	Warmup      time.Duration
	Duration    time.Duration
	Reps        int
}

// Load reads and validates a matrix file. Errors name the file and line.
func Load(path string) (*Matrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	return Parse(path, b)
}

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
	m := &Matrix{File: file, Langs: map[string]*Lang{}, Presets: map[string]*Preset{}}
	top, err := p.mapping(doc.Content[0], "the matrix", "langs", "exclude", "roundtrips", "presets")
	if err != nil {
		return nil, err
	}
	if err := p.required(doc.Content[0], top, "langs", "presets"); err != nil {
		return nil, err
	}
	if err := p.langs(m, top["langs"]); err != nil {
		return nil, err
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

// LangNames lists the languages in file order.
func (m *Matrix) LangNames() []string { return slices.Clone(m.order) }

// All lists every variant the matrix knows for the given pools (lang → pools), in file
// order, exclusions left out.
func (m *Matrix) All(pools map[string][]int) []Variant {
	var out []Variant
	for _, ln := range m.order {
		l := m.Langs[ln]
		for _, layer := range l.order {
			spec := l.Layers[layer]
			for _, stmt := range spec.Stmt {
				for _, conn := range spec.Conn {
					for _, pool := range pools[ln] {
						v := Variant{Lang: ln, Layer: layer, Stmt: stmt, Conn: conn, Pool: pool}
						if m.excluded(v) == "" {
							out = append(out, v)
						}
					}
				}
			}
		}
	}
	return out
}

// Expand lists the variants a preset runs.
func (m *Matrix) Expand(p *Preset) []Variant {
	var out []Variant
	for _, v := range m.All(p.Pools) {
		for _, re := range p.Include {
			if re.MatchString(v.Key()) {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// Preset returns the named preset or an error listing the known ones.
func (m *Matrix) Preset(name string) (*Preset, error) {
	if p, ok := m.Presets[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown preset %q (%s defines %s)", name, m.File, strings.Join(sortedKeys(m.Presets), ", "))
}

// Check says whether v is a variant of the matrix, and if not, why.
func (m *Matrix) Check(v Variant) error {
	l, ok := m.Langs[v.Lang]
	if !ok {
		return fmt.Errorf("variant %s: unknown lang %q (want one of %s)", v.Key(), v.Lang, strings.Join(m.order, ", "))
	}
	spec, ok := l.Layers[v.Layer]
	if !ok {
		return fmt.Errorf("variant %s: %s has no layer %q (want one of %s)", v.Key(), v.Lang, v.Layer, strings.Join(l.order, ", "))
	}
	if !slices.Contains(spec.Stmt, v.Stmt) {
		return fmt.Errorf("variant %s: %s layer %s has no stmt %q (want one of %s)", v.Key(), v.Lang, v.Layer, v.Stmt, strings.Join(spec.Stmt, ", "))
	}
	if !slices.Contains(spec.Conn, v.Conn) {
		return fmt.Errorf("variant %s: %s layer %s has no conn %q (want one of %s)", v.Key(), v.Lang, v.Layer, v.Conn, strings.Join(spec.Conn, ", "))
	}
	if v.Pool < 1 {
		return fmt.Errorf("variant %s: pool must be at least 1", v.Key())
	}
	if why := m.excluded(v); why != "" {
		return fmt.Errorf("variant %s is excluded by %s: %s", v.Key(), m.File, why)
	}
	return nil
}

// Expected is the commands per request the matrix's roundtrips rules predict for v.
func (m *Matrix) Expected(v Variant) map[string]int {
	out := map[string]int{}
	for _, r := range m.Rules {
		if r.Match.MatchString(v.Key()) {
			for k, n := range r.Commands {
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

func (m *Matrix) excluded(v Variant) string {
	for _, e := range m.Exclude {
		if e.Match.MatchString(v.Key()) {
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
