//! The media plug-in setting exports of `aeronmd.h`, for `src/ffi/driver/media/settings.rs` to
//! include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`context` must be NULL or live.";

pub fn generate() -> String {
    export_table::generate("build/media_settings_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_driver_context_set_udp_channel_transport_bindings(
context: *mut aeron_driver_context_t, value: *mut aeron_udp_channel_transport_bindings_t) -> c_int
    let h = handle(context)?;
    if !value.is_null() {
        check_bindings(value)?;
    }
    h.callbacks.media.bindings = value;
    update_supplier(h, context);
    Ok(0)
Sets the UDP channel transport bindings: every UDP transport of a driver made from the
context is then opened (`init_func`), sent on (`send_func`, after the outgoing
interceptors), received from (`recvmmsg_func`, before the incoming interceptors),
queried (`bind_addr_and_port_func`, `get_so_rcvbuf_func`), reconnected and closed
through it, as in Aeron. The poller functions must be the default table's (the driver
polls its transports itself), and the others non-NULL. NULL restores the driver's own
sockets (unless interceptors are set). Returns 0, or -1 (EINVAL) for a NULL context or a
table that breaks these rules.
# Safety
`context` NULL or live; `value` NULL or a table whose functions are safe to call from
the driver's threads, valid while a driver made from the context runs.

aeron_driver_context_get_udp_channel_transport_bindings(
context: *mut aeron_driver_context_t) -> *mut aeron_udp_channel_transport_bindings_t
    if !context.is_null() {
        let set = handle(context)?.callbacks.media.bindings;
        if !set.is_null() {
            return Ok(set);
        }
    }
    Ok(default_bindings())
Returns the transport bindings set, else the default table (also for a NULL context):
C functions over the transport struct that open and use sockets as the driver does,
to copy and override, or to delegate to.

aeron_driver_context_set_udp_channel_outgoing_interceptors(
context: *mut aeron_driver_context_t, value: *mut aeron_udp_channel_interceptor_bindings_t) -> c_int
    set_interceptors::<Outgoing>(context, value, |m| &mut m.outgoing)
Sets the outgoing interceptors: a chain of bindings (first to last through
`meta_info.next_interceptor_bindings`) whose `outgoing_init_func` each agent calls
when the driver is created and whose `outgoing_send_func` sees, in order, every
datagram the sender and the receiver send, before the transport's `send_func`, as in
Aeron. Each needs `outgoing_init_func` and `outgoing_send_func`; publication and image
notification functions must be NULL. NULL removes the chain. Returns 0, or -1 (EINVAL)
for a NULL context or a chain that breaks these rules.
# Safety
`context` NULL or live; `value` NULL or a chain whose functions are safe to call on the
driver's agent threads, valid while a driver made from the context runs.

aeron_driver_context_get_udp_channel_outgoing_interceptors(
context: *mut aeron_driver_context_t) -> *mut aeron_udp_channel_interceptor_bindings_t
    Ok(get_callback(context, std::ptr::null_mut(), |c| c.media.outgoing))
Returns the outgoing interceptors set (NULL if none, or for a NULL context).

aeron_driver_context_set_udp_channel_incoming_interceptors(
context: *mut aeron_driver_context_t, value: *mut aeron_udp_channel_interceptor_bindings_t) -> c_int
    set_interceptors::<Incoming>(context, value, |m| &mut m.incoming)
Sets the incoming interceptors: as the outgoing ones, with `incoming_init_func` and
`incoming_func`, which sees every datagram the sender and the receiver read, after the
transport's `recvmmsg_func` and before the driver, and may drop it. The chain replaces
the loss interceptors `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` configures (as in
Aeron, where a chain set in code replaces the configured one). NULL removes the chain.
Returns 0, or -1 (EINVAL) for a NULL context or a chain that breaks the rules.
# Safety
As the outgoing setter.

aeron_driver_context_get_udp_channel_incoming_interceptors(
context: *mut aeron_driver_context_t) -> *mut aeron_udp_channel_interceptor_bindings_t
    Ok(get_callback(context, std::ptr::null_mut(), |c| c.media.incoming))
Returns the incoming interceptors set (NULL if none, or for a NULL context; the loss
interceptors `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` configures are the driver's own
and not C bindings).
"#;
