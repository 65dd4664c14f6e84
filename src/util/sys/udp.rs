//! The UDP system calls std and socket2 lack: batched receive and send (`recvmmsg`,
//! `sendmmsg`), with the ancillary data the driver uses — the kernel receive timestamp
//! (`SO_TIMESTAMPNS`), generic receive offload (`UDP_GRO`: one read returns several
//! datagrams of one sender glued together, with their segment size) and generic
//! segmentation offload (`UDP_SEGMENT`: one message of equal-sized datagrams that the
//! kernel or NIC splits).
//!
//! Each call builds its message headers on the stack (at most [`MAX_BATCH`]), so nothing
//! here allocates, and the headers' raw pointers never outlive the call.

use std::io;
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::RawFd;

/// Most datagrams one call reads or sends (Aeron's `AERON_DRIVER_*_IO_VECTOR_LENGTH_MAX`).
pub const MAX_BATCH: usize = 16;
/// Most segments the kernel takes in one `UDP_SEGMENT` send (`UDP_MAX_SEGMENTS`).
pub const MAX_GSO_SEGMENTS: usize = 64;
/// Most bytes of one `UDP_SEGMENT` send: one IP packet's UDP payload.
pub const MAX_GSO_BYTES: usize = 65_507 - 8;

// Linux ABI values (`linux/udp.h`); libc lacks them for some targets.
const UDP_SEGMENT: libc::c_int = 103;
const UDP_GRO: libc::c_int = 104;

/// Ancillary space per message: a timespec and an int, each with its header, with room to
/// spare (the kernel truncates and flags `MSG_CTRUNC` rather than overflow).
const CONTROL_WORDS: usize = 16;
/// Ancillary space of a sent message: one `UDP_SEGMENT` u16 with its header
/// (`CMSG_SPACE(2)`, 24 bytes on 64-bit Linux), with room to spare.
const SEND_CONTROL_WORDS: usize = 4;

/// What one received message held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceivedMessage {
    /// Bytes written into the message's slot.
    pub length: usize,
    /// The sender (`None` for a family other than IPv4/IPv6).
    pub source: Option<SocketAddr>,
    /// `SCM_TIMESTAMPNS`: `CLOCK_REALTIME` nanoseconds when the kernel received it.
    pub timestamp_ns: Option<i64>,
    /// `UDP_GRO`: the message is several datagrams of this size (the last may be shorter).
    pub segment_size: Option<usize>,
}

impl ReceivedMessage {
    const EMPTY: Self = Self { length: 0, source: None, timestamp_ns: None, segment_size: None };
}

impl Default for ReceivedMessage {
    fn default() -> Self {
        Self::EMPTY
    }
}

fn set_int_option(fd: RawFd, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: `value` is a live c_int and the length passed is its size; the kernel only
    // reads it. A bad descriptor or option is reported as an error, not UB.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Turns on kernel receive timestamps (`SO_TIMESTAMPNS`, and hardware receive
/// timestamping requests as Aeron asks for them; the kernel falls back to software).
pub fn enable_receive_timestamps(fd: RawFd) -> io::Result<()> {
    set_int_option(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)?;
    set_int_option(
        fd,
        libc::SOL_SOCKET,
        libc::SO_TIMESTAMPING,
        libc::SOF_TIMESTAMPING_RX_HARDWARE as libc::c_int,
    )
}

/// Turns on `UDP_GRO`: reads may return several datagrams glued together (see
/// [`ReceivedMessage::segment_size`]). Fails where the kernel lacks it (before 5.0).
pub fn enable_udp_gro(fd: RawFd) -> io::Result<()> {
    set_int_option(fd, libc::SOL_UDP, UDP_GRO, 1)
}

/// The address the kernel wrote at `name` (`length` bytes of it).
///
/// # Safety
/// `name` points at a sockaddr_storage whose first `length` bytes (at most its size) are
/// initialised, as after a receive call filled it.
unsafe fn to_socket_addr(name: *const libc::sockaddr_storage, length: libc::socklen_t) -> Option<SocketAddr> {
    let length = length as usize;
    if length < std::mem::size_of::<libc::sa_family_t>() {
        return None;
    }
    // SAFETY: the family field comes first and lies within the initialised bytes.
    let family = unsafe { std::ptr::addr_of!((*name).ss_family).read() };
    match libc::c_int::from(family) {
        libc::AF_INET if length >= std::mem::size_of::<libc::sockaddr_in>() => {
            // SAFETY: the family says a sockaddr_in is there, all its bytes initialised;
            // sockaddr_storage is aligned for every address type.
            let v4 = unsafe { name.cast::<libc::sockaddr_in>().read() };
            let ip = Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr));
            Some(SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(v4.sin_port))))
        }
        libc::AF_INET6 if length >= std::mem::size_of::<libc::sockaddr_in6>() => {
            // SAFETY: as above, for sockaddr_in6.
            let v6 = unsafe { name.cast::<libc::sockaddr_in6>().read() };
            let ip = Ipv6Addr::from(v6.sin6_addr.s6_addr);
            Some(SocketAddr::V6(SocketAddrV6::new(
                ip,
                u16::from_be(v6.sin6_port),
                v6.sin6_flowinfo,
                v6.sin6_scope_id,
            )))
        }
        _ => None,
    }
}

