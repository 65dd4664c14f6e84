//! An agent's data paths (`aeron_udp_channel_data_paths_t`): the outgoing and incoming
//! interceptor chains, linked as Aeron's driver links them. Each interceptor of a chain
//! (the bindings and their `meta_info.next_interceptor_bindings`, first to last) gets a
//! stage whose state its init function sets, called with the agent's affinity; after the
//! last interceptor comes the driver's own stage: outgoing, the bindings' `send_func` on
//! the transport; incoming, the hand-over to the driver. With no interceptors a send goes
//! straight to `send_func` and a receive straight to the driver. Closing the data paths
//! calls each stage's close function, first to last.
//!
//! A datagram reaches the driver through the thread's current delivery (set for the
//! duration of each receive by [`with_delivery`]), so an interceptor may pass on a
//! datagram it held back during any later receive of the same agent.

use std::cell::{Cell, UnsafeCell};
use std::ffi::{CStr, c_int, c_void};
use std::ptr::NonNull;

use super::plugin::TransportCell;
use super::types::*;
use crate::driver::media::media_plugin::Deliver;
use crate::ffi::driver::c_result;
use crate::ffi::driver::callbacks::aeron_udp_channel_t;
use crate::ffi::driver::context::aeron_driver_context_t;
use crate::ffi::error_from_c;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::from_storage;

/// A chain longer than this is taken for a cycle of bindings.
pub(crate) const MAX_CHAIN_LENGTH: usize = 64;

thread_local! {
    /// Where datagrams reaching the end of an incoming chain go; set while a receive runs.
    static DELIVERY: Cell<Option<NonNull<Deliver<'static>>>> = const { Cell::new(None) };
}

/// Runs `receive` with `deliver` as this thread's delivery, then restores the one before.
pub(crate) fn with_delivery<R>(deliver: &mut Deliver<'_>, receive: impl FnOnce() -> R) -> R {
    struct Restore(Option<NonNull<Deliver<'static>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DELIVERY.with(|d| d.set(self.0));
        }
    }
    let pointer = NonNull::from(deliver);
    // SAFETY: only the lifetime is erased; the pointer is taken out of the thread-local
    // (by `Restore`, even on unwinding) before `deliver`'s borrow ends.
    let erased = unsafe { std::mem::transmute::<NonNull<Deliver<'_>>, NonNull<Deliver<'static>>>(pointer) };
    let _restore = Restore(DELIVERY.with(|d| d.replace(Some(erased))));
    receive()
}

/// Hands one datagram to the thread's delivery (dropped when there is none, or when it is
/// not for one of this library's transports).
///
/// # Safety
/// `transport` NULL or a transport the driver made (a [`TransportCell`]); `buffer` NULL or
/// `length` readable bytes; `addr` NULL or a readable `sockaddr_storage`.
unsafe fn deliver(
    transport: *mut aeron_udp_channel_transport_t,
    buffer: *mut u8,
    length: usize,
    addr: *mut libc::sockaddr_storage,
) {
    if transport.is_null() || buffer.is_null() || addr.is_null() {
        return;
    }
    // SAFETY: readable (contract).
    let Some(source) = from_storage(unsafe { &*addr }) else { return };
    // SAFETY: the driver's transports are TransportCells, the C struct first (contract).
    let key = unsafe { (*transport.cast::<TransportCell>()).key };
    // SAFETY: `length` readable bytes (contract), for this call only.
    let datagram = unsafe { std::slice::from_raw_parts(buffer, length) };
    let Some(mut sink) = DELIVERY.with(|d| d.take()) else { return };
    // A panic must not unwind into the C frames below; the driver's delivery only
    // dispatches, so one would be a bug to surface, not to recover from.
    // SAFETY: the delivery set by `with_delivery`, alive while it runs (this call is
    // inside it); taken out of the thread-local, so it is not aliased meanwhile.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || unsafe { sink.as_mut() }(key, datagram, source),
    ));
    DELIVERY.with(|d| d.set(Some(sink)));
    if outcome.is_err() {
        eprintln!("aeronrs: panic while dispatching a datagram from an incoming interceptor");
    }
}

