package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"dbbench/runners/results"
)

// baselineName keeps a baseline inside its directory: no separators, no leading dot.
var baselineName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// baselineFiles are what a baseline keeps of a run: enough to compare and to benchstat.
var baselineFiles = []string{"results.json", "bench.txt"}

// SaveBaseline copies runDir's results.json and bench.txt into baselines/name,
// replacing a baseline of that name.
func SaveBaseline(runDir, baselines, name string) (string, error) {
	if !baselineName.MatchString(name) {
		return "", fmt.Errorf("baseline name %q: want letters, digits, '.', '_' or '-', not starting with '.' or '-'", name)
	}
	if _, err := results.Read(filepath.Join(runDir, "results.json")); err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, err)
	}
	dir := filepath.Join(baselines, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, err)
	}
	for _, f := range baselineFiles {
		b, err := os.ReadFile(filepath.Join(runDir, f))
		if err != nil {
			return "", fmt.Errorf("save baseline %s: %w", name, err)
		}
		if err := results.WriteFile(filepath.Join(dir, f), b); err != nil {
			return "", fmt.Errorf("save baseline %s: %w", name, err)
		}
	}
	return dir, nil
}

// LoadBaseline reads the run saved as baselines/name.
func LoadBaseline(baselines, name string) (*results.Run, error) {
	if !baselineName.MatchString(name) {
		return nil, fmt.Errorf("baseline name %q: want letters, digits, '.', '_' or '-', not starting with '.' or '-'", name)
	}
	path := filepath.Join(baselines, name, "results.json")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("baseline %q not found in %s (save one with dbbench run --save-baseline %s)", name, baselines, name)
	}
	return results.Read(path)
}

// Write renders report.md, report.html and the answers' charts (which report.md
// links) of the run in dir into dir.
func Write(dir string) error {
	r, err := results.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	p, err := build(r)
	if err != nil {
		return err
	}
	if err := results.WriteFile(filepath.Join(dir, "report.md"), markdown(p)); err != nil {
		return err
	}
	h, err := htmlPage(p, r)
	if err != nil {
		return err
	}
	if err := results.WriteFile(filepath.Join(dir, "report.html"), h); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, chartDir), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, a := range p.Answers {
		if len(a.Groups) == 0 {
			continue
		}
		svg := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + answerPanel(a).svg() + "\n"
		if err := results.WriteFile(filepath.Join(dir, answerChartFile(a)), []byte(svg)); err != nil {
			return err
		}
	}
	return nil
}
