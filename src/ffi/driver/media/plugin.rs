//! The driver's media plug-in over C bindings and interceptors: implements the core's
//! `MediaPlugin` / `PluginTransport` (`src/driver/media/media_plugin.rs`) by calling the
//! bindings table and the data paths where Aeron's driver calls them: `init_func` when an
//! endpoint opens a transport (on the conductor), `send_func` through the outgoing chain
//! for every datagram sent, `recvmmsg_func` with the incoming chain's entry for every
//! poll, `bind_addr_and_port_func` and `get_so_rcvbuf_func` when the driver asks,
//! `close_func` when the transport goes, and the interceptors' transport notifications
//! when a transport joins or leaves its agent.

use std::cell::UnsafeCell;
use std::ffi::c_char;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::data_paths::{DataPaths, with_delivery};
use super::default_bindings::{has_default_pollers, socket_option};
use super::types::*;
use crate::concurrent::ForeignShared;
use crate::driver::media::media_plugin::{
    Deliver, MediaPlugin, PluginTransport, ReceiveOutcome, TransportAffinity, TransportSpec,
};
use crate::driver::media::udp_channel::UdpChannel;
use crate::ffi::driver::c_result;
use crate::ffi::driver::callbacks::aeron_udp_channel_t;
use crate::ffi::driver::context::aeron_driver_context_t;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::{MAX_BATCH, sockaddr_storage};

/// The C pointers the plug-in is made of: the bindings table, the interceptor chains and
/// the context (passed to the init functions). A context keeps those set on it here
/// (NULL: not set; its context pointer is filled in for the plug-in).
#[derive(Clone, Copy)]
pub(crate) struct MediaPointers {
    pub(crate) bindings: *mut aeron_udp_channel_transport_bindings_t,
    pub(crate) outgoing: *mut aeron_udp_channel_interceptor_bindings_t,
    pub(crate) incoming: *mut aeron_udp_channel_interceptor_bindings_t,
    pub(crate) context: *mut aeron_driver_context_t,
}

impl Default for MediaPointers {
    fn default() -> Self {
        use std::ptr::null_mut;
        Self { bindings: null_mut(), outgoing: null_mut(), incoming: null_mut(), context: null_mut() }
    }
}

/// Checks the functions of a bindings table the driver needs.
///
/// # Safety
/// `bindings` must point to a readable table.
pub(crate) unsafe fn check_bindings(bindings: *const aeron_udp_channel_transport_bindings_t) -> Result<()> {
    // SAFETY: readable (contract).
    let b = unsafe { &*bindings };
    let missing = [
        (b.init_func.is_none(), "init_func"),
        (b.reconnect_func.is_none(), "reconnect_func"),
        (b.close_func.is_none(), "close_func"),
        (b.recvmmsg_func.is_none(), "recvmmsg_func"),
        (b.send_func.is_none(), "send_func"),
        (b.get_so_rcvbuf_func.is_none(), "get_so_rcvbuf_func"),
        (b.bind_addr_and_port_func.is_none(), "bind_addr_and_port_func"),
    ];
    if let Some((_, name)) = missing.iter().find(|(is_missing, _)| *is_missing) {
        return Err(Error::invalid_argument(format!("transport bindings without {name}")));
    }
    if !has_default_pollers(b) {
        return Err(Error::invalid_argument(
            "transport bindings with their own poller functions are not supported: aeronrs polls its transports itself; keep the poller_*_func of aeron_driver_context_get_udp_channel_transport_bindings(NULL)",
        ));
    }
    Ok(())
}

/// The plug-in: the bindings and the sender's and receiver's data paths. The C structs
/// are shared as Aeron uses them: the data paths of an agent from that agent's thread (and
/// the conductor's while it opens a transport, before the agent has it), the bindings from
/// any driver thread (Aeron's contract for plug-ins).
pub(crate) struct CMedia {
    pointers: ForeignShared<MediaPointers>,
    sender: ForeignShared<DataPaths>,
    receiver: ForeignShared<DataPaths>,
    next_key: AtomicU64,
}

