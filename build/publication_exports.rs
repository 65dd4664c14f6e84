//! The exports both kinds of publication have (`aeron_publication_*` and
//! `aeron_exclusive_publication_*`): queries, constants, close, bound addresses and
//! destination commands, one table row making the export of each kind. Generated for
//! `src/ffi/publication.rs` and `src/ffi/exclusive_publication.rs` to include and cbindgen
//! to read. Their bodies are the generic helpers of `publication.rs`; offer, offerv and
//! try_claim, tuned fast paths, stay hand-written.

use super::exports::Export;

/// One export of both kinds. In the texts, `{prefix}` is the kind's function prefix and
/// `{T}` its handle type.
struct Row {
    suffix: &'static str,
    params: &'static str,
    returns: &'static str,
    /// The body; `{m}` is the path of the helpers of `publication.rs`.
    body: &'static str,
    doc: &'static str,
    /// The contract beyond `publication` being NULL or open (or lingering after close), or
    /// for close (which must not see a closed handle) the whole contract.
    safety: &'static str,
    /// Whether it reads the writer state, which an exclusive publication's one writer
    /// thread owns.
    writer: bool,
}

const PUBLICATION: &str = "publication: *mut {T}";
const DESTINATION_SAFETY: &str = "`async` NULL or valid for a pointer write; `client` NULL or open.";

const ROWS: [Row; 15] = [
    Row {
        suffix: "channel_status",
        params: PUBLICATION,
        returns: "i64",
        body: "{m}query(publication, |p| p.channel_status())",
        doc: "The status of the channel's send endpoint: 1 ACTIVE (always for IPC), -1 ERRORED \
              (also once closed), or another value of the status counter; -1 (EINVAL) for NULL.",
        safety: "",
        writer: true,
    },
    Row {
        suffix: "is_closed",
        params: PUBLICATION,
        returns: "bool",
        body: "{m}query(publication, |p| p.is_closed())",
        doc: "Whether the publication is closed (false, with EINVAL, for NULL).",
        safety: "",
        writer: true,
    },
    Row {
        suffix: "is_connected",
        params: PUBLICATION,
        returns: "bool",
        body: "{m}query(publication, |p| p.is_connected())",
        doc: "Whether a subscriber is connected (false, with EINVAL, for NULL).",
        safety: "",
        writer: true,
    },
    Row {
        suffix: "position",
        params: PUBLICATION,
        returns: "i64",
        body: "{m}query(publication, |p| p.position())",
        doc: "The position the next message starts at, or a negative `AERON_PUBLICATION_*` code \
              (CLOSED once closed); -1 (EINVAL) for NULL.",
        safety: "",
        writer: true,
    },
    Row {
        suffix: "position_limit",
        params: PUBLICATION,
        returns: "i64",
        body: "{m}query(publication, |p| p.position_limit())",
        doc: "The position beyond which offers are back pressured, or CLOSED once closed; -1 \
              (EINVAL) for NULL.",
        safety: "",
        writer: true,
    },
    Row {
        suffix: "channel",
        params: PUBLICATION,
        returns: "*const c_char",
        body: "{m}channel(publication)",
        doc: "The channel URI, valid while the publication is (NULL for NULL).",
        safety: "",
        writer: false,
    },
    Row {
        suffix: "stream_id",
        params: PUBLICATION,
        returns: "i32",
        body: "{m}fixed(publication, |core| core.info.stream_id)",
        doc: "The stream id (-1, with EINVAL, for NULL).",
        safety: "",
        writer: false,
    },
    Row {
        suffix: "session_id",
        params: PUBLICATION,
        returns: "i32",
        body: "{m}fixed(publication, |core| core.info.session_id)",
        doc: "The session id (-1, with EINVAL, for NULL).",
        safety: "",
        writer: false,
    },
    Row {
        suffix: "constants",
        params: "publication: *mut {T}, constants: *mut aeron_publication_constants_t",
        returns: "c_int",
        body: "{m}constants(publication, constants)",
        doc: "Fills `*constants` with what does not change during the publication's life. \
              Returns 0, or -1 for NULL arguments.",
        safety: "`constants` NULL or valid for a write.",
        writer: false,
    },
    Row {
        suffix: "close",
        params: "publication: *mut {T}, on_close_complete: aeron_notification_t, \
                 on_close_complete_clientd: *mut c_void",
        returns: "c_int",
        body: "{m}close(publication, on_close_complete, on_close_complete_clientd)",
        doc: "Closes the publication: no more offers, and the driver is told to release it. Calls \
              `on_close_complete(on_close_complete_clientd)` (if not NULL) once done, on this \
              thread, before returning. The handle stays readable (reporting CLOSED) for the \
              resource linger duration, then is freed. NULL is accepted. Returns 0.",
        safety: "`publication` NULL or open, closed once; `on_close_complete` NULL or safe to call \
                 with `on_close_complete_clientd` on this thread.",
        writer: true,
    },
    Row {
        suffix: "local_sockaddrs",
        params: "publication: *mut {T}, address_vec: *mut aeron_iovec_t, address_vec_len: usize",
        returns: "c_int",
        body: "{m}local_sockaddrs(publication, address_vec, address_vec_len)",
        doc: "Writes the addresses the driver's send endpoint is bound to (`ip:port`, IPv6 as \
              `[addr]:port`) into `address_vec`, each NUL-terminated and truncated to its entry's \
              `iov_len`, at most `address_vec_len` of them. Returns how many there are (possibly \
              more than fit): 0 for IPC or while the channel is not ACTIVE; -1 (EINVAL) for a NULL \
              `address_vec` or `address_vec_len` < 1.",
        safety: "`address_vec` valid for `address_vec_len` entries, each `iov_base` valid for \
                 `iov_len` bytes.",
        writer: true,
    },
    Row {
        suffix: "async_add_destination",
        params: "r#async: *mut *mut aeron_async_destination_t, client: *mut aeron_t, \
                 publication: *mut {T}, uri: *const c_char",
        returns: "c_int",
        body: "{m}destination(r#async, client, publication, DestinationArg::Uri(uri, \
               |uri| DestinationCommand::Add(uri)))",
        doc: "Adds destination `uri` (e.g. `aeron:udp?endpoint=host:port`) to a \
              multi-destination-cast publication (channel `aeron:udp?control-mode=manual`): sends \
              the command and stores in `*async` the handle to poll with \
              `{prefix}_async_destination_poll`, whose registration id \
              (`aeron_async_destination_get_registration_id`) is the destination's. Returns 0, \
              or -1: NULL arguments (EINVAL), a URI that is empty, too long or not UTF-8 (EINVAL), \
              the publication or client closed (EPERM). The driver's refusal (e.g. a channel not \
              in manual control mode) comes from the poll. `client` is the client the \
              publication belongs to.",
        safety: "`async` NULL or valid for a pointer write; `client` NULL or open; `uri` NULL or \
                 NUL-terminated.",
        writer: false,
    },
    Row {
        suffix: "async_remove_destination",
        params: "r#async: *mut *mut aeron_async_destination_t, client: *mut aeron_t, \
                 publication: *mut {T}, uri: *const c_char",
        returns: "c_int",
        body: "{m}destination(r#async, client, publication, DestinationArg::Uri(uri, \
               |uri| DestinationCommand::Remove(uri)))",
        doc: "Removes destination `uri` from a multi-destination-cast publication; poll `*async` \
              with `{prefix}_async_destination_poll`. Returns 0 or -1, as \
              `{prefix}_async_add_destination`.",
        safety: "`async` NULL or valid for a pointer write; `client` NULL or open; `uri` NULL or \
                 NUL-terminated.",
        writer: false,
    },
    Row {
        suffix: "async_remove_destination_by_id",
        params: "r#async: *mut *mut aeron_async_destination_t, client: *mut aeron_t, \
                 publication: *mut {T}, destination_registration_id: i64",
        returns: "c_int",
        body: "{m}destination(r#async, client, publication, \
               DestinationArg::Id(destination_registration_id))",
        doc: "Removes the destination whose add had registration id \
              `destination_registration_id` (see `aeron_async_destination_get_registration_id`); \
              poll `*async` with `{prefix}_async_destination_poll`. Returns 0 or -1, as \
              `{prefix}_async_add_destination`.",
        safety: DESTINATION_SAFETY,
        writer: false,
    },
    Row {
        suffix: "async_destination_poll",
        params: "r#async: *mut aeron_async_destination_t",
        returns: "c_int",
        body: "poll_destination(r#async)",
        doc: "Polls a destination command: 0 while the driver has not answered, 1 once it \
              acknowledged, -1 for its refusal (`aeron_errcode()` = -AERON_ERROR_CODE_*) or no \
              answer within the driver timeout (AERON_CLIENT_ERROR_DRIVER_TIMEOUT), or the client \
              closed. On 1 and -1 the async handle is freed: do not use it again. NULL, or the \
              handle of an add, is -1 (EINVAL) and frees nothing. Any destination command's \
              handle may be polled here (publication, exclusive publication or subscription), \
              as in Aeron.",
        safety: "`async` NULL or pending, polled by one thread at a time.",
        writer: false,
    },
];

