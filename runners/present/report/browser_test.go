package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"dbbench/runners/present/doc"
	"dbbench/runners/results"
)

// The browser test opens report.html in Debian's chromium, headless, and checks what a
// reader sees: at 1366×768 the first screen holds the three answers; no text of a
// chart or a heading runs out of its box or over another; the variant table sorts and
// filters; the page fetches nothing and its CSP blocks nothing. It keeps a screenshot
// of the first screen and of every chart for a person to look at.
//
// DBBENCH_SCREENSHOTS names where the screenshots go (default testdata/artifacts);
// DBBENCH_REPORT_RUN names a results.json to check as well, a real run's.

// layoutJS measures the rendered page. Text boxes may touch but not cross by more than
// a pixel.
const layoutJS = `(() => {
  const R = e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top + scrollY, r: r.right, b: r.bottom + scrollY}; };
  const name = e => (e.closest("[id]") ? e.closest("[id]").id + " " : "") + JSON.stringify(e.textContent.slice(0, 50));
  const cross = (a, b) => a.l < b.r - 1 && b.l < a.r - 1 && a.t < b.b - 1 && b.t < a.b - 1;
  const overflow = [], overlap = [];
  const pairs = (els, boxes) => { for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++)
    if (cross(boxes[i], boxes[j])) overlap.push(name(els[i]) + " / " + name(els[j])); };
  let texts = 0;
  for (const svg of document.querySelectorAll("figure.chart svg")) {
    const box = R(svg), els = [...svg.querySelectorAll("text")], boxes = els.map(R);
    texts += els.length;
    els.forEach((e, i) => { const r = boxes[i];
      if (r.l < box.l - 1 || r.r > box.r + 1 || r.t < box.t - 1 || r.b > box.b + 1) overflow.push(name(e)); });
    pairs(els, boxes);
  }
  const width = document.documentElement.clientWidth;
  const heads = [...document.querySelectorAll("h1, h2, h3, figcaption")];
  heads.forEach(h => { if (h.scrollWidth > h.clientWidth + 1 || R(h).r > width + 1) overflow.push(name(h)); });
  pairs(heads, heads.map(R));
  const answers = [...document.querySelectorAll(".answer, .recommendation")].map(a => ({id: a.id, bottom: a.getBoundingClientRect().bottom}));
  return {overflow, overlap, texts, answers, viewport: innerHeight, pageWidth: document.documentElement.scrollWidth, width,
    figures: [...document.querySelectorAll("figure.chart")].map(f => f.id),
    fetched: performance.getEntriesByType("resource").map(e => e.name), blocked: window.blocked || []};
})()`

// blockedJS records every fetch the CSP blocks, from before the page's own code runs.
const blockedJS = `window.blocked = []; document.addEventListener("securitypolicyviolation", e => window.blocked.push(e.blockedURI + " " + e.violatedDirective));`

type layout struct {
	Overflow, Overlap []string
	Texts             int
	Answers           []struct {
		ID     string
		Bottom float64
	}
	Viewport, PageWidth, Width float64
	Figures, Fetched, Blocked  []string
}

func TestReportInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian package chromium, which runners/install-deps.sh installs): skipping the browser test of report.html")
	}
	out := os.Getenv("DBBENCH_SCREENSHOTS")
	if out == "" {
		out = "testdata/artifacts"
	}
	out, err = filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	r := pairedRun(t)
	withProfiles(r)
	t.Run("synthetic", func(t *testing.T) { checkInBrowser(t, bin, r, filepath.Join(out, "synthetic")) })
	t.Run("ops", func(t *testing.T) { checkInBrowser(t, bin, opsRun(t), filepath.Join(out, "ops")) })
	t.Run("sweep", func(t *testing.T) { checkSweepInBrowser(t, bin, filepath.Join(out, "sweep")) })
	t.Run("ab", func(t *testing.T) { checkABInBrowser(t, bin, abRun(t), filepath.Join(out, "ab")) })
	if path := os.Getenv("DBBENCH_REPORT_RUN"); path != "" {
		run, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		check := checkInBrowser
		if run.AB != nil {
			check = checkABInBrowser
		}
		t.Run("run", func(t *testing.T) { check(t, bin, run, filepath.Join(out, "run")) })
	}
}