/// The data paths' receive function: the first incoming stage, or the driver when there
/// are no interceptors.
unsafe extern "C" fn receive(
    data_paths: *mut aeron_udp_channel_data_paths_t,
    transport: *mut aeron_udp_channel_transport_t,
    receiver_clientd: *mut c_void,
    endpoint_clientd: *mut c_void,
    destination_clientd: *mut c_void,
    buffer: *mut u8,
    length: usize,
    addr: *mut libc::sockaddr_storage,
    media_timestamp: *mut libc::timespec,
) {
    // SAFETY: NULL or the transport's data paths, which the driver keeps alive and linked.
    let first = unsafe { data_paths.as_ref() }.map_or(std::ptr::null_mut(), |p| p.incoming_interceptors);
    // SAFETY: NULL or a stage of the chain.
    let Some(stage) = (unsafe { first.as_ref() }) else {
        // SAFETY: as the recv function contract; `transport` is one the driver made.
        return unsafe { deliver(transport, buffer, length, addr) };
    };
    if let Some(incoming) = stage.incoming_func {
        // SAFETY: the interceptor's function with its own state and the next stage.
        unsafe {
            incoming(
                stage.interceptor_state,
                stage.next_interceptor,
                transport,
                receiver_clientd,
                endpoint_clientd,
                destination_clientd,
                buffer,
                length,
                addr,
                media_timestamp,
            )
        }
    }
}

/// The last incoming stage: the datagram goes to the driver.
unsafe extern "C" fn incoming_to_driver(
    _interceptor_state: *mut c_void,
    _delegate: *mut aeron_udp_channel_incoming_interceptor_t,
    transport: *mut aeron_udp_channel_transport_t,
    _receiver_clientd: *mut c_void,
    _endpoint_clientd: *mut c_void,
    _destination_clientd: *mut c_void,
    buffer: *mut u8,
    length: usize,
    addr: *mut libc::sockaddr_storage,
    _media_timestamp: *mut libc::timespec,
) {
    // SAFETY: as the incoming function contract; `transport` is the one the chain was
    // given, one the driver made.
    unsafe { deliver(transport, buffer, length, addr) }
}

/// The data paths' send function with interceptors: the first stage.
unsafe extern "C" fn send_through_interceptors(
    data_paths: *mut aeron_udp_channel_data_paths_t,
    transport: *mut aeron_udp_channel_transport_t,
    address: *mut libc::sockaddr_storage,
    iov: *mut libc::iovec,
    iov_length: usize,
    bytes_sent: *mut i64,
) -> c_int {
    if data_paths.is_null() {
        return -1;
    }
    // SAFETY: the transport's data paths, kept alive and linked by the driver.
    let first = unsafe { (*data_paths).outgoing_interceptors };
    // SAFETY: a stage of the chain (non-null while interceptors are installed).
    match unsafe { first.as_ref() }.and_then(|s| s.outgoing_send_func.map(|f| (s, f))) {
        // SAFETY: the interceptor's function with its own state and the next stage.
        Some((stage, send)) => unsafe {
            send(
                stage.interceptor_state,
                stage.next_interceptor,
                transport,
                address,
                iov,
                iov_length,
                bytes_sent,
            )
        },
        None => -1,
    }
}

/// The last outgoing stage: the bindings' `send_func` (its state is the bindings).
unsafe extern "C" fn outgoing_to_transport(
    interceptor_state: *mut c_void,
    _delegate: *mut aeron_udp_channel_outgoing_interceptor_t,
    transport: *mut aeron_udp_channel_transport_t,
    address: *mut libc::sockaddr_storage,
    iov: *mut libc::iovec,
    iov_length: usize,
    bytes_sent: *mut i64,
) -> c_int {
    // SAFETY: the stage's state is the media bindings the driver runs with (alive while
    // the data paths are).
    let send = unsafe { (*interceptor_state.cast::<aeron_udp_channel_transport_bindings_t>()).send_func };
    match send {
        // SAFETY: the bindings' own send function, without data paths as in Aeron.
        Some(send) => unsafe { send(std::ptr::null_mut(), transport, address, iov, iov_length, bytes_sent) },
        None => -1,
    }
}

