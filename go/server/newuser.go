package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxBody is the largest request body POST /users reads (nginx's default
// client_max_body_size and the PHP worker server's limit): 413 beyond.
const MaxBody = 1 << 20

// MaxNameChars is the users.name column's VARCHAR(64): characters, not bytes.
const MaxNameChars = 64

// Reasons ParseNewUser gives; the 400 body is "bad body: " and one of them.
var (
	errNotUTF8      = errors.New("the body is not valid UTF-8")
	errSurrogate    = errors.New(`the body is not valid UTF-8: a \u escape is a lone UTF-16 surrogate`)
	errNotObject    = errors.New(`want a JSON object {"name": "…"}`)
	errNoName       = errors.New("name is required")
	errNameNotText  = errors.New("name must be a string")
	errNameEmpty    = errors.New("name is empty")
	errNameTooLong  = fmt.Errorf("name is longer than %d characters", MaxNameChars)
	errUnknownField = "unknown field %s (the body has name only)"
)

// ParseNewUser reads POST /users's body, exactly one JSON object {"name": "…"}: name a
// string of 1..MaxNameChars characters (Unicode code points, as MySQL counts a
// VARCHAR's length) of valid UTF-8, no other field. The content type is not checked.
//
// encoding/json would quietly turn invalid UTF-8, and \u escapes of lone surrogates,
// into U+FFFD; PHP's json_decode refuses both. Both are refused here too, so that a name
// is stored as sent or not at all, the same in Go and PHP.
func ParseNewUser(body []byte) (string, error) {
	if !utf8.Valid(body) {
		return "", errNotUTF8
	}
	if loneSurrogate(body) {
		return "", errSurrogate
	}
	// Fields are matched by their exact name (encoding/json would match a struct field
	// case-insensitively, PHP would not): into a map first.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return "", errNotObject
	}
	for k := range fields {
		if k != "name" {
			return "", fmt.Errorf(errUnknownField, strconv.Quote(truncate(k, 32)))
		}
	}
	raw, ok := fields["name"]
	if !ok {
		return "", errNoName
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", errNameNotText
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", errNameNotText
	}
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", errNameEmpty
	case n > MaxNameChars:
		return "", errNameTooLong
	}
	return name, nil
}

// loneSurrogate says whether b holds a \u escape of a UTF-16 surrogate that is not a high
// one followed at once by a low one. JSON has backslashes only in strings, where each
// escapes the character after it, so a scan for them needs no JSON parsing.
func loneSurrogate(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r, ok := escapedUnit(b[i:])
		if !ok {
			i++ // another escape (\" \\ \n …): skip the escaped character
			continue
		}
		i += 5 // the last hex digit
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			low, ok := escapedUnit(b[i+1:])
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

// escapedUnit reads a \uXXXX escape at the start of b.
func escapedUnit(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
