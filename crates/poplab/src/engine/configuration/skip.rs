//! Null skipping's table of the non-null pairs of present states, and the geometric law of the
//! null steps between two non-null ones (see the [module docs](super)).
//!
//! The table is indexed by *slot*: the position of a present state in the configuration's list of
//! present states. Its methods that need counts take that list (`present`, state index by slot)
//! and the counts by state index.

use super::SKIP_MAX_STATES;
use crate::engine::sampling::{f64_as_u128, unit_open0};
use crate::rng::PopRng;
use crate::rng::{below_u64, below_u128};

/// Slots of the table: null skipping is used while at most this many states are present.
pub(super) const K: usize = SKIP_MAX_STATES;

/// Marks a result not interned yet.
const NOT_INTERNED: u32 = u32::MAX;

/// A geometric number of failures before the first success, `P(G = g) = (1 - p)^g p` on
/// `{0, 1, 2, ...}`, by inversion: `G = floor(ln U / ln(1 - p))` with `U` uniform on `(0, 1]`, so
/// `P(G >= g) = P(U <= (1 - p)^g) = (1 - p)^g`. `ln(1 - p)` is computed as `ln_1p(-p)`, accurate
/// for tiny `p`; `p >= 1` gives 0 and `p <= 0` gives `u128::MAX` (never). `U` has 53 random
/// bits and the quotient is a double, so the law is exact up to a relative error of about `2^-52`
/// (for skips beyond `2^53` steps, the last bits of the skip are those of a rounded double).
pub fn geometric_skip(rng: &mut PopRng, p: f64) -> u128 {
    if p >= 1.0 {
        return 0;
    }
    if p <= 0.0 || p.is_nan() {
        return u128::MAX;
    }
    let u = unit_open0(rng);
    // The ratio is >= 0, so truncation is the floor; `as` saturates.
    f64_as_u128(u.ln() / (-p).ln_1p())
}

/// What a non-null pair of the table does: turn into known states, or draw from a law (a
/// randomized protocol's pair, by its id in the configuration's laws; the draw may change nothing,
/// so the table's pairs are those that *may* change something, and null skipping is exact by
/// thinning: a drawn pair whose draw changes nothing is one more null step).
#[derive(Clone, Copy)]
pub(super) enum Next<S> {
    /// The result states.
    To(S, S),
    /// The id of the pair's law.
    Law(u32),
}

/// Which ordered pairs of present states are non-null, over the slots of the present states, with
/// the weights that null skipping draws from.
pub(super) struct SkipTable<S> {
    /// `row[r]` has bit `c` set iff the pair (slot `r`, slot `c`) is non-null.
    row: [u64; K],
    /// `col[c]` has bit `r` set iff the pair (slot `r`, slot `c`) is non-null.
    col: [u64; K],
    /// What each non-null pair does, row-major with stride `K`.
    next: Vec<Option<Next<S>>>,
    /// Their interned indices, filled when the pair first fires.
    next_index: Vec<(u32, u32)>,
    /// `s[r] = sum over c in row r of (count(c) - [r = c])`; the row's weight is `count(r) s[r]`.
    s: [i64; K],
    /// The total non-null weight `W = sum over r of count(r) s[r]`.
    w: u128,
}

/// The count of the state in slot `slot`.
#[inline]
fn count_at(present: &[u32], counts: &[u64], slot: usize) -> u64 {
    counts[present[slot] as usize]
}

impl<S: Copy> SkipTable<S> {
    /// A table with every pair null and no weight.
    pub(super) fn new() -> Box<Self> {
        Box::new(Self {
            row: [0; K],
            col: [0; K],
            next: vec![None; K * K],
            next_index: vec![(NOT_INTERNED, NOT_INTERNED); K * K],
            s: [0; K],
            w: 0,
        })
    }

    /// The total non-null weight `W`.
    #[inline]
    pub(super) fn weight(&self) -> u128 {
        self.w
    }

    /// Whether the pair of slots `(r, c)` is non-null.
    #[inline]
    pub(super) fn is_non_null(&self, r: usize, c: usize) -> bool {
        self.row[r] >> c & 1 == 1
    }

    /// Per slot `r`, the slots `c` with (r, c) non-null, as bits (the rows); per slot `c`, the slots
    /// `r` with (r, c) non-null (the columns).
    pub(super) fn non_null_bits(&self) -> (&[u64; K], &[u64; K]) {
        (&self.row, &self.col)
    }

    /// Records the pair of slots `(r, c)` as doing `result`, or as null (`None`).
    pub(super) fn set_pair(&mut self, r: usize, c: usize, result: Option<Next<S>>) {
        let cell = r * K + c;
        self.next_index[cell] = (NOT_INTERNED, NOT_INTERNED);
        self.next[cell] = result;
        if result.is_some() {
            self.row[r] |= 1 << c;
            self.col[c] |= 1 << r;
        } else {
            self.row[r] &= !(1 << c);
            self.col[c] &= !(1 << r);
        }
    }

    /// The result indices of the non-null pair of slots `(r, c)`, once interned.
    #[inline]
    pub(super) fn interned_result(&self, r: usize, c: usize) -> Option<(u32, u32)> {
        let result = self.next_index[r * K + c];
        (result.0 != NOT_INTERNED).then_some(result)
    }

