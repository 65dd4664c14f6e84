//! The C types of the media plug-ins, as `include/aeronrs_media.h.in` declares them
//! (Aeron's layouts). Excluded from cbindgen (the header part is hand-written); the
//! layouts are asserted here and in `c-tests/test_driver_plugins.c`.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::ffi::driver::assert_layout;
use crate::ffi::driver::callbacks::aeron_udp_channel_t;
use crate::ffi::driver::context::aeron_driver_context_t;
use crate::ffi::util::error_log::aeron_distinct_error_log_t;

pub(crate) const AERON_UDP_CHANNEL_TRANSPORT_MAX_INTERCEPTORS: usize = 2;

/// `aeron_udp_channel_transport_affinity_t`: a C enum, as an int.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct aeron_udp_channel_transport_affinity_t(pub c_int);

pub(crate) const AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER: c_int = 0;
pub(crate) const AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_RECEIVER: c_int = 1;

/// `aeron_udp_channel_interceptor_notification_type_t`: a C enum, as an int.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct aeron_udp_channel_interceptor_notification_type_t(pub c_int);

pub(crate) const AERON_UDP_CHANNEL_INTERCEPTOR_ADD_NOTIFICATION: c_int = 0;
pub(crate) const AERON_UDP_CHANNEL_INTERCEPTOR_REMOVE_NOTIFICATION: c_int = 1;

/// Opaque to plug-ins (only pointers pass through).
#[repr(C)]
pub struct aeron_network_publication_t {
    _private: [u8; 0],
}

#[repr(C)]
pub struct aeron_publication_image_t {
    _private: [u8; 0],
}

#[repr(C)]
pub struct aeron_udp_transport_poller_t {
    _private: [u8; 0],
}

