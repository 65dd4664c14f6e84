//! The four fragment assemblers of `aeronc.h` over the Rust [`FragmentAssembler`] and
//! [`ControlledFragmentAssembler`]: `aeron_fragment_assembler_t` and
//! `aeron_controlled_fragment_assembler_t` for subscriptions (one buffer per session) and
//! the `aeron_image_*` variants for polling a single image (the same, with one session).
//!
//! Pass the `*_handler` function as the poll's handler and the assembler as its clientd:
//! unfragmented messages reach the delegate without a copy; fragmented ones are joined and
//! delivered once whole, with a header whose position is after the last fragment. An
//! assembler is used by one polling thread at a time.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::rc::Rc;

use crate::ffi::FailureValue;
use crate::ffi::handles::{Handle, into_raw, reclaim};
use crate::ffi::header::{
    ControlledFragmentHandlerFn as RawControlledDelegate, FragmentHandlerFn as RawDelegate,
    aeron_controlled_fragment_handler_action_t, aeron_controlled_fragment_handler_t,
    aeron_fragment_handler_t, aeron_header_t, deliver, deliver_controlled, header_ref,
};
use crate::ffi::publication::message;
use crate::logbuffer::{ControlledFragmentAssembler, ControlledPollAction, FragmentAssembler, Header};
use crate::protocol::header::UNFRAGMENTED;
use crate::util::error::{Error, Result};

/// Reassembles fragmented messages of a subscription's sessions. Opaque.
#[allow(non_camel_case_types)]
pub struct aeron_fragment_assembler_t {
    _private: [u8; 0],
}

/// As `aeron_fragment_assembler_t`, for controlled polls. Opaque.
#[allow(non_camel_case_types)]
pub struct aeron_controlled_fragment_assembler_t {
    _private: [u8; 0],
}

/// Reassembles fragmented messages of one image. Opaque.
#[allow(non_camel_case_types)]
pub struct aeron_image_fragment_assembler_t {
    _private: [u8; 0],
}

/// As `aeron_image_fragment_assembler_t`, for controlled polls. Opaque.
#[allow(non_camel_case_types)]
pub struct aeron_image_controlled_fragment_assembler_t {
    _private: [u8; 0],
}

/// The image of the fragment being assembled, for the delegate's header.
type Context = Rc<Cell<*mut c_void>>;

/// What differs between the plain and the controlled assemblers, by the type of the
/// application's handler: what it returns and which Rust assembler joins the fragments.
pub(crate) trait Kind: Copy {
    /// What the handler returns (`()`, or the action); a failure counts as ABORT.
    type Out: FailureValue;
    type Assembler;
    /// The Rust assembler delivering whole messages to this handler with `clientd`, the
    /// header's image read from `image`.
    fn assembler(self, clientd: *mut c_void, image: Context) -> Self::Assembler;
    fn on_fragment(assembler: &mut Self::Assembler, payload: &[u8], header: &Header) -> Self::Out;
    /// # Safety
    /// As the handler's own call: its clientd, and the payload and header of a running poll.
    unsafe fn call(
        self,
        clientd: *mut c_void,
        buffer: *const u8,
        length: usize,
        header: *mut aeron_header_t,
    ) -> Self::Out;
}

impl Kind for RawDelegate {
    type Out = ();
    type Assembler = FragmentAssembler<Box<dyn FnMut(&[u8], &Header)>>;

    fn assembler(self, clientd: *mut c_void, image: Context) -> Self::Assembler {
        FragmentAssembler::new(Box::new(move |payload: &[u8], header: &Header| {
            deliver(self, clientd, payload, header, image.get())
        }))
    }

    fn on_fragment(assembler: &mut Self::Assembler, payload: &[u8], header: &Header) {
        assembler.on_fragment(payload, header)
    }

    #[inline(always)]
    unsafe fn call(
        self,
        clientd: *mut c_void,
        buffer: *const u8,
        length: usize,
        header: *mut aeron_header_t,
    ) {
        // SAFETY: forwarded contract.
        unsafe { self(clientd, buffer, length, header) }
    }
}

