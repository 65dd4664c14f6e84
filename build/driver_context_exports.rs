//! The driver context lifecycle, directory and threading mode exports of `aeronmd.h`, for
//! `src/ffi/driver/context.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/driver_context_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_init(context: *mut *mut aeron_driver_context_t) -> c_int
    require_non_null!(context, "context");
    let handle = DriverContextHandle {
        ctx: DriverContext::from_env()?,
        strings: HashMap::new(),
        callbacks: CCallbacks::default(),
    };
    context.write(handles::into_raw(handle));
    Ok(0)
Creates a context with Aeron's defaults overridden by the `AERON_*` environment
variables (and properties loaded with `aeron_properties_*`) and stores it in `*context`.
Returns 0, or -1: EINVAL for a NULL `context` or a malformed variable (the message names
it).
# Safety
`context` must be NULL or valid for a pointer write.

aeron_driver_context_close(context: *mut aeron_driver_context_t) -> c_int
    require_non_null!(context, "context");
    drop(handles::reclaim(context));
    Ok(0)
Frees a context (after `aeron_driver_close` of any driver made from it). Returns 0, or
-1 (EINVAL) for NULL.
# Safety
`context` must be NULL or a live context; strings returned by its getters die with it.

aeron_driver_context_set_dir(context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let dir = PathBuf::from(c_str_arg(value, "value")?);
    set(context, |c| c.aeron_dir = dir)
Sets the Aeron directory (`AERON_DIR`; default `/dev/shm/aeron-<user>` on Linux).
Returns 0, or -1 (EINVAL) for NULL arguments.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_dir(context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "dir", std::ptr::null(), |c| Some(c.aeron_dir.to_string_lossy().into_owned()))
Returns the Aeron directory, owned by the context (valid until it changes or the
context closes); NULL for a NULL context.

aeron_driver_context_set_threading_mode(
context: *mut aeron_driver_context_t, mode: aeron_threading_mode_t) -> c_int
    let mode = threading_mode_from_c(mode)?;
    set(context, |c| c.threading_mode = mode)
Sets how the driver's agents map onto threads (`AERON_THREADING_MODE`; default
DEDICATED). Returns 0, or -1 (EINVAL) for a NULL context or an unknown mode.

aeron_driver_context_get_threading_mode(context: *mut aeron_driver_context_t) -> aeron_threading_mode_t
    Ok(get(context, |c| threading_mode_to_c(c.threading_mode)))
Returns the threading mode; DEDICATED for a NULL context.
"#;