/// The exports of `aeron_publication_t` (`exclusive` false) or
/// `aeron_exclusive_publication_t`.
pub fn generate(exclusive: bool) -> String {
    let (prefix, handle, helpers) = match exclusive {
        false => ("aeron_publication", "aeron_publication_t", "self::"),
        true => ("aeron_exclusive_publication", "aeron_exclusive_publication_t", "shared::"),
    };
    let mut out = String::from("// Generated by build.rs (build/publication_exports.rs).\n");
    for Row { suffix, params, returns, body, doc, safety, writer } in ROWS {
        let closes = suffix == "close";
        let mut contract = String::new();
        if params.contains("{T}") && !closes {
            contract.push_str("`publication` NULL or open (or lingering after close). ");
        }
        contract.push_str(safety);
        if exclusive && writer {
            contract.push_str(match closes {
                true => " Called by the publication's one writer thread.",
                false => " Its writer state is used by this thread only during the call.",
            });
        }
        let mut doc = doc.replace("{prefix}", prefix);
        if !writer && params.contains("{T}") {
            doc.push_str(match exclusive {
                true => " Any thread may call this, also while the writer thread offers.",
                false => " May be called from any thread.",
            });
        }
        out.push_str(
            &Export {
                doc: &doc,
                name: &format!("{prefix}_{suffix}"),
                params: &params.replace("{T}", handle),
                returns,
                safety: &contract,
                body: &body.replace("{m}", helpers),
            }
            .source(),
        );
    }
    out
}
