package stats

import (
	"math"
	"slices"
)

// uslParams are the fitted parameters: ln λ, σ, κ. Fitting ln λ keeps λ positive and
// makes its step scale-free.
type uslParams [3]float64

// uslLogModel is ln X(N) under p.
func uslLogModel(p uslParams, n float64) float64 {
	return p[0] + math.Log(n) - math.Log(1+p[1]*(n-1)+p[2]*n*(n-1))
}

// clamp puts σ into [0, 1] and κ into [0, ∞).
func (p uslParams) clamp() uslParams {
	p[1] = math.Min(1, math.Max(0, p[1]))
	p[2] = math.Max(0, p[2])
	return p
}

// uslStart fits N/X = a + bN + cN² by linear least squares weighted by (X/N)², so that
// each point counts by its relative error as in the final fit, and maps a, b, c to
// λ, σ, κ (clamped into bounds). N is scaled by its largest value to keep the normal
// equations well conditioned.
func uslStart(n, x []float64) uslParams {
	scale := slices.Max(n)
	var a [3][3]float64
	var rhs [3]float64
	for i := range n {
		u := n[i] / scale
		z := n[i] / x[i]
		w := 1 / (z * z)
		basis := [3]float64{1, u, u * u}
		for r := range 3 {
			for c := range 3 {
				a[r][c] += w * basis[r] * basis[c]
			}
			rhs[r] += w * basis[r] * z
		}
	}
	coef, ok := solve3(a, rhs, [3]bool{true, true, true})
	b, c := coef[1]/scale, coef[2]/(scale*scale)
	lambda := 1 / (coef[0] + b + c)
	if !ok || !(lambda > 0) || math.IsInf(lambda, 1) {
		// No usable linear fit: start from the smallest N's throughput per client.
		i := slices.Index(n, slices.Min(n))
		return uslParams{math.Log(x[i] / n[i]), 0, 0}
	}
	return uslParams{math.Log(lambda), (b + c) * lambda, c * lambda}.clamp()
}

// uslRefine minimises Σ (ln X_i - ln X(N_i))² from p by Levenberg–Marquardt with
// Marquardt's diagonal scaling. A parameter on a bound whose gradient pushes it out
// is held for that step; every step is clamped into the bounds. It stops when no step
// improves the fit even with heavy damping.
func uslRefine(n, logX []float64, p uslParams) uslParams {
	cost := uslCost(n, logX, p)
	damping := 1e-3
	for iter := 0; iter < 1000 && damping < 1e16; iter++ {
		jtj, jtr := uslNormalEquations(n, logX, p)
		free := [3]bool{true, !(p[1] <= 0 && jtr[1] <= 0 || p[1] >= 1 && jtr[1] >= 0), !(p[2] <= 0 && jtr[2] <= 0)}
		for i := range 3 {
			jtj[i][i] += damping * math.Max(jtj[i][i], 1e-300)
		}
		step, ok := solve3(jtj, jtr, free)
		if !ok {
			damping *= 10
			continue
		}
		q := uslParams{p[0] + step[0], p[1] + step[1], p[2] + step[2]}.clamp()
		if c := uslCost(n, logX, q); c < cost {
			p, cost = q, c
			damping = math.Max(damping/10, 1e-12)
		} else {
			damping *= 10
		}
	}
	return p
}

// uslCost is the sum of squared log residuals.
func uslCost(n, logX []float64, p uslParams) float64 {
	var s float64
	for i := range n {
		r := logX[i] - uslLogModel(p, n[i])
		s += r * r
	}
	return s
}

// uslNormalEquations returns JᵀJ and Jᵀr for the log residuals r at p, J being the
// derivatives of ln X(N) by ln λ, σ and κ.
func uslNormalEquations(n, logX []float64, p uslParams) (jtj [3][3]float64, jtr [3]float64) {
	for i := range n {
		d := 1 + p[1]*(n[i]-1) + p[2]*n[i]*(n[i]-1)
		j := [3]float64{1, -(n[i] - 1) / d, -n[i] * (n[i] - 1) / d}
		r := logX[i] - uslLogModel(p, n[i])
		for a := range 3 {
			for b := range 3 {
				jtj[a][b] += j[a] * j[b]
			}
			jtr[a] += j[a] * r
		}
	}
	return jtj, jtr
}

// solve3 solves a·v = b for the unknowns marked free (the others are 0) by Gaussian
// elimination with partial pivoting. ok is false when the system is singular.
func solve3(a [3][3]float64, b [3]float64, free [3]bool) (v [3]float64, ok bool) {
	var idx []int
	for i, f := range free {
		if f {
			idx = append(idx, i)
		}
	}
	m := len(idx)
	var aug [3][4]float64
	for r, i := range idx {
		for c, j := range idx {
			aug[r][c] = a[i][j]
		}
		aug[r][m] = b[i]
	}
	for col := range m {
		piv := col
		for r := col + 1; r < m; r++ {
			if math.Abs(aug[r][col]) > math.Abs(aug[piv][col]) {
				piv = r
			}
		}
		if aug[piv][col] == 0 || math.IsNaN(aug[piv][col]) {
			return v, false
		}
		aug[col], aug[piv] = aug[piv], aug[col]
		for r := col + 1; r < m; r++ {
			f := aug[r][col] / aug[col][col]
			for c := col; c <= m; c++ {
				aug[r][c] -= f * aug[col][c]
			}
		}
	}
	for r := m - 1; r >= 0; r-- {
		s := aug[r][m]
		for c := r + 1; c < m; c++ {
			s -= aug[r][c] * v[idx[c]]
		}
		v[idx[r]] = s / aug[r][r]
	}
	return v, true
}