/// The IPv4 or IPv6 address in `storage` (as the C plug-in interfaces pass addresses), or
/// `None` for another family.
pub fn from_storage(storage: &libc::sockaddr_storage) -> Option<SocketAddr> {
    // SAFETY: a whole sockaddr_storage behind a reference is initialised.
    unsafe { to_socket_addr(storage, std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t) }
}

/// `address` in a zeroed `sockaddr_storage` (`sockaddr_in` or `sockaddr_in6`, network order).
pub fn sockaddr_storage(address: &SocketAddr) -> libc::sockaddr_storage {
    to_storage(address).0
}

/// The length of the sockaddr in `storage` for system calls (0 for another family).
pub fn storage_length(storage: &libc::sockaddr_storage) -> libc::socklen_t {
    match libc::c_int::from(storage.ss_family) {
        libc::AF_INET => std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        libc::AF_INET6 => std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
        _ => 0,
    }
}

/// An int socket option of `fd`.
pub fn int_option(fd: RawFd, level: libc::c_int, name: libc::c_int) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut length = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `length` bytes into `value`; a bad descriptor or
    // option is reported as an error, not UB.
    let rc = unsafe { libc::getsockopt(fd, level, name, (&raw mut value).cast(), &mut length) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(value) }
}

/// The address `fd` is bound to (`None` for a family other than IPv4 and IPv6).
pub fn local_address(fd: RawFd) -> io::Result<Option<SocketAddr>> {
    let mut storage = MaybeUninit::<libc::sockaddr_storage>::zeroed();
    let mut length = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: getsockname writes at most `length` bytes into the storage.
    if unsafe { libc::getsockname(fd, storage.as_mut_ptr().cast(), &mut length) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: zeroed, then the kernel wrote `length` bytes of it.
    Ok(unsafe { to_socket_addr(storage.as_ptr(), length) })
}

fn to_storage(address: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    let converted = socket2::SockAddr::from(*address);
    // SAFETY: SockAddr holds a sockaddr_storage; copying it out is a plain read.
    let storage = unsafe { std::ptr::read(converted.as_ptr().cast::<libc::sockaddr_storage>()) };
    (storage, converted.len())
}

/// Reads the ancillary data the driver asked for out of a received message's control
/// buffer.
fn parse_control(header: &libc::msghdr, message: &mut ReceivedMessage) {
    if header.msg_controllen == 0 || header.msg_control.is_null() {
        return;
    }
    // SAFETY: `header` is the message the kernel just filled: its control pointer and
    // length describe the buffer we lent it, which the CMSG macros walk within bounds.
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(header) };
    while !cmsg.is_null() {
        // SAFETY: CMSG_FIRSTHDR/CMSG_NXTHDR return headers inside the control buffer.
        let c = unsafe { &*cmsg };
        // SAFETY: CMSG_DATA of a header inside the buffer points at its payload.
        let data = unsafe { libc::CMSG_DATA(cmsg) };
        // SAFETY: computes a length from a constant; no memory access.
        let timespec_length =
            unsafe { libc::CMSG_LEN(std::mem::size_of::<libc::timespec>() as u32) } as usize;
        // SAFETY: as above.
        let int_length = unsafe { libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) } as usize;
        if c.cmsg_level == libc::SOL_SOCKET
            && c.cmsg_type == libc::SCM_TIMESTAMPNS
            && c.cmsg_len as usize == timespec_length
        {
            // SAFETY: a SCM_TIMESTAMPNS payload of that length is a timespec; it may be
            // unaligned in the buffer, hence the unaligned read.
            let ts = unsafe { std::ptr::read_unaligned(data.cast::<libc::timespec>()) };
            message.timestamp_ns = Some(ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64);
        } else if c.cmsg_level == libc::SOL_UDP && c.cmsg_type == UDP_GRO && c.cmsg_len as usize >= int_length
        {
            // SAFETY: a UDP_GRO payload is an int (the segment size), maybe unaligned.
            let size = unsafe { std::ptr::read_unaligned(data.cast::<libc::c_int>()) };
            message.segment_size = usize::try_from(size).ok().filter(|&s| s > 0);
        }
        // SAFETY: `cmsg` is a header of this message's control buffer.
        cmsg = unsafe { libc::CMSG_NXTHDR(header, cmsg) };
    }
}

