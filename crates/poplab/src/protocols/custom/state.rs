//! A user protocol's state: a number for its name, with its output in the low bits, so that an
//! engine reads an output without a lookup.

use crate::protocol::Output;

/// The outputs in code order (3 bits).
const OUTPUTS: [Output; 5] = [Output::Leader, Output::Follower, Output::Yes, Output::No, Output::Undecided];

/// The most states a user protocol can have (`2^29`: 3 bits hold the output).
pub const MAX_STATES: usize = 1 << 29;

/// An interned state of a [`Custom`](super::Custom) protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CustomState(u32);

impl CustomState {
    /// State number `id` with output `output`.
    pub(super) fn new(id: u32, output: Output) -> Self {
        Self((id << 3) | output_code(output) as u32)
    }

    /// The state's number, in order of interning.
    pub fn id(self) -> u32 {
        self.0 >> 3
    }

    /// The state's output.
    #[inline(always)]
    pub fn output(self) -> Output {
        OUTPUTS[self.output_code()]
    }

    /// The code of the state's output, below [`OUTPUT_CODES`] ([`output_code`] of its output).
    #[inline(always)]
    pub(super) fn output_code(self) -> usize {
        (self.0 & 7) as usize
    }
}

// The codes index `OUTPUTS`.
const _: () = {
    let mut k = 0;
    while k < OUTPUTS.len() {
        assert!(output_code(OUTPUTS[k]) == k);
        k += 1;
    }
};

/// The number of output codes a state's low bits can hold (3 bits; codes past the outputs unused).
pub(super) const OUTPUT_CODES: usize = 8;

/// The code of `output` in a state's low bits.
pub(super) const fn output_code(output: Output) -> usize {
    match output {
        Output::Leader => 0,
        Output::Follower => 1,
        Output::Yes => 2,
        Output::No => 3,
        Output::Undecided => 4,
    }
}

/// An output by its name in protocol files: `leader`, `follower`, `yes`, `no` or `undecided`.
pub fn output_named(name: &str) -> Option<Output> {
    OUTPUTS.iter().copied().find(|&o| output_name(o) == name)
}

/// The names of the outputs, in code order: `leader`, `follower`, `yes`, `no`, `undecided` (what
/// [`output_named`] reads, messages list and the Python package takes).
pub fn output_names() -> Vec<&'static str> {
    OUTPUTS.iter().map(|&output| output_name(output)).collect()
}

/// The name of an output in protocol files.
pub fn output_name(output: Output) -> &'static str {
    match output {
        Output::Leader => "leader",
        Output::Follower => "follower",
        Output::Yes => "yes",
        Output::No => "no",
        Output::Undecided => "undecided",
    }
}
