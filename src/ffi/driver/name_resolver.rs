//! Name resolvers supplied from C (`aeron_name_resolver_supplier_func_t` filling an
//! `aeron_name_resolver_t`, Aeron's `struct aeron_name_resolver_stct`): the supplier runs
//! once, in `aeron_driver_init`, with `AERON_NAME_RESOLVER_INIT_ARGS` and the context;
//! the conductor then calls the resolver's `lookup_func` and `resolve_func` for every
//! `endpoint` and `control` address of channels and destinations (each call timed by the
//! name resolver's tracker), `do_work_func` every duty cycle and `close_func` when the
//! driver closes (`src/driver/media/name_resolver.rs`). As in Aeron C, `lookup_func` and
//! `resolve_func` run on the async executor's thread when it is on
//! (`AERON_DRIVER_ASYNC_EXECUTOR_THREADS` ≥ 1, the default), the others on the conductor's;
//! the calls never overlap (the resolver sits behind a mutex).
//!
//! `aeron_driver_context_get_name_resolver_supplier` returns this library's default
//! supplier, a C function that fills a resolver with the default lookup (the name as it
//! is) and resolution (the system's, IPv4), so a C resolver can delegate to it as Aeron's
//! resolvers delegate to theirs.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::net::IpAddr;
use std::sync::Arc;

use crate::concurrent::ForeignShared;
use crate::driver::media::name_resolver::{DefaultNameResolver, NameResolver, NameResolverSupplier};
use crate::ffi::driver::context::{aeron_driver_context_t, get_callback, handle};
use crate::ffi::driver::{FnOf, assert_layout, c_result};
use crate::ffi::ffi_boundary;
use crate::util::error::{Error, Result};
use crate::util::sys::udp::{from_storage, sockaddr_storage};

/// Resolves `name` (a host without port) into `*address` (family and address; the port
/// is set by the caller). Returns 0 or more on success, -1 on failure (with the error set).
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_resolve_func_t = Option<
    unsafe extern "C" fn(
        resolver: *mut aeron_name_resolver_t,
        name: *const c_char,
        uri_param_name: *const c_char,
        is_re_resolution: bool,
        address: *mut libc::sockaddr_storage,
    ) -> c_int,
>;

/// Looks `name` up as a `host:port` text, stored in `*resolved_name` (owned by the
/// resolver, read before its next call). Returns 1 if found, 0 if not (`*resolved_name`
/// may then be `name` itself or NULL), -1 on failure.
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_lookup_func_t = Option<
    unsafe extern "C" fn(
        resolver: *mut aeron_name_resolver_t,
        name: *const c_char,
        uri_param_name: *const c_char,
        is_re_lookup: bool,
        resolved_name: *mut *const c_char,
    ) -> c_int,
>;

/// The resolver's periodic work; returns the work done, or -1 on failure.
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_do_work_func_t =
    Option<unsafe extern "C" fn(resolver: *mut aeron_name_resolver_t, now_ms: i64) -> c_int>;

/// Releases the resolver's resources (the struct itself is the driver's).
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_close_func_t =
    Option<unsafe extern "C" fn(resolver: *mut aeron_name_resolver_t) -> c_int>;

/// A name resolver: Aeron's `struct aeron_name_resolver_stct`, field for field. The
/// driver allocates it (zeroed) and the supplier fills it in.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct aeron_name_resolver_stct {
    pub name: *const c_char,
    pub lookup_func: aeron_name_resolver_lookup_func_t,
    pub resolve_func: aeron_name_resolver_resolve_func_t,
    pub do_work_func: aeron_name_resolver_do_work_func_t,
    pub close_func: aeron_name_resolver_close_func_t,
    pub state: *mut c_void,
}

/// Aeron's name for the resolver (`typedef struct aeron_name_resolver_stct ...`).
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_t = aeron_name_resolver_stct;

/// Fills `*resolver` from `args` (`AERON_NAME_RESOLVER_INIT_ARGS`, possibly NULL) for
/// the driver of `context`. Returns 0, or -1 with the error set.
#[allow(non_camel_case_types)]
pub type aeron_name_resolver_supplier_func_t = Option<
    unsafe extern "C" fn(
        resolver: *mut aeron_name_resolver_t,
        args: *const c_char,
        context: *mut aeron_driver_context_t,
    ) -> c_int,
