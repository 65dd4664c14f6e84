//! The UDP settings (group consideration and tag, wildcard port ranges, name resolver texts)
//! exports of `aeronmd.h`, for `src/ffi/driver/settings_udp.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/driver_settings_udp_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_set_receiver_group_consideration(
context: *mut aeron_driver_context_t, value: aeron_inferable_boolean_t) -> c_int
    let value = match value.0 {
        AERON_FORCE_FALSE => InferableBoolean::ForceFalse,
        AERON_FORCE_TRUE => InferableBoolean::ForceTrue,
        AERON_INFER => InferableBoolean::Infer,
        other => return Err(Error::invalid_argument(format!("unknown inferable boolean {other}"))),
    };
    set(context, |c| c.network.receiver_group_consideration = value)
Sets whether receivers act as part of a group (`AERON_RECEIVER_GROUP_CONSIDERATION`:
`true`, `infer`, else false; default infer). Returns 0, or -1 (EINVAL) for a NULL
context or an unknown value.

aeron_driver_context_get_receiver_group_consideration(
context: *mut aeron_driver_context_t) -> aeron_inferable_boolean_t
    let value = get(context, |c| c.network.receiver_group_consideration);
    Ok(aeron_inferable_boolean_t(match value {
        InferableBoolean::ForceFalse => AERON_FORCE_FALSE,
        InferableBoolean::ForceTrue => AERON_FORCE_TRUE,
        InferableBoolean::Infer => AERON_INFER,
    }))
Returns the receiver group consideration; `AERON_INFER` for a NULL context.

aeron_driver_context_set_receiver_group_tag(
context: *mut aeron_driver_context_t, is_present: bool, value: i64) -> c_int
    set(context, |c| c.network.receiver_group_tag = is_present.then_some(value))
Sets the group tag receivers send in status messages (`AERON_RECEIVER_GROUP_TAG`), or
none when `is_present` is false. Returns 0, or -1 (EINVAL) for a NULL context.

aeron_driver_context_get_receiver_group_tag_is_present(context: *mut aeron_driver_context_t) -> bool
    Ok(get(context, |c| c.network.receiver_group_tag.is_some()))
Whether a receiver group tag is set (false for a NULL context).

aeron_driver_context_get_receiver_group_tag_value(context: *mut aeron_driver_context_t) -> i64
    Ok(get(context, |c| c.network.receiver_group_tag.unwrap_or(-1)))
The receiver group tag, or -1 when none is set (or for a NULL context).

aeron_driver_context_set_sender_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: u16, high_port: u16) -> c_int
    let range = PortRange { low: low_port, high: high_port };
    set(context, |c| c.network.sender_wildcard_port_range = range)
Sets the ports the sender binds wildcard (port 0) endpoints from
(`AERON_SENDER_WILDCARD_PORT_RANGE` as `"low high"`; default 0 0 = any). Returns 0, or
-1 (EINVAL) for a NULL context.

aeron_driver_context_get_sender_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: *mut u16, high_port: *mut u16) -> c_int
    require_non_null!(context, "context");
    let range = get(context, |c| c.network.sender_wildcard_port_range);
    store_range(range, low_port, high_port)
Stores the sender wildcard port range in `*low_port` / `*high_port`. Returns 0, or -1
(EINVAL) for NULL arguments.
# Safety
`context` NULL or live; the out pointers NULL or valid for writes.

aeron_driver_context_set_receiver_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: u16, high_port: u16) -> c_int
    let range = PortRange { low: low_port, high: high_port };
    set(context, |c| c.network.receiver_wildcard_port_range = range)
Sets the ports the receiver binds wildcard (port 0) endpoints from
(`AERON_RECEIVER_WILDCARD_PORT_RANGE`; default 0 0 = any). Returns 0, or -1 (EINVAL) for
a NULL context.

aeron_driver_context_get_receiver_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: *mut u16, high_port: *mut u16) -> c_int
    require_non_null!(context, "context");
    let range = get(context, |c| c.network.receiver_wildcard_port_range);
    store_range(range, low_port, high_port)
Stores the receiver wildcard port range in `*low_port` / `*high_port`. Returns 0, or -1
(EINVAL) for NULL arguments.
# Safety
`context` NULL or live; the out pointers NULL or valid for writes.

aeron_driver_context_set_resolver_name(
context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let value = optional_text(value)?;
    set(context, |c| c.network.resolver_name = value)
Sets this driver's name for the name resolver (`AERON_DRIVER_RESOLVER_NAME`; NULL
clears it). Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_resolver_name(context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "resolver_name", std::ptr::null(), |c| c.network.resolver_name.clone())
Returns the resolver name, owned by the context; NULL when unset or for a NULL context.

aeron_driver_context_set_resolver_interface(
context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let value = optional_text(value)?;
    set(context, |c| c.network.resolver_interface = value)
Sets the `host:port` the name resolver listens on (`AERON_DRIVER_RESOLVER_INTERFACE`;
NULL clears it). Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_resolver_interface(context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "resolver_interface", std::ptr::null(), |c| {
        c.network.resolver_interface.clone()
    })
Returns the resolver interface, owned by the context; NULL when unset or for a NULL
context.

aeron_driver_context_set_resolver_bootstrap_neighbor(
context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let value = optional_text(value)?;
    set(context, |c| c.network.resolver_bootstrap_neighbor = value)
Sets the `host:port` of a neighbour the name resolver joins through
(`AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR`; NULL clears it). Returns 0, or -1 (EINVAL)
for a NULL context.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_resolver_bootstrap_neighbor(
context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "resolver_bootstrap_neighbor", std::ptr::null(), |c| {
        c.network.resolver_bootstrap_neighbor.clone()
    })
Returns the bootstrap neighbour, owned by the context; NULL when unset or for a NULL
context.

aeron_driver_context_set_name_resolver_init_args(
context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let value = optional_text(value)?;
    set(context, |c| c.network.name_resolver_init_args = value)
Sets the name resolver's init args (`AERON_NAME_RESOLVER_INIT_ARGS`; NULL clears them).
Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_name_resolver_init_args(context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "name_resolver_init_args", std::ptr::null(), |c| {
        c.network.name_resolver_init_args.clone()
    })
Returns the name resolver's init args, owned by the context; NULL when unset or for a
NULL context.
"#;