impl Kind for RawControlledDelegate {
    type Out = aeron_controlled_fragment_handler_action_t;
    type Assembler = ControlledFragmentAssembler<Box<dyn FnMut(&[u8], &Header) -> ControlledPollAction>>;

    fn assembler(self, clientd: *mut c_void, image: Context) -> Self::Assembler {
        ControlledFragmentAssembler::new(Box::new(move |payload: &[u8], header: &Header| {
            deliver_controlled(self, clientd, payload, header, image.get())
        }))
    }

    fn on_fragment(assembler: &mut Self::Assembler, payload: &[u8], header: &Header) -> Self::Out {
        aeron_controlled_fragment_handler_action_t::from_action(assembler.on_fragment(payload, header))
    }

    /// The delegate's action is passed through as is (the poll reads an unknown value as
    /// CONTINUE, as Aeron C does).
    #[inline(always)]
    unsafe fn call(
        self,
        clientd: *mut c_void,
        buffer: *const u8,
        length: usize,
        header: *mut aeron_header_t,
    ) -> Self::Out {
        // SAFETY: forwarded contract.
        unsafe { self(clientd, buffer, length, header) }
    }
}

/// What an assembler handle points to: the Rust assembler, and the application's handler,
/// called directly for unfragmented messages.
pub(crate) struct AssemblerHandle<K: Kind> {
    assembler: K::Assembler,
    context: Context,
    delegate: K,
    clientd: *mut c_void,
}

impl Handle for aeron_fragment_assembler_t {
    type Target = AssemblerHandle<RawDelegate>;
}
impl Handle for aeron_image_fragment_assembler_t {
    type Target = AssemblerHandle<RawDelegate>;
}
impl Handle for aeron_controlled_fragment_assembler_t {
    type Target = AssemblerHandle<RawControlledDelegate>;
}
impl Handle for aeron_image_controlled_fragment_assembler_t {
    type Target = AssemblerHandle<RawControlledDelegate>;
}

impl<K: Kind> AssemblerHandle<K> {
    fn new(delegate: Option<K>, clientd: *mut c_void) -> Result<Self> {
        let delegate = delegate.ok_or_else(|| Error::invalid_argument("delegate must not be NULL"))?;
        let context: Context = Rc::new(Cell::new(std::ptr::null_mut()));
        Ok(Self { assembler: delegate.assembler(clientd, Rc::clone(&context)), context, delegate, clientd })
    }
}

/// Stores a new assembler in `*out`.
///
/// # Safety
/// `out` NULL or valid for a pointer write.
unsafe fn create<H: Handle>(out: *mut *mut H, make: impl FnOnce() -> Result<H::Target>) -> Result<c_int> {
    require_non_null!(out, "assembler");
    let handle = make()?;
    // SAFETY: out is non-null and writable (contract).
    unsafe { out.write(into_raw::<H>(handle)) };
    Ok(0)
}

/// The body of the four handlers. A whole message (the common case) needs none of the
/// assembler's state, so when every argument is usable the application's handler gets the
/// poll's own payload and header at once. That test cannot panic (pointer tests and one
/// flag test), so it runs outside the panic boundary, keeping the per-fragment call as
/// cheap as upstream's; anything else goes to [`assemble`], which also reports bad
/// arguments.
///
/// # Safety
/// `clientd` NULL or an assembler of kind `K`, used by this thread only now; `header` NULL
/// or the running handler call's, `buffer` valid for `length` bytes.
#[inline(always)]
unsafe fn handler<K: Kind>(
    function: &'static str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> K::Out {
    if !clientd.is_null() && !header.is_null() && (!buffer.is_null() || length == 0) {
        // SAFETY: non-null, the running handler call's header (contract).
        if unsafe { &*header }.header().flags() & UNFRAGMENTED == UNFRAGMENTED {
            // SAFETY: non-null, an assembler of this kind (contract); only read here.
            let handle = unsafe { &*clientd.cast::<AssemblerHandle<K>>() };
            // SAFETY: the application's handler with its clientd (create contract), during
            // the poll's handler call whose payload and header are valid.
            return unsafe { handle.delegate.call(handle.clientd, buffer, length, header) };
        }
    }
    // SAFETY: forwarded contract.
    unsafe { assemble::<K>(function, clientd, buffer, length, header) }
}

