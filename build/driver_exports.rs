//! The driver lifecycle exports of `aeronmd.h`, for `src/ffi/driver/mod.rs` to include and cbindgen
//! to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`driver` must be NULL or a live driver.";

pub fn generate() -> String {
    export_table::generate("build/driver_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_init(driver: *mut *mut aeron_driver_t, context: *mut aeron_driver_context_t) -> c_int
    require_non_null!(driver, "driver");
    let settings = context_handle(context)?.ctx.clone();
    let media_driver = MediaDriver::init(settings)?;
    driver.write(handles::into_raw(media_driver));
    Ok(0)
Creates a driver from `context`'s settings (copied: later changes to the context do not
affect it): validates them, prepares the Aeron directory (failing if a live driver uses
it), and creates `cnc.dat` and `loss-report.dat`. Nothing runs until
`aeron_driver_start`. Stores the driver in `*driver`. Returns 0, or -1: EINVAL for NULL
arguments or invalid settings (the message names the setting), the error of a file
operation, or an error when another driver is active in the directory.
# Safety
`driver` NULL or valid for a pointer write; `context` NULL or a live context.

aeron_driver_start(driver: *mut aeron_driver_t, manual_main_loop: bool) -> c_int
    let d = driver_handle(driver)?;
    if !manual_main_loop && d.context().threading_mode == ThreadingMode::Invoker {
        return Err(Error::invalid_argument("INVOKER threading mode requires manual_main_loop"));
    }
    d.start(manual_main_loop)?;
    Ok(0)
Starts the driver: on its own thread, or, when `manual_main_loop` is true, on the
calling thread's schedule (call `aeron_driver_main_do_work` and
`aeron_driver_main_idle_strategy` in a loop). INVOKER threading mode requires a manual
main loop. Returns 0, or -1: EINVAL for NULL or INVOKER without a manual loop, EPERM if
already started.

aeron_driver_main_do_work(driver: *mut aeron_driver_t) -> c_int
    driver_handle(driver)?.do_work()
One duty cycle of a manually driven driver: returns the work done (0 when idle, or when
the driver runs on its own thread), or -1 (EINVAL for NULL, or the cycle's error).

aeron_driver_main_idle_strategy(driver: *mut aeron_driver_t, work_count: c_int)
    driver_handle(driver)?.idle(work_count);
    Ok(())
Idles with the driver's main idle strategy (the conductor's, or the shared one in
SHARED and INVOKER modes) after a duty cycle that did `work_count`. NULL: EINVAL.

aeron_driver_close(driver: *mut aeron_driver_t) -> c_int
    let Some(mut media_driver) = handles::reclaim(driver) else {
        return Err(Error::invalid_argument("driver must not be NULL"));
    };
    media_driver.close()?;
    Ok(0)
Stops the driver (joining its thread), frees its resources, marks `cnc.dat` as shut down,
deletes the directory if configured, and frees the handle. The context stays open.
Returns 0, or -1 (EINVAL for NULL; the error of deleting the directory, after which the
handle is freed all the same).
# Safety
`driver` must be NULL or a live driver, not used afterwards.

aeron_set_thread_affinity_on_start(state: *mut c_void, role_name: *const c_char)
    let h: &DriverContextHandle = context_handle(state.cast())?;
    require_non_null!(role_name, "role_name");
    let role = CStr::from_ptr(role_name).to_string_lossy();
    h.ctx.agents.apply_cpu_affinity(&role)
An agent on-start function (for `aeron_driver_context_set_agent_on_start_function`, with
the driver context as `state`) that pins each driver thread to the CPU its
`*_cpu_affinity` setting names: the conductor (also when it runs all agents), the sender
(also sender and receiver together) and the receiver; -1 leaves a thread alone. A failure
is reported on stderr; the thread runs on.
# Safety
`state` must be NULL or a live driver context not changed while the driver runs;
`role_name` NULL or NUL-terminated.
"#;
