//! The levels the built-ins' parameterized families of starts draw from
//! ([`Configurations::search_candidates`](crate::protocol::Configurations::search_candidates)):
//! leader counts and the value of a bounded variable (a timer, a virus, a distance).

use crate::rng::{PopRng, below_u64};

/// How many members of its parameterized families a built-in offers a search.
pub(crate) const CANDIDATES: usize = 30;

/// Leader counts a search tries: none, one, two, half, all.
pub(crate) fn leader_count(rng: &mut PopRng, n: usize) -> usize {
    [0, 1, 2.min(n), n / 2, n][below_u64(rng, 5) as usize]
}

/// A pattern of a variable in `0..=max`: full, empty, just below half (the largest `v` with
/// `2 v < max`), or uniform per agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Full,
    Empty,
    BelowHalf,
    Uniform,
}

impl Level {
    /// One of the four, uniformly.
    pub(crate) fn draw(rng: &mut PopRng) -> Level {
        [Level::Full, Level::Empty, Level::BelowHalf, Level::Uniform][below_u64(rng, 4) as usize]
    }

    /// An agent's value under this pattern.
    pub(crate) fn value(self, max: u32, rng: &mut PopRng) -> u32 {
        match self {
            Level::Full => max,
            Level::Empty => 0,
            Level::BelowHalf => max.saturating_sub(1) / 2,
            Level::Uniform => below_u64(rng, u64::from(max) + 1) as u32,
        }
    }

    /// The pattern in words: `full`, `0`, `just below half`, `uniform`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Full => "full",
            Level::Empty => "0",
            Level::BelowHalf => "just below half",
            Level::Uniform => "uniform",
        }
    }
}
