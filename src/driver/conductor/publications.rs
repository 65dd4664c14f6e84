//! ADD_PUBLICATION / ADD_EXCLUSIVE_PUBLICATION / REMOVE_PUBLICATION for IPC
//! (`spec/control-protocol.md` §5.2-5.3, `spec/driver.md` §7): non-exclusive publications
//! on the same stream share one log; exclusive ones always get their own session.
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::PublicationLink;
use crate::driver::conductor::ipc_publication::{IpcPublication, IpcPublicationConfig, PublicationState};
use crate::driver::conductor::log_file::{LogIdentity, create_publication_log, publication_log_path};
use crate::driver::conductor::params::{
    PublicationParams, SharedLogShape, TaggedPublication, invalid_channel, invalid_param,
};
use crate::driver::conductor::session_ids::random_i32;
use crate::driver::position_counters::{allocate_publisher_limit, allocate_publisher_position, free_counter};
use crate::logbuffer::descriptor as log;
use crate::uri::ChannelUri;
use crate::util::error::{AeronErrorCode, Error, Result};

impl Conductor {
    pub(crate) fn on_add_ipc_publication(
        &mut self,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
        exclusive: bool,
    ) -> Result<()> {
        let uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(e.message().to_string()))?;
        let params =
            PublicationParams::for_ipc(&self.ctx, stream_id, |key| uri.get(key), |tag| self.find_tagged(tag))
                .map_err(|e| e.context(format_args!("channel={channel}")))?;
        let client_index = self.get_or_add_client(correlated.client_id)?;
        let index = self.get_or_add_ipc_publication(
            client_index,
            &params,
            correlated,
            stream_id,
            channel,
            exclusive,
        )?;
        let p = &self.ipc_publications[index];
        self.proxy.on_publication_ready(
            correlated.correlation_id,
            p.registration_id(),
            p.session_id(),
            p.stream_id(),
            p.pub_lmt.counter_id(),
            crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED,
            exclusive,
            &p.log_file_name,
        );
        self.link_matching_subscriptions(index)
    }

    /// Java's `session-id=tag:<n>` on IPC: the IPC publication whose entity tag is `n`.
    fn find_tagged(&self, tag: i64) -> Option<TaggedPublication> {
        self.ipc_publications.iter().find(|p| p.config.params.entity_tag == tag).map(|p| TaggedPublication {
            session_id: p.session_id(),
            mtu_length: p.config.params.mtu_length,
            term_length: p.config.params.term_length,
        })
    }

    fn get_or_add_ipc_publication(
        &mut self,
        client_index: usize,
        params: &PublicationParams,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
        exclusive: bool,
    ) -> Result<usize> {
        let mut existing = None;
        let mut session_id_in_use = false;
        for (i, p) in self.ipc_publications.iter().enumerate().filter(|(_, p)| p.stream_id() == stream_id) {
            if p.state == PublicationState::Active && existing.is_none() && !exclusive && !p.is_exclusive() {
                existing = Some(i);
            }
            let counts = matches!(p.state, PublicationState::Active | PublicationState::Draining);
            if counts && params.session_id == Some(p.session_id()) {
                session_id_in_use = true;
            }
        }
        if session_id_in_use && (exclusive || existing.is_none()) {
            return Err(invalid_param(format!(
                "specified session-id is already in exclusive use for channel={channel} stream-id={stream_id}"
            )));
        }
        let link = |publication_registration_id| PublicationLink {
            registration_id: correlated.correlation_id,
            publication_registration_id,
        };
        if let Some(index) = existing {
            let existing = &self.ipc_publications[index];
            let metadata = existing.log.metadata();
            params.confirm_shared(&SharedLogShape {
                session_id: existing.session_id(),
                mtu_length: log::mtu_length(metadata),
                term_length: log::term_length(metadata),
                initial_term_id: existing.config.initial_term_id,
                starting_term_id: existing.starting_term_id(),
                starting_term_offset: existing.starting_term_offset(),
            })?;
            let publication = &mut self.ipc_publications[index];
            publication.incref();
            self.clients[client_index].publication_links.push(link(publication.registration_id()));
            return Ok(index);
        }
        let publication = self.create_ipc_publication(params, correlated, stream_id, channel, exclusive)?;
        self.clients[client_index].publication_links.push(link(publication.registration_id()));
        self.ipc_publications.push(publication);
        Ok(self.ipc_publications.len() - 1)
    }

    fn create_ipc_publication(
        &mut self,
        params: &PublicationParams,
        correlated: CorrelatedMessage,
        stream_id: i32,
        channel: &str,
        exclusive: bool,
    ) -> Result<IpcPublication> {
        let registration_id = correlated.correlation_id;
        let session_id = match params.session_id {
            Some(id) => id,
            None => {
                let publications = &self.ipc_publications;
                self.session_ids.allocate(|candidate| {
                    publications.iter().any(|p| {
                        p.stream_id() == stream_id
                            && p.session_id() == candidate
                            && matches!(p.state, PublicationState::Active | PublicationState::Draining)
                    })
                })
            }
        };
        let initial_term_id = params.position.map_or_else(random_i32, |p| p.initial_term_id);
        let pub_pos = allocate_publisher_position(
            &mut self.counters,
            registration_id,
            session_id,
            stream_id,
            channel,
            self.now_ms,
        )?;
        let pub_lmt = match allocate_publisher_limit(
            &mut self.counters,
            registration_id,
            session_id,
            stream_id,
            channel,
            self.now_ms,
        ) {
            Ok(p) => p,
            Err(e) => {
                free_counter(&mut self.counters, pub_pos.counter_id(), self.now_ms);
                return Err(e);
            }
        };
        self.counters.set_counter_owner_id(pub_lmt.counter_id(), correlated.client_id)?;
        if let Some(start) = params.position {
            let bits = log::position_bits_to_shift(params.term_length);
            let position = log::compute_position(start.term_id, start.term_offset, bits, initial_term_id);
            pub_pos.set_release(position);
            pub_lmt.set_release(position);
        }
        let path = publication_log_path(&self.ctx.aeron_dir, registration_id);
        if let Err(e) =
            self.check_storage(log::compute_log_length(params.term_length, self.ctx.file_page_size))
        {
            free_counter(&mut self.counters, pub_pos.counter_id(), self.now_ms);
            free_counter(&mut self.counters, pub_lmt.counter_id(), self.now_ms);
            return Err(e);
        }
        let identity = LogIdentity { registration_id, session_id, stream_id, initial_term_id };
        let log = match create_publication_log(
            &path,
            identity,
            params,
            self.ctx.file_page_size,
            self.os_buffer_lengths,
        ) {
            Ok(log) => log,
            Err(e) => {
                free_counter(&mut self.counters, pub_pos.counter_id(), self.now_ms);
                free_counter(&mut self.counters, pub_lmt.counter_id(), self.now_ms);
                let _ = std::fs::remove_file(&path);
                return Err(e.context(format_args!("error creating IPC log {}", path.display())));
            }
        };
        self.add_mapped_bytes(log.buffer().capacity() as i64);
        let config = IpcPublicationConfig {
            registration_id,
            session_id,
            stream_id,
            channel: channel.to_string(),
            is_exclusive: exclusive,
            initial_term_id,
            params: params.clone(),
            unblock_timeout_ns: self.ctx.publication_unblock_timeout_ns as i64,
        };
        let log_file_name = path.to_string_lossy().into_owned();
        Ok(IpcPublication::new(config, log, log_file_name, pub_pos, pub_lmt, self.now_ns))
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

    /// Drops one of the client's publication handles; only the client that added it may.
    pub(crate) fn on_remove_publication(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
    ) -> Result<()> {
        let link = self.find_client(correlated.client_id).and_then(|ci| {
            let links = &mut self.clients[ci].publication_links;
            let li = links.iter().position(|l| l.registration_id == registration_id)?;
            Some(links.swap_remove(li))
        });
        let Some(link) = link else {
            return Err(Error::aeron(
                AeronErrorCode::UnknownPublication,
                format!(
                    "unknown publication client_id={} registration_id={registration_id}",
                    correlated.client_id
                ),
            ));
        };
        self.release_publication(link.publication_registration_id);
        self.proxy.on_operation_succeeded(correlated.correlation_id);
        Ok(())
    }

    /// One fewer reference on a publication (removed handle or dead client).
    pub(crate) fn release_publication(&mut self, publication_registration_id: i64) {
        if let Some(p) =
            self.ipc_publications.iter_mut().find(|p| p.registration_id() == publication_registration_id)
        {
            p.decref();
            return;
        }
        self.release_network_publication(publication_registration_id);
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
