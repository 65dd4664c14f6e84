//! The UDP settings (group consideration and tag, wildcard port ranges, name resolver texts)
//! exports of `aeronmd.h`, for `src/ffi/driver/settings_udp.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    let mut table = String::from(TABLE);
    for (side, env) in PORT_RANGES {
        table.push_str(&PORT_RANGE_ROWS.replace("{side}", side).replace("{env}", env));
    }
    for (setting, env, what) in RESOLVER_TEXTS {
        let rows = RESOLVER_TEXT_ROWS.replace("{setting}", setting).replace("{env}", env);
        table.push_str(&rows.replace("{what}", what));
    }
    export_table::generate("build/driver_settings_udp_exports.rs", &table, SAFETY)
}

/// The wildcard port ranges: the side binding endpoints from one, and its variable.
const PORT_RANGES: [(&str, &str); 2] =
    [("sender", "AERON_SENDER_WILDCARD_PORT_RANGE"), ("receiver", "AERON_RECEIVER_WILDCARD_PORT_RANGE")];

const PORT_RANGE_ROWS: &str = r#"
aeron_driver_context_set_{side}_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: u16, high_port: u16) -> c_int
    set(context, |c| c.network.{side}_wildcard_port_range = PortRange { low: low_port, high: high_port })
Sets the ports the {side} binds wildcard (port 0) endpoints from (`{env}` as
`"low high"`; default 0 0 = any). Returns 0, or -1 (EINVAL) for a NULL context.

aeron_driver_context_get_{side}_wildcard_port_range(
context: *mut aeron_driver_context_t, low_port: *mut u16, high_port: *mut u16) -> c_int
    require_non_null!(context, "context");
    store_range(get(context, |c| c.network.{side}_wildcard_port_range), low_port, high_port)
Stores the {side} wildcard port range in `*low_port` / `*high_port`. Returns 0, or -1
(EINVAL) for NULL arguments.
# Safety
`context` NULL or live; the out pointers NULL or valid for writes.
"#;

/// The name resolver's texts: the setting (`DriverContext::network` field and C name), its
/// variable, what it is.
const RESOLVER_TEXTS: [(&str, &str, &str); 4] = [
    ("resolver_name", "AERON_DRIVER_RESOLVER_NAME", "this driver's name for the name resolver"),
    ("resolver_interface", "AERON_DRIVER_RESOLVER_INTERFACE", "the `host:port` the name resolver listens on"),
    (
        "resolver_bootstrap_neighbor",
        "AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR",
        "the `host:port` of a neighbour the name resolver joins through",
    ),
    ("name_resolver_init_args", "AERON_NAME_RESOLVER_INIT_ARGS", "the name resolver's init args"),
];

const RESOLVER_TEXT_ROWS: &str = r#"
aeron_driver_context_set_{setting}(context: *mut aeron_driver_context_t, value: *const c_char) -> c_int
    let value = optional_text(value)?;
    set(context, |c| c.network.{setting} = value)
Sets {what} (`{env}`; NULL clears it). Returns 0, or -1 (EINVAL) for a NULL context.
# Safety
`context` NULL or live; `value` NULL or NUL-terminated.

aeron_driver_context_get_{setting}(context: *mut aeron_driver_context_t) -> *const c_char
    get_string(context, "{setting}", std::ptr::null(), |c| c.network.{setting}.clone())
Returns {what}, owned by the context (valid until it changes or the context closes); NULL
when unset or for a NULL context.
"#;

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
"#;
