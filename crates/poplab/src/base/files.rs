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

/// The longest file name (one path component) the file systems poplab writes to take, in bytes
/// (`NAME_MAX` on Linux).
pub const NAME_MAX: usize = 255;

/// The most symbolic links followed from one output path (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Where an output named `path` is written, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputTarget {
    /// The file written: `path`, or what its symbolic links lead to (a dangling link's target,
    /// which the write creates).
    pub path: PathBuf,
    /// Whether it is written in place (a device or a pipe such as `/dev/null`, which must be
    /// opened once and never replaced) rather than atomically.
    pub in_place: bool,
}

/// Where an output named `path` is written: through its symbolic links (a dangling one to the
/// file it names), in place for a device or a pipe. A link that loops, or one through which no
/// file can be named, is an input error.
pub fn output_target(path: &Path) -> Result<OutputTarget> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)
                    .map_err(|e| file_error(path, format!("is a symbolic link that cannot be read ({e})")))?;
                current = if link.is_absolute() { link } else { parent_of(&current).join(link) };
            }
            Ok(meta) => return Ok(OutputTarget { in_place: !meta.is_file() && !meta.is_dir(), path: current }),
            Err(_) => return Ok(OutputTarget { path: current, in_place: false }),
        }
    }
    Err(file_error(
        path,
        format!("is a symbolic link that loops (more than {MAX_LINKS} links); point it at a file or remove it"),
    ))
}

/// Refuses a path with a component (a file or directory name) longer than [`NAME_MAX`] bytes,
/// which no file system takes: checked up front, not found at the final rename.
pub fn check_name_lengths(path: &Path) -> Result<()> {
    for component in path.components() {
        let length = component.as_os_str().len();
        if length > NAME_MAX {
            return Err(file_error(
                path,
                format!(
                    "has a name of {length} bytes, but a file or directory name takes at most {NAME_MAX}; shorten '{}'",
                    shorten(&component.as_os_str().to_string_lossy())
                ),
            ));
        }
    }
    Ok(())
}

/// The first and last characters of a long name, for messages.
fn shorten(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= 40 {
        return name.to_string();
    }
    let head: String = chars[..20].iter().collect();
    let tail: String = chars[chars.len() - 12..].iter().collect();
    format!("{head}...{tail}")
}

/// Whether the file at `path` may be written by this process (`access(2)`; it opens nothing,
/// so a pipe's reader sees no end of file).
fn writable(path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the name"))?;
        // SAFETY: `name` is a valid NUL-terminated string that outlives the call.
        if unsafe { libc::access(name.as_ptr(), libc::W_OK) } == 0 {
            return Ok(());
        }
        Err(std::io::Error::last_os_error())
    }
    #[cfg(not(target_os = "linux"))]
    {
        if std::fs::metadata(path)?.permissions().readonly() {
            return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "read-only"));
        }
        Ok(())
    }
}

/// Checks, before any work, that an output file can be written at `path`: it is not a
/// directory, its names fit the file system, its directory exists and takes new files (tested
/// by creating and removing a temporary file there); a device or a pipe is checked without
/// being opened.
pub fn check_output_file(path: &Path) -> Result<()> {
    if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(file_error(path, "is a directory; name a file to write, for example run.json".into()));
    }
    check_name_lengths(path)?;
    let OutputTarget { path: target, in_place } = output_target(path)?;
    if target != path {
        check_name_lengths(&target)?;
    }
    if in_place {
        return writable(&target).map_err(|e| file_error(path, format!("cannot be written ({e})")));
    }
    if target.is_dir() {
        return Err(file_error(path, format!("leads to the directory '{}'; name a file to write", target.display())));
    }
    let dir = parent_of(&target);
    match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(file_error(path, format!("its directory '{}' does not exist; create it first", dir.display())));
        }
        // A directory on the way that this user may not enter (permission denied): not "missing".
        Err(e) => {
            return Err(file_error(
                path,
                format!("its directory '{}' cannot be reached ({e}); choose a path you may write to", dir.display()),
            ));
        }
        Ok(_) => {}
    }
    if !dir.is_dir() {
        return Err(file_error(
            path,
            format!("'{}' is not a directory, so no file can be written under it; choose another path", dir.display()),
        ));
    }
    probe(&dir)
        .map(drop)
        .map_err(|e| file_error(path, format!("cannot create files in '{}' ({e}); choose another path", dir.display())))
}

/// A new empty file in `dir`, to see that it takes new files (removed when dropped). It is named
/// as this process's temporary files (`.poplab-PID-XXXXXX.partial`), so that one a kill leaves
/// behind is removed as stale like them ([`remove_stale_partials`], which runs first).
fn probe(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    remove_stale_partials(dir);
    tempfile::Builder::new().prefix(&partial_prefix()).suffix(".partial").tempfile_in(dir)
}

