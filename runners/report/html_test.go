package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// probe is appended to a copy of report.html (the report itself has no script): after
// layout it writes each chart's rendered size, the resources the page fetched and any
// fetch the CSP blocked into the DOM, which chromium --dump-dom then prints.
const probe = `<script>
const blocked = [];
document.addEventListener("securitypolicyviolation", e => blocked.push(e.blockedURI + " (" + e.violatedDirective + ")"));
setTimeout(() => {
  const charts = [...document.querySelectorAll("figure.chart")].map(f => {
    const s = f.querySelector("svg"), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    return {id: f.id, width: r.width, height: r.height};
  });
  const fetched = performance.getEntriesByType("resource").map(e => e.name);
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = "PRO" + "BE" + JSON.stringify({charts, fetched, blocked}) + "EB" + "ORP"; // not found in the script itself
  document.body.appendChild(pre);
}, 500);
</script>
</body>`

type probeResult struct {
	Charts []struct {
		ID            string
		Width, Height float64
	}
	Fetched []string
	Blocked []string
}

// chromium runs Debian's chromium headless on a fresh profile with everything that
// phones home switched off, in its own process group, killed at the end whatever happens.
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian package chromium; `make deps` installs it): skipping the browser test of report.html")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	// Helpers chromium forked share its process group: none outlives the test.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func TestHTMLRendersInHeadlessChromium(t *testing.T) {
	page, err := HTML(fakeRun(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	// The page names no URL it could fetch: only the SVG namespaces mention http.
	namespaces := regexp.MustCompile(`xmlns(:xlink)?="http://www\.w3\.org/[0-9]+/(svg|xlink)"`)
	if rest := namespaces.ReplaceAll(page, nil); bytes.Contains(rest, []byte("http:")) || bytes.Contains(rest, []byte("https:")) || bytes.Contains(rest, []byte("<script")) {
		t.Errorf("report.html refers to the network or has a script")
	}
	wantCharts := bytes.Count(page, []byte(`<figure class="chart"`))
	if wantCharts != 3 { // QPS, the go latency spectrum, CPU
		t.Errorf("%d charts, want 3", wantCharts)
	}

	// A stable place, so a person can open the page and its screenshot after the test.
	dir, err := filepath.Abs("testdata/artifacts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	htmlPath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(htmlPath, page, 0o644); err != nil {
		t.Fatal(err)
	}
	probed := bytes.Replace(page, []byte("</body>"), []byte(probe), 1)
	// The same policy, plus the probe's inline script.
	policy := regexp.MustCompile(`content="default-src &#39;none&#39;;[^"]*"`)
	if !policy.Match(probed) {
		t.Fatalf("report.html has no CSP forbidding every fetch")
	}
	probed = policy.ReplaceAll(probed, []byte(`content="`+csp+`; script-src 'unsafe-inline'"`))
	probePath := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probePath, probed, 0o644); err != nil {
		t.Fatal(err)
	}

	dom := chromium(t, "--virtual-time-budget=5000", "--dump-dom", "file://"+probePath)
	m := regexp.MustCompile(`PROBE(.*?)EBORP`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing; DOM:\n%.2000s", dom)
	}
	var res probeResult
	if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("&quot;"), []byte(`"`)), &res); err != nil {
		t.Fatalf("probe output %q: %v", m[1], err)
	}
	if len(res.Charts) != wantCharts {
		t.Errorf("browser found %d charts, want %d", len(res.Charts), wantCharts)
	}
	for _, c := range res.Charts {
		if c.Width <= 0 || c.Height <= 0 {
			t.Errorf("chart %s rendered at %vx%v, want a non-zero size", c.ID, c.Width, c.Height)
		}
	}
	if len(res.Fetched) != 0 || len(res.Blocked) != 0 {
		t.Errorf("the page asked for resources: fetched %q, blocked %q", res.Fetched, res.Blocked)
	}

	png := filepath.Join(dir, "report.png")
	_ = os.Remove(png)
	chromium(t, "--window-size=1280,2400", "--screenshot="+png, "file://"+htmlPath)
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("report.html and its screenshot: %s, %s", htmlPath, png)
}
