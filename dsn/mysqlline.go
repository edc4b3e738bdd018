package dsn

import (
	"errors"
	"fmt"
	"net"

	"github.com/go-sql-driver/mysql"
)

// mysqlLines are go-sql-driver DSNs: user:password@tcp(host:port)/database?params.
type mysqlLines struct{}

func (mysqlLines) check(line string) error {
	_, err := Parse(line)
	return err
}

// parseMySQL is go-sql-driver's reading of line, its error without the password (the
// driver's message quotes a bad parameter's value, say).
func parseMySQL(line string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(line)
	if err != nil {
		return nil, errors.New(MaskedIn(err.Error(), line))
	}
	return cfg, nil
}

func (mysqlLines) withAddr(line, addr string) (string, error) {
	cfg, err := parseMySQL(line)
	if err != nil {
		return "", fmt.Errorf("malformed DSN: %w", err)
	}
	cfg.Net, cfg.Addr = "tcp", addr
	return cfg.FormatDSN(), nil
}

func (mysqlLines) tcp(line string) (TCP, error) {
	cfg, err := parseMySQL(line)
	if err != nil {
		return TCP{}, err
	}
	if cfg.Net != "tcp" {
		return TCP{}, fmt.Errorf("uses %q: PHP targets connect over TCP, want user:pass@tcp(host:port)/db", cfg.Net)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return TCP{}, fmt.Errorf("address %q: %w", cfg.Addr, err)
	}
	return TCP{Host: host, Port: port, Database: cfg.DBName, User: cfg.User, Password: cfg.Passwd}, nil
}

func (mysqlLines) password(line string) string { return passwordField(line) }
