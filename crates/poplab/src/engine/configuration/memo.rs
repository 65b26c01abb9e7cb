//! The results of the transitions met so far, by pair of state indices.

/// Transitions are memoised by state index for the first this many interned states (a table of
/// `MEMO_MAX_STATES^2` entries of 8 bytes).
const MEMO_MAX_STATES: usize = 1024;

/// The result state indices of the pairs of state indices whose transition was computed, for the
/// first [`MEMO_MAX_STATES`] interned states.
#[derive(Default)]
pub(super) struct TransitionMemo {
    /// `cells[i * stride + j]` holds the result indices of the pair `(i, j)` packed as
    /// `(i2 << 32 | j2) + 1`, or 0 when not yet computed.
    cells: Vec<u64>,
    stride: usize,
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
        let packed = self.cells[self.cell(i, j)?].checked_sub(1)?;
        Some(((packed >> 32) as u32, packed as u32))
    }

    /// Remembers the result indices of the pair `(i, j)` (if the memo covers it).
    #[inline]
    pub(super) fn set(&mut self, i: u32, j: u32, result: (u32, u32)) {
        if let Some(cell) = self.cell(i, j) {
            self.cells[cell] = ((u64::from(result.0) << 32) | u64::from(result.1)) + 1;
        }
    }
}
