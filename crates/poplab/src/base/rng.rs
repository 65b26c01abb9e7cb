//! Randomness: one named, portable generator, and how seeds are derived.
//!
//! Every run has a *master seed*. Trial `i` gets the seed `splitmix64(master, i)` (the `i`-th output
//! of the SplitMix64 sequence started at `master`), so a trial's result depends only on the master
//! seed and its index, never on the thread that ran it. From a trial seed, [`TrialStreams`] derives
//! four independent Xoshiro256++ streams (by the generator's `jump`, 2^128 draws apart): the
//! scheduler's, the one that draws random initial configurations, the one faults draw from, and
//! the one randomized transitions draw their results from ([`outcome_stream`]). Keeping them apart
//! means that adding a fault or a trace never changes which pairs interact.
//!
//! ```
//! use poplab::rng::{TrialStreams, trial_seed};
//! use poplab::spec::{RawSpec, RunSpec};
//! use rand_core::Rng;
//!
//! // Trial i of a run with master seed S is seeded by trial_seed(S, i), whatever thread runs it.
//! let raw = RawSpec { trials: 4, seed: 42, threads: Some(2), ..RawSpec::new("angluin", 30) };
//! let two_threads = RunSpec::resolve(&raw)?.run(&|| {})?;
//! let one_thread = RunSpec::resolve(&RawSpec { threads: Some(1), ..raw })?.run(&|| {})?;
//! for (i, (a, b)) in two_threads.records.iter().zip(&one_thread.records).enumerate() {
//!     assert_eq!(a.seed, trial_seed(42, i as u64));
//!     assert_eq!(a.steps, b.steps);
//! }
//! // Each trial has four streams, 2^128 draws apart.
//! let mut streams = TrialStreams::new(trial_seed(42, 0));
//! assert_ne!(streams.schedule.next_u64(), streams.init.next_u64());
//! # Ok::<(), poplab::Error>(())
//! ```

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every engine uses.
pub type PopRng = Xoshiro256PlusPlus;

/// The generator's name as written into every output.
pub const RNG_NAME: &str = "Xoshiro256PlusPlus";

/// Refuses a saved stream (`what`, for the message) whose state is all zeros: no seed gives it,
/// and it draws zeros forever (a sampler that rejects zero would never end). It is the one state
/// that one draw leaves unchanged.
pub fn check_stream(rng: &PopRng, what: &str) -> crate::error::Result<()> {
    let mut next = rng.clone();
    next.next_u64();
    if next == *rng {
        return Err(crate::error::Error::Snapshot {
            reason: format!("{what} is all zeros, a state no seed gives and that draws zeros forever"),
        });
    }
    Ok(())
}