#[repr(C)]
pub struct aeron_data_packet_dispatcher_t {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct aeron_udp_channel_transport_params_t {
    pub socket_rcvbuf: usize,
    pub socket_sndbuf: usize,
    pub mtu_length: usize,
    pub multicast_if_index: c_uint,
    pub ttl: u8,
    pub is_media_timestamping: bool,
}

#[repr(C)]
pub struct aeron_udp_channel_transport_t {
    pub fd: c_int,
    pub recv_fd: c_int,
    pub data_paths: *mut aeron_udp_channel_data_paths_t,
    pub connected_address: *mut libc::sockaddr_storage,
    pub dispatch_clientd: *mut c_void,
    pub bindings_clientd: *mut c_void,
    pub destination_clientd: *mut c_void,
    pub interceptor_clientds: [*mut c_void; AERON_UDP_CHANNEL_TRANSPORT_MAX_INTERCEPTORS],
    pub error_log: *mut aeron_distinct_error_log_t,
    pub errors_counter: *mut i64,
    pub timestamp_flags: u32,
}

pub type aeron_udp_channel_transport_init_func_t = Option<
    unsafe extern "C" fn(
        transport: *mut aeron_udp_channel_transport_t,
        bind_addr: *mut libc::sockaddr_storage,
        multicast_if_addr: *mut libc::sockaddr_storage,
        connect_addr: *mut libc::sockaddr_storage,
        params: *mut aeron_udp_channel_transport_params_t,
        context: *mut aeron_driver_context_t,
        affinity: aeron_udp_channel_transport_affinity_t,
    ) -> c_int,
>;

pub type aeron_udp_channel_transport_reconnect_func_t = Option<
    unsafe extern "C" fn(
        transport: *mut aeron_udp_channel_transport_t,
        connect_addr: *mut libc::sockaddr_storage,
    ) -> c_int,
>;

pub type aeron_udp_channel_transport_close_func_t =
    Option<unsafe extern "C" fn(transport: *mut aeron_udp_channel_transport_t) -> c_int>;

pub type aeron_udp_transport_recv_func_t = Option<
    unsafe extern "C" fn(
        data_paths: *mut aeron_udp_channel_data_paths_t,
        transport: *mut aeron_udp_channel_transport_t,
        receiver_clientd: *mut c_void,
        endpoint_clientd: *mut c_void,
        destination_clientd: *mut c_void,
        buffer: *mut u8,
        length: usize,
        addr: *mut libc::sockaddr_storage,
        media_timestamp: *mut libc::timespec,
    ),
>;

pub type aeron_udp_channel_transport_recvmmsg_func_t = Option<
    unsafe extern "C" fn(
        transport: *mut aeron_udp_channel_transport_t,
        msgvec: *mut libc::mmsghdr,
        vlen: usize,
        bytes_rcved: *mut i64,
        recv_func: aeron_udp_transport_recv_func_t,
        clientd: *mut c_void,
    ) -> c_int,
>;

pub type aeron_udp_channel_transport_send_func_t = Option<
    unsafe extern "C" fn(
        data_paths: *mut aeron_udp_channel_data_paths_t,
        transport: *mut aeron_udp_channel_transport_t,
        address: *mut libc::sockaddr_storage,
        iov: *mut libc::iovec,
        iov_length: usize,
        bytes_sent: *mut i64,
    ) -> c_int,
>;

pub type aeron_udp_channel_transport_get_so_rcvbuf_func_t = Option<
    unsafe extern "C" fn(transport: *mut aeron_udp_channel_transport_t, so_rcvbuf: *mut usize) -> c_int,
>;

pub type aeron_udp_channel_transport_bind_addr_and_port_func_t = Option<
    unsafe extern "C" fn(
        transport: *mut aeron_udp_channel_transport_t,
        buffer: *mut c_char,
        length: usize,
    ) -> c_int,
>;

pub type aeron_udp_transport_poller_init_func_t = Option<
    unsafe extern "C" fn(
        poller: *mut aeron_udp_transport_poller_t,
        context: *mut aeron_driver_context_t,
        affinity: aeron_udp_channel_transport_affinity_t,
    ) -> c_int,
>;

pub type aeron_udp_transport_poller_close_func_t =
    Option<unsafe extern "C" fn(poller: *mut aeron_udp_transport_poller_t) -> c_int>;

pub type aeron_udp_transport_poller_add_func_t = Option<
    unsafe extern "C" fn(
        poller: *mut aeron_udp_transport_poller_t,
        transport: *mut aeron_udp_channel_transport_t,
    ) -> c_int,
>;

pub type aeron_udp_transport_poller_remove_func_t = aeron_udp_transport_poller_add_func_t;

pub type aeron_udp_transport_poller_poll_func_t = Option<
    unsafe extern "C" fn(
        poller: *mut aeron_udp_transport_poller_t,
        msgvec: *mut libc::mmsghdr,
        vlen: usize,
        bytes_rcved: *mut i64,
        recv_func: aeron_udp_transport_recv_func_t,
        recvmmsg_func: aeron_udp_channel_transport_recvmmsg_func_t,
        clientd: *mut c_void,
    ) -> c_int,
>;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct meta_info_fields {
    pub name: *const c_char,
    pub type_: *const c_char,
    pub source_symbol: *const c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct aeron_udp_channel_transport_bindings_t {
    pub init_func: aeron_udp_channel_transport_init_func_t,
    pub reconnect_func: aeron_udp_channel_transport_reconnect_func_t,
    pub close_func: aeron_udp_channel_transport_close_func_t,
    pub recvmmsg_func: aeron_udp_channel_transport_recvmmsg_func_t,
    pub send_func: aeron_udp_channel_transport_send_func_t,
    pub get_so_rcvbuf_func: aeron_udp_channel_transport_get_so_rcvbuf_func_t,
    pub bind_addr_and_port_func: aeron_udp_channel_transport_bind_addr_and_port_func_t,
    pub poller_init_func: aeron_udp_transport_poller_init_func_t,
    pub poller_close_func: aeron_udp_transport_poller_close_func_t,
    pub poller_add_func: aeron_udp_transport_poller_add_func_t,
    pub poller_remove_func: aeron_udp_transport_poller_remove_func_t,
    pub poller_poll_func: aeron_udp_transport_poller_poll_func_t,
    pub meta_info: meta_info_fields,
}

pub type aeron_udp_channel_interceptor_outgoing_send_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut c_void,
        delegate: *mut aeron_udp_channel_outgoing_interceptor_t,
        transport: *mut aeron_udp_channel_transport_t,
        address: *mut libc::sockaddr_storage,
        iov: *mut libc::iovec,
        iov_length: usize,
        bytes_sent: *mut i64,
    ) -> c_int,
>;

pub type aeron_udp_channel_interceptor_incoming_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut c_void,
        delegate: *mut aeron_udp_channel_incoming_interceptor_t,
        transport: *mut aeron_udp_channel_transport_t,
        receiver_clientd: *mut c_void,
        endpoint_clientd: *mut c_void,
        destination_clientd: *mut c_void,
        buffer: *mut u8,
        length: usize,
        addr: *mut libc::sockaddr_storage,
        media_timestamp: *mut libc::timespec,
    ),
>;

pub type aeron_udp_channel_interceptor_init_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut *mut c_void,
        context: *mut aeron_driver_context_t,
        affinity: aeron_udp_channel_transport_affinity_t,
    ) -> c_int,
>;

pub type aeron_udp_channel_interceptor_close_func_t =
    Option<unsafe extern "C" fn(interceptor_state: *mut c_void) -> c_int>;

pub type aeron_udp_channel_interceptor_transport_notification_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut c_void,
        transport: *mut aeron_udp_channel_transport_t,
        udp_channel: *const aeron_udp_channel_t,
        data_packet_dispatcher: *mut aeron_data_packet_dispatcher_t,
        type_: aeron_udp_channel_interceptor_notification_type_t,
    ) -> c_int,