/// What a file is, to tell whether two names lead to it: an existing file by its device and
/// inode (whatever links lead to it), one still to be written by the canonical path of its
/// directory and its name.
#[derive(PartialEq)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return Some(FileId::Inode(meta.dev(), meta.ino()));
    }
    let target = output_target(path).ok()?.path;
    let dir = std::fs::canonicalize(parent_of(&target)).ok()?;
    Some(FileId::Path(dir.join(target.file_name()?)))
}

/// Refuses, before any work, an output that is one of the `inputs` or another output (after
/// following links): it would be overwritten, or two outputs would overwrite each other. Each
/// path comes with the option that names it (`--out`, `--checkpoint`, `--init`, ...). A device
/// or a pipe (`/dev/null`) may be named twice.
pub fn check_apart(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    let inputs: Vec<_> = inputs.iter().map(|&(option, path)| (option, path, file_id(path))).collect();
    let mut seen: Vec<(&str, &Path, Option<FileId>)> = Vec::new();
    for &(option, path) in outputs {
        let id = file_id(path);
        if id.is_none() || output_target(path).is_ok_and(|t| t.in_place) {
            continue;
        }
        let other = inputs.iter().map(|i| (i, "the input")).chain(seen.iter().map(|o| (o, "the output")));
        for ((other_option, other_path, other_id), what) in other {
            if *other_id == id {
                return Err(Error::Conflict {
                    reason: format!(
                        "{option} '{}' is the same file as {what} {other_option} '{}', which it would overwrite;                          give {option} a file of its own",
                        path.display(),
                        other_path.display()
                    ),
                });
            }
        }
        seen.push((option, path, id));
    }
    Ok(())
}

/// The prefix of the temporary files of this process: `.poplab-PID-`.
fn partial_prefix() -> String {
    format!(".poplab-{}-", std::process::id())
}

/// Removes the temporary files (`.poplab-PID-*.partial`) that killed runs left in `dir`: those of
/// a process that no longer runs, and this process's own from before it started (a reused PID).
/// Files of running processes, and any other file, are left alone.
pub fn remove_stale_partials(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let started = process_start();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = stale_candidate(&name.to_string_lossy()) else { continue };
        let stale = if pid == std::process::id() {
            started
                .is_some_and(|start| entry.metadata().and_then(|m| m.modified()).is_ok_and(|modified| modified < start))
        } else {
            !process_runs(pid)
        };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The PID in a temporary file name `.poplab-PID-XXXXXX.partial[.ext]`.
fn stale_candidate(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(".poplab-")?;
    let (pid, tail) = rest.split_once('-')?;
    if !tail.contains(".partial") {
        return None;
    }
    pid.parse().ok()
}

/// Whether a process with this PID exists (Linux: `/proc/PID`; elsewhere assumed to).
fn process_runs(pid: u32) -> bool {
    if cfg!(target_os = "linux") { Path::new(&format!("/proc/{pid}")).exists() } else { true }
}

/// When this process started (Linux: its `/proc/self` entry's time), if known.
fn process_start() -> Option<std::time::SystemTime> {
    static START: std::sync::OnceLock<Option<std::time::SystemTime>> = std::sync::OnceLock::new();
    *START.get_or_init(|| std::fs::metadata("/proc/self/stat").and_then(|m| m.modified()).ok())
}

/// Checks, before any work, that `path` can be (or already is) a directory that takes new files;
/// creates it (and its parents).
pub fn prepare_output_dir(path: &Path) -> Result<()> {
    check_name_lengths(path)?;
    if path.exists() && !path.is_dir() {
        return Err(file_error(path, "exists and is not a directory; name a directory to write into".into()));
    }
    std::fs::create_dir_all(path)
        .map_err(|e| file_error(path, format!("cannot create the directory ({e}); choose another path")))?;
    probe(path)
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
    let OutputTarget { path: target, in_place } = output_target(path)?;
    let path = target.as_path();
    let io = |e: std::io::Error| Error::Io(format!("'{}': cannot write ({e})", path.display()));
    if in_place {
        let mut out = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
        let mut buffered = std::io::BufWriter::new(&mut out);
        return fill(&mut buffered).and_then(|()| buffered.flush()).map_err(io);
    }
    let mut file = temporary_next_to(path, "")?;
    {
        let mut out = std::io::BufWriter::new(file.as_file_mut());
        fill(&mut out).and_then(|()| out.flush()).map_err(io)?;
    }
    file.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// A new temporary file next to `path` (`.poplab-PID-XXXXXX.partial` + `suffix`), after removing
/// the stale ones killed runs left there.
fn temporary_next_to(path: &Path, suffix: &str) -> Result<tempfile::NamedTempFile> {
    let dir = parent_of(path);
    remove_stale_partials(&dir);
    let mut builder = tempfile::Builder::new();
    let suffix = format!(".partial{suffix}");
    let prefix = partial_prefix();
    builder.prefix(&prefix).suffix(&suffix);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder
        .tempfile_in(&dir)
        .map_err(|e| file_error(path, format!("cannot create a file in '{}' ({e})", dir.display())))
}

/// Writes the output at `path` with `draw`, which writes a whole file at the path it is given (a
/// temporary one ending in `suffix`, next to the target): renamed into place once drawn, or for a
/// device or a pipe copied into it, opened once. A failed drawing leaves `path` as it was.
pub fn write_atomic_by<E: From<Error>>(
    path: &Path,
    suffix: &str,
    draw: impl FnOnce(&Path) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let OutputTarget { path: target, in_place } = output_target(path)?;
    let io = |e: std::io::Error| Error::Io(format!("'{}': cannot write ({e})", target.display()));
    let temporary = if in_place {
        tempfile::Builder::new().prefix(&partial_prefix()).suffix(suffix).tempfile().map_err(io)?
    } else {
        temporary_next_to(&target, suffix)?
    };
    draw(temporary.path())?;
    if in_place {
        let mut out = std::fs::OpenOptions::new().write(true).open(&target).map_err(io)?;
        std::io::copy(&mut std::fs::File::open(temporary.path()).map_err(io)?, &mut out).map_err(io)?;
        out.flush().map_err(io)?;
    } else {
        temporary.persist(&target).map_err(|e| io(e.error))?;
    }
    Ok(())
}

/// Reads the text file at `path` (`what` names it in errors), refusing one larger than `limit`
/// bytes after reading at most `limit + 1` of them.
pub fn read_limited(path: &Path, what: &str, limit: u64, why: &str) -> Result<String> {
    // A pipe or a device could block or never end: only regular files are read.
    if path.exists() && !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(file_error(path, format!("is not a regular file; give the {what} as a file")));
    }
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => file_error(path, format!("does not exist; give the path of the {what}")),
        _ => file_error(path, format!("cannot read the {what} ({e})")),
    })?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| file_error(path, format!("cannot read the {what} ({e})")))?;
    if bytes.len() as u64 > limit {
        return Err(file_error(path, format!("is larger than {limit} bytes, more than {why}; give the right {what}")));
    }
    String::from_utf8(bytes).map_err(|_| file_error(path, format!("the {what} is not UTF-8 text")))
}

