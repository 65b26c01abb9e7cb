pub struct A;

pub fn make() -> A {
    super::help();
    A
}