    /// What the non-null pair of slots `(r, c)` does.
    pub(super) fn result_states(&self, r: usize, c: usize) -> Next<S> {
        self.next[r * K + c].expect("a non-null pair has a result")
    }

    /// Remembers the interned result indices of the non-null pair of slots `(r, c)`.
    pub(super) fn set_interned_result(&mut self, r: usize, c: usize, result: (u32, u32)) {
        self.next_index[r * K + c] = result;
    }

    /// Sets row `r`'s sum `s[r]` afresh from the counts.
    pub(super) fn refresh_row_sum(&mut self, r: usize, present: &[u32], counts: &[u64]) {
        let mut bits = self.row[r];
        let mut sum = 0i64;
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            sum += count_at(present, counts, c) as i64 - i64::from(c == r);
        }
        self.s[r] = sum;
    }

    /// Sets `W` afresh from the row sums.
    pub(super) fn refresh_weight(&mut self, present: &[u32], counts: &[u64]) {
        self.w = self.weight_from_rows(present, counts);
    }

    /// `W` summed afresh over the present states, from the row sums.
    pub(super) fn weight_from_rows(&self, present: &[u32], counts: &[u64]) -> u128 {
        // Each term is at most c_r (n - 1) and they sum to at most n (n - 1) < 2^124.
        let mut w: u128 = 0;
        for r in 0..present.len() {
            let c = count_at(present, counts, r);
            if c > 0 {
                w += u128::from(c) * self.s[r] as u128;
            }
        }
        w
    }

    /// Keeps the row sums and `W` in step after the count of the state in slot `own` changed by
    /// `delta` from `old` (`counts` already holds the new count): `O(1 + non-null pairs into own)`.
    #[inline]
    pub(super) fn count_changed(&mut self, own: usize, old: u64, delta: i64, present: &[u32], counts: &[u64]) {
        // Every row r with a non-null pair (r, own) gains delta in s_r, so c_r delta in W; row own
        // itself also changes its count.
        let mut rows = self.col[own];
        let mut w_change: i128 = -i128::from(old) * i128::from(self.s[own]);
        while rows != 0 {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            self.s[r] += delta;
            if r != own {
                w_change += i128::from(count_at(present, counts, r)) * i128::from(delta);
            }
        }
        w_change += i128::from(count_at(present, counts, own)) * i128::from(self.s[own]);
        self.w = self.w.wrapping_add_signed(w_change);
    }

    /// Moves the state in the last slot `last` into slot `gone`, whose state (count 0) left, and
    /// empties slot `last`. A state with count 0 contributes nothing to the other rows' sums.
    pub(super) fn remove_slot(&mut self, gone: usize, last: usize) {
        if gone != last {
            let move_bit = |mask: &mut u64| {
                let set = (*mask >> last) & 1;
                *mask = (*mask & !(1 << gone) & !(1 << last)) | (set << gone);
            };
            for r in 0..=last {
                move_bit(&mut self.row[r]);
                move_bit(&mut self.col[r]);
                self.next[r * K + gone] = self.next[r * K + last];
                self.next_index[r * K + gone] = self.next_index[r * K + last];
            }
            self.row[gone] = self.row[last];
            self.col[gone] = self.col[last];
            for c in 0..=last {
                self.next[gone * K + c] = self.next[last * K + c];
                self.next_index[gone * K + c] = self.next_index[last * K + c];
            }
            self.s[gone] = self.s[last];
        }
        self.row[last] = 0;
        self.col[last] = 0;
        for r in 0..K {
            self.row[r] &= !(1 << last);
            self.col[r] &= !(1 << last);
        }
        self.s[last] = 0;
    }

    /// Draws a non-null pair of slots with probability proportional to its weight
    /// `c_r (c_c - [r = c])` (`W > 0`).
    pub(super) fn draw_non_null(&self, rng: &mut PopRng, present: &[u32], counts: &[u64]) -> (usize, usize) {
        let mut x = below_u128(rng, self.w);
        let mut r = 0;
        loop {
            let count = count_at(present, counts, r);
            let weight = if count == 0 { 0 } else { u128::from(count) * self.s[r] as u128 };
            if x < weight {
                // Given the row, the responder is independent of which initiator agent it was.
                x = u128::from(below_u64(rng, self.s[r] as u64));
                break;
            }
            x -= weight;
            r += 1;
            debug_assert!(r < present.len(), "non-null weight out of sync");
        }
        let mut bits = self.row[r];
        let c = loop {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let weight = u128::from(count_at(present, counts, c) - u64::from(c == r));
            if x < weight {
                break c;
            }
            x -= weight;
        };
        (r, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    #[test]
    fn geometric_skip_edges() {
        let mut rng = PopRng::seed_from_u64(1);
        assert_eq!(geometric_skip(&mut rng, 1.0), 0);
        assert_eq!(geometric_skip(&mut rng, 0.0), u128::MAX);
        assert!((0..1000).all(|_| geometric_skip(&mut rng, 1.0 - 1e-15) <= 1));
        let tiny: f64 = (0..2000).map(|_| geometric_skip(&mut rng, 1e-15) as f64).sum::<f64>() / 2000.0;
        assert!((tiny / 1e15 - 1.0).abs() < 0.15, "{tiny}");
    }
}
