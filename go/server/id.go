package server

import (
	"errors"
	"math"
)

// maxIDDigits is the length of math.MaxUint32 (4294967295).
const maxIDDigits = 10

// Reasons ParseID gives; the 400 body names the one that applied.
var (
	errEmptyID    = errors.New("id is empty")
	errNotDigits  = errors.New("id must contain only the digits 0-9")
	errZeroID     = errors.New("id must be at least 1")
	errLeadZero   = errors.New("id must not have a leading zero")
	errIDTooLarge = errors.New("id must be at most 4294967295")
)

// ParseID reads a user id from a path segment. Only the canonical spelling of 1..4294967295
// is accepted: no sign, no leading zero, no spaces, so every id has exactly one URL and
// a 10 kB run of zeros cannot be read as a small id. It does not allocate.
func ParseID(s string) (uint32, error) {
	if s == "" {
		return 0, errEmptyID
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errNotDigits
		}
	}
	if s[0] == '0' {
		if len(s) == 1 {
			return 0, errZeroID
		}
		return 0, errLeadZero
	}
	if len(s) > maxIDDigits {
		return 0, errIDTooLarge
	}
	var n uint64 // 10 digits fit easily; compare with the 32-bit limit at the end
	for i := 0; i < len(s); i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	if n > math.MaxUint32 {
		return 0, errIDTooLarge
	}
	return uint32(n), nil
}