/// Bytes of memory this process may still use: `POPLAB_AVAILABLE_MEMORY` if set (bytes: for
/// tests, or to reserve memory for something else), else the smallest of the machine's available
/// memory (`MemAvailable` of `/proc/meminfo`), the address-space limit (`RLIMIT_AS`, `ulimit -v`,
/// less what the process already maps) and what the process's cgroup and its ancestors may
/// still charge (cgroup v2 `memory.max` less `memory.current`, v1 `memory.limit_in_bytes` less
/// `memory.usage_in_bytes`: a Slurm job's limit). Unlimited where none can be read.
pub fn available_memory() -> u64 {
    if let Some(bytes) = std::env::var("POPLAB_AVAILABLE_MEMORY").ok().and_then(|v| crate::numbers::parse_u64(&v).ok())
    {
        return bytes;
    }
    [mem_available(), address_space_left(), cgroup_left()].into_iter().flatten().min().unwrap_or(u64::MAX)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:")
}

/// A `Name: N kB` field of a `/proc` file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The soft `RLIMIT_AS` less the address space already mapped (`VmSize`), if limited.
fn address_space_left() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `limit` is a valid, writable rlimit.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        let mapped = std::fs::read_to_string("/proc/self/status").ok().and_then(|t| kib_field(&t, "VmSize:"));
        Some(address_space_after(limit.rlim_cur, mapped.unwrap_or(0)))
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// What an address-space limit of `limit` bytes leaves once `mapped` bytes are mapped.
fn address_space_after(limit: u64, mapped: u64) -> u64 {
    limit.saturating_sub(mapped)
}

/// The least memory the process's cgroup, or one of its ancestors, may still charge.
fn cgroup_left() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_left_in(&membership, Path::new("/sys/fs/cgroup"))
}

