//! Publication images as the conductor creates and retires them (`spec/wire-protocol.md` §4,
//! `spec/driver.md` §4.3, `spec/log-buffer.md` §3, Aeron C
//! `aeron_driver_conductor_on_create_publication_image`): a SETUP the receiver saw becomes
//! an image log `images/<correlation id>.logbuffer` with its counters, loss detector and
//! congestion control, linked to every matching subscription; a drained image is removed
//! from the receiver and its subscribers are told.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;

use crate::concurrent::counters::type_ids::{
    PER_IMAGE_TYPE_ID, RECEIVER_HWM_NAME, RECEIVER_HWM_TYPE_ID, RECEIVER_POSITION_NAME,
    RECEIVER_POSITION_TYPE_ID,
};
use crate::concurrent::mapped_file::Allocation;
use crate::driver::agent_proxy::{CreateImageRequest, ReceiverCommand};
use crate::driver::conductor::Conductor;
use crate::driver::conductor::publication_image::{ImageEntry, ImageEvent, ImageIdentity, ImageSettings};
use crate::driver::conductor::subscriber_positions::{TetherEvent, UntetheredTimeouts};
use crate::driver::congestion::supplier::ImageWindowParams;
use crate::driver::congestion::{CongestionControlKind, CubicIndicators, CubicSettings};
use crate::driver::directory::IMAGES_DIR;
use crate::driver::flow_control::receiver_window::check_mtu_within_window;
use crate::driver::image_status::ImageStatus;
use crate::driver::loss::{FeedbackDelay, LossDetector};
use crate::driver::media::socket_address::format_source_identity;
use crate::driver::media::udp_channel::{UdpChannel, UdpControlMode};
use crate::driver::position_counters::{Position, allocate_stream_counter, free_counter};
use crate::driver::publication_image::{FrameSource, PublicationImage, PublicationImageConfig};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT, MAX_UDP_PAYLOAD_LENGTH};
use crate::util::error::{Error, Result};

/// `<aeron dir>/images/<correlation id>.logbuffer`.
pub fn image_log_path(aeron_dir: &std::path::Path, correlation_id: i64) -> PathBuf {
    aeron_dir.join(IMAGES_DIR).join(format!("{correlation_id}.logbuffer"))
}

/// A SETUP's geometry must make a sound log: MTU (≥ 32, ≤ 65 504, aligned, within the
/// window), term length, and a position at or after the initial term.
fn validate_setup(request: &CreateImageRequest, initial_window_length: usize) -> Result<()> {
    let mtu = request.mtu_length;
    if mtu < DATA_HEADER_LENGTH as i32
        || mtu > MAX_UDP_PAYLOAD_LENGTH as i32
        || mtu % FRAME_ALIGNMENT as i32 != 0
    {
        return Err(Error::invalid_argument(format!("invalid sender mtuLength={mtu}")));
    }
    check_mtu_within_window(mtu as usize, initial_window_length)?;
    let term_length = usize::try_from(request.term_length)
        .map_err(|_| Error::invalid_argument(format!("invalid termLength={}", request.term_length)))?;
    log::check_term_length(term_length)?;
    if request.active_term_id.wrapping_sub(request.initial_term_id) < 0 {
        return Err(Error::invalid_argument(format!(
            "active term id {} before initial term id {}",
            request.active_term_id, request.initial_term_id
        )));
    }
    if request.term_offset < 0
        || request.term_offset >= request.term_length
        || request.term_offset % FRAME_ALIGNMENT as i32 != 0
    {
        return Err(Error::invalid_argument(format!("invalid SETUP termOffset={}", request.term_offset)));
    }
    Ok(())
}

impl Conductor {
    /// The receiver saw a SETUP for a subscribed stream: build the image, or tell the
    /// receiver it will not come.
    pub(crate) fn on_create_image(&mut self, request: CreateImageRequest, correlation_id: i64) {
        let wanted = self.endpoints.receive.is_open(request.endpoint_id)
            && self.subscriptions.wants_image(request.endpoint_id, request.stream_id, request.session_id);
        if !wanted {
            // The subscription went away meanwhile: nothing to build, nothing to report.
            self.receiver_proxy.send(ReceiverCommand::RemoveInitInProgress {
                endpoint_id: request.endpoint_id,
                session_id: request.session_id,
                stream_id: request.stream_id,
                refusal: None,
            });
            return;
        }
        if let Err(e) = self.create_image(&request, correlation_id) {
            let e =
                e.context(format_args!("stream_id={} session_id={}", request.stream_id, request.session_id));
            self.log_error(&e);
            // The sender hears why its receiver has no image for it (an ERR frame), and
            // its next SETUP tries again.
            self.receiver_proxy.send(ReceiverCommand::RemoveInitInProgress {
                endpoint_id: request.endpoint_id,
                session_id: request.session_id,
                stream_id: request.stream_id,
                refusal: Some((Self::error_code_of(&e) as i32, e.to_string().into_bytes())),
            });
        }
    }

