// Package environment records the machine a measurement depends on: CPU, memory,
// kernel, OS, dbbench's own Go and the repository's commit. (Each target launcher adds
// its runtime's and its libraries' versions: runners/measure/target.) The keys are lowercase
// with dashes, so they double as benchfmt configuration lines in bench.txt.
package environment

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// Collect gathers the machine's facts; root is the repository. What cannot be found is
// recorded as "unknown" rather than left out, so its absence is visible.
func Collect(root string) map[string]string {
	env := map[string]string{
		"goos":            runtime.GOOS,
		"goarch":          runtime.GOARCH,
		"cpu":             cpuModel(),
		"cpu-count":       strconv.Itoa(runtime.NumCPU()),
		"mem-total":       memTotal(),
		"kernel":          firstLine(readFile("/proc/sys/kernel/osrelease")),
		"virtualisation":  virtualisation(),
		"os":              osName(),
		"dbbench-go":      runtime.Version(),
		"dbbench-commit":  gitCommit(root),
		"mariadbd-binary": VersionIn(Command("mariadbd", "--version"), `Ver (\S+)`),
	}
	for k, v := range env {
		if v == "" {
			env[k] = "unknown"
		}
	}
	return env
}

// virtualisation names what the machine runs under, as systemd-detect-virt says it
// ("kvm", "docker", "none"); "" when it cannot say (Collect records "unknown", which
// compare never counts as a change): two runs under different ones differ as two
// machines do (runners/judge/compare).
func virtualisation() string {
	out, err := exec.Command("systemd-detect-virt").Output()
	if v := firstLine(string(out)); v == "none" || (err == nil && v != "") {
		return v // exit status 1 with "none" on bare metal
	}
	return ""
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// Command runs a query (a version, a commit) and returns its combined output, trimmed
// (nginx prints its version to stderr); "" when it fails. Target launchers use it for
// their runtimes' versions.
func Command(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// VersionIn is the first group of pattern in s, "" when it does not match:
// VersionIn(Command("nginx", "-v"), `nginx/(\S+)`) is "1.22.1".
func VersionIn(s, pattern string) string {
	if m := regexp.MustCompile(pattern).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memTotal() string {
	for _, line := range strings.Split(readFile("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// MemTotalKiB is this host's memory, MemTotal of /proc/meminfo (the environment's
// mem-total) in KiB; ok is false where it cannot be read (not Linux).
func MemTotalKiB() (kib int64, ok bool) {
	f := strings.Fields(memTotal())
	if len(f) != 2 || f[1] != "kB" {
		return 0, false
	}
	kib, err := strconv.ParseInt(f[0], 10, 64)
	return kib, err == nil
}

func osName() string {
	for _, line := range strings.Split(readFile("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// gitCommit is HEAD's hash, with "-dirty" when the work tree has uncommitted changes.
func gitCommit(root string) string {
	head := Command("git", "-C", root, "rev-parse", "HEAD")
	if head == "" {
		return ""
	}
	if Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no") != "" {
		head += "-dirty"
	}
	return head
}