/// Whether a socket call's error only means "nothing to do now" (or is an earlier ICMP
/// error a connected socket reports late).
pub fn is_nothing_now(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EAGAIN | libc::EINTR | libc::ECONNREFUSED))
}

/// Reads up to `out.len()` (≤ [`MAX_BATCH`]) queued datagrams, message `i` into
/// `buffers[i * slot_length..][..slot_length]`, with `recvmmsg` when `batched` and more
/// than one is asked for, else one `recvmsg`. Returns how many arrived (0 when none is
/// queued, or the socket reports an earlier ICMP error). `ancillary` asks for the
/// timestamp / GRO control messages.
pub fn receive_messages(
    fd: RawFd,
    buffers: &mut [u8],
    slot_length: usize,
    out: &mut [ReceivedMessage],
    batched: bool,
    ancillary: bool,
) -> io::Result<usize> {
    let count = out.len().min(MAX_BATCH).min(buffers.len() / slot_length.max(1));
    if count == 0 {
        return Ok(0);
    }
    // Only the `count` entries in use are written: zeroing every header and control
    // buffer of a full batch would cost more than a small batch's own work.
    let mut names = [MaybeUninit::<libc::sockaddr_storage>::uninit(); MAX_BATCH];
    let mut controls = [MaybeUninit::<[u64; CONTROL_WORDS]>::uninit(); MAX_BATCH];
    let mut iovecs = [MaybeUninit::<libc::iovec>::uninit(); MAX_BATCH];
    let mut headers = [MaybeUninit::<libc::mmsghdr>::uninit(); MAX_BATCH];
    for (i, slot) in buffers.chunks_exact_mut(slot_length).take(count).enumerate() {
        let iovec = iovecs[i].write(libc::iovec { iov_base: slot.as_mut_ptr().cast(), iov_len: slot.len() });
        // SAFETY: mmsghdr is plain C data; all zeroes is a valid empty header.
        let mut header: libc::mmsghdr = unsafe { std::mem::zeroed() };
        header.msg_hdr.msg_name = names[i].as_mut_ptr().cast();
        header.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        header.msg_hdr.msg_iov = iovec;
        header.msg_hdr.msg_iovlen = 1;
        if ancillary {
            // The kernel writes the control data and says how much (`msg_controllen`).
            header.msg_hdr.msg_control = controls[i].as_mut_ptr().cast();
            header.msg_hdr.msg_controllen = std::mem::size_of::<[u64; CONTROL_WORDS]>() as _;
        }
        headers[i].write(header);
    }
    // `headers[..count]` are initialised (above); the cast keeps them behind MaybeUninit.
    let headers_ptr = headers.as_mut_ptr().cast::<libc::mmsghdr>();
    let received = if batched && count > 1 {
        // SAFETY: `headers[..count]` point at live, writable names, iovecs (over disjoint
        // slots of `buffers`) and control buffers of the stated sizes, all outliving the
        // call; a NULL timeout makes it return what is queued on a non-blocking socket.
        let rc = unsafe {
            libc::recvmmsg(fd, headers_ptr, count as libc::c_uint, libc::MSG_DONTWAIT, std::ptr::null_mut())
        };
        if rc < 0 {
            let error = io::Error::last_os_error();
            return if is_nothing_now(&error) { Ok(0) } else { Err(error) };
        }
        rc as usize
    } else {
        // SAFETY: as above, for the first header alone (count >= 1, so it is initialised).
        let rc = unsafe { libc::recvmsg(fd, &raw mut (*headers_ptr).msg_hdr, libc::MSG_DONTWAIT) };
        if rc < 0 {
            let error = io::Error::last_os_error();
            return if is_nothing_now(&error) { Ok(0) } else { Err(error) };
        }
        // SAFETY: as above.
        unsafe { (*headers_ptr).msg_len = rc as libc::c_uint };
        1
    };
    for (i, out) in out.iter_mut().enumerate().take(received) {
        // SAFETY: received <= count, and the first `count` headers were written above.
        let entry = unsafe { headers[i].assume_init_ref() };
        let header = &entry.msg_hdr;
        let mut message = ReceivedMessage { length: entry.msg_len as usize, ..ReceivedMessage::EMPTY };
        let name_length =
            header.msg_namelen.min(std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t);
        // SAFETY: the kernel wrote the first `msg_namelen` bytes of this message's name.
        message.source = unsafe { to_socket_addr(names[i].as_ptr(), name_length) };
        parse_control(header, &mut message);
        *out = message;
    }
    Ok(received)
}

