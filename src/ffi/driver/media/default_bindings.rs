//! The default transport bindings as C functions over `aeron_udp_channel_transport_t`
//! (what `aeron_driver_context_get_udp_channel_transport_bindings` returns), so C bindings
//! can replace some functions and keep or delegate to the rest, as with Aeron's default
//! table. They work from the struct's public fields alone: `init_func` opens the sockets
//! as the driver's own media opens them (`UdpTransport::open_native`) and stores their
//! descriptors in `fd` / `recv_fd`; `send_func`, `recvmmsg_func`, `close_func` and the
//! rest use those descriptors, so they work on a transport another `init_func` filled in.
//!
//! The poller functions only mark the table as this library's: the driver polls its
//! transports itself and refuses tables with other poller functions; called, they fail
//! (ENOTSUP).

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::net::SocketAddr;
use std::os::fd::IntoRawFd;
use std::sync::OnceLock;

use super::types::*;
use crate::concurrent::ForeignShared;
use crate::driver::media::media_plugin::{TransportAffinity, TransportSpec};
use crate::driver::media::socket_address::{format_source_identity, wildcard_for};
use crate::driver::media::udp_transport::{SocketBuffers, UdpTransport};
use crate::ffi::driver::context::aeron_driver_context_t;
use crate::ffi::driver::{FnOf, marker_called};
use crate::ffi::util::strutil::write_c_string;
use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};
use crate::util::sys::udp::{from_storage, int_option, is_nothing_now, local_address, storage_length};

/// The last OS error of the socket call `what`, unless it only means "nothing to do now"
/// (or is an earlier ICMP error a connected socket reports late).
fn failed(what: &str) -> Result<()> {
    let error = std::io::Error::last_os_error();
    if is_nothing_now(&error) { Ok(()) } else { Err(Error::io(&error, what)) }
}

/// # Safety
/// `addr` must be NULL or point to a readable `sockaddr_storage`.
unsafe fn address(addr: *const libc::sockaddr_storage) -> Option<SocketAddr> {
    // SAFETY: NULL or readable (contract).
    unsafe { addr.as_ref() }.and_then(from_storage)
}

unsafe extern "C" fn default_init(
    transport: *mut aeron_udp_channel_transport_t,
    bind_addr: *mut libc::sockaddr_storage,
    multicast_if_addr: *mut libc::sockaddr_storage,
    connect_addr: *mut libc::sockaddr_storage,
    params: *mut aeron_udp_channel_transport_params_t,
    _context: *mut aeron_driver_context_t,
    _affinity: aeron_udp_channel_transport_affinity_t,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_init", {
        require_non_null!(transport, "transport");
        require_non_null!(params, "params");
        // SAFETY: NULL or readable (the init contract).
        let bind = unsafe { address(bind_addr) }
            .ok_or_else(|| Error::invalid_argument("bind_addr must be an IPv4 or IPv6 address"))?;
        // SAFETY: as above.
        let connect = unsafe { address(connect_addr) };
        // SAFETY: as above.
        let multicast_if = unsafe { address(multicast_if_addr) }.unwrap_or_else(|| wildcard_for(&bind));
        // SAFETY: non-null and readable (the init contract).
        let params = unsafe { &*params };
        let spec = TransportSpec {
            bind,
            multicast_if,
            multicast_if_index: params.multicast_if_index,
            ttl: params.ttl,
            connect,
            buffers: SocketBuffers { so_sndbuf: params.socket_sndbuf, so_rcvbuf: params.socket_rcvbuf },
            mtu_length: params.mtu_length,
            affinity: TransportAffinity::Sender,
        };
        let Some((send, receive)) = UdpTransport::open_native(&spec)?.into_sockets() else {
            return Err(Error::illegal_state("native transport without sockets"));
        };
        let fd = send.into_raw_fd();
        let recv_fd = receive.map_or(fd, IntoRawFd::into_raw_fd);
        // SAFETY: non-null and writable (the init contract); the descriptors are now the
        // transport's, closed by close_func.
        unsafe {
            (*transport).fd = fd;
            (*transport).recv_fd = recv_fd;
            (*transport).connected_address =
                if connect.is_some() { connect_addr } else { std::ptr::null_mut() };
            (*transport).bindings_clientd = std::ptr::null_mut();
            (*transport).interceptor_clientds =
                [std::ptr::null_mut(); AERON_UDP_CHANNEL_TRANSPORT_MAX_INTERCEPTORS];
            (*transport).timestamp_flags = 0;
        }
        Ok(0)
    })
}