    fn create_image(&mut self, request: &CreateImageRequest, correlation_id: i64) -> Result<()> {
        if !self.endpoints.receive.is_open(request.endpoint_id) {
            return Err(Error::illegal_state("receive endpoint is gone"));
        }
        let matching =
            self.subscriptions.matching_network(request.endpoint_id, request.stream_id, request.session_id);
        let Some(&first) = matching.first() else {
            return Err(Error::illegal_state("no subscription for the image"));
        };
        let first = &self.subscriptions.network[first];
        let (params, channel) = (first.params, first.channel.clone());
        validate_setup(request, params.initial_window_length)?;
        let term_length = request.term_length as usize;
        let bits = log::position_bits_to_shift(term_length);
        let initial_position =
            log::compute_position(request.active_term_id, request.term_offset, bits, request.initial_term_id);
        let mut counters_made: Vec<Position> = Vec::new();
        let result =
            self.build_image(request, correlation_id, &channel, params, initial_position, &mut counters_made);
        let (entry, receiver_half) = match result {
            Ok(built) => built,
            Err(e) => {
                for p in counters_made {
                    free_counter(&mut self.counters, p.counter_id(), self.now_ms);
                }
                let _ = std::fs::remove_file(image_log_path(&self.ctx.aeron_dir, correlation_id));
                return Err(e);
            }
        };
        if let Some(endpoint) = self.endpoints.receive.find_mut(request.endpoint_id) {
            endpoint.image_ref_count += 1;
        }
        let image_index = self.images.add(entry);
        for link_index in matching {
            self.link_image(link_index, image_index)?;
        }
        self.receiver_proxy.send(ReceiverCommand::AddImage {
            endpoint_id: request.endpoint_id,
            image: Box::new(receiver_half),
        });
        Ok(())
    }

