mod c;
mod d;

pub use c::*;
pub use d::D;
