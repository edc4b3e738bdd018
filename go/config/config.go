// Package config reads gotarget's flags into one variant and refuses every combination
// that does not name a variant, so a typo never runs as something else.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
)

// Conns are the connection modes: every layer that reads the database offers them, since
// the pool decides them, not the layer.
var Conns = []string{"persistent", "per-request", Shipped}

// Shipped is the connection mode of database/sql's pool as it ships: no limit on open
// connections, 2 idle, no lifetime (database/sql's defaults: database/sql/sql.go's
// defaultMaxIdleConns = 2; MaxOpenConns 0 is no limit). --pool is then not a limit.
const Shipped = "shipped"

// Catalog is what the flags are checked against: each layer with the statement modes it
// offers; a layer with none uses no database (hello). gotarget passes layers.Catalog().
type Catalog map[string][]string

// maxTexts bounds --texts: beyond every cache measured (pgx's 512, PgBouncer's 200,
// MySQL's 16382 across connections).
const maxTexts = 100000

// none is what a variant name says for the stmt and conn of the hello layer.
const none = "none"

// Config is one variant and where to serve it.
type Config struct {
	DSNFile string
	// RemoveDSNFile removes the DSN file once it is read, so that no copy of the
	// password outlives the start on a host the user may not watch (dbbench sets it on
	// a remote app host).
	RemoveDSNFile bool
	Layer         string
	Stmt          string // "" for hello
	Conn          string // "" for hello
	Pool          int    // 0 for hello
	Listen        string
	AdminListen   string // "" means no admin listener
	// Describe asks gotarget to print what it serves (its layers and their modes) and
	// exit, so the runner can check that matrix.yaml and the target agree.
	Describe bool
	// Ping asks gotarget to time this many COM_PINGs on one idle connection to the
	// database of --dsn-file, print their median in seconds and exit: the round trip
	// from the app's host to the database, measured where the app runs.
	Ping int
	// Texts is get's statement working set (server.LayerOptions.Texts); 0 one text.
	Texts  int
	usesDB bool
}

// UsesDB says whether the layer reads the database (every layer but hello).
func (c Config) UsesDB() bool { return c.usesDB }

// Parse reads args (without the program name) against the layers of cat. Usage text for
// -h goes to out.
func Parse(args []string, out io.Writer, cat Catalog) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("gotarget", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.DSNFile, "dsn-file", "", "file holding one line user:password@tcp(host:port)/database (layers that read the database)")
	fs.BoolVar(&c.RemoveDSNFile, "dsn-file-remove", false, "remove the --dsn-file once read: no copy of the password stays on disk")
	fs.StringVar(&c.Layer, "layer", "", "one of "+strings.Join(cat.names(), ", "))
	fs.StringVar(&c.Stmt, "stmt", "", "the layer's statement mode: prepare, prepared or interpolate (see --describe)")
	fs.StringVar(&c.Conn, "conn", "", "one of "+strings.Join(Conns, ", ")+" (layers that read the database)")
	fs.IntVar(&c.Pool, "pool", 0, "most connections open at once, SetMaxOpenConns (not for hello)")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "HTTP address")
	fs.StringVar(&c.AdminListen, "admin-listen", "", "loopback address for /debug/dbstats and /debug/pprof/; empty: none")
	fs.BoolVar(&c.Describe, "describe", false, "print the layers and their modes as JSON, and exit")
	fs.IntVar(&c.Texts, "texts", 0, "get's statement working set: read the row through one of this many statement texts, chosen by the id (0: get's one; layers that offer it)")
	fs.IntVar(&c.Ping, "ping", 0, "time this many COM_PINGs to the database of --dsn-file on one connection, print their median in seconds, and exit")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (every setting is a flag; see -h)", fs.Arg(0))
	}
	if c.RemoveDSNFile && c.DSNFile == "" {
		return Config{}, fmt.Errorf("--dsn-file-remove: no --dsn-file to remove")
	}
	if c.Describe {
		return c, nil
	}
	if c.Ping != 0 {
		if c.Ping < 1 || c.DSNFile == "" {
			return Config{}, fmt.Errorf("--ping %d: want a count of 1 or more, and --dsn-file", c.Ping)
		}
		c.usesDB = true
		return c, nil
	}
	return c, c.check(cat)
}

func (c *Config) check(cat Catalog) error {
	if err := oneOf("--layer", c.Layer, cat.names()); err != nil {
		return err
	}
	stmts := cat[c.Layer]
	c.usesDB = len(stmts) > 0
	if !c.UsesDB() {
		if err := c.checkNoDB(); err != nil {
			return err
		}
	} else if err := c.checkDB(stmts); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("--listen %q is not host:port: %v", c.Listen, err)
	}
	if c.AdminListen != "" {
		if err := checkLoopback(c.AdminListen); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkNoDB() error {
	// "none" is how the variant name spells the hello layer's stmt and conn.
	if c.Stmt != "" && c.Stmt != none {
		return fmt.Errorf("layer %s uses no database, so --stmt %s makes no sense: leave --stmt out", c.Layer, c.Stmt)
	}
	if c.Conn != "" && c.Conn != none {
		return fmt.Errorf("layer %s uses no database, so --conn %s makes no sense: leave --conn out", c.Layer, c.Conn)
	}
	if c.Pool != 0 {
		return fmt.Errorf("layer %s uses no database, so --pool %d makes no sense: leave --pool out", c.Layer, c.Pool)
	}
	if c.DSNFile != "" {
		return fmt.Errorf("layer %s uses no database, so --dsn-file makes no sense: leave it out", c.Layer)
	}
	c.Stmt, c.Conn = "", ""
	return nil
}

func (c *Config) checkDB(stmts []string) error {
	if c.Stmt != "" && !slices.Contains(stmts, c.Stmt) {
		return fmt.Errorf("--stmt %q is unknown for layer %s (want one of %s)", c.Stmt, c.Layer, strings.Join(stmts, ", "))
	}
	if err := oneOf("--stmt", c.Stmt, stmts); err != nil {
		return err
	}
	if c.Texts < 0 || c.Texts > maxTexts {
		return fmt.Errorf("--texts %d: want 0 to %d statement texts", c.Texts, maxTexts)
	}
	if err := oneOf("--conn", c.Conn, Conns); err != nil {
		return err
	}
	if c.Pool < 1 {
		return fmt.Errorf("--pool must be at least 1 for layer %s (got %d)", c.Layer, c.Pool)
	}
	if c.DSNFile == "" {
		return fmt.Errorf("layer %s reads the database: --dsn-file is required", c.Layer)
	}
	if c.Stmt == "prepared" && c.Conn == "per-request" {
		return errors.New("--stmt prepared with --conn per-request is not a variant: a statement prepared once is " +
			"prepared again on every new connection, so it would send exactly what --stmt prepare sends; use --stmt prepare")
	}
	return nil
}

// names lists the catalog's layers, sorted.
func (cat Catalog) names() []string {
	names := make([]string, 0, len(cat))
	for n := range cat {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func oneOf(flag, v string, allowed []string) error {
	if v == "" {
		return fmt.Errorf("%s is required (one of %s)", flag, strings.Join(allowed, ", "))
	}
	if !slices.Contains(allowed, v) {
		return fmt.Errorf("%s %q is unknown (want one of %s)", flag, v, strings.Join(allowed, ", "))
	}
	return nil
}

// checkLoopback refuses an admin address that other hosts could reach: pprof and the
// pool statistics are for this machine only.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--admin-listen %q is not host:port: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--admin-listen %q must be a loopback address (127.0.0.1:PORT or [::1]:PORT): it serves pprof", addr)
}