    /// Counters, log, loss detector, congestion control and both halves of the image.
    fn build_image(
        &mut self,
        request: &CreateImageRequest,
        correlation_id: i64,
        channel: &str,
        params: crate::driver::conductor::network_params::NetworkSubscriptionParams,
        initial_position: i64,
        counters_made: &mut Vec<Position>,
    ) -> Result<(ImageEntry, PublicationImage)> {
        let (session_id, stream_id) = (request.session_id, request.stream_id);
        let mut stream_counter = |c: &mut Self, type_id: i32, name: &str| -> Result<Position> {
            let p = allocate_stream_counter(
                &mut c.counters,
                type_id,
                name,
                correlation_id,
                session_id,
                stream_id,
                channel,
                None,
                c.now_ms,
            )?;
            counters_made.push(p.clone());
            Ok(p)
        };
        let rcv_hwm = stream_counter(self, RECEIVER_HWM_TYPE_ID, RECEIVER_HWM_NAME)?;
        let rcv_pos = stream_counter(self, RECEIVER_POSITION_TYPE_ID, RECEIVER_POSITION_NAME)?;
        let cubic_counters = if params.congestion_control == CongestionControlKind::Cubic {
            let rtt = stream_counter(self, PER_IMAGE_TYPE_ID, "rcv-cc-cubic-rtt")?;
            let window = stream_counter(self, PER_IMAGE_TYPE_ID, "rcv-cc-cubic-wnd")?;
            Some((rtt, window))
        } else {
            None
        };
        let term_length = request.term_length as usize;
        let log_length = log::compute_log_length(term_length, self.ctx.file_page_size);
        self.check_storage_in(IMAGES_DIR, log_length)?;
        let path = image_log_path(&self.ctx.aeron_dir, correlation_id);
        let allocation = if params.common.is_sparse { Allocation::Sparse } else { Allocation::PreTouch };
        let log_buffers = LogBuffers::create(&path, term_length, self.ctx.file_page_size, allocation)?;
        let endpoint_channel = self.endpoints.receive.find(request.endpoint_id).map(|e| &e.channel);
        let is_multicast_channel = endpoint_channel.is_some_and(|c| c.is_multicast);
        // A multi-destination subscription hears its senders through several sockets (and
        // may have multicast destinations): Aeron's rules, no pinning.
        let is_multi_destination_channel =
            endpoint_channel.is_some_and(|c| c.control_mode == UdpControlMode::Manual);
        let treat_as_multicast = params.treat_as_multicast(request.flags, is_multicast_channel);
        let is_response_channel = endpoint_channel.is_some_and(UdpChannel::is_response);
        init_image_metadata(
            &log_buffers,
            request,
            correlation_id,
            &params,
            (treat_as_multicast, is_response_channel),
            self.os_buffer_lengths,
        );
        self.add_mapped_bytes(log_buffers.buffer().capacity() as i64);
        let indicators = match &cubic_counters {
            Some((rtt, window)) => Some(CubicIndicators {
                rtt: self.counters.reader().values_buffer().view(rtt.counter_id() as usize * 128, 8)?,
                window: self.counters.reader().values_buffer().view(window.counter_id() as usize * 128, 8)?,
            }),
            None => None,
        };
        let congestion_control = params.congestion_control.build(
            &ImageWindowParams {
                initial_window_length: params.initial_window_length,
                term_length,
                sender_mtu_length: request.mtu_length,
                now_ns: self.now_ns,
            },
            CubicSettings::from_context(&self.ctx),
            indicators,
        );
        let delay = FeedbackDelay::for_image(
            &self.ctx,
            treat_as_multicast,
            params.nak_delay_ns,
            correlation_id as u32,
        );
        rcv_hwm.set_release(initial_position);
        rcv_pos.set_release(initial_position);
        let status = Arc::new(ImageStatus::new(
            initial_position,
            congestion_control.initial_window_length(),
            self.now_ns,
        ));
        let sm_timeout_ns = self.ctx.status_message_timeout_ns as i64;
        let liveness_timeout_ns = self.ctx.image_liveness_timeout_ns as i64;
        let receiver_half = PublicationImage::new(
            PublicationImageConfig {
                correlation_id,
                session_id,
                stream_id,
                initial_term_id: request.initial_term_id,
                is_reliable: params.common.is_reliable,
                source: FrameSource {
                    destination_id: request.destination_id,
                    control_address: request.control_address,
                    address: request.source_address,
                },
                pinned_source: (!is_multicast_channel && !is_multi_destination_channel)
                    .then_some(request.source_address),
                initial_position,
                sm_timeout_ns,
                liveness_timeout_ns,
                max_receiver_window_length: congestion_control.max_window_length(),
            },
            &log_buffers,
            rcv_hwm.clone(),
            Arc::clone(&status),
            self.system.clone(),
            self.now_ns,
        );
        let identity = ImageIdentity {
            correlation_id,
            session_id,
            stream_id,
            endpoint_id: request.endpoint_id,
            channel: channel.to_string(),
            source_address: request.source_address,
            source_identity: format_source_identity(&request.source_address),
            initial_term_id: request.initial_term_id,
            setup_flags: request.flags,
        };
        let settings = ImageSettings {
            liveness_timeout_ns,
            sm_timeout_ns,
            untethered: UntetheredTimeouts {
                window_limit_ns: params.untethered_window_limit_timeout_ns as i64,
                resting_ns: params.untethered_resting_timeout_ns as i64,
            },
        };
        let mut entry = ImageEntry::new(
            identity,
            settings,
            log_buffers,
            path.to_string_lossy().into_owned(),
            rcv_hwm,
            rcv_pos,
            status,
            LossDetector::new(delay),
            congestion_control,
            initial_position,
            self.now_ns,
        );
        if let Some((rtt, window)) = cubic_counters {
            entry.extra_counters.push(rtt);
            entry.extra_counters.push(window);
        }
        Ok((entry, receiver_half))
    }

    /// Timer tick for every image; drained ones leave the receiver, finished ones are freed.
    pub(crate) fn check_images(&mut self) {
        for i in (0..self.images.len()).rev() {
            let mut events = Vec::new();
            self.images.get_mut(i).on_time_event(self.now_ns, |_, e| events.push(e));
            for event in events {
                self.on_image_event(i, event);
            }
            if let Some(image) = self.images.take_ended(i) {
                self.end_of_life.retire(image, &mut self.counters, self.now_ms);
            }
        }
    }

