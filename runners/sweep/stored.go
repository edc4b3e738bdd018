package sweep

import (
	"path/filepath"

	"dbbench/runners/results"
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
	return results.WriteJSON(filepath.Join(dir, results.JudgementFile), struct {
		Schema string `json:"schema"`
		*PoolSweep
	}{PoolSweepSchema, ps})
}

// WriteRTTJudgement writes an rtt sweep's points as judgement.json into dir, beside
// plan.json.
func WriteRTTJudgement(dir string, points []RTTPoint) error {
	return results.WriteJSON(filepath.Join(dir, results.JudgementFile), struct {
		Schema string     `json:"schema"`
		Points []RTTPoint `json:"points"`
	}{RTTSweepSchema, points})
}
