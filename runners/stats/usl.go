package stats

import (
	"fmt"
	"math"
	"slices"
)

// USL is Gunther's Universal Scalability Law fitted to throughput X at concurrency N:
//
//	X(N) = λN / (1 + σ(N-1) + κN(N-1))
type USL struct {
	Lambda float64 // throughput of one client (X(1))
	Sigma  float64 // contention: the serialized fraction, in [0, 1]
	Kappa  float64 // coherency: the cost of each pair of clients keeping in step, >= 0
	R2     float64 // 1 - SSres/SStot on X (1 for an exact fit of an exactly flat curve)
	// NStar is the concurrency of peak throughput, sqrt((1-σ)/κ), at least 1. With κ = 0
	// there is no peak: NStar is +Inf and PeakX the asymptote λ/σ (+Inf when σ is 0
	// too: linear scaling). Warnings says so, and when N* lies beyond the largest N
	// measured.
	NStar, PeakX float64
	Warnings     []string
}

// FitUSL fits the Universal Scalability Law to the points (n[i], x[i]): concurrency
// (clients, pool size) and throughput. Repeated n are allowed.
//
// Method: least squares on the logarithm of X (the noise of throughput is
// proportional to it, so each point counts by its relative error), over λ > 0,
// σ in [0, 1] and κ >= 0: Levenberg–Marquardt (Marquardt 1963, J. SIAM 11:431-441) on
// (ln λ, σ, κ), a bound reached being held while the gradient pushes against it. It
// starts from the linearised form N/X = a + bN + cN², whose coefficients give
// λ = 1/(a+b+c), σ = (b+c)λ, κ = cλ by weighted linear least squares (exact for
// noise-free data). Reference: Gunther, Guerrilla Capacity Planning (Springer, 2007),
// ch. 4-6.
//
// It needs at least 3 different n (three parameters), every n >= 1 and every x > 0.
func FitUSL(n, x []float64) (USL, error) {
	if err := checkUSLPoints(n, x); err != nil {
		return USL{}, err
	}
	logX := make([]float64, len(x))
	for i := range x {
		logX[i] = math.Log(x[i])
	}
	p := uslRefine(n, logX, uslStart(n, x))
	return uslResult(n, x, p), nil
}

// Predict returns the fitted throughput at concurrency n.
func (u USL) Predict(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

func checkUSLPoints(n, x []float64) error {
	if len(n) != len(x) {
		return fmt.Errorf("usl: %d concurrencies but %d throughputs", len(n), len(x))
	}
	for i := range n {
		if !(n[i] >= 1) || math.IsInf(n[i], 1) || !(x[i] > 0) || math.IsInf(x[i], 1) {
			return fmt.Errorf("usl: point %d is (N = %v, X = %v), want finite N >= 1 and X > 0", i+1, n[i], x[i])
		}
	}
	if distinct := len(slices.Compact(slices.Sorted(slices.Values(n)))); distinct < 3 {
		return fmt.Errorf("usl: %d different concurrencies, want at least 3 to fit λ, σ and κ", distinct)
	}
	return nil
}

// uslResult turns fitted parameters into a USL with its goodness of fit and peak.
func uslResult(n, x []float64, p uslParams) USL {
	maxN := slices.Max(n)
	if p[2]*maxN*(maxN-1) < 1e-9 {
		// κ's term moves no fitted point by more than a part in 10⁹: it is rounding
		// residue, and the honest answer is "no peak".
		p[2] = 0
	}
	u := USL{Lambda: math.Exp(p[0]), Sigma: p[1], Kappa: p[2]}
	var mean, ssRes, ssTot float64
	for _, v := range x {
		mean += v / float64(len(x))
	}
	for i := range x {
		ssRes += (x[i] - u.Predict(n[i])) * (x[i] - u.Predict(n[i]))
		ssTot += (x[i] - mean) * (x[i] - mean)
	}
	switch {
	case ssTot > 0:
		u.R2 = 1 - ssRes/ssTot
	case ssRes <= 1e-20*mean*mean*float64(len(x)): // a flat curve fitted exactly
		u.R2 = 1
	}

	switch {
	case u.Kappa == 0 && u.Sigma == 0:
		u.NStar, u.PeakX = math.Inf(1), math.Inf(1)
		u.Warnings = append(u.Warnings, "κ = 0 and σ = 0: linear scaling, no peak")
	case u.Kappa == 0:
		u.NStar, u.PeakX = math.Inf(1), u.Lambda/u.Sigma
		u.Warnings = append(u.Warnings, fmt.Sprintf("κ = 0: no peak, throughput approaches λ/σ = %.4g", u.PeakX))
	default:
		u.NStar = math.Max(1, math.Sqrt((1-u.Sigma)/u.Kappa))
		u.PeakX = u.Predict(u.NStar)
		if u.NStar > maxN {
			u.Warnings = append(u.Warnings, fmt.Sprintf("peak at N* = %.4g, beyond the largest N measured (%.4g): extrapolated", u.NStar, maxN))
		}
	}
	return u
}
