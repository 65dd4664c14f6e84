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

use crate::ffi::handles::{Handle, into_raw, reclaim};
use crate::ffi::header::{
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

type Delegate = Box<dyn FnMut(&[u8], &Header)>;
type RawDelegate = unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut aeron_header_t);
type RawControlledDelegate = unsafe extern "C" fn(
    *mut c_void,
    *const u8,
    usize,
    *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t;
type ControlledDelegate = Box<dyn FnMut(&[u8], &Header) -> ControlledPollAction>;

/// What the plain assemblers point to.
pub(crate) struct AssemblerHandle {
    assembler: FragmentAssembler<Delegate>,
    context: Context,
    /// The application's handler, called directly for unfragmented messages.
    delegate: RawDelegate,
    clientd: *mut c_void,
}

/// What the controlled assemblers point to.
pub(crate) struct ControlledAssemblerHandle {
    assembler: ControlledFragmentAssembler<ControlledDelegate>,
    context: Context,
    /// The application's handler, called directly for unfragmented messages.
    delegate: RawControlledDelegate,
    clientd: *mut c_void,
}

impl Handle for aeron_fragment_assembler_t {
    type Target = AssemblerHandle;
}
impl Handle for aeron_image_fragment_assembler_t {
    type Target = AssemblerHandle;
}
impl Handle for aeron_controlled_fragment_assembler_t {
    type Target = ControlledAssemblerHandle;
}
impl Handle for aeron_image_controlled_fragment_assembler_t {
    type Target = ControlledAssemblerHandle;
}

impl AssemblerHandle {
    fn new(delegate: aeron_fragment_handler_t, clientd: *mut c_void) -> Result<Self> {
        let delegate = delegate.ok_or_else(|| Error::invalid_argument("delegate must not be NULL"))?;
        let context: Context = Rc::new(Cell::new(std::ptr::null_mut()));
        let image = Rc::clone(&context);
        let raw = delegate;
        let delegate: Delegate = Box::new(move |payload: &[u8], header: &Header| {
            deliver(delegate, clientd, payload, header, image.get())
        });
        Ok(Self { assembler: FragmentAssembler::new(delegate), context, delegate: raw, clientd })
    }

    /// A fragment of a message that is not whole (whole ones never get here, see
    /// [`deliver_whole`]).
    fn on_fragment(&mut self, payload: &[u8], header: &aeron_header_t) {
        self.context.set(header.context);
        self.assembler.on_fragment(payload, header.header());
    }
}

impl ControlledAssemblerHandle {
    fn new(delegate: aeron_controlled_fragment_handler_t, clientd: *mut c_void) -> Result<Self> {
        let delegate = delegate.ok_or_else(|| Error::invalid_argument("delegate must not be NULL"))?;
        let context: Context = Rc::new(Cell::new(std::ptr::null_mut()));
        let image = Rc::clone(&context);
        let raw = delegate;
        let delegate: ControlledDelegate = Box::new(move |payload: &[u8], header: &Header| {
            deliver_controlled(delegate, clientd, payload, header, image.get())
        });
        Ok(Self { assembler: ControlledFragmentAssembler::new(delegate), context, delegate: raw, clientd })
    }

    /// As [`AssemblerHandle::on_fragment`].
    fn on_fragment(&mut self, payload: &[u8], header: &aeron_header_t) -> ControlledPollAction {
        self.context.set(header.context);
        self.assembler.on_fragment(payload, header.header())
    }
}

/// What the fast path needs of an assembler: the application's handler and its clientd.
trait WholeMessageDelegate {
    type Raw: Copy;
    fn raw_delegate(&self) -> (Self::Raw, *mut c_void);
}

impl WholeMessageDelegate for AssemblerHandle {
    type Raw = RawDelegate;
    fn raw_delegate(&self) -> (RawDelegate, *mut c_void) {
        (self.delegate, self.clientd)
    }
}

impl WholeMessageDelegate for ControlledAssemblerHandle {
    type Raw = RawControlledDelegate;
    fn raw_delegate(&self) -> (RawControlledDelegate, *mut c_void) {
        (self.delegate, self.clientd)
    }
}

/// The application's handler of assembler `clientd` when the fragment is a whole message
/// (the common case) and every argument is usable; `None` sends the fragment down the full
/// path, which also reports bad arguments. A whole message needs none of the assembler's
/// state, so the handler gets the poll's own payload and header. Nothing here can panic
/// (pointer tests and one flag test), so the exported handlers run it outside the panic
/// boundary, keeping the per-fragment call as cheap as upstream's.
///
/// # Safety
/// `clientd` NULL or an assembler with target `T`; `header` NULL or the running handler
/// call's.
#[inline(always)]
unsafe fn deliver_whole<T: WholeMessageDelegate>(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> Option<(T::Raw, *mut c_void)> {
    if clientd.is_null() || header.is_null() || (buffer.is_null() && length != 0) {
        return None;
    }
    // SAFETY: non-null, the running handler call's header (contract).
    if unsafe { &*header }.header().flags() & UNFRAGMENTED != UNFRAGMENTED {
        return None;
    }
    // SAFETY: non-null, an assembler of this kind (contract); only read here.
    Some(unsafe { &*clientd.cast::<T>() }.raw_delegate())
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

/// The assembler behind `clientd` for the running poll.
///
/// # Safety
/// `clientd` NULL or an assembler of target `T`, used by this thread only now.
unsafe fn assembler_mut<'a, T>(clientd: *mut c_void) -> Result<&'a mut T> {
    require_non_null!(clientd, "clientd (the assembler)");
    // SAFETY: an assembler of this kind used by one thread at a time (contract).
    Ok(unsafe { &mut *clientd.cast::<T>() })
}

/// The payload and header of a fragment handed to an assembler.
///
/// # Safety
/// `buffer` valid for `length` bytes; `header` NULL or the running handler call's.
unsafe fn fragment<'a>(
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> Result<(&'a [u8], &'a aeron_header_t)> {
    // SAFETY: forwarded contract.
    let payload = unsafe { message(buffer, length) }?;
    // SAFETY: forwarded contract.
    let header = unsafe { header_ref(header) }?;
    Ok((payload, header))
}

/// Makes an assembler for subscription polls delivering whole messages to `delegate` with
/// `delegate_clientd`. Returns 0, or -1 for NULL arguments.
///
/// # Safety
/// `assembler` valid for a pointer write; `delegate` safe to call with `delegate_clientd`
/// on the polling thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_fragment_assembler_create(
    assembler: *mut *mut aeron_fragment_assembler_t,
    delegate: aeron_fragment_handler_t,
    delegate_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_fragment_assembler_create", {
        // SAFETY: forwarded contract.
        unsafe { create(assembler, || AssemblerHandle::new(delegate, delegate_clientd)) }
    })
}

