//! What a new publication is made of, IPC or network alike (`spec/driver.md` §7,
//! `spec/counters.md` §6): its session and initial term, its stream counters in Aeron's
//! order (`pub-pos`, `pub-lmt` first), its start position, and its log file
//! (`publications/<registration id>.logbuffer`), made only after the storage check
//! (`AERON_PERFORM_STORAGE_CHECKS`). Nothing is left behind when a step fails: no counter,
//! no half-made file.
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::concurrent::counters::type_ids::{
    PUBLISHER_LIMIT_NAME, PUBLISHER_LIMIT_TYPE_ID, PUBLISHER_POSITION_NAME, PUBLISHER_POSITION_TYPE_ID,
};
use crate::driver::conductor::Conductor;
use crate::driver::conductor::log_file::{LogIdentity, create_publication_log, publication_log_path};
use crate::driver::conductor::params::PublicationParams;
use crate::driver::conductor::session_ids::random_i32;
use crate::driver::position_counters::{Position, allocate_stream_counter, free_counter};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::util::error::{Error, Result};

/// The counters every publication has, first: `pub-pos` (the producer position as the
/// conductor last sampled it) and `pub-lmt` (the position its publishers may write up to).
pub(crate) const PUBLISHER_COUNTERS: [(i32, &str); 2] =
    [(PUBLISHER_POSITION_TYPE_ID, PUBLISHER_POSITION_NAME), (PUBLISHER_LIMIT_TYPE_ID, PUBLISHER_LIMIT_NAME)];

/// An ADD_PUBLICATION or ADD_EXCLUSIVE_PUBLICATION.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PublicationCommand<'a> {
    pub correlated: CorrelatedMessage,
    pub stream_id: i32,
    pub channel: &'a str,
    pub exclusive: bool,
}

/// An ADD_PUBLICATION or ADD_EXCLUSIVE_PUBLICATION, its channel's parameters parsed.
#[derive(Clone, Copy)]
pub(crate) struct PublicationRequest<'a> {
    pub params: &'a PublicationParams,
    pub correlated: CorrelatedMessage,
    pub stream_id: i32,
    pub channel: &'a str,
    pub exclusive: bool,
}

impl PublicationRequest<'_> {
    /// The new publication's identity: the requested session (else `session_id`) and the
    /// requested initial term (else a random one).
    pub(crate) fn identity(&self, session_id: impl FnOnce() -> i32) -> LogIdentity {
        LogIdentity {
            registration_id: self.correlated.correlation_id,
            session_id: self.params.session_id.unwrap_or_else(session_id),
            stream_id: self.stream_id,
            initial_term_id: self.params.position.map_or_else(random_i32, |p| p.initial_term_id),
        }
    }

    /// Where the publication starts when the channel names it (`init-term-id`, `term-id`,
    /// `term-offset`).
    pub(crate) fn start_position(&self, initial_term_id: i32) -> Option<i64> {
        self.params.position.map(|start| {
            let bits = log::position_bits_to_shift(self.params.term_length);
            log::compute_position(start.term_id, start.term_offset, bits, initial_term_id)
        })
    }
}

impl Conductor {
    /// Allocates the stream counters `kinds` of a new publication, in order; the second
    /// (`pub-lmt`) is owned by the client. None stay allocated if one fails.
    pub(crate) fn allocate_publication_counters<const N: usize>(
        &mut self,
        kinds: &[(i32, &str); N],
        request: &PublicationRequest<'_>,
        identity: &LogIdentity,
    ) -> Result<[Position; N]> {
        let mut allocated: Vec<Position> = Vec::with_capacity(N);
        for &(type_id, name) in kinds {
            match allocate_stream_counter(
                &mut self.counters,
                type_id,
                name,
                identity.registration_id,
                identity.session_id,
                identity.stream_id,
                request.channel,
                None,
                self.now_ms,
            ) {
                Ok(p) => allocated.push(p),
                Err(e) => {
                    self.free_positions(&allocated);
                    return Err(e);
                }
            }
        }
        self.counters.set_counter_owner_id(allocated[1].counter_id(), request.correlated.client_id)?;
        allocated.try_into().map_err(|_| Error::illegal_state(format!("{N} counters expected")))
    }

