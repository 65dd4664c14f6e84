//! The few OS calls std lacks. The only module of `util` allowed `unsafe` (with its
//! `udp` part: batched datagram I/O).

pub mod udp;

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

/// Allocates the first `length` bytes of `file` on its file system now (`fallocate`), so a
/// full file system is this call's `ENOSPC` rather than a `SIGBUS` when a mapping of the
/// file is first written. A file system without `fallocate` gets the range written with
/// zeros instead, which allocates it just the same.
pub fn reserve_file_space(file: &std::fs::File, length: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(length)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "length too large"))?;
    loop {
        // SAFETY: the descriptor is open for the lifetime of `file`; fallocate reads no
        // caller memory.
        let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) };
        if rc == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EOPNOTSUPP | libc::ENOSYS) => return write_zeros(file, length),
            _ => return Err(error),
        }
    }
}

/// Writes zeros over `[0, length)` of `file`, a block at a time.
fn write_zeros(file: &std::fs::File, length: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    const BLOCK: usize = 64 * 1024;
    let zeros = [0u8; BLOCK];
    let mut offset = 0u64;
    while offset < length {
        let n = usize::try_from((length - offset).min(BLOCK as u64)).unwrap_or(BLOCK);
        file.write_all_at(&zeros[..n], offset)?;
        offset += n as u64;
    }
    Ok(())
}

/// The number of the first shutdown signal that arrived, 0 while none has.
static SHUTDOWN_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_shutdown_signal(signal: libc::c_int) {
    // Only an atomic compare-and-swap: async-signal-safe. Release pairs with the Acquire in
    // `shutdown_signal`; the first signal wins so the exit status names what stopped us.
    let _ = SHUTDOWN_SIGNAL.compare_exchange(
        0,
        signal,
        std::sync::atomic::Ordering::Release,
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// Makes SIGINT and SIGTERM set a flag (read with [`shutdown_signalled`]) instead of killing
/// the process, so a standalone driver can shut down cleanly.
pub fn install_shutdown_signal_handlers() -> crate::util::error::Result<()> {
    let handler = on_shutdown_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler is an `extern "C"` function that only performs an atomic
        // compare-and-swap, which is async-signal-safe; `signal` is a valid signal number.
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
    shutdown_signal().is_some()
}

/// The first of SIGINT or SIGTERM that arrived since [`install_shutdown_signal_handlers`].
pub fn shutdown_signal() -> Option<i32> {
    match SHUTDOWN_SIGNAL.load(std::sync::atomic::Ordering::Acquire) {
        0 => None,
        signal => Some(signal),
    }
}

/// One address of a network interface, as `getifaddrs` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceAddress {
    pub name: String,
    /// `if_nametoindex` of the interface (0 if unknown).
    pub index: u32,
    pub addr: std::net::IpAddr,
    pub netmask: Option<std::net::IpAddr>,
    /// `IFF_*` flags of the interface.
    pub flags: u32,
}

/// The interface is up.
pub const IFF_UP: u32 = libc::IFF_UP as u32;
/// The interface is a loopback.
pub const IFF_LOOPBACK: u32 = libc::IFF_LOOPBACK as u32;
/// The interface supports multicast.
pub const IFF_MULTICAST: u32 = libc::IFF_MULTICAST as u32;

/// Frees a `getifaddrs` list exactly once, even if reading it panics.
struct IfAddrsList(*mut libc::ifaddrs);

impl Drop for IfAddrsList {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from a successful getifaddrs and is freed only here.
            unsafe { libc::freeifaddrs(self.0) };
        }
    }
}

/// The IP address in a `sockaddr` from `getifaddrs`, if it is IPv4 or IPv6.
fn sockaddr_ip(addr: *const libc::sockaddr) -> Option<std::net::IpAddr> {
    if addr.is_null() {
        return None;
    }
    // SAFETY: non-null sockaddr owned by the live getifaddrs list; the family field is
    // present in every sockaddr variant.
    let family = i32::from(unsafe { (*addr).sa_family });
    match family {
        libc::AF_INET => {
            // SAFETY: AF_INET tells the storage is a sockaddr_in (getifaddrs contract).
            let sin = unsafe { &*addr.cast::<libc::sockaddr_in>() };
            Some(std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)).into())
        }
        libc::AF_INET6 => {
            // SAFETY: AF_INET6 tells the storage is a sockaddr_in6 (getifaddrs contract).
            let sin6 = unsafe { &*addr.cast::<libc::sockaddr_in6>() };
            Some(std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr).into())
        }
        _ => None,
    }
}

