package yardstick

import (
	"time"

	"dbbench/runners/results"
)

// Take reads the yardstick now: n trials (10 is the run's default) labelled with the
// moment of the run (start, after <lang>, end). Call it while no load runs, so that the
// trials measure the machine and not the targets.
// Its kernel trials follow the user-space ones; when loopback TCP fails the reading has
// none, and compare says so.
func Take(phase string, n int) *results.Reading {
	at := time.Now()
	r := &results.Reading{At: at, Phase: phase, Trials: Read(n)}
	r.Kernel, _ = ReadKernel(n)
	return r
}

// New is an empty yardstick of this package's work, for a run to append readings to.
func New() *results.Yardstick {
	return &results.Yardstick{Work: Description, KernelWork: KernelDescription}
}
