//! Exact samplers for the batched engine: the length of a collision-free run of interactions and
//! (multivariate) hypergeometric draws, exact and fast for populations up to `2^62` agents.
//!
//! Logarithms of falling factorials are computed in a cancellation-free form (Stirling's series for
//! the difference, not the difference of two huge `ln Γ` values), so probabilities stay accurate to
//! about `1e-12` relative even at `n = 10^11`.

use crate::rng::{PopRng, below_u64};
use rand_core::Rng;

/// A uniform float in `(0, 1]` from 53 random bits (never 0, so its logarithm is finite).
#[inline]
pub(crate) fn unit_open0(rng: &mut PopRng) -> f64 {
    ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `x as f64` (rounded to nearest), through the fast 64-bit conversion when `x` fits in 64 bits:
/// the 128-bit one is a library call. The same value either way.
#[inline]
pub(crate) fn u128_as_f64(x: u128) -> f64 {
    // Kept out of line, or the compiler merges the two branches into the slow conversion.
    #[cold]
    #[inline(never)]
    fn wide(x: u128) -> f64 {
        x as f64
    }
    match u64::try_from(x) {
        Ok(x) => x as f64,
        Err(_) => wide(x),
    }
}

/// `x as u128` (truncated, saturating), through the fast 64-bit conversion below `2^64`: the same
/// value either way.
#[inline]
pub(crate) fn f64_as_u128(x: f64) -> u128 {
    #[cold]
    #[inline(never)]
    fn wide(x: f64) -> u128 {
        x as u128
    }
    if (0.0..18_446_744_073_709_551_616.0).contains(&x) { u128::from(x as u64) } else { wide(x) }
}

/// A binomial number of successes in `trials` independent trials of probability `p` (clamped to
/// `[0, 1]`), by `rand_distr`'s sampler (inversion for small means, BTPE beyond). For splitting a
/// batch's pairs across a randomized law.
pub(crate) fn binomial(rng: &mut PopRng, trials: u64, p: f64) -> u64 {
    if trials == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return trials;
    }
    use rand_distr::Distribution;
    rand_distr::Binomial::new(trials, p).expect("p in (0, 1)").sample(rng)
}

/// `ln x! - (x ln x - x + ln(2 pi x) / 2)`, the Stirling remainder, for `x >= 16` (error < 1e-15).
pub(crate) fn stirling_remainder(x: f64) -> f64 {
    let r = 1.0 / (x * x);
    (1.0 / 12.0 - r * (1.0 / 360.0 - r * (1.0 / 1260.0 - r / 1680.0))) / x
}

/// `ln x!` for small integers, exactly summed.
fn ln_factorial_small(x: u64) -> f64 {
    (2..=x).map(|i| (i as f64).ln()).sum()
}

/// `ln(a (a - 1) ... (a - m + 1) / a^m) = sum over j < m of ln(1 - j / a)`, for `m <= a`.
///
/// With `b = a - m` and Stirling's formula, `ln a! - ln b! - m ln a` equals
/// `-(b + 1/2) ln(1 - m / a) - m + R(a) - R(b)` (`R` the Stirling remainder): no term is large
/// where the result is small. Short products are summed directly.
pub(crate) fn ln_falling_over_power(a: u64, m: u64) -> f64 {
    debug_assert!(m <= a);
    if m < 16 {
        let a_f = a as f64;
        return (1..m).map(|j| 1.0 - j as f64 / a_f).product::<f64>().ln();
    }
    let b = a - m;
    let (a_f, b_f, m_f) = (a as f64, b as f64, m as f64);
    if b < 16 {
        // ln a! by Stirling (a >= 16), ln b! exactly.
        return b_f * a_f.ln() - a_f + 0.5 * (2.0 * std::f64::consts::PI * a_f).ln() + stirling_remainder(a_f)
            - ln_factorial_small(b);
    }
    -(b_f + 0.5) * (-m_f / a_f).ln_1p() - m_f + stirling_remainder(a_f) - stirling_remainder(b_f)
}

/// `ln((x + m)! / (x! x^m)) = sum over 1 <= j <= m of ln(1 + j / x)`, for `x >= 1`: by Stirling,
/// `(x + m + 1/2) ln(1 + m / x) - m + R(x + m) - R(x)`, one logarithm and no large terms.
fn ln_rising_over_power(x: u64, m: u64) -> f64 {
    let x_f = x as f64;
    if m < 16 {
        return (1..=m).map(|j| 1.0 + j as f64 / x_f).product::<f64>().ln();
    }
    let m_f = m as f64;
    let l = (m_f / x_f).ln_1p();
    if x < 16 {
        return ln_falling_over_power(x + m, m) + m_f * l;
    }
    (x_f + m_f + 0.5) * l - m_f + stirling_remainder(x_f + m_f) - stirling_remainder(x_f)
}

