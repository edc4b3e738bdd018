package stats

import "math"

// The standard normal distribution, for the normal approximations of the signed-rank,
// Mann–Whitney and Kendall statistics.

// normalQuantile is the standard normal quantile function Φ⁻¹(p).
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// normalCDF is the standard normal distribution function Φ(x).
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
