//! The driver context getters of C functions (termination validator and hook, agent on-start) and
//! the flow and congestion control supplier exports of `aeronmd.h`, for
//! `src/ffi/driver/callbacks.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/driver_callbacks_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_get_driver_termination_validator(
context: *mut aeron_driver_context_t) -> aeron_driver_termination_validator_func_t
    if let Some((f, _)) = get_callback(context, None, |c| c.validator) {
        return Ok(Some(f));
    }
    let allow = get(context, |c| c.termination_validator == TerminationValidator::Allow);
    Ok(Some(if allow { termination_validator_allow } else { termination_validator_deny }))
Returns the termination validator: the one set, or the built-in allow/deny function
`AERON_DRIVER_TERMINATION_VALIDATOR` selects (deny by default, and for a NULL context).

aeron_driver_context_get_driver_termination_validator_state(
context: *mut aeron_driver_context_t) -> *mut c_void
    Ok(get_callback(context, std::ptr::null_mut(), |c| state_of(&c.validator)))
Returns the state the termination validator is called with (NULL if none was set).

aeron_driver_context_get_driver_termination_hook(
context: *mut aeron_driver_context_t) -> aeron_driver_termination_hook_func_t
    Ok(get_callback(context, None, |c| c.hook.map(|(f, _)| f)))
Returns the termination hook (NULL if none).

aeron_driver_context_get_driver_termination_hook_state(
context: *mut aeron_driver_context_t) -> *mut c_void
    Ok(get_callback(context, std::ptr::null_mut(), |c| state_of(&c.hook)))
Returns the state the termination hook is called with (NULL if none).

aeron_driver_context_get_agent_on_start_function(
context: *mut aeron_driver_context_t) -> aeron_agent_on_start_func_t
    Ok(get_callback(context, None, |c| c.on_start.map(|(f, _)| f)))
Returns the agent on-start function (NULL if none).

aeron_driver_context_get_agent_on_start_state(context: *mut aeron_driver_context_t) -> *mut c_void
    Ok(get_callback(context, std::ptr::null_mut(), |c| state_of(&c.on_start)))
Returns the state the agent on-start function is called with (NULL if none).

aeron_flow_control_strategy_supplier_by_name(
name: *const c_char) -> aeron_flow_control_strategy_supplier_func_t
    let name = c_str_arg(name, "name")?;
    flow_supplier_for(name)
The supplier of the built-in flow control strategy `name` (`unicast_max`,
`multicast_max`, `multicast_min`, `multicast_tagged`, or Aeron's C supplier names), or
NULL (EINVAL) for an unknown or NULL name.
# Safety
`name` must be NULL or NUL-terminated.

aeron_driver_context_set_multicast_flowcontrol_supplier(
context: *mut aeron_driver_context_t, value: aeron_flow_control_strategy_supplier_func_t) -> c_int
    let name = flow_supplier_name(value)?;
    set(context, |c| c.multicast_flow_control_supplier = name.to_string())
Sets the flow control of multicast channels without an `fc` parameter
(`AERON_MULTICAST_FLOWCONTROL_SUPPLIER`; default max). Returns 0, or -1 (EINVAL) for a
NULL context or a supplier not from `aeron_flow_control_strategy_supplier_by_name`.

aeron_driver_context_get_multicast_flowcontrol_supplier(
context: *mut aeron_driver_context_t) -> aeron_flow_control_strategy_supplier_func_t
    flow_supplier_for(&get(context, |c| c.multicast_flow_control_supplier.clone()))
Returns the multicast flow control supplier; NULL (EINVAL) if the configured name is not
a built-in strategy.

aeron_driver_context_set_unicast_flowcontrol_supplier(
context: *mut aeron_driver_context_t, value: aeron_flow_control_strategy_supplier_func_t) -> c_int
    let name = flow_supplier_name(value)?;
    set(context, |c| c.unicast_flow_control_supplier = name.to_string())
Sets the flow control of unicast channels (`AERON_UNICAST_FLOWCONTROL_SUPPLIER`; default
unicast max). Returns 0, or -1 (EINVAL) as the multicast setter.

aeron_driver_context_get_unicast_flowcontrol_supplier(
context: *mut aeron_driver_context_t) -> aeron_flow_control_strategy_supplier_func_t
    flow_supplier_for(&get(context, |c| c.unicast_flow_control_supplier.clone()))
Returns the unicast flow control supplier; NULL (EINVAL) if the configured name is not a
built-in strategy.

aeron_driver_context_set_congestioncontrol_supplier(
context: *mut aeron_driver_context_t, value: aeron_congestion_control_strategy_supplier_func_t) -> c_int
    let f = value.ok_or_else(|| Error::invalid_argument("value must not be NULL"))?;
    let name = selected(&CONGESTION_CONTROL_SUPPLIERS, f).ok_or_else(|| {
        Error::invalid_argument("custom congestion control suppliers are not supported")
    })?;
    set(context, |c| c.congestion_control_supplier = name.to_string())
Sets the congestion control supplier of images (`AERON_CONGESTIONCONTROL_SUPPLIER`;
default: static window unless the channel asks for `cc=cubic`). Accepts only a supplier
from the getter. Returns 0, or -1 (EINVAL) for a NULL context or another supplier.

aeron_driver_context_get_congestioncontrol_supplier(
context: *mut aeron_driver_context_t) -> aeron_congestion_control_strategy_supplier_func_t
    let name = get(context, |c| c.congestion_control_supplier.clone());
    selector(&CONGESTION_CONTROL_SUPPLIERS, congestion::supplier_short_name(&name)?).map(Some)
Returns the congestion control supplier; NULL (EINVAL) if the configured name is unknown.
"#;
