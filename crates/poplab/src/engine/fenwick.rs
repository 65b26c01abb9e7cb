//! A Fenwick tree over counts: the index that holds a given rank, and count changes, in
//! `O(log len)` each. The count engine picks agents with it; a batch draws from its urn with it.

/// Counts by index `0..capacity`, with the prefix sums of a Fenwick tree (1-based, its length a
/// power of two so that the search needs no bounds checks).
#[derive(Clone, Debug)]
pub(super) struct Fenwick {
    tree: Vec<u64>,
}

impl Default for Fenwick {
    fn default() -> Self {
        Self { tree: vec![0; 2] }
    }
}

impl Fenwick {
    /// How many indices the tree holds.
    pub(super) fn capacity(&self) -> usize {
        self.tree.len() - 1
    }

    /// Holds `counts` (index `i` has `counts[i]`) from now on, with a capacity of the power of two
    /// just above `counts.len()`, minus one (`O(counts.len())`; a list growing one index at a time
    /// is rebuilt only when its length doubles).
    pub(super) fn rebuild(&mut self, counts: &[u64]) {
        let len = (counts.len() + 1).next_power_of_two();
        self.tree.clear();
        self.tree.resize(len, 0);
        self.tree[1..=counts.len()].copy_from_slice(counts);
        for i in 1..len {
            let parent = i + (i & i.wrapping_neg());
            if parent < len {
                self.tree[parent] += self.tree[i];
            }
        }
    }

    /// Adds `delta` to the count of `index` (the count stays non-negative).
    #[inline]
    pub(super) fn add(&mut self, index: usize, delta: i64) {
        let mut i = index + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// The index whose slice holds `rank` when the counts are laid end to end in index order
    /// (`rank` below their total).
    #[inline]
    pub(super) fn find(&self, mut rank: u64) -> usize {
        // The length is a power of two, so `pos + bit` stays below it. Branch-free: which way the
        // search goes is a coin flip for the branch predictor.
        let mut pos = 0usize;
        let mut bit = self.tree.len() / 2;
        while bit > 0 {
            let below = self.tree[pos + bit];
            let go = below <= rank;
            rank -= if go { below } else { 0 };
            pos += if go { bit } else { 0 };
            bit /= 2;
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_index_of_every_rank_through_changes_and_growth() {
        let mut counts = vec![3, 0, 5, 1];
        let mut tree = Fenwick::default();
        tree.rebuild(&counts);
        let check = |tree: &Fenwick, counts: &[u64]| {
            let expected: Vec<usize> = counts.iter().enumerate().flat_map(|(i, &c)| vec![i; c as usize]).collect();
            let found: Vec<usize> = (0..expected.len() as u64).map(|rank| tree.find(rank)).collect();
            assert_eq!(found, expected);
        };
        check(&tree, &counts);
        tree.add(1, 2);
        tree.add(2, -4);
        counts[1] += 2;
        counts[2] -= 4;
        check(&tree, &counts);
        counts.extend([0, 7, 2, 0, 4]);
        tree.rebuild(&counts);
        assert!(tree.capacity() >= counts.len());
        check(&tree, &counts);
    }
}
