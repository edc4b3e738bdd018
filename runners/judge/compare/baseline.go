package compare

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