>;

assert_layout!(aeron_name_resolver_stct, size 48, name @ 0, lookup_func @ 8, resolve_func @ 16, do_work_func @ 24,
    close_func @ 32, state @ 40);

type SupplierFn = FnOf<aeron_name_resolver_supplier_func_t>;

/// A resolver filled in by a C supplier, driven by the conductor.
struct CNameResolver {
    /// Boxed: the functions get its address, which must not change. Shared on the
    /// supplier's contract (Aeron's): the resolver may be called from the conductor's or
    /// the executor's thread, one call at a time; it is only used through this value,
    /// which the conductor keeps behind a mutex, so calls never overlap.
    resolver: ForeignShared<Box<aeron_name_resolver_t>>,
}

impl CNameResolver {
    fn c(&mut self) -> &mut aeron_name_resolver_t {
        self.resolver.get_mut()
    }
}

fn c_text(what: &str, value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error::invalid_argument(format!("{what} contains NUL: {value:?}")))
}

impl NameResolver for CNameResolver {
    fn lookup(&mut self, name: &str, uri_param_name: &str, is_re_lookup: bool) -> Result<Option<String>> {
        let Some(lookup) = self.c().lookup_func else { return Ok(None) };
        let (name, key) = (c_text("name", name)?, c_text("uri_param_name", uri_param_name)?);
        let mut resolved: *const c_char = std::ptr::null();
        crate::ffi::clear_last_error();
        // SAFETY: the supplier's function with its own resolver struct; the strings live
        // for the call and `resolved` is a valid out pointer.
        let rc = unsafe { lookup(self.c(), name.as_ptr(), key.as_ptr(), is_re_lookup, &mut resolved) };
        c_result(rc, "name resolver lookup")?;
        if resolved.is_null() {
            return Ok(None);
        }
        // SAFETY: a NUL-terminated string the resolver owns until its next call.
        Ok(Some(unsafe { CStr::from_ptr(resolved) }.to_string_lossy().into_owned()))
    }

    fn resolve(
        &mut self,
        host: &str,
        uri_param_name: &str,
        is_re_resolution: bool,
        _ipv6: bool,
    ) -> Result<IpAddr> {
        let Some(resolve) = self.c().resolve_func else {
            return Err(Error::invalid_argument("name resolver has no resolve_func"));
        };
        let (name, key) = (c_text("host", host)?, c_text("uri_param_name", uri_param_name)?);
        // SAFETY: zeroes are a valid (AF_UNSPEC) sockaddr_storage.
        let mut address: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        crate::ffi::clear_last_error();
        // SAFETY: as in `lookup`; `address` is a valid out pointer.
        let rc = unsafe { resolve(self.c(), name.as_ptr(), key.as_ptr(), is_re_resolution, &mut address) };
        c_result(rc, "name resolver resolve")?;
        from_storage(&address).map(|a| a.ip()).ok_or_else(|| {
            Error::invalid_argument(format!(
                "{uri_param_name}={host}: the name resolver returned address family {}",
                address.ss_family
            ))
        })
    }

    fn do_work(&mut self, now_ms: i64) -> Result<i32> {
        let Some(do_work) = self.c().do_work_func else { return Ok(0) };
        // SAFETY: the supplier's function with its own resolver struct.
        c_result(unsafe { do_work(self.c(), now_ms) }, "name resolver do_work")
    }

    fn close(&mut self) {
        if let Some(close) = self.c().close_func.take() {
            // SAFETY: as in `do_work`; called once (the function is taken).
            unsafe { close(self.c()) };
        }
    }
}

impl Drop for CNameResolver {
    fn drop(&mut self) {
        self.close();
    }
}

