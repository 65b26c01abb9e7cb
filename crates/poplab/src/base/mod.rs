//! The base wing: what every other module may use and what uses nothing of poplab above it. Its
//! modules are public at the crate root (`poplab::rng`, ...).

pub mod clock;
pub mod error;
pub mod files;
pub mod numbers;
pub mod rng;
