//! Files the user names: outputs checked before a run starts and written atomically, inputs read
//! with a size limit, and the memory a run may use.
//!
//! Every error here is an input error that names the path and says what to do.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

fn file_error(path: &Path, what: String) -> Error {
    Error::File { path: path.display().to_string(), reason: what }
}

/// The directory a file at `path` is written into (`.` for a bare file name).
pub(crate) fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Where an output named `path` is written: through a symbolic link to its target, and whether
/// that target is written in place (a device or a pipe such as `/dev/null`, which must not be
/// replaced) rather than atomically.
fn output_target(path: &Path) -> (PathBuf, bool) {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let in_place = target.exists() && !target.is_file();
    (target, in_place)
}

/// Checks, before any work, that an output file can be written at `path`: it is not a
/// directory, and its directory exists and takes new files (tested by creating and removing a
/// temporary file there).
pub fn check_output_file(path: &Path) -> Result<()> {
    if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(file_error(path, "is a directory; name a file to write, for example run.json".into()));
    }
    let (target, in_place) = output_target(path);
    if in_place {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .map(drop)
            .map_err(|e| file_error(path, format!("cannot be written ({e})")));
    }
    let path = target.as_path();
    let dir = parent_of(path);
    if !dir.is_dir() {
        return Err(file_error(path, format!("its directory '{}' does not exist; create it first", dir.display())));
    }
    tempfile::Builder::new()
        .prefix(".poplab-check-")
        .tempfile_in(&dir)
        .map(drop)
        .map_err(|e| file_error(path, format!("cannot create files in '{}' ({e}); choose another path", dir.display())))
}

/// Checks, before any work, that `path` can be (or already is) a directory that takes new files;
/// creates it (and its parents).
pub fn prepare_output_dir(path: &Path) -> Result<()> {
    if path.exists() && !path.is_dir() {
        return Err(file_error(path, "exists and is not a directory; name a directory to write into".into()));
    }
    std::fs::create_dir_all(path)
        .map_err(|e| file_error(path, format!("cannot create the directory ({e}); choose another path")))?;
    tempfile::Builder::new()
        .prefix(".poplab-check-")
        .tempfile_in(path)
        .map(drop)
        .map_err(|e| file_error(path, format!("cannot create files in it ({e}); choose another directory")))
}

/// Writes `text` to `path` atomically: into a new temporary file with a unique name in the same
/// directory, renamed over `path` once complete. No other file is touched, and a reader never
/// sees a half-written `path`. The file gets the usual permissions (`0666` less the umask).
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    write_atomic_with(path, |out| out.write_all(text.as_bytes()))
}

/// Like [`write_atomic`], with the contents written by `fill` (through a buffer).
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let (target, in_place) = output_target(path);
    let path = target.as_path();
    if in_place {
        let io = |e: std::io::Error| Error::Io(format!("'{}': cannot write ({e})", path.display()));
        let mut out = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
        return fill(&mut out).and_then(|()| out.flush()).map_err(io);
    }
    let dir = parent_of(path);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".poplab-").suffix(".partial");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder
        .tempfile_in(&dir)
        .map_err(|e| file_error(path, format!("cannot create a file in '{}' ({e})", dir.display())))?;
    let io = |e: std::io::Error| Error::Io(format!("'{}': cannot write ({e})", path.display()));
    {
        let mut out = std::io::BufWriter::new(file.as_file_mut());
        fill(&mut out).and_then(|()| out.flush()).map_err(io)?;
    }
    file.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Reads the text file at `path` (`what` names it in errors), refusing one larger than `limit`
/// bytes after reading at most `limit + 1` of them.
pub fn read_limited(path: &Path, what: &str, limit: u64, why: &str) -> Result<String> {
    // A pipe or a device could block or never end: only regular files are read.
    if path.exists() && !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(file_error(path, format!("is not a regular file; give the {what} as a file")));
    }
    let file = std::fs::File::open(path).map_err(|e| file_error(path, format!("cannot read the {what} ({e})")))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| file_error(path, format!("cannot read the {what} ({e})")))?;
    if bytes.len() as u64 > limit {
        return Err(file_error(
            path,
            format!("is larger than {limit} bytes, more than {why}; give the right {what} file"),
        ));
    }
    String::from_utf8(bytes).map_err(|_| file_error(path, format!("the {what} is not UTF-8 text")))
}

/// Bytes of memory this process may use: `POPLAB_AVAILABLE_MEMORY` if set (bytes: for tests, or
/// to reserve memory for something else), else the machine's available memory (`MemAvailable`
/// of `/proc/meminfo` on Linux; unlimited where it cannot be read).
pub fn available_memory() -> u64 {
    if let Some(bytes) = std::env::var("POPLAB_AVAILABLE_MEMORY").ok().and_then(|v| crate::numbers::parse_u64(&v).ok())
    {
        return bytes;
    }
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
        .unwrap_or(u64::MAX)
}

/// `bytes` in GB (10^9 bytes) with one decimal, for messages.
pub fn gigabytes(bytes: u128) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// Refuses `needed` bytes (described by `what`) beyond the available memory, saying what to do.
pub fn check_memory(needed: u128, what: &str, fix: &str) -> Result<()> {
    let available = available_memory();
    if needed > u128::from(available) {
        return Err(Error::Memory(format!(
            "{what} needs about {} but {} of memory are available; {fix}",
            gigabytes(needed),
            gigabytes(u128::from(available))
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_leave_other_files_alone() {
        let dir = tempfile::tempdir().unwrap();
        let partial = dir.path().join("data.partial");
        std::fs::write(&partial, "mine").unwrap();
        write_atomic(&dir.path().join("data.json"), "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(dir.path().join("data.json")).unwrap(), "{}");
        write_atomic(&partial, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("data.json")).unwrap().permissions().mode();
            assert_eq!(mode & 0o044, 0o044, "readable by others under the usual umask: {mode:o}");
        }
    }

    #[test]
    fn outputs_are_checked_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_output_file(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is a directory") && err.contains(&dir.path().display().to_string()), "{err}");
        let err = check_output_file(&dir.path().join("missing/x.json")).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
        // A symbolic link is written through, a device in place.
        let target = dir.path().join("target.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&target, &link).unwrap();
            check_output_file(&link).unwrap();
            write_atomic(&link, "new").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
            check_output_file(Path::new("/dev/null")).unwrap();
            write_atomic(Path::new("/dev/null"), "nothing").unwrap();
            assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        }
        let err = check_output_file(Path::new("/proc/x.json")).unwrap_err().to_string();
        assert!(err.contains("/proc/x.json") && err.contains("cannot create files"), "{err}");
        check_output_file(&dir.path().join("ok.json")).unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert!(prepare_output_dir(&file).unwrap_err().to_string().contains("not a directory"));
        assert!(prepare_output_dir(Path::new("/proc/rep")).is_err());
        prepare_output_dir(&dir.path().join("a/b")).unwrap();
    }

    #[test]
    fn reads_stop_at_the_limit() {
        let err = read_limited(Path::new("/dev/zero"), "initial configuration", 1000, "10 agents need").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; 5000]).unwrap();
        let err = read_limited(&big, "initial configuration", 1000, "10 agents need").unwrap_err();
        assert!(err.to_string().contains("larger than 1000 bytes"), "{err}");
        let path = dir.path().join("x");
        std::fs::write(&path, "hello").unwrap();
        assert_eq!(read_limited(&path, "file", 5, "").unwrap(), "hello");
    }
}
