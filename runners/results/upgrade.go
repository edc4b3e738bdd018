package results

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/saturation"
)

// What older runs lack. A run written before a field existed reads with it empty, and
// every reader takes empty as "not measured": Run.Yardstick, Link and Topology (every
// role then on one host's loopback), Connections, Lang.Modes, Settings.Pairing,
// PoolNeed.AppCores, DBCores, Current and AppMemory, Variant.WorkerMemory,
// Roundtrips.PerfSchema, BytesToDB and BytesFromDB, ZeroLoad's hold (Held: the hold was
// then the time at the counting proxy for Go, a request's latency for php-fpm), the
// Yardstick's kernel trials, Repetition.OutsideCPU. Variant.Op was "" when runs measured
// get alone, and Variant.Database "" when they measured MariaDB alone; both still mean
// that. Settings.SaturatedP99 is the fixed p99 rule runs used before package saturation
// judged each point (its flags begin "saturated:"). Schema v4 added each comparison's
// finding; runs before it are judged on read. Runs of this time also carried
// req-peak-B/op, which results.Values leaves out, and meant nothing by a PHP target's
// app-syscalls/op.

// schemaV1 is the layout before servers had a name and before results.json carried the
// matrix's facts about layers and languages.
const schemaV1 = "dbbench/results/v1"

// v1 is what the matrix said when schema v1 was written. These are facts of the past,
// frozen with the schema: every v1 run ran Go on net/http and PHP on php-fpm, and these
// were its layers. Nothing here grows when the matrix does.
var v1 = struct {
	servers map[string]string    // lang → its only server
	pools   map[string]string    // lang → what pool meant
	kinds   map[string]string    // layer → kind ("" for hello, which used no database)
	libs    map[[2]string]string // lang, layer → library
}{
	servers: map[string]string{"go": "nethttp", "php": "fpm"},
	pools: map[string]string{
		"go":  "database/sql SetMaxOpenConns (and SetMaxIdleConns when conn=persistent)",
		"php": "php-fpm pm.max_children (pm = static): worker processes, one connection each",
	},
	kinds: map[string]string{"hello": "", "raw": "raw", "builder": "builder", "orm": "orm", "gorm": "orm"},
	libs: map[[2]string]string{
		{"go", "raw"}: "database/sql + go-sql-driver/mysql", {"go", "builder"}: "squirrel",
		{"go", "orm"}: "Beego ORM v2", {"go", "gorm"}: "GORM",
		{"php", "raw"}: "PDO", {"php", "builder"}: "Illuminate query builder", {"php", "orm"}: "Eloquent",
	},
}

// schemaV2 is the layout before layers were named by their library.
const schemaV2 = "dbbench/results/v2"

// v2Renamed is each layer renamed after v2, by language: a fact of the past, frozen
// with the schema (matrix.yaml's was says the same of today's layers).
var v2Renamed = map[[2]string]string{
	{"go", "orm"}: "beego", {"go", "builder"}: "squirrel",
	{"php", "orm"}: "eloquent", {"php", "builder"}: "illuminate",
}

// schemaV3 is the layout before comparisons carried their finding: nothing to move,
// and runners/judge/findings judges a comparison without one when it is read.
const schemaV3 = "dbbench/results/v3"

// schemaV4 is the layout before a finding's estimates took stats.Estimate's JSON: they
// named n "pairs" and left the bounds out where there was no interval. Judged reads both
// forms as it decodes (finding.go): nothing to move here.
const schemaV4 = "dbbench/results/v4"

// dbTitlesBefore are the database servers' titles as the report spelt them before runs
// recorded them (Variant.DatabaseTitle): a fact of the past, frozen; matrix.yaml's dbs
// title says the same of today's.
var dbTitlesBefore = map[string]string{"": "MariaDB", "mariadb": "MariaDB", "mysql": "MySQL 8.0", "postgres": "PostgreSQL",
	"pgbouncer": "PgBouncer", "pgbouncer-118": "PgBouncer 1.18", "pgbouncer-off": "PgBouncer 1.24 unprepared"}

// upgrade brings a run read from disk to the current form, or says why it cannot.
func upgrade(r *Run) error {
	for _, v := range r.Variants {
		if v.DatabaseTitle == "" {
			v.DatabaseTitle = cmp.Or(dbTitlesBefore[v.Database], v.Database)
		}
	}
	switch r.Schema {
	case Schema:
		return nil
	case schemaV3, schemaV4:
		r.Schema = Schema
		return nil
	case schemaV1:
		if err := upgradeV1(r); err != nil {
			return err
		}
		return upgradeV2(r)
	case schemaV2:
		return upgradeV2(r)
	}
	return fmt.Errorf("schema %q: this dbbench reads %q, %q, %q, %q and %q", r.Schema, Schema, schemaV4, schemaV3, schemaV2, schemaV1)
}

