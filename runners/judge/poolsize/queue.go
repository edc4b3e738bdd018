package poolsize

import "math"

// The M/M/c queue (Erlang C) sizes a pool: requests arrive at rate λ, each holds one of
// c servers (pooled connections, php-fpm children) for a mean time S, and a request that
// finds every server busy waits. With offered load a = λS < c, the probability that a
// request waits is C(c, a), and P(W > t) = C(c, a)·exp(-(c - a)·t/S) (Erlang, 1917;
// Kleinrock, Queueing Systems I, 1975, §3.5). Poisson arrivals are independent users'
// traffic; exponential holds are pessimistic for holds that vary less (a round trip plus
// a short query): WaitTailGG corrects for both.

// ErlangC is the probability that a request waits for one of c servers at offered load
// a (Erlangs). It is 1 when a >= c (the queue grows without bound), 0 for a <= 0, and
// NaN for c < 1.
func ErlangC(c int, a float64) float64 {
	switch {
	case c < 1 || math.IsNaN(a):
		return math.NaN()
	case a <= 0:
		return 0
	case a >= float64(c):
		return 1
	}
	// Erlang B by its recursion B(k) = a·B(k-1)/(k + a·B(k-1)), stable for any c.
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho*(1-b))
}

// WaitTail is P(W > t) for c servers, arrivals at rate and mean hold s (seconds): the
// M/M/c queue, WaitTailGG with a variability of 1.
func WaitTail(c int, rate, s, t float64) float64 {
	return WaitTailGG(c, rate, s, t, 1)
}

// WaitTailGG is P(W > t) in a G/G/c queue by the Allen–Cunneen approximation: the wait
// of those who wait is taken as exponential with M/M/c's mean scaled by v = (ca² + cs²)/2,
// the squared coefficients of variation of the gaps between arrivals (ca²: 1 at random,
// 0 evenly spaced) and of the holds (cs²: 1 exponential, 0 constant) (Allen, Probability,
// Statistics and Queueing Theory, 1978, §6.4; Whitt, "Approximations for the GI/G/m
// queue", Production and Operations Management 2(2), 1993). The chance to wait is kept
// at M/M/c's C(c, a), which overstates it for regular traffic: the error is toward a
// larger pool. At v = 0 (a constant hold, evenly spaced arrivals) nobody waits below
// a < c.
func WaitTailGG(c int, rate, s, t, v float64) float64 {
	a := rate * s
	pw := ErlangC(c, a)
	if pw == 1 || math.IsNaN(pw) {
		return pw
	}
	if v <= 0 {
		return 0
	}
	return pw * math.Exp(-(float64(c)-a)*t/(s*v))
}
