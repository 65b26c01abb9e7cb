pub struct D(pub crate::g::C);