/// `ln(x! / (x - d)!) - d ln x` for an integer `d <= x` of either sign.
fn ln_shift_over_power(x: u64, d: i64) -> f64 {
    if d >= 0 { ln_falling_over_power(x, d as u64) } else { -ln_rising_over_power(x, d.unsigned_abs()) }
}

/// `ln(a! / (a - m)!)`, for `m <= a`.
fn ln_falling(a: u64, m: u64) -> f64 {
    if m < 16 {
        return (0..m).map(|j| (a - j) as f64).product::<f64>().ln();
    }
    ln_falling_over_power(a, m) + m as f64 * (a as f64).ln()
}

/// `ln(x! / y!)`, accurate when `x` and `y` are close (no huge intermediate terms).
fn ln_factorial_ratio(x: u64, y: u64) -> f64 {
    if x >= y { ln_falling(x, x - y) } else { -ln_falling(y, y - x) }
}

/// `ln P(L >= k)` where `L` is the number of interactions before the first one that involves an
/// agent outside a set of `u` untouched agents (`n` agents, ordered pairs of distinct agents drawn
/// uniformly): `P(L >= k) = u (u - 1) ... (u - 2k + 1) / (n (n - 1))^k`, computed as
/// `ln(u (u - 1) ... (u - 2k + 1) / u^(2k)) + k ln_shrink`, `ln_shrink = ln(u^2 / (n (n - 1)))`.
fn ln_run_at_least(u: u64, k: u64, ln_shrink: f64) -> f64 {
    ln_falling_over_power(u, 2 * k) + k as f64 * ln_shrink
}

/// Samples `L`, the number of interactions among `n >= 2` agents before the first interaction that
/// involves an agent outside a set of `u <= n` untouched agents, each interaction making its two
/// agents touched (so the first `L` interactions involve `2L` distinct untouched agents). By
/// inversion: `L = max { k : P(L >= k) >= U }`, starting from a Gaussian approximation and stepping
/// to the exact boundary.
pub(crate) fn collision_free_run(rng: &mut PopRng, u: u64, n: u64) -> u64 {
    debug_assert!(u <= n && n >= 2);
    let uniform = unit_open0(rng);
    let max = u / 2;
    if max == 0 {
        return 0;
    }
    // ln(u^2 / (n (n - 1))) = ln(1 + (u^2 - n (n - 1)) / (n (n - 1))), the difference exact in
    // integers, so accurate when u is close to n.
    let uf = u as f64;
    let pairs = u128::from(n) * u128::from(n - 1);
    let pairs_f = u128_as_f64(pairs);
    let squares = u128::from(u) * u128::from(u);
    let difference = if squares >= pairs { u128_as_f64(squares - pairs) } else { -u128_as_f64(pairs - squares) };
    let ln_shrink = difference / pairs_f;
    let ln_shrink = ln_shrink.ln_1p();
    let ok = |k: u64| ln_run_at_least(u, k, ln_shrink) >= uniform.ln();
    // -ln P(L >= k) ~ (2k^2 - k) / u - k ln_shrink: the root of this quadratic, from a rough
    // logarithm of the uniform (the walk below finds the exact boundary from any guess).
    let y = -rough_ln(uniform);
    let b = -1.0 / uf - ln_shrink;
    let guess = (-b + (b * b + 8.0 * y / uf).sqrt()) * uf / 4.0;
    let mut k = (guess.max(0.0) as u64).min(max);
    // Walk from the guess without logarithms: with r = U / P(L >= j), L >= j iff r <= 1, and
    // P(L >= j + 1) = P(L >= j) q_j, q_j = (u - 2j) (u - 2j - 1) / (n (n - 1)). A far guess gallops
    // instead.
    // Below 2^53 both factors are exact in floating point, and their product rounded once is the
    // exact integer product rounded: the same value without 128-bit conversions.
    let small = u < 1 << 53;
    let q = |j: u64| {
        let (a, b) = (u - 2 * j, u - 2 * j - 1);
        let product = if small { a as f64 * b as f64 } else { u128_as_f64(u128::from(a) * u128::from(b)) };
        product / pairs_f
    };
    let mut r = uniform * (-ln_run_at_least(u, k, ln_shrink)).exp();
    const WALK: u32 = 8;
    if r <= 1.0 {
        for _ in 0..WALK {
            if k == max {
                return max;
            }
            let q_k = q(k);
            if q_k < r {
                return k;
            }
            r /= q_k;
            k += 1;
        }
        // Gallop up to a failing k, then bisect.
        let mut step = 1;
        let mut lo = k;
        loop {
            if lo == max {
                return max;
            }
            let hi = (lo + step).min(max);
            if !ok(hi) {
                return bisect(lo, hi, ok);
            }
            lo = hi;
            step *= 2;
        }
    } else {
        for _ in 0..WALK {
            k -= 1;
            r *= q(k);
            // L >= 0 always (at k = 0, r is U up to rounding).
            if r <= 1.0 || k == 0 {
                return k;
            }
        }
        let mut step = 1;
        let mut hi = k;
        loop {
            let lo = hi.saturating_sub(step);
            if ok(lo) {
                return bisect(lo, hi, ok);
            }
            hi = lo;
            step *= 2;
        }
    }
}

