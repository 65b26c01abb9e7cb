use super::A;

pub fn helper() {}

pub fn unused(_: A) {}
