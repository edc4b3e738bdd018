package dsn

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// mysqlLines are go-sql-driver DSNs: user:password@tcp(host:port)/database?params.
type mysqlLines struct{}

func (mysqlLines) check(line string) error {
	_, err := Parse(line)
	return err
}

func (mysqlLines) withAddr(line, addr string) (string, error) {
	cfg, err := mysql.ParseDSN(line)
	if err != nil {
		return "", errors.New("malformed DSN: " + MaskedIn(err.Error(), line))
	}
	cfg.Net, cfg.Addr = "tcp", addr
	return cfg.FormatDSN(), nil
}

func (mysqlLines) tcp(line string) (TCP, error) {
	cfg, err := mysql.ParseDSN(line)
	if err != nil {
		return TCP{}, errors.New(MaskedIn(err.Error(), line))
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

// MaskedIn is msg, a driver's error about line, with line's password masked wherever it
// stands: the message is about this line alone, so any text of the password in it is
// the password.
func MaskedIn(msg, line string) string {
	if pw := PasswordOf(line); pw != "" {
		msg = strings.ReplaceAll(msg, pw, Mask)
	}
	return msg
}
