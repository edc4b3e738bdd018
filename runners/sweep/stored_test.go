package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A pool sweep's judgement.json holds each curve's advice and each point's prediction
// as JudgePool computed them for the page, read here from the committed sweep.
func TestPoolJudgementIsWhatThePageShows(t *testing.T) {
	r, err := LoadPool(filepath.Join("..", "..", "reports", "sample", "pool-sweep"))
	if err != nil {
		t.Fatal(err)
	}
	ps := JudgePool(r, need)
	b := written(t, ps.WriteJudgement)
	var got struct {
		Schema string
		Curves []struct {
			Family string
			Points []struct {
				Pool      int
				Predicted float64
			}
			Advice struct {
				Pool  int
				Model struct{ Recommended int }
			}
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != PoolSweepSchema || len(got.Curves) != len(ps.Curves) || len(ps.Curves) == 0 {
		t.Fatalf("schema %q, %d curves; want %q, %d", got.Schema, len(got.Curves), PoolSweepSchema, len(ps.Curves))
	}
	for i, cv := range ps.Curves {
		g := got.Curves[i]
		if g.Family != cv.Family || g.Advice.Pool != cv.Advice.Pool || g.Advice.Model.Recommended != cv.Advice.Model.Recommended || len(g.Points) != len(cv.Points) {
			t.Errorf("curve %s: %+v; the page's pool %d, model %d", cv.Family, g.Advice, cv.Advice.Pool, cv.Advice.Model.Recommended)
			continue
		}
		for j, p := range cv.Points {
			if g.Points[j].Pool != p.Pool || g.Points[j].Predicted != p.Predicted {
				t.Errorf("%s pool %d: predicted %v, the page's %v", cv.Family, p.Pool, g.Points[j].Predicted, p.Predicted)
			}
		}
	}
}

// An rtt sweep's judgement.json holds every point's figures as the page prints them.
func TestRTTJudgementIsWhatThePageShows(t *testing.T) {
	_, points, err := LoadRTT(filepath.Join("..", "..", "reports", "sample", "rtt-sweep"))
	if err != nil {
		t.Fatal(err)
	}
	b := written(t, func(dir string) error { return WriteRTTJudgement(dir, points) })
	var got struct {
		Schema string
		Points []struct {
			Mode    string
			Figures map[string]struct {
				Medians map[string]float64
				Past    bool
				Verdict struct{ State string }
			}
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != RTTSweepSchema || len(got.Points) != len(points) || len(points) == 0 {
		t.Fatalf("schema %q, %d points; want %q, %d", got.Schema, len(got.Points), RTTSweepSchema, len(points))
	}
	for i, p := range points {
		for key, f := range p.Figures {
			g, ok := got.Points[i].Figures[key]
			if !ok || g.Past != f.Past || g.Verdict.State != f.Verdict.State || len(g.Medians) != len(f.Medians) {
				t.Errorf("%s %s: %+v; the page's %+v", p.Mode, key, g, *f)
			}
			for name, m := range f.Medians {
				if g.Medians[name] != m {
					t.Errorf("%s %s %s: %v, the page's %v", p.Mode, key, name, g.Medians[name], m)
				}
			}
		}
	}
}

// written is the judgement.json that write writes into a new directory.
func written(t *testing.T, write func(dir string) error) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "judgement.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
