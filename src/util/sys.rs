//! The few OS calls std lacks. The only module of `util` allowed `unsafe`.

/// Whether a process with this pid exists (signal 0 probe).
pub fn process_exists(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 performs only the existence/permission check; no signal
    // is delivered and no memory is passed.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// This process's id.
pub fn pid() -> i32 {
    std::process::id() as i32
}

/// The system page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions and reads no caller memory.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 { size as usize } else { 4096 }
}

/// Bytes an unprivileged user may still write on the file system holding `path`.
pub fn usable_disk_space(path: &std::path::Path) -> crate::util::error::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        crate::util::error::Error::invalid_argument(format!("{} contains NUL", path.display()))
    })?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a valid NUL-terminated string and `stat` points to writable
    // memory of the size statvfs fills.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) };
    if rc != 0 {
        return Err(crate::util::error::Error::io(
            &std::io::Error::last_os_error(),
            format_args!("statvfs {}", path.display()),
        ));
    }
    // SAFETY: statvfs returned 0, so it initialised the whole struct.
    let stat = unsafe { stat.assume_init() };
    // The field types differ between platforms (u32 or u64), hence the allowance.
    #[allow(clippy::useless_conversion)]
    let (blocks, block_size) = (u64::from(stat.f_bavail), u64::from(stat.f_frsize));
    Ok(blocks.saturating_mul(block_size))
}

static SHUTDOWN_SIGNALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_shutdown_signal(_signal: libc::c_int) {
    // Only an atomic store: async-signal-safe. Release pairs with the Acquire in
    // `shutdown_signalled`.
    SHUTDOWN_SIGNALLED.store(true, std::sync::atomic::Ordering::Release);
}

/// Makes SIGINT and SIGTERM set a flag (read with [`shutdown_signalled`]) instead of killing
/// the process, so a standalone driver can shut down cleanly.
pub fn install_shutdown_signal_handlers() -> crate::util::error::Result<()> {
    let handler = on_shutdown_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler is an `extern "C"` function that only performs an atomic
        // store, which is async-signal-safe; `signal` is passed a valid signal number.
        let previous = unsafe { libc::signal(signal, handler) };
        if previous == libc::SIG_ERR {
            return Err(crate::util::error::Error::io(
                &std::io::Error::last_os_error(),
                format_args!("install handler for signal {signal}"),
            ));
        }
    }
    Ok(())
}

/// Whether SIGINT or SIGTERM arrived since [`install_shutdown_signal_handlers`].
pub fn shutdown_signalled() -> bool {
    SHUTDOWN_SIGNALLED.load(std::sync::atomic::Ordering::Acquire)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_exists() {
        assert!(process_exists(pid()));
        assert!(!process_exists(0));
        assert!(page_size() >= 4096);
        assert!(usable_disk_space(&std::env::temp_dir()).unwrap() > 0);
        assert!(usable_disk_space(std::path::Path::new("/nonexistent/x")).is_err());
    }
}
