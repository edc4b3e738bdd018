package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
)

// tableScript sorts a sortable table by the column whose header button is pressed (by
// each cell's data-v when it has one, else by its text), and hides the rows of every
// sortable table that do not match the key selects. It is the page's only script; the
// CSP allows exactly this text by its hash.
//
//go:embed tablescript.js
var tableScript string

// scriptHash is the CSP source that allows tableScript and nothing else.
func scriptHash() string {
	sum := sha256.Sum256([]byte(tableScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// csp forbids every fetch: the page must open from file:// with no network, and a
// chart that tried to load anything would be blocked rather than leak a request. The
// one script runs because its hash is listed.
func csp() string {
	return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src " + scriptHash()
}