impl CMedia {
    /// Links and initialises the data paths of the sender, then the receiver (as Aeron's
    /// agents do when the driver is created).
    ///
    /// # Safety
    /// The pointers as [`MediaPointers`] requires; `bindings` non-null.
    pub(crate) unsafe fn new(pointers: MediaPointers) -> Result<Self> {
        // SAFETY: a readable table (contract).
        unsafe { check_bindings(pointers.bindings) }?;
        let paths = |affinity| {
            // SAFETY: as this function's contract.
            unsafe {
                DataPaths::new(
                    pointers.outgoing,
                    pointers.incoming,
                    pointers.bindings,
                    pointers.context,
                    affinity,
                )
            }
        };
        let sender =
            paths(aeron_udp_channel_transport_affinity_t(AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER))?;
        let receiver =
            paths(aeron_udp_channel_transport_affinity_t(AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_RECEIVER))?;
        // SAFETY: the pointers' contract (the setters'): valid while the driver runs and
        // usable from its threads as described on CMedia.
        let pointers = unsafe { ForeignShared::new(pointers) };
        // SAFETY: used as described on CMedia.
        let sender = unsafe { ForeignShared::new(sender) };
        // SAFETY: as above.
        let receiver = unsafe { ForeignShared::new(receiver) };
        Ok(Self { pointers, sender, receiver, next_key: AtomicU64::new(1) })
    }

    fn bindings(&self) -> &aeron_udp_channel_transport_bindings_t {
        // SAFETY: valid while the driver runs (MediaPointers' contract).
        unsafe { &*self.pointers.get().bindings }
    }
}

/// The `MediaPlugin` handle (shares the plug-in with its transports).
pub(crate) struct CMediaPlugin(pub(crate) Arc<CMedia>);

impl MediaPlugin for CMediaPlugin {
    fn open(&self, spec: &TransportSpec, channel: &UdpChannel) -> Result<Arc<dyn PluginTransport>> {
        let media = &self.0;
        let (affinity, paths) = match spec.affinity {
            TransportAffinity::Sender => (AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER, media.sender.get()),
            TransportAffinity::Receiver => {
                (AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_RECEIVER, media.receiver.get())
            }
            TransportAffinity::Conductor => {
                return Err(Error::not_supported("the conductor opens no plug-in transports"));
            }
        };
        // SAFETY: zeroes are valid for these plain C structs (NULL pointers, zero numbers).
        let unspecified: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        // SAFETY: as above; the transport starts without descriptors, in its agent's data
        // paths, everything else NULL or 0, as Aeron's endpoints start theirs.
        let mut c: aeron_udp_channel_transport_t = unsafe { std::mem::zeroed() };
        (c.fd, c.recv_fd, c.data_paths) = (-1, -1, paths.as_ptr());
        let cell = Box::new(UnsafeCell::new(TransportCell {
            c,
            // Relaxed: a unique number is all that is needed.
            key: media.next_key.fetch_add(1, Ordering::Relaxed),
            bind: sockaddr_storage(&spec.bind),
            multicast_if: sockaddr_storage(&spec.multicast_if),
            connect: spec.connect.as_ref().map_or(unspecified, sockaddr_storage),
            reconnect: unspecified,
            params: aeron_udp_channel_transport_params_t {
                socket_rcvbuf: spec.buffers.so_rcvbuf,
                socket_sndbuf: spec.buffers.so_sndbuf,
                mtu_length: spec.mtu_length,
                multicast_if_index: spec.multicast_if_index,
                ttl: spec.ttl,
                is_media_timestamping: false,
            },
        }));
        // Made before init_func runs, so close_func follows a failed init, as in Aeron.
        let transport = CTransport {
            // SAFETY: used as described on CTransport::cell.
            cell: unsafe { ForeignShared::new(cell) },
            media: Arc::clone(media),
            is_sender: affinity == AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER,
            channel: Box::new(channel.clone()),
        };
        let init = media.bindings().init_func.expect("checked by check_bindings");
        let c = transport.cell();
        let connect: *mut libc::sockaddr_storage = if spec.connect.is_some() {
            // SAFETY: a field of the live, boxed cell.
            unsafe { &raw mut (*c).connect }
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: the bindings' init with the transport and arguments the driver owns for
        // the transport's life (connected_address may keep pointing at `connect`).
        let rc = unsafe {
            init(
                &raw mut (*c).c,
                &raw mut (*c).bind,
                &raw mut (*c).multicast_if,
                connect,
                &raw mut (*c).params,
                media.pointers.get().context,
                aeron_udp_channel_transport_affinity_t(affinity),
            )
        };
        c_result(rc, "transport bindings init_func")?;
        Ok(Arc::new(transport))
    }

    fn replaces_incoming_interceptors(&self) -> bool {
        self.0.sender.get().has_incoming_interceptors()
    }
}

/// What the driver allocates per transport: the C struct first (plug-ins get its address
/// and the incoming chain hands it back), then what identifies it and the arguments its
/// init function was given, which live as long as the transport (as Aeron's endpoint
/// fields do).
#[repr(C)]
pub(crate) struct TransportCell {
    pub(crate) c: aeron_udp_channel_transport_t,
    pub(crate) key: u64,
    bind: libc::sockaddr_storage,
    multicast_if: libc::sockaddr_storage,
    connect: libc::sockaddr_storage,
    reconnect: libc::sockaddr_storage,
    params: aeron_udp_channel_transport_params_t,
}

/// A transport of the plug-in.
pub(crate) struct CTransport {
    /// Boxed: C keeps its address; in an UnsafeCell: C writes it (through the pointers).
    /// Shared as Aeron shares its transports: used from one thread at a time (the
    /// conductor while opening it, then its agent's thread, finally whichever drops it).
    cell: ForeignShared<Box<UnsafeCell<TransportCell>>>,
    media: Arc<CMedia>,
    is_sender: bool,
    /// Opaque to the interceptors' transport notifications (stable while the transport is).
    channel: Box<UdpChannel>,
}

impl std::fmt::Debug for CTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CTransport").field("key", &self.key()).field("fd", &self.c().fd).finish()
    }
}

