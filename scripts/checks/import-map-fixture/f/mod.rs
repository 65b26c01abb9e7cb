mod a;
mod b;
mod e;

pub use a::A;
use b::helper as help;
