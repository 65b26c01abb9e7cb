pub struct C;

pub fn c_uses_d() -> super::D {
    super::D(C)
}