    pub(crate) fn free_positions<'p>(&mut self, positions: impl IntoIterator<Item = &'p Position>) {
        for p in positions {
            free_counter(&mut self.counters, p.counter_id(), self.now_ms);
        }
    }

    /// The log of a new publication, made after the storage check, and its file name; when
    /// either fails the publication's `counters` are freed (and a half-made file removed).
    /// `kind` names the publication in the error.
    pub(crate) fn make_publication_log(
        &mut self,
        identity: LogIdentity,
        params: &PublicationParams,
        counters: &[&Position],
        kind: &str,
    ) -> Result<(LogBuffers, String)> {
        let path = publication_log_path(&self.ctx.aeron_dir, identity.registration_id);
        if let Err(e) =
            self.check_storage(log::compute_log_length(params.term_length, self.ctx.file_page_size))
        {
            self.free_positions(counters.iter().copied());
            return Err(e);
        }
        match create_publication_log(&path, identity, params, self.ctx.file_page_size, self.os_buffer_lengths)
        {
            Ok(log) => {
                self.add_mapped_bytes(log.buffer().capacity() as i64);
                Ok((log, path.to_string_lossy().into_owned()))
            }
            Err(e) => {
                self.free_positions(counters.iter().copied());
                let _ = std::fs::remove_file(&path);
                Err(e.context(format_args!("error creating {kind} log {}", path.display())))
            }
        }
    }

    /// Aeron's storage check before creating a log (`AERON_PERFORM_STORAGE_CHECKS`): refuse
    /// with ENOSPC (answered as STORAGE_SPACE) when the file system cannot hold it, warn
    /// when usable space falls below the low-file-store threshold.
    pub(crate) fn check_storage(&self, log_length: usize) -> Result<()> {
        self.check_storage_in(crate::driver::directory::PUBLICATIONS_DIR, log_length)
    }

    /// The storage check for a log in `subdirectory` of the Aeron directory (publications
    /// or images), naming that directory when the space is not there.
    pub(crate) fn check_storage_in(&self, subdirectory: &str, log_length: usize) -> Result<()> {
        if !self.ctx.perform_storage_checks {
            return Ok(());
        }
        let dir = self.ctx.aeron_dir.join(subdirectory);
        let usable = crate::util::sys::usable_disk_space(&dir)?;
        check_usable_space(usable, log_length, self.ctx.low_file_store_warning_threshold, &dir)
    }
}

/// ENOSPC when `usable` bytes cannot hold the log; a warning when space runs low.
fn check_usable_space(
    usable: u64,
    log_length: usize,
    warning_threshold: u64,
    dir: &std::path::Path,
) -> Result<()> {
    if usable < log_length as u64 {
        return Err(Error::with_code(
            libc::ENOSPC,
            format!(
                "insufficient usable storage for new log of length={log_length} usable={usable} in {}",
                dir.display()
            ),
        ));
    }
    if usable <= warning_threshold {
        eprintln!(
            "WARNING: space is running low: threshold={warning_threshold} usable={usable} in {}",
            dir.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::conductor::params::invalid_channel;
    use crate::util::error::AeronErrorCode;

    #[test]
    fn too_little_space_is_storage_space() {
        let dir = std::path::Path::new("/x");
        assert!(check_usable_space(1 << 30, 1 << 20, 0, dir).is_ok());
        let err = check_usable_space(1 << 20, (1 << 20) + 1, 0, dir).unwrap_err();
        assert_eq!(err.code(), libc::ENOSPC);
        assert_eq!(Conductor::error_code_of(&err), AeronErrorCode::StorageSpace);
        assert_eq!(Conductor::error_code_of(&invalid_channel("x")), AeronErrorCode::InvalidChannel);
        assert_eq!(Conductor::error_code_of(&Error::invalid_argument("x")), AeronErrorCode::GenericError);
    }
}
