//! An agent's `status` (Table 3) and the module that can demote it: the words the P_LL family's
//! core and its states share.

/// `status` of Table 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not yet assigned (every agent before its first interaction).
    X,
    /// Leader candidate.
    A,
    /// Timer agent.
    B,
}

impl Status {
    /// The paper's letter.
    pub fn letter(self) -> &'static str {
        match self {
            Status::X => "X",
            Status::A => "A",
            Status::B => "B",
        }
    }
}

/// The part of P_LL that can turn a leader into a follower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// Lines 1-6: an agent of status X gets status B (line 3) or becomes a follower of status A
    /// (line 5).
    StatusAssignment,
    /// Lines 39-42 (epoch 1).
    QuickElimination,
    /// Lines 46-49 (epoch 2).
    Tournament,
    /// Lines 53-57 (epoch 3).
    BackUp,
}

impl Module {
    /// Every module, in the order the algorithm runs them.
    pub const ALL: [Module; 4] =
        [Module::StatusAssignment, Module::QuickElimination, Module::Tournament, Module::BackUp];

    /// The module's name as written in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Module::StatusAssignment => "status-assignment",
            Module::QuickElimination => "quick-elimination",
            Module::Tournament => "tournament",
            Module::BackUp => "backup",
        }
    }
}
