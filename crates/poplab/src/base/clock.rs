//! The processor time of the calling thread, for the cost of trials (claims' designs report it in
//! core-hours).

/// The processor time the calling thread has used, in seconds (`None` where the system does not
/// say).
pub fn thread_cpu_seconds() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `time` is a valid, writable timespec for the duration of the call.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
        (status == 0).then_some(time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_thread_clock_advances_with_work() {
        let Some(start) = super::thread_cpu_seconds() else { return };
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        let end = super::thread_cpu_seconds().unwrap();
        assert!(end > start, "{start} {end} {x}");
    }
}
