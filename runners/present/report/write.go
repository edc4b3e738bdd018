package report

import (
	"fmt"
	"os"
	"path/filepath"

	"dbbench/runners/judge"
	"dbbench/runners/results"
)

// Write renders report.md, report.html, findings.csv and the answers' charts (which
// report.md links) of j, the run in dir judged, into dir.
func Write(dir string, j *judge.Run) error {
	_, err := WriteComparisons(dir, j)
	return err
}

// WriteComparisons is Write, and returns the report's comparisons as it words them.
func WriteComparisons(dir string, j *judge.Run) ([]Comparison, error) {
	p, err := writePage(dir, j)
	if err != nil {
		return nil, err
	}
	return p.Comparisons, nil
}

func writePage(dir string, j *judge.Run) (*page, error) {
	p, err := build(j)
	if err != nil {
		return nil, err
	}
	p.Glossary = glossaryPath(dir)
	if err := results.WriteFile(filepath.Join(dir, "report.md"), markdown(p)); err != nil {
		return nil, err
	}
	h, err := htmlPage(p, j.Results)
	if err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(dir, "report.html"), h); err != nil {
		return nil, err
	}
	c, err := findingsCSV(p.findings)
	if err != nil {
		return nil, err
	}
	if err := results.WriteFile(filepath.Join(dir, "findings.csv"), c); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, chartDir), 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	for _, a := range p.Answers {
		c, ok := a.chart()
		if !ok {
			continue
		}
		svg := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + c.SVG() + "\n"
		if err := results.WriteFile(filepath.Join(dir, answerChartFile(a)), []byte(svg)); err != nil {
			return nil, err
		}
	}
	return p, nil
}