/// `ln x` for a normal positive `x`, to about `1e-5`: the exponent's share and four terms of
/// `ln m = 2 atanh((m - 1) / (m + 1))` for the mantissa `m` in `[1, 2)`. For first guesses only.
fn rough_ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    exponent as f64 * std::f64::consts::LN_2 + 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * (0.2 + t2 / 7.0)))
}

/// The largest `k` in `lo..hi` with `ok(k)`, given `ok(lo)` and `!ok(hi)` (`ok` is monotone).
pub(crate) fn bisect(mut lo: u64, mut hi: u64, ok: impl Fn(u64) -> bool) -> u64 {
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The number of marked items in `draws` items drawn without replacement from `total` items of
/// which `marked` are marked.
///
/// Few draws or few marked items (at most [`SEQUENTIAL_MAX`]) are drawn one item at a time; other
/// distributions with a small mode use inversion from `P(0)` (computed accurately in logarithms,
/// then the ratio recurrence), which costs `O(mode)`; the others use ratio-of-uniforms rejection
/// ([`ratio_of_uniforms`], constant expected time).
pub(crate) fn hypergeometric(rng: &mut PopRng, total: u64, marked: u64, draws: u64) -> u64 {
    debug_assert!(marked <= total && draws <= total);
    if draws == 0 || marked == 0 {
        return 0;
    }
    if marked == total {
        return draws;
    }
    if draws == total {
        return marked;
    }
    // Symmetries: count the smaller class, draw the smaller part.
    if 2 * marked > total {
        return draws - hypergeometric(rng, total, total - marked, draws);
    }
    if 2 * draws > total {
        return marked - hypergeometric(rng, total, marked, total - draws);
    }
    // The law is symmetric in `marked` and `draws`: walk through the fewer of them, each one
    // marked-and-drawn with the exact conditional probability given those before.
    let (few, many) = (marked.min(draws), marked.max(draws));
    if few <= SEQUENTIAL_MAX {
        let mut x = 0;
        for i in 0..few {
            x += u64::from(below_u64(rng, total - i) < many - x);
        }
        return x;
    }
    let unmarked = total - marked;
    // In integers: in floating point, (draws + 1) (marked + 1) / (total + 2) is off by up to 2^-53
    // of itself, hundreds at n = 2^62.
    let mode = match u64::checked_mul(draws + 1, marked + 1) {
        Some(product) => product / (total + 2),
        None => (u128::from(draws + 1) * u128::from(marked + 1) / u128::from(total + 2)) as u64,
    };
    if mode >= 10 {
        return ratio_of_uniforms(rng, total, marked, draws, mode);
    }
    // Inversion. P(0) = C(unmarked, draws) / C(total, draws)
    //   = exp(F(unmarked, draws) - F(total, draws) + draws ln(1 - marked / total)),
    // F = ln_falling_over_power; here draws <= total / 2 and marked <= total / 2, so draws <= unmarked.
    let ln_p0 = ln_falling_over_power(unmarked, draws) - ln_falling_over_power(total, draws)
        + draws as f64 * (-(marked as f64) / total as f64).ln_1p();
    let mut p = ln_p0.exp();
    let mut u = 1.0 - unit_open0(rng);
    let top = marked.min(draws);
    let mut x = 0;
    while u >= p && x < top {
        u -= p;
        p *= (marked - x) as f64 * (draws - x) as f64 / ((x + 1) as f64 * (unmarked - draws + x + 1) as f64);
        x += 1;
    }
    x
}

/// [`hypergeometric`] draws one item at a time when at most this many items are drawn or marked:
/// a uniform integer each, cheaper than the logarithms of inversion for so few.
const SEQUENTIAL_MAX: u64 = 16;

/// The hypergeometric law by ratio of uniforms (Stadlober's HRUA, as in numpy), for
/// `marked <= total / 2`, `draws <= total / 2` and a mode of at least 10. The hat is a table
/// mountain around the mode; a candidate `z` is accepted with probability `f(z) / f(mode)`,
/// evaluated exactly up to rounding: near the mode as a product ([`pmf_ratio`]), farther away in
/// logarithms (differences of log-factorials of nearby numbers, never of two huge values).
fn ratio_of_uniforms(rng: &mut PopRng, total: u64, marked: u64, draws: u64, mode: u64) -> u64 {
    const D1: f64 = 1.715_527_769_921_413_5; // 2 sqrt(2 / e)
    const D2: f64 = 0.898_916_162_058_898_8; // 3 - 2 sqrt(3 / e)
    let unmarked = total - marked;
    let (t, g, k) = (total as f64, marked as f64, draws as f64);
    let p = g / t;
    // Candidates are drawn as offsets from the integer part of the mean: beyond 2^53 a double
    // cannot hold the candidate itself (at a mean of 2^60, only multiples of 256), so each would
    // lose its last bits.
    // In 64 bits where the product fits (a 128-bit division and conversion are library calls).
    let (base, remainder) = match u64::checked_mul(draws, marked) {
        Some(product) => (product / total, product % total),
        None => {
            let product = u128::from(draws) * u128::from(marked);
            ((product / u128::from(total)) as u64, (product % u128::from(total)) as u64)
        }
    };
    let center = remainder as f64 / t + 0.5;
    let spread = ((t - k) * k * p * (1.0 - p) / (t - 1.0) + 0.5).sqrt();
    let width = D1 * spread + D2;
    // Candidates z = base + offset, offset in [-base, end).
    let end = ((marked.min(draws) + 1 - base) as f64).min((center + 16.0 * spread).floor());
    let below = -(base as f64);
    // ln f(z) - ln f(mode), f(z) = 1 / (z! (marked - z)! (draws - z)! (unmarked - draws + z)!):
    // with d = mode - z, the four factorials at the mode, x_i, shift by s_i d (s = +, -, -, +), so
    // ln f(z) - ln f(mode) = sum of ln(x_i! / (x_i - s_i d)!)
    //   = d sum s_i ln x_i + sum ln_shift_over_power(x_i, s_i d).
    let anchors = [mode, marked - mode, draws - mode, unmarked - draws + mode];
    let signs = [1, -1, -1, 1];
    // sum s_i ln x_i as one logarithm of a ratio (each product of two counts below 2^124 is exact
    // to a relative 2^-52 in floating point).
    // Computed on first use: candidates near the mode never need it.
    let slope = std::cell::OnceCell::new();
    let ln_ratio = |z: u64| {
        let slope = *slope.get_or_init(|| {
            if anchors.contains(&0) {
                f64::NAN
            } else {
                ((anchors[0] as f64 * anchors[3] as f64) / (anchors[1] as f64 * anchors[2] as f64)).ln()
            }
        });
        if slope.is_nan() {
            return ln_factorial_ratio(mode, z)
                + ln_factorial_ratio(marked - mode, marked - z)
                + ln_factorial_ratio(draws - mode, draws - z)
                + ln_factorial_ratio(unmarked - draws + mode, unmarked - draws + z);
        }
        let d = mode as i64 - z as i64;
        d as f64 * slope
            + anchors.iter().zip(signs).map(|(&x, s)| ln_shift_over_power(x, i64::from(s) * d)).sum::<f64>()
    };
    loop {
        let x = unit_open0(rng);
        let y = unit_open0(rng);
        let w = (center + width * (y - 0.5) / x).floor();
        if !(below..end).contains(&w) {
            continue;
        }
        let z = base.wrapping_add_signed(w as i64);
        if z.abs_diff(mode) <= PRODUCT_MAX_DISTANCE {
            // The test itself, x^2 <= f(z) / f(mode), with the ratio as a product: no logarithm.
            if x * x <= pmf_ratio(marked, draws, unmarked, mode, z) {
                return z;
            }
            continue;
        }
        let ln_f = ln_ratio(z);
        if x * (4.0 - x) - 3.0 <= ln_f {
            return z;
        }
        if x * (x - ln_f) >= 1.0 {
            continue;
        }
        if 2.0 * x.ln() <= ln_f {
            return z;
        }
    }
}

/// Candidates this close to the mode are tested by [`pmf_ratio`], farther ones in logarithms.
const PRODUCT_MAX_DISTANCE: u64 = 48;

/// `f(z) / f(mode)` for the hypergeometric law, as the product of the ratio recurrence
/// `P(x + 1) / P(x) = (marked - x) (draws - x) / ((x + 1) (unmarked - draws + x + 1))` between them:
/// `|z - mode|` terms, numerators and denominators multiplied in chunks of 8 (each factor is below
/// `2^126`, so a chunk stays far from overflow) and divided once per chunk.
fn pmf_ratio(marked: u64, draws: u64, unmarked: u64, mode: u64, z: u64) -> f64 {
    let (from, to) = if z < mode { (z, mode) } else { (mode, z) };
    let (g, k, base) = (marked as f64, draws as f64, (unmarked - draws) as f64);
    let mut up_over_down = 1.0;
    // Below 2^53 the running float `xf` is `x as f64` exactly, without a conversion per term.
    let exact = to < 1 << 53;
    for chunk in (from..to).step_by(8) {
        let (mut up, mut down) = (1.0, 1.0);
        let mut xf = chunk as f64;
        for x in chunk..to.min(chunk + 8) {
            if !exact {
                xf = x as f64;
            }
            up *= (g - xf) * (k - xf);
            down *= (xf + 1.0) * (base + xf + 1.0);
            xf += 1.0;
        }
        up_over_down *= up / down;
    }
    // Going up from the mode multiplies by the recurrence; going down divides by it.
    if z > mode { up_over_down } else { 1.0 / up_over_down }
}

/// Draws `draws` items without replacement from an urn with `counts[i]` items of colour `i`
/// (`total` their sum); writes how many of each colour were drawn into `out`. `draws <= total`.
pub(crate) fn multivariate_hypergeometric(rng: &mut PopRng, counts: &[u64], total: u64, draws: u64, out: &mut [u64]) {
    debug_assert!(counts.iter().sum::<u64>() == total);
    out.fill(0);
    multivariate_hypergeometric_each(rng, counts.iter().copied(), total, draws, |i, x| out[i] = x);
}

/// Draws `draws` items without replacement from an urn whose colours have the given counts
/// (`total` their sum, `draws <= total`), one colour at a time in the order given, and hands each
/// colour drawn to `drawn(its position, how many)`; stops once every item is drawn, so listing
/// the most numerous colours first makes small draws cheap.
pub(crate) fn multivariate_hypergeometric_each(
    rng: &mut PopRng,
    counts: impl IntoIterator<Item = u64>,
    total: u64,
    draws: u64,
    mut drawn: impl FnMut(usize, u64),
) {
    debug_assert!(draws <= total);
    let (mut left_total, mut left_draws) = (total, draws);
    for (i, c) in counts.into_iter().enumerate() {
        if left_draws == 0 {
            break;
        }
        let x = if c == left_total { left_draws } else { hypergeometric(rng, left_total, c, left_draws) };
        if x > 0 {
            drawn(i, x);
        }
        left_total -= c;
        left_draws -= x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{ks_critical, ks_integer_sample};
    use rand_core::SeedableRng;

    #[test]
    fn the_rough_logarithm_is_within_its_stated_error() {
        // Every uniform unit_open0 can return is at least 2^-53: over that range, and between
        // powers of two where the mantissa's series is least accurate.
        let mut x = 1.0f64;
        while x >= 1.0 / (1u64 << 53) as f64 {
            for m in [1.0, 1.2, 1.414, 1.7, 1.999_999] {
                let y = x * m / 2.0;
                assert!((rough_ln(y) - y.ln()).abs() < 2e-5, "{y}: {} vs {}", rough_ln(y), y.ln());
            }
            x /= 2.0;
        }
    }

    #[test]
    fn fast_conversions_give_the_same_values() {
        let edges = [0, 1, (1 << 53) + 1, u128::from(u64::MAX) - 1, u128::from(u64::MAX), 1 << 64, (1 << 64) + 1];
        for x in edges.into_iter().chain([u128::MAX, u128::MAX / 3]) {
            assert_eq!(u128_as_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
        let two_64 = 18_446_744_073_709_551_616.0_f64;
        for x in [0.0, 0.99, 1e15 + 0.5, two_64 - 4096.0, two_64, two_64 * 2.5, 1e300, f64::INFINITY, -1.0, f64::NAN] {
            assert_eq!(f64_as_u128(x), x as u128, "{x}");
        }
    }

    #[test]
    fn falling_factorials_match_direct_sums() {
        for (a, m) in [(20, 17), (100, 50), (1000, 999), (1000, 1000), (5000, 40), (100_000, 3000)] {
            let direct: f64 = (0..m).map(|j| (1.0 - j as f64 / a as f64).ln()).sum();
            let fast = ln_falling_over_power(a, m);
            assert!((fast - direct).abs() < 1e-9 * direct.abs().max(1.0), "a = {a}, m = {m}: {fast} vs {direct}");
        }
    }

    #[test]
    fn rising_factorials_match_direct_sums() {
        for (x, m) in [(1, 20), (5, 30), (20, 17), (100, 50), (3000, 3000), (100_000, 3000)] {
            let direct: f64 = (1..=m).map(|j| (1.0 + j as f64 / x as f64).ln()).sum();
            let fast = ln_rising_over_power(x, m);
            assert!((fast - direct).abs() < 1e-9 * direct.abs().max(1.0), "x = {x}, m = {m}: {fast} vs {direct}");
        }
        assert!((ln_shift_over_power(50, -7) + ln_rising_over_power(50, 7)).abs() < 1e-15);
    }

    /// The exact law of the run length, `P(L >= k)`, by the product.
    fn run_tail(u: u64, n: u64, k: u64) -> f64 {
        if 2 * k > u {
            return 0.0;
        }
        (0..k).map(|i| ((u - 2 * i) * (u - 2 * i - 1)) as f64 / (n * (n - 1)) as f64).product()
    }

    #[test]
    fn run_length_has_the_exact_law() {
        let cases = [(2u64, 2u64), (7, 7), (60, 60), (5000, 5000), (0, 9), (1, 9), (5, 9), (4000, 5000), (1000, 5000)];
        for (seed, (u, n)) in cases.into_iter().enumerate() {
            let mut rng = PopRng::seed_from_u64(seed as u64);
            let sample: Vec<u64> = (0..20_000).map(|_| collision_free_run(&mut rng, u, n)).collect();
            let distance = ks_integer_sample(&sample, |k| 1.0 - run_tail(u, n, k as u64 + 1));
            let critical = ks_critical(0.001, sample.len(), None);
            assert!(distance < critical, "u = {u}, n = {n}: KS {distance} >= {critical}");
            assert!(sample.iter().all(|&k| k <= u / 2));
        }
    }

    #[test]
    fn run_length_mean_at_a_huge_population() {
        // E[L] = sum over k >= 1 of P(L >= k) ~ sqrt(pi n / 8) - 1/3 + O(n^-1/2); sd ~ 0.33 sqrt(n).
        let n = 100_000_000_000u64;
        let mut rng = PopRng::seed_from_u64(11);
        let trials = 20_000;
        let mean = (0..trials).map(|_| collision_free_run(&mut rng, n, n) as f64).sum::<f64>() / trials as f64;
        let expected = (std::f64::consts::PI * n as f64 / 8.0).sqrt() - 1.0 / 3.0;
        let se = 0.328 * (n as f64).sqrt() / (trials as f64).sqrt();
        assert!((mean - expected).abs() < 4.0 * se, "mean {mean}, expected {expected}, se {se}");
    }

    #[test]
    fn hypergeometric_has_the_exact_law() {
        // Few items (drawn one at a time), small and large modes, both symmetries, a huge urn, and
        // a spread (about 158) wide enough that ratio of uniforms tests candidates both near the
        // mode (by the product) and far from it (in logarithms).
        let cases: [(u64, u64, u64); 9] = [
            (20, 7, 5),
            (1_000_000_000, 400_000_000, 16),
            (10_000, 12, 9_000),
            (50, 40, 30),
            (1000, 30, 200),
            (1000, 500, 500),
            (10_000, 9_000, 300),
            (100_000, 60, 40_000),
            (10_000_000, 5_000_000, 100_000),
        ];
        for (case, &(total, marked, draws)) in cases.iter().enumerate() {
            let mut rng = PopRng::seed_from_u64(100 + case as u64);
            let sample: Vec<u64> = (0..20_000).map(|_| hypergeometric(&mut rng, total, marked, draws)).collect();
            // P(X = x) by the ratio recurrence from x = max(0, draws - unmarked), normalised.
            let low = draws.saturating_sub(total - marked);
            let mut ln_pmf = vec![f64::NEG_INFINITY; low as usize];
            let mut ln_p = 0.0;
            for x in low..=marked.min(draws) {
                ln_pmf.push(ln_p);
                ln_p +=
                    (((marked - x) * (draws - x)) as f64 / ((x + 1) * (total - marked + x + 1 - draws)) as f64).ln();
            }
            let top = ln_pmf.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let pmf: Vec<f64> = ln_pmf.iter().map(|l| (l - top).exp()).collect();
            let norm: f64 = pmf.iter().sum();
            let cdf: Vec<f64> = pmf
                .iter()
                .scan(0.0, |acc, p| {
                    *acc += p / norm;
                    Some(*acc)
                })
                .collect();
            let distance = ks_integer_sample(&sample, |k| cdf.get(k as usize).copied().unwrap_or(1.0));
            let critical = ks_critical(0.001, sample.len(), None);
            assert!(distance < critical, "case {case}: KS {distance} >= {critical}");
        }
    }

    #[test]
    fn hypergeometric_mean_in_a_huge_urn() {
        // A small mode with huge parameters goes through the log-space P(0).
        let (total, marked, draws) = (100_000_000_000u64, 40u64, 200_000u64);
        let mut rng = PopRng::seed_from_u64(5);
        let trials = 50_000;
        let mean = (0..trials).map(|_| hypergeometric(&mut rng, total, marked, draws) as f64).sum::<f64>() / 50_000.0;
        let expected = draws as f64 * marked as f64 / total as f64;
        let se = (expected / trials as f64).sqrt();
        assert!((mean - expected).abs() < 4.0 * se, "mean {mean}, expected {expected}");
    }

    #[test]
    fn multivariate_draws_add_up() {
        let mut rng = PopRng::seed_from_u64(9);
        let counts = [5u64, 0, 17, 3, 1000];
        let mut out = [0u64; 5];
        for draws in [0, 1, 20, 500, 1025] {
            multivariate_hypergeometric(&mut rng, &counts, 1025, draws, &mut out);
            assert_eq!(out.iter().sum::<u64>(), draws);
            assert!(out.iter().zip(&counts).all(|(x, c)| x <= c));
        }
    }

    /// Eight draws of [`hypergeometric`] from a fresh stream of `seed`.
    fn eight_draws(seed: u64, total: u64, marked: u64, draws: u64) -> Vec<u64> {
        let mut rng = PopRng::seed_from_u64(seed);
        (0..8).map(|_| hypergeometric(&mut rng, total, marked, draws)).collect()
    }

    // Value-stability pins: exact draws for fixed seeds, one test per branch of the samplers. A
    // change that alters any draw (and so every batched run's results) fails them; the values were
    // recorded from the code as it was when the pins were written.

    #[test]
    fn pinned_draws_one_item_at_a_time() {
        // Few draws, then few marked items.
        assert_eq!(eight_draws(1, 1000, 300, 12), [4, 5, 2, 2, 6, 3, 6, 2]);
        assert_eq!(eight_draws(2, 1000, 5, 400), [1, 1, 0, 3, 1, 4, 1, 2]);
    }

    #[test]
    fn pinned_draws_through_the_symmetries() {
        // More than half marked (counts the unmarked), more than half drawn (counts those left).
        assert_eq!(eight_draws(3, 100, 90, 10), [8, 9, 9, 9, 8, 9, 7, 10]);
        assert_eq!(eight_draws(4, 1000, 300, 990), [297, 297, 300, 297, 296, 298, 294, 298]);
    }

    #[test]
    fn pinned_draws_by_inversion() {
        // A mode below 10 with more than 16 items: inversion from P(0), in a small and a huge urn.
        assert_eq!(eight_draws(5, 10_000, 40, 1000), [5, 3, 7, 7, 4, 3, 4, 7]);
        assert_eq!(eight_draws(6, 100_000_000_000, 2_000_000, 200_000), [3, 3, 4, 6, 3, 4, 9, 2]);
    }

    #[test]
    fn pinned_draws_by_ratio_of_uniforms() {
        // A spread of about 8: candidates tested by the product near the mode.
        assert_eq!(eight_draws(7, 1000, 500, 500), [249, 249, 247, 242, 238, 248, 251, 242]);
        // A spread of about 15,000: candidates tested in logarithms, far from the mode.
        assert_eq!(
            eight_draws(8, 10_000_000_000, 4_000_000_000, 1_000_000_000),
            [399995214, 400014161, 400024716, 400014382, 400016909, 400004313, 399992696, 400002795]
        );
        // A spread of about 158: both.
        assert_eq!(
            eight_draws(9, 10_000_000, 5_000_000, 100_000),
            [49968, 49817, 50075, 50050, 49822, 50229, 50183, 49803]
        );
    }

    #[test]
    fn pinned_multivariate_draws() {
        let mut rng = PopRng::seed_from_u64(10);
        let counts = [5u64, 0, 17, 3, 1000];
        let mut out = [0u64; 5];
        let mut drawn = Vec::new();
        for draws in [1, 20, 500] {
            multivariate_hypergeometric(&mut rng, &counts, 1025, draws, &mut out);
            drawn.push(out);
        }
        assert_eq!(drawn, [[0, 0, 0, 0, 1], [0, 0, 0, 0, 20], [3, 0, 9, 1, 487]]);

        let mut rng = PopRng::seed_from_u64(11);
        let counts = [4_000_000_000u64, 3_000_000_000, 2_000_000_000, 1_000_000_000, 7];
        multivariate_hypergeometric(&mut rng, &counts, 10_000_000_007, 1_000_000, &mut out);
        assert_eq!(out, [400300, 299921, 199492, 100287, 0]);
        let mut each = Vec::new();
        multivariate_hypergeometric_each(&mut rng, [400u64, 300, 200, 100], 1000, 30, |i, x| each.push((i, x)));
        assert_eq!(each, [(0, 12), (1, 10), (2, 4), (3, 4)]);
    }

    /// The G statistic of `observed` counts against probabilities `p` (summing to 1), its cells
    /// merged from the tails inwards until each expects at least 5; with the degrees of freedom.
    fn g_statistic(observed: &[u64], p: &[f64]) -> (f64, usize) {
        let total = observed.iter().sum::<u64>() as f64;
        let mut cells: Vec<(f64, f64)> = Vec::new();
        let mut pending = (0.0, 0.0);
        for (&o, &q) in observed.iter().zip(p) {
            pending = (pending.0 + o as f64, pending.1 + q * total);
            if pending.1 >= 5.0 {
                cells.push(pending);
                pending = (0.0, 0.0);
            }
        }
        if let Some(last) = cells.last_mut() {
            *last = (last.0 + pending.0, last.1 + pending.1);
        }
        let g = 2.0 * cells.iter().filter(|c| c.0 > 0.0).map(|&(o, e)| o * (o / e).ln()).sum::<f64>();
        (g, cells.len() - 1)
    }

    fn chi_square_critical(df: usize) -> f64 {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        ChiSquared::new(df as f64).unwrap().inverse_cdf(1.0 - 0.001)
    }

    /// Precision at scale (numpy's ratio-of-uniforms sampler, in doubles, was wrong above about
    /// 2^38 items). G-tests at 0.001 against exact probabilities: (a) urns of 2^40, 2^50 and 2^62
    /// items with spreads small enough to list the law (P(x) by the ratio recurrence, each factor
    /// exact in 128-bit integers before one rounding); (b) means of 2^59 and 2^60, where a double
    /// holds only every 64th or 256th integer: the residues modulo 64 and 3 must be uniform (the
    /// law's spread, about 2^29, makes them uniform to far below any rounding). Before offsets
    /// from the mean's integer part, (b) drew only multiples of 256.
    #[test]
    fn hypergeometric_is_exact_at_2_to_the_62() {
        let listed: [(u64, u64, u64); 4] = [
            (1 << 40, 1 << 39, 10_000),
            (1 << 50, 1 << 20, 1 << 40),
            (1 << 62, 1 << 61, 1_000_000),
            (1 << 62, 1 << 30, 1 << 45),
        ];
        for (case, &(total, marked, draws)) in listed.iter().enumerate() {
            let mut rng = PopRng::seed_from_u64(700 + case as u64);
            let sample: Vec<u64> = (0..100_000).map(|_| hypergeometric(&mut rng, total, marked, draws)).collect();
            let mean = (u128::from(draws) * u128::from(marked) / u128::from(total)) as u64;
            let spread = (draws as f64 * marked as f64 / total as f64).sqrt();
            let (low, high) = (mean.saturating_sub((20.0 * spread) as u64), mean + (20.0 * spread) as u64);
            // ln P(x) - ln P(low), by the ratio recurrence.
            let unmarked_less_draws = total - marked - draws;
            let mut ln_p = vec![0.0f64];
            for x in low..high {
                let up = u128::from(marked - x) * u128::from(draws - x);
                let down = u128::from(x + 1) * u128::from(unmarked_less_draws + x + 1);
                ln_p.push(ln_p.last().unwrap() + (up as f64).ln() - (down as f64).ln());
            }
            let top = ln_p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = ln_p.iter().map(|l| (l - top).exp()).collect();
            let norm: f64 = weights.iter().sum();
            let p: Vec<f64> = weights.iter().map(|w| w / norm).collect();
            let mut observed = vec![0u64; p.len()];
            for &x in &sample {
                assert!((low..=high).contains(&x), "case {case}: {x} is 20 spreads from the mean {mean}");
                observed[(x - low) as usize] += 1;
            }
            let (g, df) = g_statistic(&observed, &p);
            assert!(g < chi_square_critical(df), "case {case}: G = {g} on {df} df");
        }
        for (case, &(total, marked, draws)) in
            [(1u64 << 62, 1u64 << 61, 1u64 << 61), (1 << 62, 1 << 61, 1 << 60)].iter().enumerate()
        {
            let mut rng = PopRng::seed_from_u64(800 + case as u64);
            let (mut by_64, mut by_3) = (vec![0u64; 64], vec![0u64; 3]);
            for _ in 0..64_000 {
                let x = hypergeometric(&mut rng, total, marked, draws);
                by_64[(x % 64) as usize] += 1;
                by_3[(x % 3) as usize] += 1;
            }
            for observed in [by_64, by_3] {
                let p = vec![1.0 / observed.len() as f64; observed.len()];
                let (g, df) = g_statistic(&observed, &p);
                assert!(g < chi_square_critical(df), "residues, case {case}: G = {g} on {df} df");
            }
        }
    }
}
