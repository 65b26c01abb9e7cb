//! Helpers shared by the fuzz targets: splitting one input into several texts.

/// The separator between the parts of one fuzz input (a byte no text input needs).
pub const SEPARATOR: u8 = 0;

/// The first `count` parts of `data` split at [`SEPARATOR`], each as text (invalid UTF-8 replaced),
/// missing parts empty.
pub fn parts(data: &[u8], count: usize) -> Vec<String> {
    let mut parts: Vec<String> =
        data.splitn(count, |&b| b == SEPARATOR).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
    parts.resize(count, String::new());
    parts
}

/// Panics unless `error` is one of the library's typed errors with a message (every failure of a
/// parser must say what is wrong).
pub fn check_error(error: &poplab::Error) {
    assert!(!error.to_string().trim().is_empty(), "an error without a message: {error:?}");
}