    fn on_image_event(&mut self, index: usize, event: ImageEvent) {
        let image = self.images.get(index);
        let (correlation_id, stream_id, session_id, endpoint_id) = (
            image.correlation_id(),
            image.identity.stream_id,
            image.identity.session_id,
            image.identity.endpoint_id,
        );
        match event {
            ImageEvent::Tether(TetherEvent::Unavailable { subscription_registration_id }) => {
                let channel = self.subscriptions.network_channel(subscription_registration_id);
                self.proxy.on_unavailable_image(
                    correlation_id,
                    subscription_registration_id,
                    stream_id,
                    &channel,
                );
            }
            ImageEvent::Tether(TetherEvent::Rejoined { subscription_registration_id, counter_id }) => {
                let image = self.images.get(index);
                self.proxy.on_available_image(
                    correlation_id,
                    session_id,
                    stream_id,
                    subscription_registration_id,
                    counter_id,
                    &image.log_file_name,
                    &image.identity.source_identity,
                );
            }
            ImageEvent::Linger => {
                self.receiver_proxy.send(ReceiverCommand::RemoveImage {
                    endpoint_id,
                    correlation_id,
                    session_id,
                    stream_id,
                });
                let mut rejoin = true;
                let linked: Vec<i64> = self
                    .images
                    .get(index)
                    .subscribers
                    .iter()
                    .map(|s| s.subscription_registration_id)
                    .collect();
                for link in self.subscriptions.network.iter().filter(|l| linked.contains(&l.registration_id))
                {
                    rejoin = link.params.common.is_rejoin;
                    self.proxy.on_unavailable_image(
                        correlation_id,
                        link.registration_id,
                        stream_id,
                        &link.channel,
                    );
                }
                if rejoin {
                    self.receiver_proxy.send(ReceiverCommand::RemoveCoolDown {
                        endpoint_id,
                        session_id,
                        stream_id,
                    });
                }
                if let Some(endpoint) = self.endpoints.receive.find_mut(endpoint_id) {
                    endpoint.image_ref_count -= 1;
                }
                self.endpoints.receive.note_if_unused(endpoint_id, self.now_ns);
            }
        }
    }
}

/// Image metadata as Aeron's driver writes it (`spec/log-buffer.md` §3; vectors §7): the
/// sender's geometry, the subscription's flags, no tails (images do not use them).
fn init_image_metadata(
    log_buffers: &LogBuffers,
    request: &CreateImageRequest,
    correlation_id: i64,
    params: &crate::driver::conductor::network_params::NetworkSubscriptionParams,
    (treat_as_multicast, is_response_channel): (bool, bool),
    os: crate::driver::conductor::log_file::OsBufferLengths,
) {
    let m = log_buffers.metadata();
    // Plain stores: clients learn of the file only through ON_AVAILABLE_IMAGE, whose
    // release/acquire hand-off publishes them.
    m.put_i64(log::LOG_END_OF_STREAM_POSITION_OFFSET, i64::MAX);
    log::set_correlation_id(m, correlation_id);
    log::set_initial_term_id(m, request.initial_term_id);
    log::set_default_frame_header_length(m, DATA_HEADER_LENGTH as i32);
    log::set_mtu_length(m, request.mtu_length);
    log::set_page_size(m, log_buffers.page_size() as i32);
    log::set_publication_window_length(m, 0);
    log::set_receiver_window_length(m, params.initial_window_length as i32);
    log::set_os_default_socket_sndbuf_length(m, os.default_so_sndbuf);
    log::set_os_max_socket_sndbuf_length(m, os.max_so_sndbuf);
    log::set_os_default_socket_rcvbuf_length(m, os.default_so_rcvbuf);
    log::set_os_max_socket_rcvbuf_length(m, os.max_so_rcvbuf);
    log::fill_default_frame_header(m, request.session_id, request.stream_id, request.initial_term_id);
    log::set_group(m, treat_as_multicast);
    // As Aeron C: the image's endpoint channel has `control-mode=response`.
    log::set_is_response(m, is_response_channel);
    log::set_rejoin(m, params.common.is_rejoin);
    log::set_reliable(m, params.common.is_reliable);
    log::set_sparse(m, params.common.is_sparse);
    log::set_tether(m, params.common.is_tether);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mtu: i32, term_length: i32, active: i32, offset: i32) -> CreateImageRequest {
        CreateImageRequest {
            endpoint_id: 1,
            session_id: 2,
            stream_id: 3,
            initial_term_id: 100,
            active_term_id: active,
            term_offset: offset,
            term_length,
            mtu_length: mtu,
            flags: 0,
            destination_id: 1,
            control_address: "127.0.0.1:1".parse().unwrap(),
            source_address: "127.0.0.1:1".parse().unwrap(),
        }
    }

    #[test]
    fn setups_that_cannot_make_a_log_are_refused() {
        validate_setup(&request(1408, 65536, 101, 4224), 131072).unwrap();
        for bad in [
            request(16, 65536, 100, 0),
            request(1400, 65536, 100, 0),
            request(65536, 65536, 100, 0),
            request(1408, 1000, 100, 0),
            request(1408, 65536, 99, 0),
            request(1408, 65536, 100, 65536),
            request(1408, 65536, 100, 33),
        ] {
            assert!(validate_setup(&bad, 131072).is_err(), "{bad:?}");
        }
        assert!(validate_setup(&request(8192, 65536, 100, 0), 4096).is_err(), "MTU above the window");
    }
}