impl CTransport {
    fn cell(&self) -> *mut TransportCell {
        self.cell.get().get()
    }

    fn c(&self) -> &aeron_udp_channel_transport_t {
        // SAFETY: the cell is alive; C writes it only during the calls made below, on this
        // thread.
        unsafe { &(*self.cell()).c }
    }

    fn c_ptr(&self) -> *mut aeron_udp_channel_transport_t {
        // SAFETY: a field of the live cell.
        unsafe { &raw mut (*self.cell()).c }
    }

    fn paths(&self) -> &DataPaths {
        if self.is_sender { self.media.sender.get() } else { self.media.receiver.get() }
    }
}

impl PluginTransport for CTransport {
    fn key(&self) -> u64 {
        // SAFETY: as in `c`.
        unsafe { (*self.cell()).key }
    }

    #[inline]
    fn send_to(&self, datagram: &[u8], dest: SocketAddr) -> Result<usize> {
        let paths = self.paths().as_ptr();
        // SAFETY: the data paths are alive with the plug-in; their send function is set.
        let Some(send) = (unsafe { (*paths).send_func }) else {
            return Err(Error::illegal_state("data paths without send_func"));
        };
        let mut address = sockaddr_storage(&dest);
        let mut iov = libc::iovec { iov_base: datagram.as_ptr().cast_mut().cast(), iov_len: datagram.len() };
        let mut bytes_sent: i64 = 0;
        // SAFETY: the send function with the transport, an address and one iovec valid for
        // the call; the datagram is only read.
        let rc = unsafe { send(paths, self.c_ptr(), &mut address, &mut iov, 1, &mut bytes_sent) };
        // 0 datagrams sent: a short send, of no bytes.
        Ok(if c_result(rc, "transport send")? == 0 { 0 } else { usize::try_from(bytes_sent).unwrap_or(0) })
    }

    fn receive(&self, buffers: &mut [u8], vlen: usize, deliver: &mut Deliver<'_>) -> Result<ReceiveOutcome> {
        let vlen = vlen.clamp(1, MAX_BATCH);
        let slot = buffers.len() / vlen;
        if slot == 0 {
            return Ok(ReceiveOutcome::default());
        }
        // SAFETY: zeroes are valid for these plain C structs; the pointers are set below.
        let mut names: [libc::sockaddr_storage; MAX_BATCH] = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let mut iovecs: [libc::iovec; MAX_BATCH] = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let mut messages: [libc::mmsghdr; MAX_BATCH] = unsafe { std::mem::zeroed() };
        for (i, chunk) in buffers.chunks_exact_mut(slot).take(vlen).enumerate() {
            iovecs[i] = libc::iovec { iov_base: chunk.as_mut_ptr().cast(), iov_len: slot };
            let header = &mut messages[i].msg_hdr;
            header.msg_name = (&raw mut names[i]).cast();
            header.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
            header.msg_iov = &raw mut iovecs[i];
            header.msg_iovlen = 1;
        }
        let recvmmsg = self.media.bindings().recvmmsg_func.expect("checked by check_bindings");
        let paths = self.paths().as_ptr();
        // SAFETY: the data paths are alive with the plug-in.
        let recv_func = unsafe { (*paths).recv_func };
        let mut bytes: i64 = 0;
        let transport = self.c_ptr();
        // SAFETY: the bindings' recvmmsg with the transport and `vlen` headers over the
        // caller's buffers, valid for the call; the recv function delivers through the
        // thread's delivery, set for the call.
        let n = with_delivery(deliver, || unsafe {
            recvmmsg(transport, messages.as_mut_ptr(), vlen, &mut bytes, recv_func, paths.cast())
        });
        let n = c_result(n, "transport recvmmsg")?;
        Ok(ReceiveOutcome { messages: n as usize, bytes: u64::try_from(bytes).unwrap_or(0) })
    }