func checkInBrowser(t *testing.T, bin string, r *results.Run, dir string) {
	html, err := HTML(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, l := open(t, bin, path)
	checkLayout(t, l)
	if len(l.Answers) != 4 {
		t.Errorf("%d answers on the page, want 4", len(l.Answers))
	}
	shoot(t, ctx, dir, l.Figures)
	checkSorting(t, ctx)
	checkFilter(t, ctx)
	t.Logf("report.html and its screenshots (first-screen.png, one per chart): %s", dir)
}

// checkABInBrowser does the same for a run of two revisions: one answer, "Did B cost
// anything?", on the first screen, its chart and table readable.
func checkABInBrowser(t *testing.T, bin string, r *results.Run, dir string) {
	html, err := HTML(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, l := open(t, bin, path)
	checkLayout(t, l)
	if len(l.Answers) != 1 {
		t.Errorf("%d answers on the page, want 1", len(l.Answers))
	}
	shoot(t, ctx, dir, l.Figures)
	t.Logf("the A/B report.html and its screenshots: %s", dir)
}

// checkSweepInBrowser does the same for a sweep's page: its recommendation on the
// first screen, its charts readable.
func checkSweepInBrowser(t *testing.T, bin, dir string) {
	html, err := doc.HTML(syntheticSweep(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, l := open(t, bin, path)
	checkLayout(t, l)
	if len(l.Answers) != 1 {
		t.Errorf("%d recommendations on the page, want 1", len(l.Answers))
	}
	shoot(t, ctx, dir, l.Figures)
	t.Logf("the sweep's report.html and its screenshots: %s", dir)
}

// open loads path at 1366×768 with the CSP watch in place, and measures it.
func open(t *testing.T, bin, path string) (context.Context, layout) {
	ctx := browser(t, bin)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: blockedJS}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	l, err := chromedp.Run(ctx, chromedp.Evaluate[layout](layoutJS))
	if err != nil {
		t.Fatalf("measure the page: %v", err)
	}
	return ctx, l
}

// syntheticSweep is a pool sweep's page in small: a recommendation, two levels of two
// charts, four families each.
func syntheticSweep(t *testing.T) *doc.Page {
	p := &doc.Page{Title: "dbbench pool sweep", Answer: []string{"Recommended pool: go/nethttp/raw/interpolate/persistent: 8 at 16, 32 at 64."},
		Intro: []string{"Closed loop at 16 and 64 client connections."}}
	for _, c := range []float64{16, 64} {
		var qps, p99 []doc.Series
		for i, fam := range []string{"go/raw/interpolate", "go/raw/prepare", "go/orm/interpolate", "php/raw/interpolate"} {
			s := doc.Series{Name: "lang=" + fam + "/conn=persistent", Stmt: strings.Split(fam, "/")[2], Conn: "persistent"}
			q, l := s, s
			for pool := 1.0; pool <= c; pool *= 2 {
				q.X, q.Y = append(q.X, pool), append(q.Y, 1000*float64(i+1)*math.Min(pool, 8))
				l.X, l.Y = append(l.X, pool), append(l.Y, 40/math.Min(pool, 8))
			}
			qps, p99 = append(qps, q), append(p99, l)
		}
		p.Sections = append(p.Sections, doc.Section{Heading: fmt.Sprintf("Concurrency %.0f", c), Charts: []doc.LineChart{
			{Title: fmt.Sprintf("Median QPS against pool size, %.0f client connections", c), XLabel: "pool (Go SetMaxOpenConns, PHP pm.max_children)", YLabel: "req/s", LogX: true, Series: qps},
			{Title: fmt.Sprintf("Median p99 against pool size, %.0f client connections", c), XLabel: "pool", YLabel: "p99 ms", LogX: true, Series: p99},
		}})
	}
	return p
}

// browser starts chromium as polyglot.md says root must: headless, no sandbox, nothing
// that phones home, a fresh profile. Cancelling kills it.
func browser(t *testing.T, bin string) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1366, 768),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	return ctx
}

func checkLayout(t *testing.T, l layout) {
	t.Helper()
	if l.Texts < 50 || len(l.Figures) < 2 {
		t.Errorf("%d chart texts in %d figures: the charts did not render", l.Texts, len(l.Figures))
	}
	for _, o := range l.Overflow {
		t.Errorf("text runs out of its box: %s", o)
	}
	for _, o := range l.Overlap {
		t.Errorf("texts overlap: %s", o)
	}
	for _, a := range l.Answers {
		if a.Bottom > l.Viewport {
			t.Errorf("%s ends at %.0f px, below the first screen (%.0f px)", a.ID, a.Bottom, l.Viewport)
		}
	}
	if l.PageWidth > l.Width+1 {
		t.Errorf("the page is %.0f px wide in a %.0f px window: it scrolls sideways", l.PageWidth, l.Width)
	}
	if len(l.Fetched) > 0 || len(l.Blocked) > 0 {
		t.Errorf("the page asked for resources: fetched %q, blocked %q", l.Fetched, l.Blocked)
	}
}

// shoot keeps the first screen and each chart as PNG files in dir.
func shoot(t *testing.T, ctx context.Context, dir string, figures []string) {
	t.Helper()
	shots := map[string]chromedp.Action[[]byte]{"first-screen.png": chromedp.CaptureScreenshot()}
	for _, id := range figures {
		shots["chart-"+id+".png"] = chromedp.Screenshot(chromedp.ID(id))
	}
	for name, shot := range shots {
		png, err := chromedp.Run(ctx, shot)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkSorting presses the QPS header of the variants table twice: ascending, then
// descending, by value. QPS is the first column after the keys (7 of them, 8 with op).
func checkSorting(t *testing.T, ctx context.Context) {
	t.Helper()
	col, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#t-variants th")].findIndex(th => th.textContent.startsWith("QPS"))`))
	if err != nil || col < 6 {
		t.Fatalf("the variants table's QPS column is at %d (%v), want it after the keys", col, err)
	}
	button := fmt.Sprintf("#t-variants th:nth-child(%d) button", col+1)
	column := chromedp.Evaluate[[]float64](fmt.Sprintf(`[...document.querySelectorAll("#t-variants tbody tr")].map(r => +r.cells[%d].dataset.v)`, col))
	for _, want := range []string{"ascending", "descending"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, column)
		if err != nil {
			t.Fatal(err)
		}
		sorted := slices.IsSorted(got)
		if want == "descending" {
			sorted = slices.IsSortedFunc(got, func(a, b float64) int { return cmpFloat(b, a) })
		}
		if !sorted || len(got) < 2 {
			t.Errorf("after pressing QPS for %s order the column reads %v", want, got)
		}
	}
}

// checkFilter shows only one layer, then all again.
func checkFilter(t *testing.T, ctx context.Context) {
	t.Helper()
	pick := func(value string) []string {
		js := `(() => { const s = document.querySelector('select[data-col="2"]'); s.value = ` + "`" + value + "`" + `;
		  s.dispatchEvent(new Event("change"));
		  return [...document.querySelectorAll("#t-variants tbody tr, #t-counts tbody tr")].filter(r => !r.hidden).map(r => r.cells[2].textContent); })()`
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		if err != nil {
			t.Fatalf("filter by layer %q: %v", value, err)
		}
		return got
	}
	all := pick("")
	gorm := pick("gorm") // a layer of every run this test reads, under one name
	if len(gorm) == 0 || len(gorm) >= len(all) || slices.ContainsFunc(gorm, func(s string) bool { return s != "gorm" }) {
		t.Errorf("filtered by layer gorm, the tables show %v (of %d rows)", gorm, len(all))
	}
	if again := pick(""); len(again) != len(all) {
		t.Errorf("after clearing the filter %d rows show, want %d", len(again), len(all))
	}
}