/// The name in the bindings' meta information.
fn binding_name(b: &aeron_udp_channel_interceptor_bindings_t) -> String {
    if b.meta_info.name.is_null() {
        return "(unnamed)".to_string();
    }
    // SAFETY: a NUL-terminated name (the bindings contract).
    unsafe { CStr::from_ptr(b.meta_info.name) }.to_string_lossy().into_owned()
}

/// The bindings of a chain, first to last, checked: at most [`MAX_CHAIN_LENGTH`], each
/// with the functions of direction `S` and no publication or image notification functions
/// (not supported).
///
/// # Safety
/// `first` NULL or the first of a chain of valid bindings.
pub(crate) unsafe fn chain<S: Stage>(
    first: *const aeron_udp_channel_interceptor_bindings_t,
) -> Result<Vec<aeron_udp_channel_interceptor_bindings_t>> {
    let mut bindings = Vec::new();
    let mut next = first;
    // SAFETY: NULL or valid bindings (contract), each naming the next.
    while let Some(b) = unsafe { next.as_ref() } {
        if bindings.len() == MAX_CHAIN_LENGTH {
            return Err(Error::invalid_argument(format!(
                "more than {MAX_CHAIN_LENGTH} interceptor bindings in one chain (a cycle?)"
            )));
        }
        let (stage, init) = S::of(b);
        if init.is_none() || !stage.has_func() {
            let (direction, name, needs) = (S::DIRECTION, binding_name(b), S::NEEDS);
            return Err(Error::invalid_argument(format!(
                "{direction} interceptor bindings {name} need {needs}"
            )));
        }
        let notifies_resources = b.outgoing_publication_notification_func.is_some()
            || b.incoming_publication_notification_func.is_some()
            || b.outgoing_image_notification_func.is_some()
            || b.incoming_image_notification_func.is_some();
        if notifies_resources {
            return Err(Error::invalid_argument(format!(
                "interceptor bindings {}: publication and image notification functions are not supported (aeronrs has no aeron_network_publication_t or aeron_publication_image_t to pass); set them NULL",
                binding_name(b)
            )));
        }
        bindings.push(*b);
        next = b.meta_info.next_interceptor_bindings;
    }
    Ok(bindings)
}

/// What the stages of the two directions have in common, so one chain type links both.
pub(crate) trait Stage: Sized {
    /// The direction, and the functions its bindings need, for error messages.
    const DIRECTION: &'static str;
    const NEEDS: &'static str;
    /// What the errors of this direction's init and notification calls name.
    const INIT: &'static str;
    const NOTIFY: &'static str;
    /// A stage for `b` (its state still NULL) and `b`'s init function of this direction.
    fn of(b: &aeron_udp_channel_interceptor_bindings_t) -> (Self, aeron_udp_channel_interceptor_init_func_t);
    /// Whether the stage has this direction's datagram function.
    fn has_func(&self) -> bool;
    fn state(&mut self) -> &mut *mut c_void;
    fn close_func(&mut self) -> &mut aeron_udp_channel_interceptor_close_func_t;
    fn set_next(&mut self, next: *mut Self);
    fn transport_notification(&self) -> aeron_udp_channel_interceptor_transport_notification_func_t;
}

/// The `Stage` of one direction: the stage type and the names its fields and the
/// bindings' fields have in that direction.
macro_rules! stage {
    ($stage:ty, $direction:literal, $init:ident, $func:ident, $transport:ident, $publication:ident,
     $image:ident, $bindings_close:ident) => {
        impl Stage for $stage {
            const DIRECTION: &'static str = $direction;
            const NEEDS: &'static str = concat!(stringify!($init), " and ", stringify!($func));
            const INIT: &'static str = concat!($direction, " interceptor init");
            const NOTIFY: &'static str = concat!($direction, " interceptor transport notification");

            fn of(
                b: &aeron_udp_channel_interceptor_bindings_t,
            ) -> (Self, aeron_udp_channel_interceptor_init_func_t) {
                let stage = Self {
                    interceptor_state: std::ptr::null_mut(),
                    $func: b.$func,
                    close_func: b.$bindings_close,
                    $transport: b.$transport,
                    $publication: b.$publication,
                    $image: b.$image,
                    next_interceptor: std::ptr::null_mut(),
                };
                (stage, b.$init)
            }

            fn has_func(&self) -> bool {
                self.$func.is_some()
            }

            fn state(&mut self) -> &mut *mut c_void {
                &mut self.interceptor_state
            }

            fn close_func(&mut self) -> &mut aeron_udp_channel_interceptor_close_func_t {
                &mut self.close_func
            }

            fn set_next(&mut self, next: *mut Self) {
                self.next_interceptor = next;
            }

            fn transport_notification(&self) -> aeron_udp_channel_interceptor_transport_notification_func_t {
                self.$transport
            }
        }
    };
}

