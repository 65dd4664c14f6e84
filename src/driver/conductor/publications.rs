//! ADD_PUBLICATION / ADD_EXCLUSIVE_PUBLICATION / REMOVE_PUBLICATION for IPC
//! (`spec/control-protocol.md` §5.2-5.3, `spec/driver.md` §7): non-exclusive publications
//! on the same stream share one log; exclusive ones always get their own session.
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::driver::conductor::Conductor;
use crate::driver::conductor::client_proxy::CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED;
use crate::driver::conductor::clients::PublicationLink;
use crate::driver::conductor::ipc_publication::{IpcPublication, IpcPublicationConfig};
use crate::driver::conductor::params::{PublicationParams, SharedLogShape, invalid_channel};
use crate::driver::conductor::publication_setup::{
    PUBLISHER_COUNTERS, PublicationCommand, PublicationRequest,
};
use crate::logbuffer::descriptor as log;
use crate::uri::ChannelUri;
use crate::util::error::{AeronErrorCode, Error, Result};

impl Conductor {
    pub(crate) fn on_add_ipc_publication(&mut self, add: PublicationCommand<'_>) -> Result<()> {
        let PublicationCommand { correlated, stream_id, channel, exclusive } = add;
        let uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(e.message().to_string()))?;
        let params = PublicationParams::for_ipc(
            &self.ctx,
            stream_id,
            |key| uri.get(key),
            |tag| self.publications.tagged_ipc(tag),
        )
        .map_err(|e| e.context(format_args!("channel={channel}")))?;
        self.get_or_add_client(correlated.client_id)?;
        let request = PublicationRequest { params: &params, correlated, stream_id, channel, exclusive };
        let index = self.get_or_add_ipc_publication(&request)?;
        let p = self.publications.ipc(index);
        self.proxy.on_publication_ready(
            correlated.correlation_id,
            p.registration_id(),
            p.session_id(),
            p.stream_id(),
            p.pub_lmt.counter_id(),
            CHANNEL_STATUS_INDICATOR_NOT_ALLOCATED,
            exclusive,
            &p.log_file_name,
        );
        self.link_new_ipc_publication(index)
    }

    fn get_or_add_ipc_publication(&mut self, request: &PublicationRequest<'_>) -> Result<usize> {
        let params = request.params;
        let existing = self.publications.shared_ipc(
            request.stream_id,
            request.exclusive,
            params.session_id,
            request.channel,
        )?;
        let index = match existing {
            Some(index) => {
                let existing = self.publications.ipc(index);
                let metadata = existing.log.metadata();
                params.confirm_shared(&SharedLogShape {
                    session_id: existing.session_id(),
                    mtu_length: log::mtu_length(metadata),
                    term_length: log::term_length(metadata),
                    initial_term_id: existing.config.initial_term_id,
                    starting_term_id: existing.starting_term_id(),
                    starting_term_offset: existing.starting_term_offset(),
                })?;
                self.publications.ipc_mut(index).incref();
                index
            }
            None => {
                let publication = self.create_ipc_publication(request)?;
                self.publications.add_ipc(publication)
            }
        };
        let link = PublicationLink {
            registration_id: request.correlated.correlation_id,
            publication_registration_id: self.publications.ipc(index).registration_id(),
        };
        self.clients.add_publication_link(request.correlated.client_id, link);
        Ok(index)
    }

    fn create_ipc_publication(&mut self, request: &PublicationRequest<'_>) -> Result<IpcPublication> {
        let identity = request.identity(|| self.publications.new_ipc_session_id(request.stream_id));
        let [pub_pos, pub_lmt] =
            self.allocate_publication_counters(&PUBLISHER_COUNTERS, request, &identity)?;
        if let Some(position) = request.start_position(identity.initial_term_id) {
            pub_pos.set_release(position);
            pub_lmt.set_release(position);
        }
        let (log, log_file_name) =
            self.make_publication_log(identity, request.params, &[&pub_pos, &pub_lmt], "IPC")?;
        let config = IpcPublicationConfig {
            registration_id: identity.registration_id,
            session_id: identity.session_id,
            stream_id: identity.stream_id,
            channel: request.channel.to_string(),
            is_exclusive: request.exclusive,
            initial_term_id: identity.initial_term_id,
            params: request.params.clone(),
            unblock_timeout_ns: self.ctx.publication_unblock_timeout_ns as i64,
        };
        Ok(IpcPublication::new(config, log, log_file_name, pub_pos, pub_lmt, self.now_ns))
    }

    /// Drops one of the client's publication handles; only the client that added it may.
    pub(crate) fn on_remove_publication(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
    ) -> Result<()> {
        let Some(link) = self.clients.take_publication_link(correlated.client_id, registration_id) else {
            return Err(Error::aeron(
                AeronErrorCode::UnknownPublication,
                format!(
                    "unknown publication client_id={} registration_id={registration_id}",
                    correlated.client_id
                ),
            ));
        };
        self.publications.release(link.publication_registration_id, self.now_ns);
        self.proxy.on_operation_succeeded(correlated.correlation_id);
        Ok(())
    }
}
