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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_exists() {
        assert!(process_exists(pid()));
        assert!(!process_exists(0));
        assert!(page_size() >= 4096);
    }
}