// upgradeV2 renames the layers named orm and builder after their libraries wherever a
// key or a layer is written, so that a run from before is compared with the same
// variants of a later one (dbbench compare --baseline).
func upgradeV2(r *Run) error {
	for _, v := range r.Variants {
		if to, ok := v2Renamed[[2]string{v.Lang, v.Layer}]; ok {
			v.Layer = to
		}
		v.Key, v.Name = renamedV2(v.Key), renamedV2(v.Name)
	}
	for _, c := range r.Comparisons {
		c.Base, c.Other = renamedV2(c.Base), renamedV2(c.Other)
	}
	if r.PoolCheck != nil {
		for _, f := range r.PoolCheck.Families {
			f.Family = renamedV2(f.Family)
		}
	}
	if r.Writes != nil {
		for i := range r.Writes.Counts {
			for j, k := range r.Writes.Counts[i].Variants {
				r.Writes.Counts[i].Variants[j] = renamedV2(k)
			}
		}
	}
	r.Schema = Schema
	return nil
}

// renamedV2 is a v2 key or name ("…lang=go/server=nethttp/layer=orm/…") with its layer
// renamed; any other string as it is.
func renamedV2(key string) string {
	parts := matrix.Parts(key)
	lang := ""
	for i, p := range parts {
		switch p.Name {
		case "lang":
			lang = p.Value
		case "layer":
			if to, ok := v2Renamed[[2]string{lang, p.Value}]; ok {
				parts[i].Value = to
				return matrix.Spell(parts)
			}
		}
	}
	return key
}

// upgradeV1 names each variant's server (inserting server= into its name, so it is
// compared with the same variant of a later run) and adds the matrix's facts.
func upgradeV1(r *Run) error {
	r.Langs = map[string]*Lang{}
	for _, v := range r.Variants {
		server, ok := v1.servers[v.Lang]
		kind, known := v1.kinds[v.Layer]
		if !ok || !known {
			return fmt.Errorf("schema v1 variant %s: unknown lang or layer", v.Key)
		}
		if _, ok := r.Langs[v.Lang]; !ok {
			r.Langs[v.Lang] = &Lang{Baseline: "raw", Default: server, Servers: map[string]*Server{
				server: {Launcher: map[string]string{"go": "go", "php": "php-fpm"}[v.Lang], Pool: v1.pools[v.Lang]},
			}}
		}
		v.Server, v.Kind, v.DB, v.Library = server, kind, v.Layer != "hello", v1.libs[[2]string{v.Lang, v.Layer}]
		for _, rep := range v.Reps {
			rep.PoolCounted = v.Lang == "go" && v.DB // v1 read database/sql's counters of every Go target
			rep.Saturation = v1Saturation(r.Settings, rep)
		}
		legacy := fmt.Sprintf("lang=%s/", v.Lang)
		if !strings.HasPrefix(v.Key, legacy) {
			return fmt.Errorf("schema v1 variant %q: key does not start with %s", v.Key, legacy)
		}
		v.Key = legacy + "server=" + server + "/" + strings.TrimPrefix(v.Key, legacy)
		v.Name = "BenchmarkSingleRow/" + v.Key
	}
	r.Schema = Schema
	return nil
}

// v1Saturation rebuilds what package saturation judges from a v1 repetition's totals:
// the offered and achieved rates, the p99 and the pool's waits. v1 kept no timeline, no
// count of late sends and no generator load, so only the shortfall, the pool waits and
// the p99 ceiling can decide.
func v1Saturation(s Settings, rep *Repetition) *saturation.Summary {
	sum := &saturation.Summary{Mode: saturation.Closed, Connections: s.Connections, Window: rep.Seconds,
		Elapsed: rep.Seconds, Completed: rep.Requests, P99: rep.P99, LateAfter: 0.001,
		Causes: saturation.Causes{PoolCounted: rep.PoolCounted, PoolWaitSeconds: rep.PoolWaitSeconds}}
	if s.Rate > 0 {
		// v1 counted no unsent sends: what the window's schedule asked for and did not
		// complete stands for them.
		window := rep.Seconds
		if d, err := time.ParseDuration(s.Duration); err == nil {
			window = d.Seconds()
		}
		sum.Mode, sum.Offered, sum.Window = saturation.Open, s.Rate, window
		sum.Scheduled = int64(s.Rate * window)
		sum.Unsent = max(0, sum.Scheduled-rep.Requests)
	}
	return sum
}