unsafe extern "C" fn default_reconnect(
    transport: *mut aeron_udp_channel_transport_t,
    connect_addr: *mut libc::sockaddr_storage,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_reconnect", {
        require_non_null!(transport, "transport");
        // SAFETY: non-null (the reconnect contract).
        let t = unsafe { &mut *transport };
        // As Aeron: only a connected transport reconnects.
        if connect_addr.is_null() || t.connected_address.is_null() {
            return Ok(0);
        }
        // SAFETY: non-null and readable (the reconnect contract).
        let length = storage_length(unsafe { &*connect_addr });
        // SAFETY: a socket descriptor and an address of `length` bytes.
        if unsafe { libc::connect(t.fd, connect_addr.cast(), length) } < 0 {
            return Err(Error::io(&std::io::Error::last_os_error(), "connect"));
        }
        t.connected_address = connect_addr;
        Ok(0)
    })
}

unsafe extern "C" fn default_close(transport: *mut aeron_udp_channel_transport_t) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_close", {
        require_non_null!(transport, "transport");
        // SAFETY: non-null (the close contract).
        let t = unsafe { &mut *transport };
        if t.recv_fd != t.fd && t.recv_fd >= 0 {
            // SAFETY: the transport owns its descriptors (init_func gave them to it).
            unsafe { libc::close(t.recv_fd) };
        }
        if t.fd >= 0 {
            // SAFETY: as above.
            unsafe { libc::close(t.fd) };
        }
        t.fd = -1;
        t.recv_fd = -1;
        Ok(0)
    })
}

unsafe extern "C" fn default_recvmmsg(
    transport: *mut aeron_udp_channel_transport_t,
    msgvec: *mut libc::mmsghdr,
    vlen: usize,
    bytes_rcved: *mut i64,
    recv_func: aeron_udp_transport_recv_func_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_recvmmsg", {
        require_non_null!(transport, "transport");
        require_non_null!(msgvec, "msgvec");
        // SAFETY: non-null (the recvmmsg contract).
        let t = unsafe { &mut *transport };
        let vlen = c_uint::try_from(vlen).unwrap_or(c_uint::MAX);
        // SAFETY: `msgvec` holds `vlen` headers with buffers (the recvmmsg contract).
        let n = unsafe { libc::recvmmsg(t.recv_fd, msgvec, vlen, libc::MSG_DONTWAIT, std::ptr::null_mut()) };
        if n < 0 {
            return failed("recvmmsg").map(|()| 0);
        }
        for i in 0..n as usize {
            // SAFETY: one of the `n` headers recvmmsg filled in.
            let message = unsafe { &mut *msgvec.add(i) };
            // SAFETY: each header has one iovec (the recvmmsg contract).
            let base = unsafe { (*message.msg_hdr.msg_iov).iov_base }.cast::<u8>();
            if let Some(recv) = recv_func {
                // SAFETY: the datagram and its source as the kernel wrote them, valid for
                // the call; the transport's own data paths and client data.
                unsafe {
                    recv(
                        t.data_paths,
                        transport,
                        clientd,
                        t.dispatch_clientd,
                        t.destination_clientd,
                        base,
                        message.msg_len as usize,
                        message.msg_hdr.msg_name.cast(),
                        std::ptr::null_mut(),
                    )
                };
            }
            if !bytes_rcved.is_null() {
                // SAFETY: non-null, writable (the recvmmsg contract).
                unsafe { *bytes_rcved += i64::from(message.msg_len) };
            }
        }
        Ok(n)
    })
}