stage! { aeron_udp_channel_outgoing_interceptor_t, "outgoing", outgoing_init_func, outgoing_send_func,
outgoing_transport_notification_func, outgoing_publication_notification_func,
outgoing_image_notification_func, outgoing_close_func }
stage! { aeron_udp_channel_incoming_interceptor_t, "incoming", incoming_init_func, incoming_func,
incoming_transport_notification_func, incoming_publication_notification_func,
incoming_image_notification_func, incoming_close_func }

/// One direction's stages, first to last (the driver's own last). Boxed: C holds their
/// addresses, which must not move while the vector grows.
#[allow(clippy::vec_box)]
struct Chain<S: Stage>(Vec<Box<UnsafeCell<S>>>);

impl<S: Stage> Chain<S> {
    /// Checks the chain starting at `first`, adds and initialises a stage per bindings,
    /// then `last`, and links them. Returns the first stage, if there are interceptors. On
    /// failure the stages initialised so far stay, for drop to close.
    ///
    /// # Safety
    /// `first` NULL or a chain of bindings valid while this chain lives; `context` the
    /// driver's context (passed to the init functions).
    unsafe fn link(
        &mut self,
        first: *const aeron_udp_channel_interceptor_bindings_t,
        last: S,
        context: *mut aeron_driver_context_t,
        affinity: aeron_udp_channel_transport_affinity_t,
    ) -> Result<Option<*mut S>> {
        // SAFETY: NULL or a valid chain (contract).
        for b in &unsafe { chain::<S>(first) }? {
            let (stage, init) = S::of(b);
            let init = init.expect("checked by chain");
            let mut stage = Box::new(UnsafeCell::new(stage));
            let state: *mut *mut c_void = stage.get_mut().state();
            // Pushed first, so its close function runs on failure of a later stage.
            self.0.push(stage);
            // SAFETY: the interceptor's init with its state slot (in the boxed stage, whose
            // address stays put), the context, the affinity.
            if unsafe { init(state, context, affinity) } < 0 {
                *self.0.last_mut().expect("just pushed").get_mut().close_func() = None;
                return Err(error_from_c(S::INIT));
            }
        }
        if !self.0.is_empty() {
            self.0.push(Box::new(UnsafeCell::new(last)));
            for pair in self.0.windows(2) {
                // SAFETY: both stages are alive and only linked here.
                unsafe { (*pair[0].get()).set_next(pair[1].get()) };
            }
        }
        Ok(self.0.first().map(|stage| stage.get()))
    }

    /// # Safety
    /// As [`DataPaths::notify_transport`].
    unsafe fn notify(
        &self,
        transport: *mut aeron_udp_channel_transport_t,
        channel: *const aeron_udp_channel_t,
        kind: aeron_udp_channel_interceptor_notification_type_t,
    ) -> Result<()> {
        for stage in &self.0 {
            // SAFETY: a live stage; only this agent's thread calls it.
            let stage = unsafe { &mut *stage.get() };
            if let Some(notify) = stage.transport_notification() {
                let state = *stage.state();
                // SAFETY: the interceptor's function with its state (no dispatcher: NULL).
                let rc = unsafe { notify(state, transport, channel, std::ptr::null_mut(), kind) };
                c_result(rc, S::NOTIFY)?;
            }
        }
        Ok(())
    }
}

impl<S: Stage> Drop for Chain<S> {
    fn drop(&mut self) {
        for stage in &mut self.0 {
            let stage = stage.get_mut();
            if let Some(close) = *stage.close_func() {
                // SAFETY: the interceptor's close with the state its init set, once.
                unsafe { close(*stage.state()) };
            }
        }
    }
}

