package server

import (
	"errors"
	"math"
)

// maxIDDigits is the length of math.MaxUint32 (4294967295).
const maxIDDigits = 10

// Reasons ParseID gives, the number reasons (list.go) said of the id; the 400 body
// names the one that applied.
var (
	errEmptyID    = ofID(errEmpty)
	errNotDigits  = ofID(errDigits)
	errZeroID     = ofID(errZero)
	errLeadZero   = ofID(errLeading)
	errIDTooLarge = ofID(errOverUint32)
)

// ofID says a number reason of the id: "id must be at least 1".
func ofID(reason error) error { return errors.New("id " + reason.Error()) }

// ParseID reads a user id from a path segment. Only the canonical spelling of 1..4294967295
// is accepted: no sign, no leading zero, no spaces, so every id has exactly one URL and
// a 10 kB run of zeros cannot be read as a small id. It does not allocate.
func ParseID(s string) (uint32, error) {
	n, err := canonical(s, math.MaxUint32, errIDTooLarge)
	switch {
	case err == errEmpty:
		return 0, errEmptyID
	case err == errDigits:
		return 0, errNotDigits
	case err == errLeading:
		return 0, errLeadZero
	case err != nil:
		return 0, err // errIDTooLarge
	case n == 0:
		return 0, errZeroID
	}
	return uint32(n), nil
}
