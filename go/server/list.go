package server

import (
	"errors"
	"math"
	"net/url"
	"strings"
)

// MaxLimit is the most users one GET /users returns.
const MaxLimit = 1000

// Reasons ParseListQuery gives; the 400 body is one of them, naming the parameter.
var (
	errBadQuery   = errors.New("bad query string: a parameter is not percent-encoded properly")
	errNoLimit    = errors.New("bad limit: limit is required (1..1000)")
	errTwiceAfter = errors.New("bad after: after is given more than once")
	errTwiceLimit = errors.New("bad limit: limit is given more than once")
	errLimitRange = errors.New("must be at most 1000")
	// The number reasons, which ParseID says of the id (ofID): canonical's, and the
	// bounds of an id.
	errEmpty      = errors.New("is empty")
	errDigits     = errors.New("must contain only the digits 0-9")
	errLeading    = errors.New("must not have a leading zero")
	errOverUint32 = errors.New("must be at most 4294967295")
	errZero       = errors.New("must be at least 1")
)

// ParseListQuery reads GET /users's query string: after (optional, default 0: from the
// first user) is an id, 0..4294967295; limit (required) is 1..MaxLimit. Both in their
// canonical base-10 spelling, as ids in paths: digits only, no sign, no leading zero.
// Parameters are separated by "&", names and values percent-decoded ("+" is a space,
// which no number holds); other parameters are ignored, as GET /users/{id} ignores its
// query string; a parameter given twice is refused rather than guessed at.
func ParseListQuery(raw string) (after uint32, limit int, err error) {
	var sawAfter, sawLimit bool
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		if name, err = url.QueryUnescape(name); err != nil {
			return 0, 0, errBadQuery
		}
		if name != "after" && name != "limit" {
			continue
		}
		if value, err = url.QueryUnescape(value); err != nil {
			return 0, 0, errBadQuery
		}
		if name == "after" {
			if sawAfter {
				return 0, 0, errTwiceAfter
			}
			sawAfter = true
			n, err := canonical(value, math.MaxUint32, errOverUint32)
			if err != nil {
				return 0, 0, errors.New("bad after: after " + err.Error())
			}
			after = uint32(n)
			continue
		}
		if sawLimit {
			return 0, 0, errTwiceLimit
		}
		sawLimit = true
		n, err := canonical(value, MaxLimit, errLimitRange)
		if err == nil && n == 0 {
			err = errZero
		}
		if err != nil {
			return 0, 0, errors.New("bad limit: limit " + err.Error())
		}
		limit = int(n)
	}
	if !sawLimit {
		return 0, 0, errNoLimit
	}
	return after, limit, nil
}

// canonical reads a number in 0..max in its canonical base-10 spelling (digits only,
// no leading zero), "0" allowed; ParseID and ParseListQuery both read with it.
func canonical(s string, max uint64, tooLarge error) (uint64, error) {
	if s == "" {
		return 0, errEmpty
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errDigits
		}
	}
	if s[0] == '0' && len(s) > 1 {
		return 0, errLeading
	}
	if len(s) > maxIDDigits {
		return 0, tooLarge
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	if n > max {
		return 0, tooLarge
	}
	return n, nil
}