/// Frees an assembler (NULL is accepted). Returns 0.
///
/// # Safety
/// `assembler` NULL or live, not in use, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_fragment_assembler_delete(
    assembler: *mut aeron_fragment_assembler_t,
) -> c_int {
    ffi_boundary!("aeron_fragment_assembler_delete", {
        // SAFETY: forwarded contract.
        drop(unsafe { reclaim(assembler) });
        Ok(0)
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
    unsafe { plain_handler("aeron_fragment_assembler_handler", clientd, buffer, length, header) }
}

/// The body of both plain handlers.
///
/// # Safety
/// As `aeron_fragment_assembler_handler`.
#[inline(always)]
unsafe fn plain_handler(
    function: &'static str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    let whole =
        // SAFETY: forwarded contract.
        unsafe { deliver_whole::<AssemblerHandle>(clientd, buffer, length, header) };
    if let Some((delegate, delegate_clientd)) = whole {
        // SAFETY: the application's handler with its clientd (create contract), during the
        // poll's handler call whose payload and header are valid.
        unsafe { delegate(delegate_clientd, buffer, length, header) };
        return;
    }
    // SAFETY: forwarded contract.
    unsafe { assemble(function, clientd, buffer, length, header) }
}

/// A fragment of a message that is not whole, or bad arguments, inside the boundary.
///
/// # Safety
/// As `aeron_fragment_assembler_handler`.
#[inline(never)]
unsafe fn assemble(
    function: &str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) {
    crate::ffi::boundary(function, || {
        // SAFETY: forwarded contract.
        let assembler = unsafe { assembler_mut::<AssemblerHandle>(clientd) }?;
        // SAFETY: forwarded contract.
        let (payload, fragment_header) = unsafe { fragment(buffer, length, header) }?;
        assembler.on_fragment(payload, fragment_header);
        Ok(())
    })
}

/// Makes a controlled assembler for subscription polls. Returns 0, or -1.
///
/// # Safety
/// As `aeron_fragment_assembler_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_controlled_fragment_assembler_create(
    assembler: *mut *mut aeron_controlled_fragment_assembler_t,
    delegate: aeron_controlled_fragment_handler_t,
    delegate_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_controlled_fragment_assembler_create", {
        // SAFETY: forwarded contract.
        unsafe { create(assembler, || ControlledAssemblerHandle::new(delegate, delegate_clientd)) }
    })
}

