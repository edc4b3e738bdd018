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

// The values each key may take. Layers that touch no database take no stmt or conn.
var (
	Layers = []string{"hello", "raw", "builder", "orm", "gorm"}
	Stmts  = []string{"prepare", "prepared", "interpolate"}
	Conns  = []string{"persistent", "per-request"}
)

// none is what a variant name says for the stmt and conn of the hello layer.
const none = "none"

// Config is one variant and where to serve it.
type Config struct {
	DSNFile     string
	Layer       string
	Stmt        string // "" for hello
	Conn        string // "" for hello
	Pool        int    // 0 for hello
	Listen      string
	AdminListen string // "" means no admin listener
}

// UsesDB says whether the layer reads the database (every layer but hello).
func (c Config) UsesDB() bool { return c.Layer != "hello" }

// Parse reads args (without the program name). Usage text for -h goes to out.
func Parse(args []string, out io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("gotarget", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.DSNFile, "dsn-file", "", "file holding one line user:password@tcp(host:port)/database (every layer but hello)")
	fs.StringVar(&c.Layer, "layer", "", "one of "+strings.Join(Layers, ", "))
	fs.StringVar(&c.Stmt, "stmt", "", "one of "+strings.Join(Stmts, ", ")+" (not for hello)")
	fs.StringVar(&c.Conn, "conn", "", "one of "+strings.Join(Conns, ", ")+" (not for hello)")
	fs.IntVar(&c.Pool, "pool", 0, "most connections open at once, SetMaxOpenConns (not for hello)")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "HTTP address")
	fs.StringVar(&c.AdminListen, "admin-listen", "", "loopback address for /debug/dbstats and /debug/pprof/; empty: none")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (every setting is a flag; see -h)", fs.Arg(0))
	}
	return c, c.check()
}

func (c *Config) check() error {
	if err := oneOf("--layer", c.Layer, Layers); err != nil {
		return err
	}
	if !c.UsesDB() {
		if err := c.checkNoDB(); err != nil {
			return err
		}
	} else if err := c.checkDB(); err != nil {
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

func (c *Config) checkDB() error {
	if err := oneOf("--stmt", c.Stmt, Stmts); err != nil {
		return err
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
