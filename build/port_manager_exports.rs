//! The port manager (the sender's and the receiver's, each set and get) exports of `aeronmd.h`, for
//! `src/ffi/driver/port_managers.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/port_manager_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_set_sender_port_manager(
context: *mut aeron_driver_context_t, value: *mut aeron_port_manager_t) -> c_int
    set_port_manager(context, value, true)
Sets the sender's port manager: asked for the bind address of every send channel
endpoint (the control group of a multicast channel, else the local control address)
and told when that address is free again, in place of the wildcard port manager of
`AERON_SENDER_WILDCARD_PORT_RANGE`. NULL restores the built-in manager. Returns 0, or
-1 (EINVAL) for a NULL context or a manager without both functions.
# Safety
`context` NULL or live; `value` NULL or valid, with functions safe to call on the
conductor's thread, while a driver made from the context runs.

aeron_driver_context_get_sender_port_manager(
context: *mut aeron_driver_context_t) -> *mut aeron_port_manager_t
    get_port_manager(context, 0)
Returns the sender's port manager set (NULL for the built-in one or a NULL context).

aeron_driver_context_set_receiver_port_manager(
context: *mut aeron_driver_context_t, value: *mut aeron_port_manager_t) -> c_int
    set_port_manager(context, value, false)
Sets the receiver's port manager: asked for the bind address of every receive
destination (its endpoint address), as the sender's, in place of the wildcard port
manager of `AERON_RECEIVER_WILDCARD_PORT_RANGE`. NULL restores the built-in manager.
Returns 0, or -1 (EINVAL) for a NULL context or a manager without both functions.
# Safety
As the sender's setter.

aeron_driver_context_get_receiver_port_manager(
context: *mut aeron_driver_context_t) -> *mut aeron_port_manager_t
    get_port_manager(context, 1)
Returns the receiver's port manager set (NULL for the built-in one or a NULL context).
"#;
