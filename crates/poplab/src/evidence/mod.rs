//! The evidence wing: statistics, fits, verdicts and the tables they read, on plain numbers (it
//! imports only the base wing). Its modules are public at the crate root (`poplab::stats`, ...).

pub mod fit;
pub mod growth;
pub mod judge;
pub mod judgement;
pub mod stats;
pub mod table;
pub mod verdict;
