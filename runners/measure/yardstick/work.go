// Package yardstick is fixed work that depends on none of the code under test, timed
// during a run so that a run knows how fast its machine was while it ran, and two runs
// can tell a machine that changed from code that changed (dbbench compare).
//
// One trial does the same CPU-bound work every time, on one thread, with no allocation
// and no system call while it is timed. Its time is wall-clock: the figures it stands
// beside (requests per second) are wall-clock too, so a host whose cores are slower,
// throttled or shared with neighbours shows in both.
package yardstick

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Description says what one trial does, for results.json's Yardstick.Work. It names
// the version of the work: trials of different work are not comparable.
const Description = "yardstick v1: 8 rounds of (sort 32768 uint64, FNV-1a over 16 × 256 KiB, " +
	"chase 131072 pointers through a 1 MiB random cycle), one thread, wall-clock seconds"

// The work's size: the three parts take about the same time, and one trial is long
// enough that timer resolution and a stray interrupt do not matter, short enough that
// a reading's ten trials cost well under a second (README.md, "Measured", has the
// times).
const (
	rounds     = 8
	sortLen    = 32768     // 256 KiB of uint64: data-dependent branches, within L2
	hashBytes  = 256 << 10 // a serial multiply-xor chain over bytes, from L2
	hashPasses = 16
	chaseLen   = 131072 // uint64 indices, 1 MiB: one cycle through it is dependent loads missing L2
)

// inputs are generated once from a fixed seed, outside any timing.
type inputs struct {
	unsorted []uint64 // pseudo-random values to sort (copied into scratch each round)
	scratch  []uint64
	bytes    []byte
	next     []uint64 // a single random cycle: next[i] is the index after i
}

var (
	prepared inputs
	prepare  sync.Once
	sink     uint64 // keeps the compiler from removing the work
	workMu   sync.Mutex
)

func setup() {
	rng := rand.New(rand.NewPCG(0x79617264, 0x737469636b)) // "yard", "stick"
	in := inputs{
		unsorted: make([]uint64, sortLen),
		scratch:  make([]uint64, sortLen),
		bytes:    make([]byte, hashBytes),
		next:     make([]uint64, chaseLen),
	}
	for i := range in.unsorted {
		in.unsorted[i] = rng.Uint64()
	}
	for i := range in.bytes {
		in.bytes[i] = byte(rng.Uint32())
	}
	// Sattolo's algorithm: a random permutation that is one single cycle, so the chase
	// visits every slot before it repeats.
	perm := make([]uint64, chaseLen)
	for i := range perm {
		perm[i] = uint64(i)
	}
	for i := chaseLen - 1; i > 0; i-- {
		j := rng.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	for i := range perm {
		in.next[perm[i]] = perm[(i+1)%chaseLen]
	}
	prepared = in
}

// Work runs one trial and returns its wall-clock time: lower is a faster machine. Calls
// are serialised (one trial at a time) so that trials never compete with each other.
func Work() time.Duration {
	prepare.Do(setup)
	workMu.Lock()
	defer workMu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	var acc uint64
	for range rounds {
		acc += sortRound(&prepared)
		acc += hashRound(prepared.bytes)
		acc += chaseRound(prepared.next)
	}
	d := time.Since(start)
	sink += acc
	return d
}

// sortRound sorts a fresh copy of the fixed values: data-dependent branches.
func sortRound(in *inputs) uint64 {
	copy(in.scratch, in.unsorted)
	slices.Sort(in.scratch)
	return in.scratch[sortLen/2]
}

// hashRound is FNV-1a over the buffer: a serial chain of multiplies, as parsing and
// hashing code is.
func hashRound(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for range hashPasses {
		for _, c := range b {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return h
}

// chaseRound follows the cycle once around: each load depends on the one before, as
// walking pointers through a heap of objects does.
func chaseRound(next []uint64) uint64 {
	var i uint64
	for range chaseLen {
		i = next[i]
	}
	return i
}

// Read runs n timed trials after one untimed warm-up trial (page faults, cold caches)
// and returns their times in seconds, in the order measured.
func Read(n int) []float64 {
	Work()
	out := make([]float64, n)
	for i := range out {
		out[i] = Work().Seconds()
	}
	return out
}
