package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/matrix"
	"dbbench/runners/target"
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	dsnFile := fs.String("dsn-file", "", "file holding the DSN (from 'dbbench db up --dsn-out')")
	listen := fs.String("listen", "127.0.0.1:8080", "HTTP address of the target")
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	name, err := parseWithVariant(fs, "serve", args)
	if err != nil {
		return err
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	v, err := m.Resolve(name)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	spec, err := m.Spec(v)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *dsnFile == "" && spec.Layer.DB {
		return fmt.Errorf("%w: serve %s needs --dsn-file", errUsage, v.Key())
	}
	t, err := target.Start(ctx, spec, target.Options{DSNFile: *dsnFile, Listen: *listen, RepoRoot: root, Log: stderr})
	if err != nil {
		return err
	}
	defer t.Stop()
	fmt.Fprintf(stdout, "serving %s at %s (try %s/users/42); Ctrl-C to stop\n", v.Key(), t.URL, t.URL)
	if t.AdminURL != "" {
		fmt.Fprintf(stdout, "admin (DBStats, pprof) at %s\n", t.AdminURL)
	}
	<-ctx.Done()
	return t.Stop()
}

// loadMatrix finds the repository and reads the matrix: file, or the repository's
// runners/matrix.yaml when file is "".
func loadMatrix(file string) (root string, m *matrix.Matrix, err error) {
	if root, err = repoRoot(); err != nil {
		return "", nil, err
	}
	if file == "" {
		file = filepath.Join(root, "runners", "matrix.yaml")
	}
	m, err = matrix.Load(file)
	return root, m, err
}

func listVariants(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("variants", stderr)
	preset := fs.String("preset", "quick", "preset to expand")
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	p, err := m.Preset(*preset)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	for _, v := range m.Expand(p) {
		fmt.Fprintln(stdout, v.Name())
	}
	return nil
}

// parseWithVariant parses the flags of a command that takes one variant, before or
// after them (the design writes serve VARIANT --dsn-file F), and returns the variant.
func parseWithVariant(fs *flag.FlagSet, cmd string, args []string) (string, error) {
	var name string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("%w: %s takes one variant, got extra %q", errUsage, cmd, fs.Arg(0))
	}
	if name == "" {
		return "", fmt.Errorf("%w: %s needs a variant, like lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=8", errUsage, cmd)
	}
	return name, nil
}