/// A fragment of a message that is not whole, or bad arguments, inside the boundary; an
/// error of a controlled handler aborts (keeps the fragment).
///
/// # Safety
/// As [`handler`].
#[inline(never)]
unsafe fn assemble<K: Kind>(
    function: &str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> K::Out {
    crate::ffi::boundary(function, || {
        require_non_null!(clientd, "clientd (the assembler)");
        // SAFETY: an assembler of this kind used by one thread at a time (contract).
        let handle = unsafe { &mut *clientd.cast::<AssemblerHandle<K>>() };
        // SAFETY: forwarded contract.
        let payload = unsafe { message(buffer, length) }?;
        // SAFETY: forwarded contract.
        let header = unsafe { header_ref(header) }?;
        handle.context.set(header.context);
        Ok(K::on_fragment(&mut handle.assembler, payload, header.header()))
    })
}

/// The fragment handler to poll with, the assembler as clientd.
///
/// # Safety
/// `clientd` an `aeron_fragment_assembler_t`; the other arguments as a poll passes them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_fragment_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    // SAFETY: forwarded contract.
    unsafe { local_assembler_handler(clientd, buffer, length, header) }
}

/// `aeron_fragment_assembler_handler` as a function local to this library: a poll given the
/// exported one calls this directly (see `with_known_fragment_handler!`), which, unlike the
/// exported symbol, the compiler can inline.
///
/// # Safety
/// As `aeron_fragment_assembler_handler`.
#[inline(always)]
pub(crate) unsafe extern "C" fn local_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    // SAFETY: forwarded contract.
    unsafe { handler::<RawDelegate>("aeron_fragment_assembler_handler", clientd, buffer, length, header) }
}

/// The controlled fragment handler to poll with, the assembler as clientd. Returns the
/// delegate's action (CONTINUE for fragments still being joined; ABORT on error).
///
/// # Safety
/// `clientd` an `aeron_controlled_fragment_assembler_t`; the rest as a poll passes them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_controlled_fragment_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t {
    // SAFETY: forwarded contract.
    unsafe {
        handler::<RawControlledDelegate>(
            "aeron_controlled_fragment_assembler_handler",
            clientd,
            buffer,
            length,
            header,
        )
    }
}

/// The fragment handler to poll an image with, the assembler as clientd.
///
/// # Safety
/// `clientd` an `aeron_image_fragment_assembler_t`; the rest as a poll passes them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_fragment_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    // SAFETY: forwarded contract.
    unsafe { local_image_assembler_handler(clientd, buffer, length, header) }
}

/// `aeron_image_fragment_assembler_handler` local to this library; see
/// [`local_assembler_handler`].
///
/// # Safety
/// As `aeron_image_fragment_assembler_handler`.
#[inline(always)]
pub(crate) unsafe extern "C" fn local_image_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    // SAFETY: forwarded contract.
    unsafe {
        handler::<RawDelegate>("aeron_image_fragment_assembler_handler", clientd, buffer, length, header)
    }
}

/// The controlled fragment handler to poll an image with, the assembler as clientd.
///
/// # Safety
/// `clientd` an `aeron_image_controlled_fragment_assembler_t`; the rest as a poll passes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_controlled_fragment_assembler_handler(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t {
    // SAFETY: forwarded contract.
    unsafe {
        handler::<RawControlledDelegate>(
            "aeron_image_controlled_fragment_assembler_handler",
            clientd,
            buffer,
            length,
            header,
        )
    }
}

// Each kind's `_create` and `_delete`, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/fragment_assembler_ffi.rs"));