/// Makes the resolver `supplier` fills in, for the driver of `context`.
fn supply(
    supplier: SupplierFn,
    context: ForeignShared<*mut aeron_driver_context_t>,
    args: Option<&str>,
) -> Result<Box<dyn NameResolver>> {
    let args = args.map(|a| c_text("AERON_NAME_RESOLVER_INIT_ARGS", a)).transpose()?;
    // SAFETY: zeroes are a valid resolver: no name, functions or state.
    let mut resolver: Box<aeron_name_resolver_t> = Box::new(unsafe { std::mem::zeroed() });
    crate::ffi::clear_last_error();
    // SAFETY: the caller's supplier (setter's contract) with a zeroed resolver it may fill,
    // the args string (or NULL) alive for the call, and the context `aeron_driver_init`
    // was called with, live while it runs (the only time suppliers are called).
    let rc = unsafe {
        supplier(&mut *resolver, args.as_ref().map_or(std::ptr::null(), |a| a.as_ptr()), context.value())
    };
    c_result(rc, "name resolver supplier")?;
    if resolver.lookup_func.is_none() || resolver.resolve_func.is_none() {
        return Err(Error::invalid_argument("name resolver supplier left lookup_func or resolve_func NULL"));
    }
    // SAFETY: the setter's contract (see CNameResolver::resolver).
    Ok(Box::new(CNameResolver { resolver: unsafe { ForeignShared::new(resolver) } }))
}

/// The default lookup: the name as it is, not found (0).
unsafe extern "C" fn default_lookup(
    _resolver: *mut aeron_name_resolver_t,
    name: *const c_char,
    _uri_param_name: *const c_char,
    _is_re_lookup: bool,
    resolved_name: *mut *const c_char,
) -> c_int {
    if !resolved_name.is_null() {
        // SAFETY: a valid out pointer (the lookup contract).
        unsafe { resolved_name.write(name) };
    }
    0
}

/// The default resolution: the system's lookup of an IPv4 address.
unsafe extern "C" fn default_resolve(
    _resolver: *mut aeron_name_resolver_t,
    name: *const c_char,
    uri_param_name: *const c_char,
    is_re_resolution: bool,
    address: *mut libc::sockaddr_storage,
) -> c_int {
    ffi_boundary!("aeron_default_name_resolver_resolve", {
        crate::ffi::require_non_null!(address, "address");
        // SAFETY: NULL or NUL-terminated (the resolve contract).
        let host = unsafe { crate::ffi::c_str_arg(name, "name") }?;
        let key = if uri_param_name.is_null() {
            "endpoint".to_string()
        } else {
            // SAFETY: non-null and NUL-terminated (the resolve contract).
            unsafe { CStr::from_ptr(uri_param_name) }.to_string_lossy().into_owned()
        };
        let ip = DefaultNameResolver.resolve(host, &key, is_re_resolution, false)?;
        // SAFETY: `address` is non-null and valid for a write (the resolve contract).
        unsafe { address.write(sockaddr_storage(&std::net::SocketAddr::new(ip, 0))) };
        Ok(0)
    })
}

unsafe extern "C" fn default_do_work(_resolver: *mut aeron_name_resolver_t, _now_ms: i64) -> c_int {
    0
}

unsafe extern "C" fn default_close(_resolver: *mut aeron_name_resolver_t) -> c_int {
    0
}

/// Aeron's `aeron_default_name_resolver_supplier`: fills `resolver` with the default
/// functions (returned by `aeron_driver_context_get_name_resolver_supplier`).
#[inline(never)]
unsafe extern "C" fn default_name_resolver_supplier(
    resolver: *mut aeron_name_resolver_t,
    _args: *const c_char,
    _context: *mut aeron_driver_context_t,
) -> c_int {
    ffi_boundary!("aeron_default_name_resolver_supplier", {
        crate::ffi::require_non_null!(resolver, "resolver");
        // SAFETY: non-null and valid for a write (the supplier contract).
        unsafe {
            resolver.write(aeron_name_resolver_t {
                name: c"default".as_ptr(),
                lookup_func: Some(default_lookup),
                resolve_func: Some(default_resolve),
                do_work_func: Some(default_do_work),
                close_func: Some(default_close),
                state: std::ptr::null_mut(),
            })
        };
        Ok(0)
    })
}

