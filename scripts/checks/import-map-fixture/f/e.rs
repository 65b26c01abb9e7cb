// One way: e.rs uses a.rs through the re-export, and nothing uses e.rs.
pub fn e() -> super::A {
    super::A
}
