package results

import (
	"os/exec"
	"strings"
	"testing"
)

// Results are data: the packages that only read, judge or render a run link no
// database driver and no package that measures, so that a report, a comparison or a
// benchstat file can be made where no database was ever reached, and a change to how
// something is measured cannot change how it is read. (Until the wire protocols' names
// moved to dbbench/dsn/protocol, results imported roundtrip for a three-entry map, and
// with it the MySQL driver.)
func TestReadersLinkNothingThatMeasures(t *testing.T) {
	readers := []string{"results", "results/benchfile", "present/report", "judge", "judge/compare", "judge/findings", "judge/revcost",
		"judge/poolsize", "judge/questions", "measure/yardstick", "measure/revision", "present/doc"}
	measuring := []string{"measure/run", "measure/target", "measure/loadgen", "measure/remote", "measure/topology", "measure/provider",
		"measure/roundtrip", "measure/procstat", "soak", "sweep", "measure/connectcost", "measure/profile"}
	drivers := []string{"github.com/go-sql-driver/mysql", "github.com/jackc/pgx", "github.com/lib/pq"}
	for _, r := range readers {
		out, err := exec.Command("go", "list", "-deps", "dbbench/runners/"+r).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, m := range measuring {
				if dep == "dbbench/runners/"+m {
					t.Errorf("%s links %s, a package that measures", r, dep)
				}
			}
			for _, d := range drivers {
				if strings.HasPrefix(dep, d) {
					t.Errorf("%s links %s, a database driver", r, dep)
				}
			}
		}
	}
}