/// Every IPv4 and IPv6 address of every interface (`getifaddrs`), in the kernel's order.
pub fn interface_addresses() -> std::io::Result<Vec<InterfaceAddress>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs only writes the list head through the valid out pointer.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let list = IfAddrsList(head);
    let mut out = Vec::new();
    let mut cursor = list.0;
    while !cursor.is_null() {
        // SAFETY: cursor is a node of the list, which stays alive until `list` drops.
        let entry = unsafe { &*cursor };
        if let Some(addr) = sockaddr_ip(entry.ifa_addr) {
            // SAFETY: ifa_name is a NUL-terminated string owned by the live list.
            let name = unsafe { std::ffi::CStr::from_ptr(entry.ifa_name) };
            // SAFETY: as above; if_nametoindex only reads the string.
            let index = unsafe { libc::if_nametoindex(entry.ifa_name) };
            out.push(InterfaceAddress {
                name: name.to_string_lossy().into_owned(),
                index,
                addr,
                netmask: sockaddr_ip(entry.ifa_netmask),
                flags: entry.ifa_flags,
            });
        }
        cursor = entry.ifa_next;
    }
    Ok(out)
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock Aeron's C `aeron_nano_clock` and Java's
/// `System.nanoTime` read on Linux, so values are comparable across processes of one host
/// (a C publisher stamping, a Java subscriber measuring). Read through the vDSO, no syscall.
#[inline]
pub fn monotonic_ns() -> i64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux,
    // so the call cannot fail and `now` is fully written.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// Marks which of `fds` are readable now (`revents`), without waiting; returns how many
/// are ready. An interrupted call reports 0 ready.
pub fn poll_now(fds: &mut [libc::pollfd]) -> std::io::Result<usize> {
    poll_wait(fds, std::time::Duration::ZERO)
}

