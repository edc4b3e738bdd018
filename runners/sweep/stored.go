package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// PoolSweepSchema names judgement.json of a pool sweep: the need, and each family's
// curve with its points' capacities and predictions and its advice, as the page shows
// them (JudgePool). The slices themselves stay in results.json.
const PoolSweepSchema = "dbbench/judgement/pool-sweep/v1"

// RTTSweepSchema names judgement.json of an rtt sweep: each point's figures as the page
// prints them (medians, saturation verdicts), by distance and mode.
const RTTSweepSchema = "dbbench/judgement/rtt-sweep/v1"

// WriteJudgement writes ps as judgement.json into dir, beside the sweep's results.json.
func (ps *PoolSweep) WriteJudgement(dir string) error {
	return writeJudgement(dir, struct {
		Schema string `json:"schema"`
		*PoolSweep
	}{PoolSweepSchema, ps})
}

// WriteRTTJudgement writes an rtt sweep's points as judgement.json into dir, beside
// plan.json.
func WriteRTTJudgement(dir string, points []RTTPoint) error {
	return writeJudgement(dir, struct {
		Schema string     `json:"schema"`
		Points []RTTPoint `json:"points"`
	}{RTTSweepSchema, points})
}

func writeJudgement(dir string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Errorf("sweep: encode judgement.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "judgement.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}