/// One message of a send batch: consecutive datagrams of `datagrams`, sent as one
/// `UDP_SEGMENT` message of `segment_size` when `segment_size` is set and there are
/// several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub first: usize,
    pub count: usize,
    pub segment_size: Option<u16>,
}

/// Sends `messages` (each naming a run of `datagrams`) to `dest` (the connected peer when
/// `None`) with one `sendmmsg`, or one `sendmsg` for a single message. Returns how many
/// messages the kernel took (0 when the socket buffer is full or an earlier ICMP error is
/// reported now). `EIO`/`EINVAL` from a segmented message means the kernel or device
/// refuses offload: the caller falls back.
pub fn send_messages(
    fd: RawFd,
    datagrams: &[&[u8]],
    messages: &[OutgoingMessage],
    dest: Option<SocketAddr>,
) -> io::Result<usize> {
    let count = messages.len().min(MAX_BATCH);
    if count == 0 {
        return Ok(0);
    }
    let (mut name, name_length) = match dest {
        Some(address) => {
            let (storage, length) = to_storage(&address);
            (Some(storage), length)
        }
        None => (None, 0),
    };
    let name_ptr: *mut libc::c_void =
        name.as_mut().map_or(std::ptr::null_mut(), |n| (n as *mut libc::sockaddr_storage).cast());
    // Only the entries in use are written (see `receive_messages`).
    let mut iovecs = [MaybeUninit::<libc::iovec>::uninit(); MAX_GSO_SEGMENTS];
    let mut controls = [MaybeUninit::<[u64; SEND_CONTROL_WORDS]>::uninit(); MAX_BATCH];
    let mut headers = [MaybeUninit::<libc::mmsghdr>::uninit(); MAX_BATCH];
    let mut next_iovec = 0usize;
    for message in messages.iter().take(count) {
        let run = &datagrams[message.first..message.first + message.count];
        if next_iovec + run.len() > MAX_GSO_SEGMENTS {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "send batch of more than 64 datagrams"));
        }
        for (k, datagram) in run.iter().enumerate() {
            // The kernel only reads through these (`iov_base` is `*mut` by C's type).
            iovecs[next_iovec + k]
                .write(libc::iovec { iov_base: datagram.as_ptr() as *mut _, iov_len: datagram.len() });
        }
        next_iovec += run.len();
    }
    // Pointers into the filled array, taken once it no longer changes.
    let iovec_base = iovecs.as_mut_ptr().cast::<libc::iovec>();
    let mut next_iovec = 0usize;
    for (i, message) in messages.iter().take(count).enumerate() {
        // SAFETY: mmsghdr is plain C data; all zeroes is a valid empty header.
        let mut entry: libc::mmsghdr = unsafe { std::mem::zeroed() };
        let header = &mut entry.msg_hdr;
        header.msg_name = name_ptr;
        header.msg_namelen = name_length;
        header.msg_iov = iovec_base.wrapping_add(next_iovec);
        header.msg_iovlen = message.count as _;
        next_iovec += message.count;
        let run = &datagrams[message.first..message.first + message.count];
        if let Some(size) = message.segment_size.filter(|_| run.len() > 1) {
            let control = controls[i].write([0; SEND_CONTROL_WORDS]);
            header.msg_control = control.as_mut_ptr().cast();
            // SAFETY: computes a length from a constant; no memory access.
            header.msg_controllen = unsafe { libc::CMSG_SPACE(std::mem::size_of::<u16>() as u32) } as _;
            // SAFETY: the control buffer is live, zeroed, aligned for cmsghdr and at least
            // CMSG_SPACE(2) long, so the first header and its data lie inside it.
            unsafe {
                let cmsg = libc::CMSG_FIRSTHDR(header);
                (*cmsg).cmsg_level = libc::SOL_UDP;
                (*cmsg).cmsg_type = UDP_SEGMENT;
                (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<u16>() as u32) as _;
                std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<u16>(), size);
            }
        }
        headers[i].write(entry);
    }
    // `headers[..count]` are initialised (above); the cast keeps them behind MaybeUninit.
    let headers_ptr = headers.as_mut_ptr().cast::<libc::mmsghdr>();
    let rc = if count > 1 {
        // SAFETY: `headers[..count]` point at live names, iovecs over the borrowed
        // datagrams and control buffers, all outliving the call; the kernel only reads.
        unsafe { libc::sendmmsg(fd, headers_ptr, count as libc::c_uint, libc::MSG_DONTWAIT) }
    } else {
        // SAFETY: as above, for the first header alone (count >= 1, so it is initialised).
        let sent = unsafe { libc::sendmsg(fd, &raw const (*headers_ptr).msg_hdr, libc::MSG_DONTWAIT) };
        if sent < 0 { -1 } else { 1 }
    };
    if rc < 0 {
        let error = io::Error::last_os_error();
        return if is_nothing_now(&error) { Ok(0) } else { Err(error) };
    }
    Ok(rc as usize)
}

