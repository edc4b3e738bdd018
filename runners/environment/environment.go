// Package environment records what a measurement depends on: machine, kernel, versions
// of every server, language, driver and ORM, and the repository's commit. The keys are
// lowercase with dashes, so they double as benchfmt configuration lines in bench.txt.
package environment

import (
	"bufio"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// goModules are the target's dependencies worth naming, by module path.
var goModules = map[string]string{
	"github.com/go-sql-driver/mysql":  "go-sql-driver-mysql",
	"github.com/Masterminds/squirrel": "squirrel",
	"github.com/beego/beego/v2":       "beego",
	"gorm.io/gorm":                    "gorm",
	"gorm.io/driver/mysql":            "gorm-driver-mysql",
}

// Collect gathers the environment. root is the repository, gotarget the Go target
// binary (its module versions are read from its build info). What cannot be found is
// recorded as "unknown" rather than left out, so its absence is visible.
func Collect(root, gotarget string) map[string]string {
	env := map[string]string{
		"goos":            runtime.GOOS,
		"goarch":          runtime.GOARCH,
		"cpu":             cpuModel(),
		"cpu-count":       strconv.Itoa(runtime.NumCPU()),
		"mem-total":       memTotal(),
		"kernel":          firstLine(readFile("/proc/sys/kernel/osrelease")),
		"os":              osName(),
		"dbbench-go":      runtime.Version(),
		"dbbench-commit":  gitCommit(root),
		"php":             command("php", "-r", "echo PHP_VERSION;"),
		"php-fpm":         versionIn(command("php-fpm8.2", "-v"), `PHP (\S+)`),
		"nginx":           versionIn(command("nginx", "-v"), `nginx/(\S+)`),
		"illuminate":      illuminate(root),
		"mariadbd-binary": versionIn(command("mariadbd", "--version"), `Ver (\S+)`),
	}
	if info, err := buildinfo.ReadFile(gotarget); err == nil {
		env["gotarget-go"] = info.GoVersion
		for _, d := range info.Deps {
			if name, ok := goModules[d.Path]; ok {
				env[name] = d.Version
			}
		}
	}
	for k, v := range env {
		if v == "" {
			env[k] = "unknown"
		}
	}
	return env
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// command runs a version query and returns its combined output (nginx prints to stderr).
func command(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func versionIn(s, pattern string) string {
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
	head := command("git", "-C", root, "rev-parse", "HEAD")
	if head == "" {
		return ""
	}
	if command("git", "-C", root, "status", "--porcelain", "--untracked-files=no") != "" {
		head += "-dirty"
	}
	return head
}

// illuminate is the version of illuminate/database the PHP targets load: Composer's
// when php/vendor exists (the front controller prefers it), else Debian's package.
func illuminate(root string) string {
	if b, err := os.ReadFile(filepath.Join(root, "php", "vendor", "composer", "installed.json")); err == nil {
		if m := regexp.MustCompile(`"name":\s*"illuminate/database",\s*"version":\s*"([^"]+)"`).FindSubmatch(b); m != nil {
			return string(m[1]) + " (composer)"
		}
	}
	if v := command("dpkg-query", "-W", "-f=${Version}", "php-illuminate-database"); v != "" {
		return v + " (debian)"
	}
	return ""
}
