use crate::A;
use crate::g::{self, D};

pub fn h(_: A, _: D, _: g::C) {}

#[cfg(test)]
mod tests {
    use crate::f::b;
}
