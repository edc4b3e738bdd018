package report

import (
	"crypto/sha256"
	"encoding/base64"
)

// tableScript sorts a sortable table by the column whose header button is pressed (by
// each cell's data-v when it has one, else by its text), and hides the rows of every
// sortable table that do not match the key selects. It is the page's only script; the
// CSP allows exactly this text by its hash.
const tableScript = `
const key = (row, i) => { const c = row.cells[i], v = c.dataset.v; return v === undefined ? c.textContent : v === "" ? -Infinity : +v; };
document.querySelectorAll("table.sortable th button").forEach(btn => btn.addEventListener("click", () => {
  const th = btn.parentElement, table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
  const up = th.getAttribute("aria-sort") !== "ascending";
  table.querySelectorAll("th").forEach(h => h.removeAttribute("aria-sort"));
  th.setAttribute("aria-sort", up ? "ascending" : "descending");
  [...body.rows].sort((a, b) => { const x = key(a, i), y = key(b, i); return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); })
    .forEach(r => body.appendChild(r));
}));
const selects = [...document.querySelectorAll("select[data-col]")];
selects.forEach(s => s.addEventListener("change", () => {
  document.querySelectorAll("table.sortable tbody tr").forEach(r => {
    r.hidden = selects.some(s => s.value !== "" && r.cells[s.dataset.col].textContent !== s.value);
  });
}));
`

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

// sweepCSP is a sweep page's: no script at all.
const sweepCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
