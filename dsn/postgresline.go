package dsn

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// postgresLines are PostgreSQL URLs: postgres://user:password@host:port/database?params.
type postgresLines struct{}

func (postgresLines) check(line string) error {
	u, err := url.Parse(line)
	if err != nil {
		return fmt.Errorf("malformed PostgreSQL URL %s", RedactURL(line))
	}
	if u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return fmt.Errorf("PostgreSQL URL %s names no host or no database", RedactURL(line))
	}
	return nil
}

func (postgresLines) withAddr(line, addr string) (string, error) {
	u, err := url.Parse(line)
	if err != nil {
		return "", errors.New("malformed PostgreSQL URL")
	}
	u.Host = addr
	return u.String(), nil
}

func (postgresLines) tcp(line string) (TCP, error) {
	u, err := url.Parse(line)
	if err != nil {
		return TCP{}, errors.New("not a PostgreSQL URL (postgres://user:pass@host:port/db)")
	}
	if u.Hostname() == "" {
		return TCP{}, errors.New("names no host: PHP targets connect over TCP, want postgres://user:pass@host:port/db")
	}
	pass, _ := u.User.Password()
	return TCP{Host: u.Hostname(), Port: cmp.Or(u.Port(), "5432"), Database: strings.TrimPrefix(u.Path, "/"), User: u.User.Username(), Password: pass}, nil
}

// password is the URL's userinfo password, decoded; from a malformed URL, what stands
// where a DSN's password would.
func (postgresLines) password(line string) string {
	if u, err := url.Parse(line); err == nil {
		pw, _ := u.User.Password()
		return pw
	}
	return passwordField(line[strings.Index(line, "://")+3:])
}
