package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"dbbench/runners/matrix"
	"dbbench/runners/target"
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

// preset is the matrix's preset name, given with --preset.
// loadPreset loads the matrix and its preset presetName, and compiles pattern (""
// keeps every variant), a usage error named what when it does not compile: run and ab
// read their --matrix, --preset and --variants so.
func loadPreset(matrixFile, presetName, what, pattern string) (string, *matrix.Matrix, *matrix.Preset, *regexp.Regexp, error) {
	root, m, err := loadMatrix(matrixFile)
	if err != nil {
		return "", nil, nil, nil, err
	}
	p, err := preset(m, presetName)
	if err != nil {
		return "", nil, nil, nil, err
	}
	var re *regexp.Regexp
	if pattern != "" {
		if re, err = regexp.Compile(pattern); err != nil {
			return "", nil, nil, nil, fmt.Errorf("%w: %s: %v", errUsage, what, err)
		}
	}
	return root, m, p, re, nil
}

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