/// The seed of trial `index` of a run with master seed `master` (SplitMix64, portable).
pub fn trial_seed(master: u64, index: u64) -> u64 {
    let mut z = master.wrapping_add(index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The independent random streams of one trial.
#[derive(Clone, Debug)]
pub struct TrialStreams {
    /// Draws the interacting pairs.
    pub schedule: PopRng,
    /// Draws random initial configurations.
    pub init: PopRng,
    /// Draws which agents a fault hits and their new states.
    pub faults: PopRng,
    /// Draws the results of randomized transitions ([`outcome_stream`] of `schedule`).
    pub outcomes: PopRng,
}

impl TrialStreams {
    /// The streams of the trial whose seed is `seed`.
    pub fn new(seed: u64) -> Self {
        let mut base = PopRng::seed_from_u64(seed);
        let schedule = base.clone();
        base.jump();
        let init = base.clone();
        base.jump();
        let faults = base.clone();
        base.jump();
        Self { schedule, init, faults, outcomes: base }
    }
}

/// The stream randomized transitions draw from, derived from a trial's schedule stream: three
/// jumps ahead (`3 * 2^128` draws), so it equals [`TrialStreams::outcomes`] for a schedule stream of
/// [`TrialStreams`]. Engines derive it themselves, so a run built from a schedule stream alone
/// follows the same trajectory as a trial.
pub fn outcome_stream(schedule: &PopRng) -> PopRng {
    let mut rng = schedule.clone();
    rng.jump();
    rng.jump();
    rng.jump();
    rng
}

/// Uniform integers in `0..bound` by Lemire's multiply-and-reject method on 32-bit halves.
///
/// The rejection threshold `2^32 mod bound` is computed once, so drawing needs one multiplication
/// and one comparison and no division: exact (unbiased) and fast in the hot loop.
#[derive(Clone, Copy, Debug)]
pub struct Below32 {
    bound: u32,
    threshold: u32,
}

impl Below32 {
    /// A sampler of `0..bound`; `bound` must be at least 1.
    pub fn new(bound: u32) -> Self {
        assert!(bound >= 1, "Below32 needs a bound of at least 1");
        Self { bound, threshold: bound.wrapping_neg() % bound }
    }

    /// The exclusive upper bound.
    pub fn bound(&self) -> u32 {
        self.bound
    }

    /// Maps 32 random bits to `0..bound`, or `None` when they must be rejected.
    #[inline(always)]
    pub fn map(&self, bits: u32) -> Option<u32> {
        let product = u64::from(bits) * u64::from(self.bound);
        ((product as u32) >= self.threshold).then_some((product >> 32) as u32)
    }

    /// Draws one value, consuming 64 bits per attempt (the low half is discarded).
    #[inline]
    pub fn sample(&self, rng: &mut PopRng) -> u32 {
        loop {
            if let Some(x) = self.map((rng.next_u64() >> 32) as u32) {
                return x;
            }
        }
    }
}

/// A uniform integer in `0..bound` for any `u64` bound (`bound >= 1`): Lemire's method, the one
/// integer sampler of the library (every uniform index, state and pair is drawn with it, except
/// the schedulers' 32-bit [`Below32`]). It computes the rejection threshold (a division) only in
/// the rare case it can matter; a draw is accepted exactly when its low word is at least
/// `2^64 mod bound`, so the draws are those of the textbook form.
#[inline(always)]
pub fn below_u64(rng: &mut PopRng, bound: u64) -> u64 {
    debug_assert!(bound >= 1, "below_u64 needs a bound of at least 1");
    let mut product = u128::from(rng.next_u64()) * u128::from(bound);
    if (product as u64) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (product as u64) < threshold {
            product = u128::from(rng.next_u64()) * u128::from(bound);
        }
    }
    (product >> 64) as u64
}

/// A uniform integer in `0..bound` (`bound >= 1`) for bounds beyond 64 bits too: [`below_u64`]
/// when the bound fits (the same draws), else rejection of the smallest covering power of two.
pub fn below_u128(rng: &mut PopRng, bound: u128) -> u128 {
    if let Ok(bound) = u64::try_from(bound) {
        return u128::from(below_u64(rng, bound));
    }
    let shift = (bound - 1).leading_zeros();
    loop {
        let x = ((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())) >> shift;
        if x < bound {
            return x;
        }
    }
}

/// A fair coin.
pub fn coin(rng: &mut PopRng) -> bool {
    rng.next_u64() >> 63 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r5_a_stream_of_zeros_is_refused() {
        let zeros: PopRng = serde_json::from_str(r#"{"s":[0,0,0,0]}"#).unwrap();
        assert!(check_stream(&zeros, "the schedule stream").unwrap_err().to_string().contains("all zeros"));
        check_stream(&PopRng::seed_from_u64(0), "a stream").unwrap();
        let one: PopRng = serde_json::from_str(r#"{"s":[0,0,0,1]}"#).unwrap();
        check_stream(&one, "a stream").unwrap();
    }

    #[test]
    fn trial_seeds_are_pinned_and_distinct() {
        // SplitMix64 reference values for seed 0 (the first three outputs of the sequence).
        assert_eq!(trial_seed(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(trial_seed(0, 1), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(trial_seed(0, 2), 0x06C4_5D18_8009_454F);
        assert_ne!(trial_seed(1, 0), trial_seed(0, 0));
    }

    #[test]
    fn streams_are_distinct() {
        let mut s = TrialStreams::new(7);
        let a = s.schedule.next_u64();
        let b = s.init.next_u64();
        let c = s.faults.next_u64();
        let d = s.outcomes.next_u64();
        assert!(a != b && b != c && a != c && d != a && d != b && d != c);
        let mut fresh = TrialStreams::new(7);
        assert_eq!(outcome_stream(&fresh.schedule).next_u64(), fresh.outcomes.next_u64());
    }

    #[test]
    fn below32_rejects_exactly_the_biased_region() {
        // bound 3: 2^32 mod 3 = 1, so exactly one 32-bit value (low product 0) is rejected.
        let b = Below32::new(3);
        let rejected = (0..=u32::MAX).step_by(1 << 12).filter(|&x| b.map(x).is_none()).count();
        assert_eq!(rejected, 1);
        assert_eq!(b.map(u32::MAX), Some(2));
    }

    #[test]
    fn below32_is_uniform_chi_square() {
        // 7 cells, 70_000 draws: chi-square with 6 degrees of freedom, critical value 22.46 at 0.001.
        let b = Below32::new(7);
        let mut rng = PopRng::seed_from_u64(11);
        let mut counts = [0u64; 7];
        for _ in 0..70_000 {
            counts[b.sample(&mut rng) as usize] += 1;
        }
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - 10_000.0).powi(2) / 10_000.0).sum();
        assert!(chi2 < 22.46, "chi2 = {chi2}, counts = {counts:?}");
    }

    #[test]
    fn below_u64_stays_in_range() {
        let mut rng = PopRng::seed_from_u64(3);
        for bound in [1u64, 2, 3, 1 << 40, u64::MAX] {
            for _ in 0..100 {
                assert!(below_u64(&mut rng, bound) < bound);
            }
        }
    }
}