/// `ppoll(2)`: waits until one of `fds` is readable or `timeout` passes (nanosecond
/// resolution, unlike `poll`'s milliseconds); returns how many are ready. An interrupted
/// wait reports 0 ready.
pub fn poll_wait(fds: &mut [libc::pollfd], timeout: std::time::Duration) -> std::io::Result<usize> {
    let count = libc::nfds_t::try_from(fds.len()).unwrap_or(libc::nfds_t::MAX);
    let timeout = libc::timespec {
        tv_sec: libc::time_t::try_from(timeout.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: fds is a valid, exclusively borrowed array of `count` pollfd entries; the
    // timeout is a valid timespec (nanoseconds < 1e9); a NULL signal mask keeps the
    // thread's own.
    let rc = unsafe { libc::ppoll(fds.as_mut_ptr(), count, &timeout, std::ptr::null()) };
    if rc < 0 {
        let err = std::io::Error::last_os_error();
        return if err.kind() == std::io::ErrorKind::Interrupted { Ok(0) } else { Err(err) };
    }
    Ok(rc as usize)
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

/// The local time of `epoch_seconds` from the C library (time zone from `TZ`), as Aeron's
/// date formatting uses it.
pub fn local_time(epoch_seconds: i64) -> crate::util::error::Result<crate::util::format::LocalTime> {
    use crate::util::error::Error;
    let seconds = libc::time_t::try_from(epoch_seconds)
        .map_err(|_| Error::invalid_argument(format!("timestamp {epoch_seconds} s out of range")))?;
    // SAFETY: tm is plain old data; all-zero is a valid value that localtime_r overwrites.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers refer to live locals for the duration of the call.
    let converted = unsafe { libc::localtime_r(&seconds, &mut tm) };
    if converted.is_null() {
        return Err(Error::invalid_argument(format!("timestamp {epoch_seconds} s has no local time")));
    }
    Ok(crate::util::format::LocalTime {
        year: tm.tm_year + 1900,
        month: (tm.tm_mon + 1) as u32,
        day: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        minute: tm.tm_min as u32,
        second: tm.tm_sec as u32,
        utc_offset_s: tm.tm_gmtoff,
    })
}

/// Pins the calling thread to CPU `cpu` (`sched_setaffinity`).
pub fn set_current_thread_affinity(cpu: usize) -> std::io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: cpu_set_t is plain old data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: cpu < CPU_SETSIZE (checked), so the bit lies inside the set.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 is the calling thread; set is a valid cpu_set_t of the size passed.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Names the calling thread (`pthread_setname_np`), cut to the 15 bytes Linux keeps; a
/// name with a NUL is cut there.
pub fn set_current_thread_name(name: &[u8]) -> std::io::Result<()> {
    let name = name.split(|&b| b == 0).next().unwrap_or_default();
    let mut c_name = [0 as libc::c_char; 16];
    for (slot, &byte) in c_name.iter_mut().zip(name.iter().take(15)) {
        *slot = byte as libc::c_char;
    }
    // SAFETY: pthread_self has no preconditions; c_name is NUL-terminated (its last byte
    // stays 0) and at most 16 bytes, the limit pthread_setname_np accepts.
    let rc = unsafe { libc::pthread_setname_np(libc::pthread_self(), c_name.as_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

/// Random bits from the kernel (`getrandom`, the pool `/dev/urandom` reads).
pub fn random_i32() -> std::io::Result<i32> {
    let mut bytes = [0u8; 4];
    let mut filled = 0;
    while filled < bytes.len() {
        let rest = &mut bytes[filled..];
        // SAFETY: rest is a writable buffer of rest.len() bytes; flags 0 reads the urandom pool.
        let rc = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if rc < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        filled += rc as usize;
    }
    Ok(i32::from_ne_bytes(bytes))
}

/// A path no file has yet, from `mkstemp(template)` whose file is removed again, as Aeron's
/// `aeron_temp_filename` makes them (`/tmp/aeron-c.XXXXXXX`). `template` ends in `XXXXXX`.
pub fn unused_temp_path(template: &str) -> std::io::Result<String> {
    let mut bytes = std::ffi::CString::new(template)
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?
        .into_bytes_with_nul();
    // SAFETY: bytes is a writable NUL-terminated template that mkstemp fills in place.
    let fd = unsafe { libc::mkstemp(bytes.as_mut_ptr().cast()) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd was just opened by mkstemp and is closed once, here.
    unsafe { libc::close(fd) };
    bytes.pop();
    let path = String::from_utf8(bytes).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    std::fs::remove_file(&path)?;
    Ok(path)
}

/// `struct sched_attr` of `sched_setattr(2)`, first version (56 bytes).
#[repr(C)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

/// Asks the scheduler to give the calling thread time slices of `slice_ns` (Linux 6.6+
/// EEVDF `sched_runtime` for `SCHED_OTHER`; the kernel clamps it to 0.1..100 ms). A thread
/// with a shorter slice than the running one may preempt it when it wakes, so an agent that
/// parks gets the CPU back promptly from threads that busy-spin. Keeps the thread's nice
/// value. Unprivileged.
pub fn set_current_thread_time_slice(slice_ns: u64) -> std::io::Result<()> {
    // SAFETY: clearing errno before getpriority, whose -1 result is also a valid nice value.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: who = 0 with PRIO_PROCESS names the calling thread on Linux.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let err = std::io::Error::last_os_error();
    if nice == -1 && err.raw_os_error().unwrap_or(0) != 0 {
        return Err(err);
    }
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: libc::SCHED_OTHER as u32,
        sched_flags: 0,
        sched_nice: nice,
        sched_priority: 0,
        sched_runtime: slice_ns,
        sched_deadline: 0,
        sched_period: 0,
    };
    // SAFETY: pid 0 is the calling thread; attr is a valid, fully initialised sched_attr
    // whose size field matches its length; flags 0.
    let rc = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_can_ask_for_short_time_slices() {
        std::thread::spawn(|| set_current_thread_time_slice(100_000).unwrap()).join().unwrap();
    }

    #[test]
    fn poll_wait_returns_when_a_descriptor_is_readable_or_the_time_is_up() {
        use std::os::fd::AsRawFd;
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut fds = [libc::pollfd { fd: socket.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
        assert_eq!(poll_wait(&mut fds, std::time::Duration::from_micros(200)).unwrap(), 0);
        socket.send_to(b"x", socket.local_addr().unwrap()).unwrap();
        assert_eq!(poll_wait(&mut fds, std::time::Duration::from_secs(5)).unwrap(), 1);
        assert_ne!(fds[0].revents & libc::POLLIN, 0);
    }

    #[test]
    fn own_process_exists() {
        assert!(process_exists(pid()));
        assert!(!process_exists(0));
        assert!(page_size() >= 4096);
        assert!(usable_disk_space(&std::env::temp_dir()).unwrap() > 0);
        assert!(usable_disk_space(std::path::Path::new("/nonexistent/x")).is_err());
    }

    #[test]
    fn loopback_interface_is_listed() {
        let all = interface_addresses().unwrap();
        let lo = all
            .iter()
            .find(|i| i.addr == std::net::IpAddr::from([127, 0, 0, 1]))
            .expect("127.0.0.1 on some interface");
        assert_ne!(lo.flags & IFF_LOOPBACK, 0);
        assert_ne!(lo.flags & IFF_UP, 0);
        assert!(lo.index > 0);
        assert_eq!(lo.netmask, Some(std::net::IpAddr::from([255, 0, 0, 0])));
    }

    #[test]
    fn poll_reports_a_readable_socket() {
        use std::os::fd::AsRawFd;
        let rx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut fds = [libc::pollfd { fd: rx.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
        assert_eq!(poll_now(&mut fds).unwrap(), 0);
        tx.send_to(b"x", rx.local_addr().unwrap()).unwrap();
        // Loopback normally queues the datagram before send_to returns; allow the kernel a
        // few milliseconds in case its delivery was deferred.
        let mut ready = 0;
        for _ in 0..5000 {
            ready = poll_now(&mut fds).unwrap();
            if ready > 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(ready, 1);
        assert_ne!(fds[0].revents & libc::POLLIN, 0);
    }

    #[test]
    fn thread_names_are_cut_to_what_linux_keeps() {
        std::thread::spawn(|| {
            set_current_thread_name(b"a-rather-long-agent-name").unwrap();
            let name = std::fs::read_to_string("/proc/thread-self/comm").unwrap();
            assert_eq!(name.trim_end(), "a-rather-long-a");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn random_values_differ_and_temp_paths_are_free() {
        let values: std::collections::BTreeSet<i32> = (0..8).map(|_| random_i32().unwrap()).collect();
        assert!(values.len() > 1, "8 random draws were all equal: {values:?}");
        let dir = std::env::temp_dir().join("aeronrs-temp-XXXXXX");
        let path = unused_temp_path(dir.to_str().unwrap()).unwrap();
        assert!(path.starts_with(std::env::temp_dir().to_str().unwrap()) && !path.ends_with("XXXXXX"));
        assert!(!std::path::Path::new(&path).exists());
    }

    #[test]
    fn real_user_name_is_a_plain_name() {
        // Containers may run with a uid that has no passwd entry; then None is right.
        if let Some(name) = real_user_name() {
            assert!(!name.is_empty() && !name.contains('\0'));
        }
    }

    #[test]
    fn thread_affinity_to_an_allowed_cpu() {
        std::thread::spawn(|| {
            // SAFETY: cpu_set_t is plain old data; sched_getaffinity fills it.
            let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            // SAFETY: pid 0 is this thread; the set is valid for its size.
            let rc =
                unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) };
            assert_eq!(rc, 0);
            // SAFETY: every index is below CPU_SETSIZE, inside the set.
            let cpu =
                (0..libc::CPU_SETSIZE as usize).find(|&c| unsafe { libc::CPU_ISSET(c, &allowed) }).unwrap();
            set_current_thread_affinity(cpu).unwrap();
            assert_eq!(
                set_current_thread_affinity(libc::CPU_SETSIZE as usize).unwrap_err().raw_os_error(),
                Some(libc::EINVAL)
            );
        })
        .join()
        .unwrap();
    }
}