/// Frees a controlled assembler (NULL is accepted). Returns 0.
///
/// # Safety
/// As `aeron_fragment_assembler_delete`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_controlled_fragment_assembler_delete(
    assembler: *mut aeron_controlled_fragment_assembler_t,
) -> c_int {
    ffi_boundary!("aeron_controlled_fragment_assembler_delete", {
        // SAFETY: forwarded contract.
        drop(unsafe { reclaim(assembler) });
        Ok(0)
    })
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
        controlled_handler("aeron_controlled_fragment_assembler_handler", clientd, buffer, length, header)
    }
}

/// The body of both controlled handlers; an error aborts (keeps the fragment).
///
/// # Safety
/// As `aeron_controlled_fragment_assembler_handler`.
#[inline(always)]
unsafe fn controlled_handler(
    function: &'static str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t {
    let whole =
        // SAFETY: forwarded contract.
        unsafe { deliver_whole::<ControlledAssemblerHandle>(clientd, buffer, length, header) };
    if let Some((delegate, delegate_clientd)) = whole {
        // SAFETY: as in `plain_handler`. The delegate's action is passed through as is
        // (the poll reads an unknown value as CONTINUE, as Aeron C does).
        return unsafe { delegate(delegate_clientd, buffer, length, header) };
    }
    // SAFETY: forwarded contract.
    unsafe { assemble_controlled(function, clientd, buffer, length, header) }
}

/// As [`assemble`], for the controlled handlers; an error aborts (keeps the fragment).
///
/// # Safety
/// As `aeron_controlled_fragment_assembler_handler`.
#[inline(never)]
unsafe fn assemble_controlled(
    function: &str,
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    header: *mut aeron_header_t,
) -> aeron_controlled_fragment_handler_action_t {
    let action = crate::ffi::boundary(function, || {
        // SAFETY: forwarded contract.
        let assembler = unsafe { assembler_mut::<ControlledAssemblerHandle>(clientd) }?;
        // SAFETY: forwarded contract.
        let (payload, fragment_header) = unsafe { fragment(buffer, length, header) }?;
        Ok(assembler.on_fragment(payload, fragment_header) as c_int)
    });
    aeron_controlled_fragment_handler_action_t::from_action(
        ControlledPollAction::from_i32(action).unwrap_or(ControlledPollAction::Abort),
    )
}

/// Makes an assembler for polling one image. Returns 0, or -1.
///
/// # Safety
/// As `aeron_fragment_assembler_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_fragment_assembler_create(
    assembler: *mut *mut aeron_image_fragment_assembler_t,
    delegate: aeron_fragment_handler_t,
    delegate_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_image_fragment_assembler_create", {
        // SAFETY: forwarded contract.
        unsafe { create(assembler, || AssemblerHandle::new(delegate, delegate_clientd)) }
    })
}

/// Frees an image assembler (NULL is accepted). Returns 0.
///
/// # Safety
/// As `aeron_fragment_assembler_delete`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_fragment_assembler_delete(
    assembler: *mut aeron_image_fragment_assembler_t,
) -> c_int {
    ffi_boundary!("aeron_image_fragment_assembler_delete", {
        // SAFETY: forwarded contract.
        drop(unsafe { reclaim(assembler) });
        Ok(0)
    })
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
    unsafe { plain_handler("aeron_image_fragment_assembler_handler", clientd, buffer, length, header) }
}

/// Makes a controlled assembler for polling one image. Returns 0, or -1.
///
/// # Safety
/// As `aeron_fragment_assembler_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_controlled_fragment_assembler_create(
    assembler: *mut *mut aeron_image_controlled_fragment_assembler_t,
    delegate: aeron_controlled_fragment_handler_t,
    delegate_clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_image_controlled_fragment_assembler_create", {
        // SAFETY: forwarded contract.
        unsafe { create(assembler, || ControlledAssemblerHandle::new(delegate, delegate_clientd)) }
    })
}

/// Frees an image controlled assembler (NULL is accepted). Returns 0.
///
/// # Safety
/// As `aeron_fragment_assembler_delete`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_image_controlled_fragment_assembler_delete(
    assembler: *mut aeron_image_controlled_fragment_assembler_t,
) -> c_int {
    ffi_boundary!("aeron_image_controlled_fragment_assembler_delete", {
        // SAFETY: forwarded contract.
        drop(unsafe { reclaim(assembler) });
        Ok(0)
    })
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
        controlled_handler(
            "aeron_image_controlled_fragment_assembler_handler",
            clientd,
            buffer,
            length,
            header,
        )
    }
}