    fn connect(&self, remote: SocketAddr) -> Result<()> {
        let reconnect = self.media.bindings().reconnect_func.expect("checked by check_bindings");
        let c = self.cell();
        // SAFETY: the cell is alive; the storage lives as long as the transport.
        unsafe { (*c).reconnect = sockaddr_storage(&remote) };
        // SAFETY: the bindings' reconnect with the transport and that storage.
        let rc = unsafe { reconnect(&raw mut (*c).c, &raw mut (*c).reconnect) };
        c_result(rc, "transport bindings reconnect_func")?;
        Ok(())
    }

    fn local_addr(&self) -> Result<SocketAddr> {
        let bind_addr_and_port =
            self.media.bindings().bind_addr_and_port_func.expect("checked by check_bindings");
        let mut text = [0 as c_char; 128];
        // SAFETY: the bindings' function with the transport and a buffer of that length.
        let rc = unsafe { bind_addr_and_port(self.c_ptr(), text.as_mut_ptr(), text.len()) };
        c_result(rc, "transport bindings bind_addr_and_port_func")?;
        // SAFETY: NUL-terminated within the buffer (the last byte stays 0 otherwise).
        text[text.len() - 1] = 0;
        // SAFETY: as above.
        let text = unsafe { std::ffi::CStr::from_ptr(text.as_ptr()) }.to_string_lossy();
        text.parse().map_err(|_| {
            Error::invalid_argument(format!(
                "transport bindings gave bind address {text:?}, not address:port"
            ))
        })
    }

    fn so_rcvbuf(&self) -> Result<usize> {
        let get = self.media.bindings().get_so_rcvbuf_func.expect("checked by check_bindings");
        let mut value = 0usize;
        // SAFETY: the bindings' function with the transport and an out value.
        c_result(unsafe { get(self.c_ptr(), &mut value) }, "transport bindings get_so_rcvbuf_func")?;
        Ok(value)
    }

    fn so_sndbuf(&self) -> Result<usize> {
        socket_option(self.c().fd, libc::SOL_SOCKET, libc::SO_SNDBUF).map(|v| usize::try_from(v).unwrap_or(0))
    }

    fn multicast_ttl(&self, ipv6: bool) -> Result<u32> {
        let (level, name) = if ipv6 {
            (libc::IPPROTO_IPV6, libc::IPV6_MULTICAST_HOPS)
        } else {
            (libc::IPPROTO_IP, libc::IP_MULTICAST_TTL)
        };
        socket_option(self.c().fd, level, name).map(|v| u32::try_from(v).unwrap_or(0))
    }

    fn receive_fd(&self) -> RawFd {
        self.c().recv_fd
    }

    fn on_poller_change(&self, added: bool) -> Result<()> {
        let channel: *const UdpChannel = &*self.channel;
        // SAFETY: this agent's transport; the channel pointer is opaque to the stages.
        unsafe { self.paths().notify_transport(self.c_ptr(), channel.cast::<aeron_udp_channel_t>(), added) }
    }
}

impl Drop for CTransport {
    fn drop(&mut self) {
        if let Some(close) = self.media.bindings().close_func {
            // SAFETY: the bindings' close, once, with the transport its init filled in.
            unsafe { close(self.c_ptr()) };
        }
    }
}

/// Makes the plug-in `pointers` describe (a context's media supplier).
///
/// # Safety
/// As [`CMedia::new`].
pub(crate) unsafe fn make_plugin(pointers: MediaPointers) -> Result<Arc<dyn MediaPlugin>> {
    // SAFETY: as this function's contract.
    let media = unsafe { CMedia::new(pointers) }?;
    Ok(Arc::new(CMediaPlugin(Arc::new(media))))
}
