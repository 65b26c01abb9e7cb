//! The results of the transitions met so far, by pair of state indices.

use crate::protocol::StateHasher;
use std::collections::HashMap;

/// Transitions are memoised in a table by state index for the first this many interned states (a
/// table of `MEMO_MAX_STATES^2` entries of 8 bytes), and in a hash map beyond.
const MEMO_MAX_STATES: usize = 1024;

/// Pairs the hash map beyond the table holds at most (some 40 bytes each): when it is full it
/// starts again empty, so a run through very many states keeps the pairs met lately.
const OVERFLOW_MAX_PAIRS: usize = 1 << 22;

/// The result state indices of the pairs of state indices whose transition was computed: a table
/// for the first [`MEMO_MAX_STATES`] interned states, a bounded hash map for pairs with a state
/// beyond (P_LL's BackUp holds thousands of states at once). A cache only: what it returns is
/// what the transition gives, so it changes no result and no draw.
#[derive(Default)]
pub(super) struct TransitionMemo {
    /// `cells[i * stride + j]` holds the result indices of the pair `(i, j)` packed as
    /// `(i2 << 32 | j2) + 1`, or 0 when not yet computed.
    cells: Vec<u64>,
    stride: usize,
    /// The pairs beyond the table, `(i << 32 | j)` to the packed result (without the `+ 1`).
    overflow: HashMap<u64, u64, StateHasher>,
}

impl TransitionMemo {
    /// Makes room for `states` interned states, as far as the memo goes: doubles the stride (at
    /// least 16) when they outgrow it, keeping the results already known.
    pub(super) fn cover(&mut self, states: usize) {
        if states <= self.stride || self.stride >= MEMO_MAX_STATES {
            return;
        }
        let stride = (2 * self.stride).clamp(16, MEMO_MAX_STATES);
        let mut cells = vec![0; stride * stride];
        for i in 0..self.stride {
            let row = i * self.stride;
            cells[i * stride..i * stride + self.stride].copy_from_slice(&self.cells[row..row + self.stride]);
        }
        self.cells = cells;
        self.stride = stride;
    }

    /// The memo's cell of the pair of state indices `(i, j)`, if the memo covers both.
    #[inline]
    fn cell(&self, i: u32, j: u32) -> Option<usize> {
        let (i, j) = (i as usize, j as usize);
        (i < self.stride && j < self.stride).then(|| i * self.stride + j)
    }

    /// The result indices of the pair `(i, j)`, if known.
    #[inline]
    pub(super) fn get(&self, i: u32, j: u32) -> Option<(u32, u32)> {
        let packed = match self.cell(i, j) {
            Some(cell) => self.cells[cell].checked_sub(1)?,
            None => *self.overflow.get(&pair_key(i, j))?,
        };
        Some(((packed >> 32) as u32, packed as u32))
    }

    /// Remembers the result indices of the pair `(i, j)`.
    #[inline]
    pub(super) fn set(&mut self, i: u32, j: u32, result: (u32, u32)) {
        let packed = pair_key(result.0, result.1);
        match self.cell(i, j) {
            Some(cell) => self.cells[cell] = packed + 1,
            None => {
                if self.overflow.len() >= OVERFLOW_MAX_PAIRS {
                    self.overflow.clear();
                }
                self.overflow.insert(pair_key(i, j), packed);
            }
        }
    }
}

/// Two state indices in one word.
#[inline]
fn pair_key(i: u32, j: u32) -> u64 {
    (u64::from(i) << 32) | u64::from(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_beyond_the_table_are_remembered_too() {
        let mut memo = TransitionMemo::default();
        memo.cover(3 * MEMO_MAX_STATES);
        let beyond = MEMO_MAX_STATES as u32 + 476;
        for (i, j) in [(0, 1), (beyond, 3), (3, beyond), (beyond, beyond)] {
            assert_eq!(memo.get(i, j), None, "({i}, {j}) before");
            memo.set(i, j, (j, i + 1));
            assert_eq!(memo.get(i, j), Some((j, i + 1)), "({i}, {j})");
        }
        assert_eq!(memo.get(beyond, 4), None);
        // Result (0, 0) is a result, not an empty cell, in the table and beyond.
        memo.set(2, 2, (0, 0));
        memo.set(beyond, 0, (0, 0));
        assert_eq!((memo.get(2, 2), memo.get(beyond, 0)), (Some((0, 0)), Some((0, 0))));
    }
}
