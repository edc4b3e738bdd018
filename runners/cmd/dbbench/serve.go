package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/target"
)

// serveConfig is `dbbench serve VARIANT`.
type serveConfig struct {
	root    string
	spec    matrix.Spec
	dsnFile string
	listen  string
}

func parseServe(fs *flagSet, args []string) (action, error) {
	dsnFile := fs.String("dsn-file", "", anything, "file holding the DSN (from 'dbbench db up --dsn-out')")
	listen := fs.String("listen", "127.0.0.1:8080", anything, "HTTP address of the target")
	matrixFile := fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	name, err := parseWithVariant(fs, args)
	if err != nil {
		return nil, err
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return nil, err
	}
	spec, err := resolveSpec(m, name)
	if err != nil {
		return nil, err
	}
	if *dsnFile == "" && spec.Layer.DB {
		return nil, fmt.Errorf("%w: serve %s needs --dsn-file", errUsage, spec.Variant.Key())
	}
	return serveConfig{root: root, spec: spec, dsnFile: *dsnFile, listen: *listen}.run, nil
}

func (c serveConfig) run(ctx context.Context, stdout, stderr io.Writer) error {
	t, err := target.Start(ctx, c.spec, target.Options{DSNFile: c.dsnFile, Listen: c.listen, RepoRoot: c.root, Log: stderr})
	if err != nil {
		return err
	}
	defer t.Stop()
	fmt.Fprintf(stdout, "serving %s at %s (try %s/users/42); Ctrl-C to stop\n", c.spec.Variant.Key(), t.URL, t.URL)
	if t.AdminURL != "" {
		fmt.Fprintf(stdout, "admin (DBStats, pprof) at %s\n", t.AdminURL)
	}
	<-ctx.Done()
	return t.Stop()
}

// resolveSpec resolves a variant name against the matrix; a name the matrix does not
// allow is a usage error.
func resolveSpec(m *matrix.Matrix, name string) (matrix.Spec, error) {
	v, err := m.Resolve(name)
	if err != nil {
		return matrix.Spec{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	spec, err := m.Spec(v)
	if err != nil {
		return matrix.Spec{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	return spec, nil
}

// loadMatrix finds the repository and reads the matrix: file, or the repository's
// runners/matrix.yaml when file is "".
func loadMatrix(file string) (root string, m *matrix.Matrix, err error) {
	if root, err = repoRoot(); err != nil {
		return "", nil, err
	}
	if file == "" {
		m, err = matrix.Load(filepath.Join(root, "runners", "matrix.yaml"))
		return root, m, err
	}
	if m, err = matrix.Load(file); err != nil {
		return "", nil, fmt.Errorf("%w: --matrix %s: %v", errUsage, file, err)
	}
	return root, m, nil
}

// presetFlags are how run and ab choose what to measure: the database flags, --preset
// and --variants, whose help each command words.
type presetFlags struct {
	db               dbFlags
	preset, variants *string
}

func (f *presetFlags) register(fs *flagSet, variantsHelp string) {
	f.db.register(fs)
	f.preset = fs.String("preset", "quick", anything, "preset from the matrix: smoke, quick, full")
	f.variants = fs.String("variants", "", anything, variantsHelp)
}

// selection is what presetFlags load: the checkout's root, the matrix, the preset, the
// --variants pattern (nil keeps every variant) and the database options.
type selection struct {
	root    string
	m       *matrix.Matrix
	preset  *matrix.Preset
	pattern *regexp.Regexp
	db      provider.Options
	dbs     []string // --db: the servers to measure on, side by side
}

// load reads matrixFile ("": the default), the preset and the --variants pattern (a
// usage error when it does not compile), then the database options: run and ab in the
// same order, with the same messages.
func (f *presetFlags) load(fs *flagSet, matrixFile string) (selection, error) {
	root, m, err := loadMatrix(matrixFile)
	if err != nil {
		return selection{}, err
	}
	sel := selection{root: root, m: m}
	if sel.preset, err = preset(m, *f.preset); err != nil {
		return selection{}, err
	}
	if *f.variants != "" {
		if sel.pattern, err = regexp.Compile(*f.variants); err != nil {
			return selection{}, fmt.Errorf("%w: %s: --variants: %v", errUsage, fs.cmd, err)
		}
	}
	f.db.several = true
	if sel.db, err = f.db.options(0, fs.out); err != nil {
		return selection{}, err
	}
	sel.dbs = f.db.servers()
	return sel, nil
}

// preset is the matrix's preset name, given with --preset.
func preset(m *matrix.Matrix, name string) (*matrix.Preset, error) {
	p, err := m.Preset(name)
	if err != nil {
		return nil, fmt.Errorf("%w: --preset %s: %v", errUsage, quoteEmpty(name), err)
	}
	return p, nil
}

func parseVariants(fs *flagSet, args []string) (action, error) {
	matrixFile := fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	presetName := fs.String("preset", "quick", anything, "preset to expand")
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if err := fs.noArgs(); err != nil {
		return nil, err
	}
	_, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return nil, err
	}
	p, err := preset(m, *presetName)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, stdout, _ io.Writer) error {
		for _, v := range m.Expand(p) {
			fmt.Fprintln(stdout, v.Name())
		}
		return nil
	}, nil
}

// parseWithVariant parses the flags of a command that takes one variant, before or
// after them (the design writes serve VARIANT --dsn-file F), and returns the variant.
func parseWithVariant(fs *flagSet, args []string) (string, error) {
	var name string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if err := fs.parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("%w: %s takes one variant, got extra %q", errUsage, fs.cmd, fs.Arg(0))
	}
	if name == "" {
		return "", fmt.Errorf("%w: %s needs a variant, like lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=8", errUsage, fs.cmd)
	}
	return name, nil
}
