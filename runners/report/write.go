package report

import (
	"path/filepath"

	"dbbench/runners/results"
)

// Write renders report.md and report.html of the run in dir into dir.
func Write(dir string) error {
	r, err := results.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	md, err := Markdown(r)
	if err != nil {
		return err
	}
	if err := results.WriteFile(filepath.Join(dir, "report.md"), md); err != nil {
		return err
	}
	h, err := HTML(r)
	if err != nil {
		return err
	}
	return results.WriteFile(filepath.Join(dir, "report.html"), h)
}
