//! The monitor of every protocol whose safe set is "exactly one agent outputs leader".

use crate::protocol::{Monitor, Protocol};

/// Counts the agents whose output is leader; safe iff exactly one.
#[derive(Clone, Debug)]
pub struct LeaderCount<P: Protocol + Clone> {
    protocol: P,
    leaders: usize,
}

impl<P: Protocol + Clone> LeaderCount<P> {
    /// Counts the leaders of `agents`.
    pub fn new(protocol: &P, agents: &[P::State]) -> Self {
        let leaders = agents.iter().filter(|&&s| protocol.output(s).is_marked()).count();
        Self { protocol: protocol.clone(), leaders }
    }

    /// Counts the leaders of the configuration with these (state, count) pairs.
    pub fn of_counts(protocol: &P, counts: &[(P::State, u64)]) -> Self {
        let leaders = counts.iter().filter(|&&(s, _)| protocol.output(s).is_marked()).map(|&(_, c)| c as usize).sum();
        Self { protocol: protocol.clone(), leaders }
    }

    /// The current number of leaders.
    pub fn leaders(&self) -> usize {
        self.leaders
    }
}

impl<P: Protocol + Clone> Monitor<P::State> for LeaderCount<P> {
    #[inline(always)]
    fn record(&mut self, before: [P::State; 2], after: [P::State; 2]) {
        let marked = |s: P::State| usize::from(self.protocol.output(s).is_marked());
        self.leaders = self.leaders + marked(after[0]) + marked(after[1]) - marked(before[0]) - marked(before[1]);
    }

    fn record_times(&mut self, before: [P::State; 2], after: [P::State; 2], times: u64) {
        let marked = |s: P::State| usize::from(self.protocol.output(s).is_marked());
        let times = times as usize;
        self.leaders = self.leaders + times * (marked(after[0]) + marked(after[1]))
            - times * (marked(before[0]) + marked(before[1]));
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.leaders == 1
    }
}
