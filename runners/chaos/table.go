// Package chaos holds the fault-injection scenarios of `make chaos`: tests that drive
// the real dbbench and gotarget binaries, the embedded MariaDB, nginx and php-fpm, kill
// and signal them, feed them hostile input, and check what is left afterwards. This
// file is the table the scenarios fill and `make chaos` prints.
package chaos

import (
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
)

// Row is one scenario's outcome.
type Row struct {
	Scenario string
	Injected string
	Outcome  string
	Left     int    // processes and temporary directories left behind afterwards
	Kept     string // what of the results survived ("-" when the scenario has no run)
}

// Table collects rows from scenarios; safe for concurrent use.
type Table struct {
	mu   sync.Mutex
	rows []Row
}

// Add appends a row.
func (t *Table) Add(r Row) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows = append(t.rows, r)
}

// Len is the number of rows so far.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.rows)
}

// Print writes the rows as an aligned table.
func (t *Table) Print(w io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tinjected\toutcome\tleft\tresults kept")
	for _, r := range t.rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.Scenario, r.Injected, r.Outcome, r.Left, r.Kept)
	}
	tw.Flush()
}