unsafe extern "C" fn default_send(
    _data_paths: *mut aeron_udp_channel_data_paths_t,
    transport: *mut aeron_udp_channel_transport_t,
    address: *mut libc::sockaddr_storage,
    iov: *mut libc::iovec,
    iov_length: usize,
    bytes_sent: *mut i64,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_send", {
        require_non_null!(transport, "transport");
        require_non_null!(iov, "iov");
        // SAFETY: non-null (the send contract).
        let t = unsafe { &*transport };
        let connected = !t.connected_address.is_null();
        if !connected {
            require_non_null!(address, "address");
        }
        let mut sent = 0;
        for i in 0..iov_length {
            // SAFETY: zeroes are a valid msghdr; the fields used are set below.
            let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
            if !connected {
                message.msg_name = address.cast();
                // SAFETY: non-null and readable (checked above; the send contract).
                message.msg_namelen = storage_length(unsafe { &*address });
            }
            // SAFETY: `iov` holds `iov_length` entries (the send contract).
            message.msg_iov = unsafe { iov.add(i) };
            message.msg_iovlen = 1;
            // SAFETY: a socket descriptor and a message whose pointers are valid.
            let n = unsafe { libc::sendmsg(t.fd, &message, 0) };
            if n < 0 {
                failed("sendmsg")?;
                break;
            }
            if !bytes_sent.is_null() {
                // SAFETY: non-null, writable (the send contract).
                unsafe { *bytes_sent += n as i64 };
            }
            sent += 1;
        }
        Ok(sent)
    })
}

unsafe extern "C" fn default_get_so_rcvbuf(
    transport: *mut aeron_udp_channel_transport_t,
    so_rcvbuf: *mut usize,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_get_so_rcvbuf", {
        require_non_null!(transport, "transport");
        require_non_null!(so_rcvbuf, "so_rcvbuf");
        // SAFETY: non-null (the contract).
        let fd = unsafe { (*transport).recv_fd };
        let value = socket_option(fd, libc::SOL_SOCKET, libc::SO_RCVBUF)?;
        // SAFETY: non-null, writable (the contract).
        unsafe { so_rcvbuf.write(usize::try_from(value).unwrap_or(0)) };
        Ok(0)
    })
}

unsafe extern "C" fn default_bind_addr_and_port(
    transport: *mut aeron_udp_channel_transport_t,
    buffer: *mut c_char,
    length: usize,
) -> c_int {
    ffi_boundary!("aeron_udp_channel_transport_bind_addr_and_port", {
        require_non_null!(transport, "transport");
        require_non_null!(buffer, "buffer");
        // SAFETY: non-null (the contract).
        let fd = unsafe { (*transport).recv_fd };
        let bound = local_address(fd)
            .map_err(|e| Error::io(&e, "getsockname"))?
            .ok_or_else(|| Error::invalid_argument("socket is not IPv4 or IPv6"))?;
        let text = format_source_identity(&bound);
        // SAFETY: `buffer` holds `length` bytes (the contract).
        let copied = unsafe { write_c_string(text.as_bytes(), buffer, length) };
        Ok(c_int::try_from(copied).unwrap_or(c_int::MAX))
    })
}

/// An int socket option of `fd`.
pub(crate) fn socket_option(fd: c_int, level: c_int, name: c_int) -> Result<c_int> {
    int_option(fd, level, name).map_err(|e| Error::io(&e, "getsockopt"))
}

/// Why calling a poller marker fails.
const POLLER_CALLED: &str = "aeronrs drives its transport pollers itself; only the driver may use them";

// Each marker passes its own name, so none share code (and an address) with another.
unsafe extern "C" fn default_poller_init(
    _poller: *mut aeron_udp_transport_poller_t,
    _context: *mut aeron_driver_context_t,
    _affinity: aeron_udp_channel_transport_affinity_t,
) -> c_int {
    marker_called("aeron_udp_transport_poller_init", POLLER_CALLED)
}