/// Whether a send error says the kernel or device refuses segmentation offload.
pub fn is_offload_refusal(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EIO | libc::EINVAL | libc::EOPNOTSUPP | libc::ENOPROTOOPT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_buffers_hold_what_the_calls_put_there() {
        // SAFETY: computes lengths from constants; no memory access.
        let (segment, timestamp, gro) = unsafe {
            (
                libc::CMSG_SPACE(std::mem::size_of::<u16>() as u32) as usize,
                libc::CMSG_SPACE(std::mem::size_of::<libc::timespec>() as u32) as usize,
                libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as usize,
            )
        };
        assert!(segment <= SEND_CONTROL_WORDS * 8, "UDP_SEGMENT needs {segment} bytes");
        assert!(timestamp + gro <= CONTROL_WORDS * 8, "receive control needs {} bytes", timestamp + gro);
    }

    #[test]
    fn storage_round_trips_both_families() {
        for text in ["127.0.0.1:40123", "0.0.0.0:0", "[::1]:7", "[fe80::1%2]:9"] {
            let addr: SocketAddr = text.parse().unwrap();
            let storage = sockaddr_storage(&addr);
            assert_eq!(from_storage(&storage), Some(addr), "{text}");
        }
        let v4 = sockaddr_storage(&"10.1.2.3:258".parse().unwrap());
        // SAFETY: an IPv4 storage, as written above.
        let sin = unsafe { &*(&raw const v4).cast::<libc::sockaddr_in>() };
        assert_eq!(sin.sin_port, 258u16.to_be(), "network order");
        assert_eq!(storage_length(&v4) as usize, std::mem::size_of::<libc::sockaddr_in>());
        // SAFETY: zeroes are a valid sockaddr_storage.
        let unspecified: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        assert_eq!(from_storage(&unspecified), None);
    }
}
