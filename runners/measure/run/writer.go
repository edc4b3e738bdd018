package run

import (
	"dbbench/runners/results"
	"dbbench/runners/results/benchfile"
)

// writer rewrites results.json and bench.txt after every step; each file is replaced
// atomically, so an interruption at any moment leaves whole files.
type writer struct {
	dir string
	run *results.Run
}

func (w *writer) flush() error {
	if err := results.WriteJSON(w.dir+"/results.json", w.run); err != nil {
		return err
	}
	b, err := benchfile.FromRun(w.run)
	if err != nil {
		return err
	}
	return results.WriteFile(w.dir+"/bench.txt", b)
}
