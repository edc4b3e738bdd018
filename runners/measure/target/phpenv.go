package target

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/environment"
)

// describePHP runs php/bin/describe.php, which lists the layer classes of php/src/Layer/.
func describePHP(o Options) (*Description, error) {
	phpDir, err := findPHPDir(o.RepoRoot)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("php", "-n", filepath.Join(phpDir, "bin", "describe.php")).Output()
	if err != nil {
		return nil, fmt.Errorf("target: php %s: %w", filepath.Join(phpDir, "bin", "describe.php"), err)
	}
	return parseDescription("php/bin/describe.php", out)
}

// phpEnvironment is what every PHP runtime records: the PHP version and each database
// layer's Debian package. When php/vendor exists, the code loads Composer's packages
// instead (php/bootstrap.php): the record says so rather than naming Debian's.
func phpEnvironment(o Options, lang string, layers []*matrix.Layer) map[string]string {
	env := map[string]string{"php": environment.Command("php", "-n", "-r", "echo PHP_VERSION;")}
	vendor := filepath.Join(o.RepoRoot, "php", "vendor", "composer", "installed.json")
	if _, err := os.Stat(vendor); err == nil {
		env["php-vendor"] = "php/vendor present: Composer's packages are loaded, see " + vendor
	}
	for _, layer := range layers {
		if layer.DB {
			env[LayerKey(lang, layer.Name)] = strings.TrimSpace(layer.VersionOf + " " + environment.Command("dpkg-query", "-W", "-f=${Version}", layer.VersionOf))
		}
	}
	return env
}