/// [`cgroup_left`] for a `/proc/self/cgroup` text and the cgroup file systems mounted at `root`.
fn cgroup_left_in(membership: &str, root: &Path) -> Option<u64> {
    let read = |path: PathBuf| -> Option<u64> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    let mut least: Option<u64> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(group)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let group = group.trim_start_matches('/');
        let (base, limit_file, usage_file) = if id == "0" && controllers.is_empty() {
            (root.to_path_buf(), "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        // The group and every ancestor up to the root: each limit applies.
        let mut dir = base.join(group);
        loop {
            if let Some(limit) = read(dir.join(limit_file)) {
                // v1 writes "unlimited" as a huge number; v2 writes "max", which does not parse.
                if limit < (1 << 62) {
                    let used = read(dir.join(usage_file)).unwrap_or(0);
                    let left = limit.saturating_sub(used);
                    least = Some(least.map_or(left, |l| l.min(left)));
                }
            }
            if dir == base || !dir.pop() {
                break;
            }
        }
    }
    least
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

/// FNV-1a (64 bits) of `bytes`: the checksum of stored files (checkpoints, shards' trials) and the
/// hash of a sweep cell's key. It catches accidents (an edited or cut file), not forgery.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3))
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

    #[test]
    fn n7_memory_limits_of_cgroups_and_the_address_space_count() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // cgroup v2: the job's memory.max less what it uses; "max" is no limit.
        write("job/memory.max", "1000\n");
        write("job/memory.current", "300\n");
        write("memory.max", "max\n");
        assert_eq!(cgroup_left_in("0::/job\n", root.path()), Some(700));
        write("job/memory.max", "max\n");
        assert_eq!(cgroup_left_in("0::/job\n", root.path()), None);
        // cgroup v1 (a Slurm job's step): the tightest of the group and its ancestors.
        write("memory/slurm/job/memory.limit_in_bytes", "5000\n");
        write("memory/slurm/job/memory.usage_in_bytes", "1000\n");
        write("memory/slurm/memory.limit_in_bytes", "3000\n");
        write("memory/memory.limit_in_bytes", "9223372036854771712\n");
        assert_eq!(cgroup_left_in("4:memory:/slurm/job\n3:cpu:/\n", root.path()), Some(3000));
        assert_eq!(address_space_after(8_000_000_000, 100_000_000), 7_900_000_000);
        assert_eq!(address_space_after(100, 200), 0);
    }

    #[cfg(unix)]
    #[test]
    fn n9_dangling_links_lead_to_their_target_and_loops_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("sub/target.json", &link).unwrap();
        // Its directory is missing: refused up front.
        assert!(check_output_file(&link).unwrap_err().to_string().contains("does not exist"));
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        check_output_file(&link).unwrap();
        write_atomic(&link, "x").unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("sub/target.json")).unwrap(), "x");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        let looping = dir.path().join("self.json");
        std::os::unix::fs::symlink("self.json", &looping).unwrap();
        assert!(check_output_file(&looping).unwrap_err().to_string().contains("loops"));
        assert!(write_atomic(&looping, "x").is_err());
        assert!(std::fs::symlink_metadata(&looping).unwrap().file_type().is_symlink());
    }

    #[test]
    fn n3_names_longer_than_name_max_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_output_file(&dir.path().join("x".repeat(256))).unwrap_err().to_string();
        assert!(err.contains("256 bytes") && err.contains("at most 255"), "{err}");
        check_output_file(&dir.path().join("x".repeat(255))).unwrap();
        assert!(prepare_output_dir(&dir.path().join("d".repeat(300))).unwrap_err().to_string().contains("at most 255"));
    }

    #[test]
    fn r10_a_directory_that_cannot_be_reached_is_not_called_missing() {
        // (Permission denied cannot be had as root: a file on the way is another unreachable case.)
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let err = check_output_file(&file.join("sub/out.json")).unwrap_err().to_string();
        assert!(err.contains("cannot be reached") && !err.contains("does not exist"), "{err}");
        let err = check_output_file(&dir.path().join("missing/out.json")).unwrap_err().to_string();
        assert!(err.contains("does not exist; create it first"), "{err}");
    }

    #[test]
    fn r13_probe_files_carry_the_pid_so_a_kill_leaves_none_for_good() {
        let dir = tempfile::tempdir().unwrap();
        let probe = probe(dir.path()).unwrap();
        let name = probe.path().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(stale_candidate(&name), Some(std::process::id()), "{name}");
        // One left by a killed process goes at the next check of its directory.
        let left = dir.path().join(".poplab-4194305-abcdef.partial");
        std::fs::write(&left, "").unwrap();
        check_output_file(&dir.path().join("out.json")).unwrap();
        assert!(!left.exists());
    }

    #[test]
    fn n14_stale_partials_of_dead_processes_go() {
        assert_eq!(stale_candidate(".poplab-123-abc.partial"), Some(123));
        assert_eq!(stale_candidate(".poplab-123-abc.partial.svg"), Some(123));
        assert_eq!(stale_candidate(".poplab-check-abc"), None);
        assert_eq!(stale_candidate("poplab-123-abc.partial"), None);
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".poplab-4194305-x.partial");
        let other = dir.path().join("notes-4194305.partial");
        std::fs::write(&dead, "").unwrap();
        std::fs::write(&other, "").unwrap();
        write_atomic(&dir.path().join("out.json"), "{}").unwrap();
        assert!(!dead.exists() && other.exists());
    }
}
