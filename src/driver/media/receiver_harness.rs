//! `ReceiverHarness`: the receiver's frame handling without a driver around it, for fuzzing
//! (`fuzz/fuzz_targets/receiver_datagram.rs`) and property tests. One receive endpoint
//! (bound to an ephemeral loopback port) subscribed to one stream, holding one image of a
//! 64 KiB-term log for a known session; datagrams are handed to it as if they had arrived.
//! Whatever the bytes, handling must neither panic nor write outside the image's log.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::CountersManager;
use crate::driver::agent_proxy::{CommandQueue, ConductorCommand, Proxy, command_queue};
use crate::driver::image_status::ImageStatus;
use crate::driver::media::media_plugin::Media;
use crate::driver::media::receive_channel_endpoint::{
    ReceiveChannelEndpoint, ReceiveContext, ReceiveEndpointSettings,
};
use crate::driver::media::udp_channel::UdpChannel;
use crate::driver::media::udp_transport::SocketBuffers;
use crate::driver::position_counters::Position;
use crate::driver::publication_image::{FrameSource, PublicationImage, PublicationImageConfig};
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor as log;
use crate::util::error::Result;

/// The image the harness holds.
pub const SESSION_ID: i32 = 7;
pub const STREAM_ID: i32 = 1001;
pub const INITIAL_TERM_ID: i32 = 100;
pub const TERM_LENGTH: usize = 64 * 1024;

pub struct ReceiverHarness {
    endpoint: ReceiveChannelEndpoint,
    counters: SystemCounters,
    to_conductor: Proxy<ConductorCommand>,
    from_receiver: CommandQueue<ConductorCommand>,
    log: LogBuffers,
    hwm: Position,
    source: SocketAddr,
}

impl ReceiverHarness {
    pub fn new() -> Result<Self> {
        let values = AtomicBuffer::alloc(128 * 128);
        let mut manager = CountersManager::new(AtomicBuffer::alloc(128 * 512), values.clone(), 0)?;
        let counters = SystemCounters::allocate(&mut manager, 0)?;
        let (to_conductor, from_receiver) =
            command_queue(counters.position(SystemCounterId::ConductorProxyFails).clone());
        let channel = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:0")?;
        let settings = ReceiveEndpointSettings {
            buffers: SocketBuffers::default(),
            receiver_id: 42,
            group_tag: None,
            stream_session_limit: 16,
            default_multicast_ttl: 0,
            max_images: 16,
            max_images_per_source: 16,
            mtu_length: 1408,
            bind: channel.remote_data,
        };
        let mut endpoint = ReceiveChannelEndpoint::open(1, &channel, settings, &Media::default())?;
        endpoint.dispatcher().add_subscription(STREAM_ID, None);
        let log_buffers = LogBuffers::alloc(TERM_LENGTH, 4096)?;
        log::fill_default_frame_header(log_buffers.metadata(), SESSION_ID, STREAM_ID, INITIAL_TERM_ID);
        let hwm = Position::new(&values, 100);
        let status = Arc::new(ImageStatus::new(0, 32 * 1024, 0));
        // Replies go to a loopback port nobody listens on.
        let source: SocketAddr = "127.0.0.1:9".parse().expect("literal address");
        let image = PublicationImage::new(
            PublicationImageConfig {
                correlation_id: 5,
                session_id: SESSION_ID,
                stream_id: STREAM_ID,
                initial_term_id: INITIAL_TERM_ID,
                is_reliable: true,
                source: FrameSource { destination_id: 1, control_address: source, address: source },
                pinned_source: None,
                initial_position: 0,
                sm_timeout_ns: 200_000_000,
                liveness_timeout_ns: 10_000_000_000,
                max_receiver_window_length: 32 * 1024,
            },
            &log_buffers,
            hwm.clone(),
            status,
            counters.clone(),
            0,
        );
        endpoint.add_image(Box::new(image));
        Ok(Self { endpoint, counters, to_conductor, from_receiver, log: log_buffers, hwm, source })
    }

    /// Handles `datagram` as the receiver would at time `now_ns`.
    pub fn on_datagram(&mut self, datagram: &[u8], now_ns: i64) -> Result<()> {
        let ctx = ReceiveContext { counters: &self.counters, to_conductor: &self.to_conductor, now_ns };
        // The receiver hands the endpoint its own receive buffer, which it may stamp.
        let mut copy = datagram.to_vec();
        let result = self.endpoint.on_datagram(0, &mut copy, self.source, None, &ctx);
        // Image requests from SETUPs are not served here; keep the queue from growing.
        while self.from_receiver.next().is_some() {}
        result
    }

    /// The receiver's periodic sends (status messages, NAKs, RTT requests).
    pub fn send_pending(&mut self, now_ns: i64) -> usize {
        let ctx = ReceiveContext { counters: &self.counters, to_conductor: &self.to_conductor, now_ns };
        self.endpoint.send_pending(&ctx)
    }

    pub fn system_counter(&self, id: SystemCounterId) -> i64 {
        self.counters.value(id)
    }

    /// The image's log and high-water mark, to check what was written.
    pub fn log(&self) -> &LogBuffers {
        &self.log
    }

    pub fn hwm(&self) -> i64 {
        self.hwm.get_acquire()
    }
}
