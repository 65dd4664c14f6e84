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

/// Login name of the real user id from the password database, if it has one.
pub fn real_user_name() -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 1024];
    loop {
        // SAFETY: passwd is plain old data; zeroed is a valid (empty) value that
        // getpwuid_r overwrites.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        // SAFETY: all pointers are valid for the call: pwd and result are locals, buf is
        // writable for buf.len() bytes; strings written into buf live as long as buf.
        let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return None;
        }
        // SAFETY: on success pw_name points to a NUL-terminated string inside buf, which
        // is alive here.
        let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
        return Some(name.to_string_lossy().into_owned()).filter(|n| !n.is_empty());
    }
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

    #[test]
    fn real_user_name_is_a_plain_name() {
        // Containers may run with a uid that has no passwd entry; then None is right.
        if let Some(name) = real_user_name() {
            assert!(!name.is_empty() && !name.contains('\0'));
        }
    }
}