>;

pub type aeron_udp_channel_interceptor_publication_notification_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut c_void,
        transport: *mut aeron_udp_channel_transport_t,
        publication: *mut aeron_network_publication_t,
        type_: aeron_udp_channel_interceptor_notification_type_t,
    ) -> c_int,
>;

pub type aeron_udp_channel_interceptor_image_notification_func_t = Option<
    unsafe extern "C" fn(
        interceptor_state: *mut c_void,
        transport: *mut aeron_udp_channel_transport_t,
        image: *mut aeron_publication_image_t,
        type_: aeron_udp_channel_interceptor_notification_type_t,
    ) -> c_int,
>;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct interceptor_meta_info_fields {
    pub name: *const c_char,
    pub type_: *const c_char,
    pub next_interceptor_bindings: *const aeron_udp_channel_interceptor_bindings_t,
    pub source_symbol: Option<unsafe extern "C" fn()>,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct aeron_udp_channel_interceptor_bindings_t {
    pub outgoing_init_func: aeron_udp_channel_interceptor_init_func_t,
    pub incoming_init_func: aeron_udp_channel_interceptor_init_func_t,
    pub outgoing_send_func: aeron_udp_channel_interceptor_outgoing_send_func_t,
    pub incoming_func: aeron_udp_channel_interceptor_incoming_func_t,
    pub outgoing_close_func: aeron_udp_channel_interceptor_close_func_t,
    pub incoming_close_func: aeron_udp_channel_interceptor_close_func_t,
    pub outgoing_transport_notification_func: aeron_udp_channel_interceptor_transport_notification_func_t,
    pub incoming_transport_notification_func: aeron_udp_channel_interceptor_transport_notification_func_t,
    pub outgoing_publication_notification_func: aeron_udp_channel_interceptor_publication_notification_func_t,
    pub incoming_publication_notification_func: aeron_udp_channel_interceptor_publication_notification_func_t,
    pub outgoing_image_notification_func: aeron_udp_channel_interceptor_image_notification_func_t,
    pub incoming_image_notification_func: aeron_udp_channel_interceptor_image_notification_func_t,
    pub meta_info: interceptor_meta_info_fields,
}

#[repr(C)]
pub struct aeron_udp_channel_outgoing_interceptor_t {
    pub interceptor_state: *mut c_void,
    pub outgoing_send_func: aeron_udp_channel_interceptor_outgoing_send_func_t,
    pub close_func: aeron_udp_channel_interceptor_close_func_t,
    pub outgoing_transport_notification_func: aeron_udp_channel_interceptor_transport_notification_func_t,
    pub outgoing_publication_notification_func: aeron_udp_channel_interceptor_publication_notification_func_t,
    pub outgoing_image_notification_func: aeron_udp_channel_interceptor_image_notification_func_t,
    pub next_interceptor: *mut aeron_udp_channel_outgoing_interceptor_t,
}

#[repr(C)]
pub struct aeron_udp_channel_incoming_interceptor_t {
    pub interceptor_state: *mut c_void,
    pub incoming_func: aeron_udp_channel_interceptor_incoming_func_t,
    pub close_func: aeron_udp_channel_interceptor_close_func_t,
    pub incoming_transport_notification_func: aeron_udp_channel_interceptor_transport_notification_func_t,
    pub incoming_publication_notification_func: aeron_udp_channel_interceptor_publication_notification_func_t,
    pub incoming_image_notification_func: aeron_udp_channel_interceptor_image_notification_func_t,
    pub next_interceptor: *mut aeron_udp_channel_incoming_interceptor_t,
}

#[repr(C)]
pub struct aeron_udp_channel_data_paths_t {
    pub outgoing_interceptors: *mut aeron_udp_channel_outgoing_interceptor_t,
    pub incoming_interceptors: *mut aeron_udp_channel_incoming_interceptor_t,
    pub send_func: aeron_udp_channel_transport_send_func_t,
    pub recv_func: aeron_udp_transport_recv_func_t,
}

assert_layout!(aeron_udp_channel_transport_params_t, size 32,
    multicast_if_index @ 24, ttl @ 28, is_media_timestamping @ 29);
assert_layout!(aeron_udp_channel_transport_t, size 88, recv_fd @ 4, data_paths @ 8, connected_address @ 16,
    bindings_clientd @ 32, interceptor_clientds @ 48, error_log @ 64, timestamp_flags @ 80);
assert_layout!(aeron_udp_channel_transport_bindings_t, size 120, poller_poll_func @ 88, meta_info @ 96);
assert_layout!(aeron_udp_channel_interceptor_bindings_t, size 128, meta_info @ 96);
assert_layout!(aeron_udp_channel_outgoing_interceptor_t, size 56);
assert_layout!(aeron_udp_channel_incoming_interceptor_t, size 56);
assert_layout!(aeron_udp_channel_data_paths_t, size 32);
