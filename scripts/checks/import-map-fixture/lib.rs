pub mod f;
pub mod g;
pub mod h;

pub use f::A;