/// One agent's data paths. The C struct is boxed: transports hold its address.
pub(crate) struct DataPaths {
    paths: Box<UnsafeCell<aeron_udp_channel_data_paths_t>>,
    // Dropped in this order: the outgoing stages close first, as Aeron closes them.
    outgoing: Chain<aeron_udp_channel_outgoing_interceptor_t>,
    incoming: Chain<aeron_udp_channel_incoming_interceptor_t>,
}

impl DataPaths {
    /// Links and initialises the chains for `affinity`; sends end in `media`'s
    /// `send_func`.
    ///
    /// # Safety
    /// `outgoing` / `incoming` NULL or valid chains, `media` valid bindings, all alive as
    /// long as the data paths; `context` the driver's context (passed to the init
    /// functions).
    pub(crate) unsafe fn new(
        outgoing: *const aeron_udp_channel_interceptor_bindings_t,
        incoming: *const aeron_udp_channel_interceptor_bindings_t,
        media: *mut aeron_udp_channel_transport_bindings_t,
        context: *mut aeron_driver_context_t,
        affinity: aeron_udp_channel_transport_affinity_t,
    ) -> Result<Self> {
        // SAFETY: valid bindings (contract).
        let send_func = unsafe { (*media).send_func };
        let mut paths = Self {
            paths: Box::new(UnsafeCell::new(aeron_udp_channel_data_paths_t {
                outgoing_interceptors: std::ptr::null_mut(),
                incoming_interceptors: std::ptr::null_mut(),
                send_func,
                recv_func: Some(receive),
            })),
            outgoing: Chain(Vec::new()),
            incoming: Chain(Vec::new()),
        };
        // SAFETY: zeroes are valid bindings: no functions, NULL pointers.
        let no_bindings: aeron_udp_channel_interceptor_bindings_t = unsafe { std::mem::zeroed() };
        // The last outgoing stage sends through the bindings (its state).
        let (mut to_transport, _) = aeron_udp_channel_outgoing_interceptor_t::of(&no_bindings);
        to_transport.interceptor_state = media.cast();
        to_transport.outgoing_send_func = Some(outgoing_to_transport);
        // SAFETY: as this function's contract.
        if let Some(first) = unsafe { paths.outgoing.link(outgoing, to_transport, context, affinity) }? {
            let p = paths.paths.get_mut();
            p.outgoing_interceptors = first;
            p.send_func = Some(send_through_interceptors);
        }
        let (mut to_driver, _) = aeron_udp_channel_incoming_interceptor_t::of(&no_bindings);
        to_driver.incoming_func = Some(incoming_to_driver);
        // SAFETY: as this function's contract.
        if let Some(first) = unsafe { paths.incoming.link(incoming, to_driver, context, affinity) }? {
            paths.paths.get_mut().incoming_interceptors = first;
        }
        Ok(paths)
    }

    /// The C data paths (transports point at them).
    pub(crate) fn as_ptr(&self) -> *mut aeron_udp_channel_data_paths_t {
        self.paths.get()
    }

    pub(crate) fn has_incoming_interceptors(&self) -> bool {
        !self.incoming.0.is_empty()
    }

    /// Tells every stage with a transport notification function (incoming, then
    /// outgoing) that `transport` joined or left the agent.
    ///
    /// # Safety
    /// `transport` a transport of this agent's; `channel` NULL or opaque to the stages.
    pub(crate) unsafe fn notify_transport(
        &self,
        transport: *mut aeron_udp_channel_transport_t,
        channel: *const aeron_udp_channel_t,
        added: bool,
    ) -> Result<()> {
        let kind = aeron_udp_channel_interceptor_notification_type_t(if added {
            AERON_UDP_CHANNEL_INTERCEPTOR_ADD_NOTIFICATION
        } else {
            AERON_UDP_CHANNEL_INTERCEPTOR_REMOVE_NOTIFICATION
        });
        // SAFETY: as this function's contract.
        unsafe { self.incoming.notify(transport, channel, kind) }?;
        // SAFETY: as above.
        unsafe { self.outgoing.notify(transport, channel, kind) }
    }
}