/// Sets the supplier of the driver's name resolver (see the module notes): called once by
/// `aeron_driver_init` with the resolver to fill, `AERON_NAME_RESOLVER_INIT_ARGS` and this
/// context; its resolver then resolves every channel and destination address. NULL or the
/// default supplier (as the getter returns it) restore the default resolver. Returns 0, or
/// -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or a supplier whose resolver functions are safe to
/// call, one at a time, on the conductor's and the async executor's threads while a driver
/// made from the context runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_name_resolver_supplier(
    context: *mut aeron_driver_context_t,
    value: aeron_name_resolver_supplier_func_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_name_resolver_supplier", {
        // SAFETY: NULL or live (contract).
        let h = unsafe { handle(context) }?;
        // SAFETY: the context outlives the drivers made from it, and suppliers run only in
        // aeron_driver_init, on the caller's thread (Aeron's contract).
        let context_state = unsafe { ForeignShared::new(context) };
        h.ctx.name_resolver_supplier = match value {
            Some(f) if !std::ptr::fn_addr_eq(f, default_name_resolver_supplier as SupplierFn) => {
                Some(NameResolverSupplier(Arc::new(move |args: Option<&str>| supply(f, context_state, args))))
            }
            _ => None,
        };
        h.callbacks.name_resolver_supplier = value.filter(|_| h.ctx.name_resolver_supplier.is_some());
        Ok(0)
    })
}

/// Returns the name resolver supplier set, else the default supplier (also for a NULL
/// context).
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_name_resolver_supplier(
    context: *mut aeron_driver_context_t,
) -> aeron_name_resolver_supplier_func_t {
    ffi_boundary!("aeron_driver_context_get_name_resolver_supplier", {
        // SAFETY: NULL or live (contract).
        let set = unsafe { get_callback(context, None, |c| c.name_resolver_supplier) };
        Ok(set.or(Some(default_name_resolver_supplier)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::media::name_resolver::resolve_host_and_port_with;

    /// Resolves `value` of URI parameter `key` with the resolver `supplier` fills in.
    fn resolve_with_supplier(supplier: SupplierFn, key: &str, value: &str) -> Result<std::net::SocketAddr> {
        // SAFETY: a NULL context, which the test suppliers do not use.
        let mut resolver = supply(supplier, unsafe { ForeignShared::new(std::ptr::null_mut()) }, None)?;
        resolve_host_and_port_with(resolver.as_mut(), key, value, false)
    }

    /// Records `error` as this thread's last error for a C caller; -1.
    fn fail(error: &Error) -> c_int {
        crate::ffi::set_last_error("test resolver", error);
        -1
    }

    unsafe extern "C" fn table_lookup(
        _resolver: *mut aeron_name_resolver_t,
        name: *const c_char,
        _uri_param_name: *const c_char,
        _is_re_lookup: bool,
        resolved_name: *mut *const c_char,
    ) -> c_int {
        // SAFETY: NUL-terminated (lookup contract).
        let name = unsafe { CStr::from_ptr(name) };
        if name == c"service" {
            // SAFETY: a valid out pointer (lookup contract).
            unsafe { resolved_name.write(c"localhost:4000".as_ptr()) };
            return 1;
        }
        if name == c"broken" {
            return fail(&Error::invalid_argument("broken lookup"));
        }
        // SAFETY: as above.
        unsafe { resolved_name.write(name.as_ptr()) };
        0
    }

    unsafe extern "C" fn table_supplier(
        resolver: *mut aeron_name_resolver_t,
        args: *const c_char,
        context: *mut aeron_driver_context_t,
    ) -> c_int {
        // SAFETY: the default supplier fills the same struct; then the lookup is replaced.
        let rc = unsafe { default_name_resolver_supplier(resolver, args, context) };
        // SAFETY: filled above.
        unsafe { (*resolver).lookup_func = Some(table_lookup) };
        rc
    }

    #[test]
    fn a_c_resolver_looks_up_and_delegates_resolution() {
        let a = resolve_with_supplier(table_supplier, "endpoint", "service").unwrap();
        assert_eq!(a, "127.0.0.1:4000".parse().unwrap());
        let b = resolve_with_supplier(table_supplier, "endpoint", "localhost:9").unwrap();
        assert_eq!(b, "127.0.0.1:9".parse().unwrap());
        let err = resolve_with_supplier(table_supplier, "endpoint", "broken").unwrap_err();
        assert!(
            err.message().contains("name resolver lookup failed") && err.message().contains("broken lookup"),
            "{err}"
        );
        let err = resolve_with_supplier(default_name_resolver_supplier, "endpoint", "no-such-host.invalid:1")
            .unwrap_err();
        assert!(err.message().contains("unable to resolve host=(no-such-host.invalid)"), "{err}");
    }
}
