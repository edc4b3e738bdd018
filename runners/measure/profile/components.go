package profile

import "fmt"

// Lang selects the rows of the table that apply to a profile.
type Lang string

const (
	Go  Lang = "go"
	PHP Lang = "php"
)

// Component is a part of the app tier a user recognises. The same component has the
// same label and colour in every profile and flame graph, whatever the language.
type Component string

const (
	Bootstrap Component = "bootstrap"
	Connect   Component = "connect"
	HTTP      Component = "http"
	Builder   Component = "builder"
	ORM       Component = "orm"
	Pool      Component = "pool"
	DBLayer   Component = "dblayer"
	Driver    Component = "driver"
	PDO       Component = "pdo"
	JSON      Component = "json"
	Syscall   Component = "syscall"
	Runtime   Component = "runtime"
	DbBench   Component = "dbbench"
	Other     Component = "other"
)

type componentInfo struct {
	label string
	color string // fill of its flame graph frames; light enough for black text
}

var components = map[Component]componentInfo{
	Bootstrap: {"framework bootstrap", "#c9b6e4"},
	Connect:   {"connection set-up", "#f4a3a3"},
	HTTP:      {"HTTP server", "#9ecae1"},
	Builder:   {"query building", "#fdd49e"},
	ORM:       {"ORM mapping & hydration", "#fc9f6b"},
	Pool:      {"database/sql pool", "#c7e9c0"},
	DBLayer:   {"DB connection layer", "#b5dfa8"},
	Driver:    {"driver protocol", "#7fcf8a"},
	PDO:       {"PDO", "#8fd3c7"},
	JSON:      {"JSON", "#fee391"},
	Syscall:   {"syscalls & network", "#bcbddc"},
	Runtime:   {"runtime, GC & profiler", "#d4d4d4"},
	DbBench:   {"dbbench code", "#f1b6da"},
	Other:     {"other", "#ece6d2"},
}

// langComponents is the display order of each language's components (legends, tables).
var langComponents = map[Lang][]Component{
	Go:  {HTTP, JSON, Builder, ORM, Pool, Driver, Connect, Syscall, Runtime, DbBench, Other},
	PHP: {HTTP, Bootstrap, Connect, Builder, ORM, DBLayer, PDO, JSON, DbBench, Runtime, Other},
}

// Label is the component's name for people.
func (c Component) Label() string {
	if i, ok := components[c]; ok {
		return i.label
	}
	return string(c)
}

// Color is the component's fill colour, "#rrggbb".
func (c Component) Color() string {
	if i, ok := components[c]; ok {
		return i.color
	}
	return components[Other].color
}

// Components lists the components a profile of lang can fold into, in display order.
func Components(lang Lang) ([]Component, error) {
	cs, ok := langComponents[lang]
	if !ok {
		return nil, fmt.Errorf("unknown profile language %q (want %q or %q)", lang, Go, PHP)
	}
	return append([]Component(nil), cs...), nil
}