unsafe extern "C" fn default_poller_close(_poller: *mut aeron_udp_transport_poller_t) -> c_int {
    marker_called("aeron_udp_transport_poller_close", POLLER_CALLED)
}

unsafe extern "C" fn default_poller_add(
    _poller: *mut aeron_udp_transport_poller_t,
    _transport: *mut aeron_udp_channel_transport_t,
) -> c_int {
    marker_called("aeron_udp_transport_poller_add", POLLER_CALLED)
}

unsafe extern "C" fn default_poller_remove(
    _poller: *mut aeron_udp_transport_poller_t,
    _transport: *mut aeron_udp_channel_transport_t,
) -> c_int {
    marker_called("aeron_udp_transport_poller_remove", POLLER_CALLED)
}

unsafe extern "C" fn default_poller_poll(
    _poller: *mut aeron_udp_transport_poller_t,
    _msgvec: *mut libc::mmsghdr,
    _vlen: usize,
    _bytes_rcved: *mut i64,
    _recv_func: aeron_udp_transport_recv_func_t,
    _recvmmsg_func: aeron_udp_channel_transport_recvmmsg_func_t,
    _clientd: *mut c_void,
) -> c_int {
    marker_called("aeron_udp_transport_poller_poll", POLLER_CALLED)
}

/// Whether `bindings` has this library's poller functions (the only ones supported).
pub(crate) fn has_default_pollers(bindings: &aeron_udp_channel_transport_bindings_t) -> bool {
    use std::ptr::fn_addr_eq as same;
    type Init = FnOf<aeron_udp_transport_poller_init_func_t>;
    type Close = FnOf<aeron_udp_transport_poller_close_func_t>;
    type Add = FnOf<aeron_udp_transport_poller_add_func_t>;
    type Poll = FnOf<aeron_udp_transport_poller_poll_func_t>;
    bindings.poller_init_func.is_some_and(|f| same(f, default_poller_init as Init))
        && bindings.poller_close_func.is_some_and(|f| same(f, default_poller_close as Close))
        && bindings.poller_add_func.is_some_and(|f| same(f, default_poller_add as Add))
        && bindings.poller_remove_func.is_some_and(|f| same(f, default_poller_remove as Add))
        && bindings.poller_poll_func.is_some_and(|f| same(f, default_poller_poll as Poll))
}

/// This library's default bindings table (one per process, writable as Aeron's is).
pub(crate) fn default_bindings() -> *mut aeron_udp_channel_transport_bindings_t {
    static TABLE: OnceLock<ForeignShared<*mut aeron_udp_channel_transport_bindings_t>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let table = Box::leak(Box::new(aeron_udp_channel_transport_bindings_t {
                init_func: Some(default_init),
                reconnect_func: Some(default_reconnect),
                close_func: Some(default_close),
                recvmmsg_func: Some(default_recvmmsg),
                send_func: Some(default_send),
                get_so_rcvbuf_func: Some(default_get_so_rcvbuf),
                bind_addr_and_port_func: Some(default_bind_addr_and_port),
                poller_init_func: Some(default_poller_init),
                poller_close_func: Some(default_poller_close),
                poller_add_func: Some(default_poller_add),
                poller_remove_func: Some(default_poller_remove),
                poller_poll_func: Some(default_poller_poll),
                meta_info: meta_info_fields {
                    name: c"default".as_ptr(),
                    type_: c"media".as_ptr(),
                    source_symbol: std::ptr::null(),
                },
            }));
            let ptr: *mut aeron_udp_channel_transport_bindings_t = table;
            // SAFETY: just leaked; Aeron's default table names itself as its source.
            unsafe { (*ptr).meta_info.source_symbol = ptr.cast_const().cast() };
            // SAFETY: the table is leaked (lives for the process) and only read by the
            // driver; C may write it as it may write Aeron's default table, at its own risk.
            unsafe { ForeignShared::new(ptr) }
        })
        .value()
}
