//! Creating a publication's `.logbuffer` file with its metadata initialised
//! (`spec/log-buffer.md` §1-4): `<aeron dir>/publications/<registration id>.logbuffer`.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use crate::concurrent::mapped_file::Allocation;
use crate::driver::conductor::params::PublicationParams;
use crate::driver::directory::PUBLICATIONS_DIR;
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::protocol::header::DATA_HEADER_LENGTH;
use crate::util::error::Result;

/// The OS socket buffer sizes Aeron records in every publication log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OsBufferLengths {
    pub default_so_sndbuf: i32,
    pub max_so_sndbuf: i32,
    pub default_so_rcvbuf: i32,
    pub max_so_rcvbuf: i32,
}

impl OsBufferLengths {
    /// Reads Linux's `net.core.{w,r}mem_{default,max}`; 0 where unavailable.
    pub fn probe() -> Self {
        let read = |name: &str| -> i32 {
            std::fs::read_to_string(format!("/proc/sys/net/core/{name}"))
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0)
        };
        Self {
            default_so_sndbuf: read("wmem_default"),
            max_so_sndbuf: read("wmem_max"),
            default_so_rcvbuf: read("rmem_default"),
            max_so_rcvbuf: read("rmem_max"),
        }
    }
}

/// `<aeron dir>/publications/<registration id>.logbuffer`.
pub fn publication_log_path(aeron_dir: &Path, registration_id: i64) -> PathBuf {
    aeron_dir.join(PUBLICATIONS_DIR).join(format!("{registration_id}.logbuffer"))
}

/// Identity of the stream a log carries.
#[derive(Debug, Clone, Copy)]
pub struct LogIdentity {
    pub registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub initial_term_id: i32,
}

/// Creates the log file and fills its metadata as Aeron's driver does for a publication:
/// tails (from the start position if given), end of stream = `i64::MAX`, not connected,
/// geometry, window, timeouts, flags and the default frame header. The terms are
/// zero-filled (sparse if the `sparse` parameter says so, else every page touched).
pub fn create_publication_log(
    path: &Path,
    identity: LogIdentity,
    params: &PublicationParams,
    page_size: usize,
    os: OsBufferLengths,
) -> Result<LogBuffers> {
    let allocation = if params.is_sparse { Allocation::Sparse } else { Allocation::PreTouch };
    let logs = LogBuffers::create(path, params.term_length, page_size, allocation)?;
    let m = logs.metadata();
    let (term_id, term_offset) = match params.position {
        Some(p) => (p.term_id, p.term_offset),
        None => (identity.initial_term_id, 0),
    };
    log::initialise_tails(m, identity.initial_term_id, term_id, term_offset)?;
    // Plain stores: clients learn the file name only from the broadcast response, whose
    // release/acquire hand-off publishes everything written here.
    m.put_i64(log::LOG_END_OF_STREAM_POSITION_OFFSET, i64::MAX);
    m.put_i32(log::LOG_IS_CONNECTED_OFFSET, 0);
    m.put_i32(log::LOG_ACTIVE_TRANSPORT_COUNT_OFFSET, 0);
    log::set_correlation_id(m, identity.registration_id);
    log::set_initial_term_id(m, identity.initial_term_id);
    log::set_default_frame_header_length(m, DATA_HEADER_LENGTH as i32);
    log::set_mtu_length(m, params.mtu_length as i32);
    log::set_term_length(m, params.term_length as i32);
    log::set_page_size(m, page_size as i32);
    log::set_publication_window_length(m, params.publication_window_length as i32);
    log::set_receiver_window_length(m, 0);
    log::set_socket_sndbuf_length(m, 0);
    log::set_os_default_socket_sndbuf_length(m, os.default_so_sndbuf);
    log::set_os_max_socket_sndbuf_length(m, os.max_so_sndbuf);
    log::set_socket_rcvbuf_length(m, 0);
    log::set_os_default_socket_rcvbuf_length(m, os.default_so_rcvbuf);
    log::set_os_max_socket_rcvbuf_length(m, os.max_so_rcvbuf);
    log::set_max_resend(m, params.max_resend as i32);
    log::fill_default_frame_header(m, identity.session_id, identity.stream_id, identity.initial_term_id);
    log::set_entity_tag(m, params.entity_tag);
    log::set_response_correlation_id(m, params.response_correlation_id);
    log::set_linger_timeout_ns(m, params.linger_timeout_ns as i64);
    log::set_untethered_window_limit_timeout_ns(m, params.untethered_window_limit_timeout_ns as i64);
    log::set_untethered_resting_timeout_ns(m, params.untethered_resting_timeout_ns as i64);
    log::set_group(m, false);
    log::set_is_response(m, params.is_response);
    log::set_rejoin(m, false);
    log::set_reliable(m, false);
    log::set_sparse(m, params.is_sparse);
    log::set_signal_eos(m, params.signal_eos);
    log::set_spies_simulate_connection(m, params.spies_simulate_connection);
    log::set_tether(m, false);
    Ok(logs)
}
