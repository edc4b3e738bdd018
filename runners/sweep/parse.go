package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
)

// Default variants of the sweeps, by the protocol of the database swept.
var (
	// DefaultPoolVariants: raw and ORM, persistent, in both languages, in the statement
	// mode that costs the fewest round trips (interpolated on MySQL's protocol; pgx's
	// default, its statement cache, on PostgreSQL's, beside PDO's emulated prepares).
	DefaultPoolVariants = map[protocol.Protocol]string{
		protocol.MySQL: "lang=go/layer=raw/stmt=interpolate/conn=persistent," +
			"lang=go/layer=beego/stmt=interpolate/conn=persistent," +
			"lang=php/layer=raw/stmt=interpolate/conn=persistent," +
			"lang=php/layer=eloquent/stmt=interpolate/conn=persistent",
		protocol.Postgres: "lang=go/layer=pgx/stmt=cache_statement/conn=persistent," +
			"lang=go/layer=gorm/stmt=cache_statement/conn=persistent," +
			"lang=php/layer=raw/stmt=interpolate/conn=persistent," +
			"lang=php/layer=eloquent/stmt=interpolate/conn=persistent",
	}
	// DefaultRTTVariants: the raw driver under every statement mode, at a pool large
	// enough that the pool is not what distance exhausts first.
	DefaultRTTVariants = map[protocol.Protocol]string{
		protocol.MySQL: "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64," +
			"lang=go/layer=raw/stmt=prepared/conn=persistent/pool=64," +
			"lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=64," +
			"lang=php/layer=raw/stmt=prepare/conn=persistent/pool=16," +
			"lang=php/layer=raw/stmt=interpolate/conn=persistent/pool=16",
		protocol.Postgres: "lang=go/layer=pgx/stmt=cache_statement/conn=persistent/pool=64," +
			"lang=go/layer=pgx/stmt=cache_describe/conn=persistent/pool=64," +
			"lang=go/layer=pgx/stmt=describe_exec/conn=persistent/pool=64," +
			"lang=go/layer=pgx/stmt=exec/conn=persistent/pool=64," +
			"lang=go/layer=pgx/stmt=simple_protocol/conn=persistent/pool=64," +
			"lang=php/layer=raw/stmt=prepare/conn=persistent/pool=16," +
			"lang=php/layer=raw/stmt=interpolate/conn=persistent/pool=16",
	}
)

// ParseVariants reads a comma-separated list of variant keys, on database db (a db of
// the matrix: the sweep's --db). A key may leave out its pool
// (lang=go/layer=raw/stmt=interpolate/conn=persistent): it then gets pool; and its db:
// then db. One that names another db, or that db does not offer, is refused. Every
// variant must be one the matrix knows.
func ParseVariants(m *matrix.Matrix, list string, pool int, db string) ([]matrix.Variant, error) {
	vs, err := m.ResolveListOn(list, func(string) int { return pool }, db)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if got := m.DBName(v); got != db {
			return nil, fmt.Errorf("%s names db=%s, but the sweep measures --db %s", v.Key(), got, db)
		}
	}
	return vs, nil
}

// ParseInts reads a comma-separated list of positive integers, named what in errors.
func ParseInts(what, list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", what, s)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("%s: %d is given twice", what, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParsePools reads "go=1,2,4;php=1,2" into lang → pools; "" gives nil (the matrix's
// pool_sweep lists). Every lang must be one the matrix knows.
func ParsePools(m *matrix.Matrix, s string) (map[string][]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string][]int{}
	for _, part := range strings.Split(s, ";") {
		lang, list, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("pools: %q: want lang=1,2,4", part)
		}
		if _, known := m.Langs[lang]; !known {
			return nil, fmt.Errorf("pools: unknown lang %q (want one of %s)", lang, strings.Join(m.LangNames(), ", "))
		}
		ns, err := ParseInts("pools for "+lang, list)
		if err != nil {
			return nil, err
		}
		out[lang] = ns
	}
	return out, nil
}

// MaxDelay is the longest delay a sweep adds each way: a database further than that is
// not a distance a pool or statement mode is chosen for.
const MaxDelay = 10 * time.Second

// ParseDelays reads a comma-separated list of durations; a bare number is milliseconds
// (0, 0.2, 1, 5, as people write a link's delay).
func ParseDelays(list string) ([]time.Duration, error) {
	var out []time.Duration
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		d, err := time.ParseDuration(s)
		if err != nil {
			ms, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil {
				return nil, fmt.Errorf("delays: %q is neither a duration (200us, 1ms) nor a number of milliseconds", s)
			}
			if ms < 0 {
				return nil, fmt.Errorf("delays: %q is negative", s)
			}
			if ms > float64(MaxDelay/time.Millisecond) {
				return nil, fmt.Errorf("delays: %q is longer than %v each way", s, MaxDelay)
			}
			d = time.Duration(ms * float64(time.Millisecond))
		}
		switch {
		case d < 0:
			return nil, fmt.Errorf("delays: %q is negative", s)
		case d > MaxDelay:
			return nil, fmt.Errorf("delays: %q is longer than %v each way", s, MaxDelay)
		}
		if d%time.Microsecond != 0 {
			return nil, fmt.Errorf("delays: %q is finer than a microsecond", s)
		}
		if slices.Contains(out, d) {
			return nil, fmt.Errorf("delays: %v is given twice (each delay is one run directory)", d)
		}
		out = append(out, d)
	}
	return out, nil
}
