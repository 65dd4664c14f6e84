//! `Subscription`: polls the images of one channel and stream (Aeron
//! `aeron_subscription_t`, `Subscription`).
//!
//! The conductor owns the image list and publishes every change as a new immutable
//! snapshot plus a version bump. `poll` costs one atomic load when nothing changed; it
//! picks up a new snapshot (a brief lock, only after a change) at its start. Images are
//! `Arc`s, so an image the conductor removed stays mapped until the poller drops it.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::client::conductor_handle::ConductorHandle;
use crate::client::context::ImageHandler;
use crate::client::counter::counter_value_view;
use crate::client::destination::{AsyncDestination, DestinationCommand, Destinations};
use crate::client::image::{Image, PollReadiness, PollStart};
use crate::client::publication_core::{CHANNEL_STATUS_ACTIVE, CHANNEL_STATUS_NO_ID_ALLOCATED};
use crate::concurrent::AtomicBuffer;
use crate::logbuffer::{ControlledPollAction, Header};
use crate::uri::ChannelUri;
use crate::uri::keys::ENDPOINT;
use crate::util::error::Result;

/// An immutable image list.
pub(crate) type ImageList = Arc<[Arc<Image>]>;

/// The part of a subscription the conductor shares with its user handle.
pub(crate) struct SubscriptionState {
    pub registration_id: i64,
    pub channel: String,
    pub stream_id: i32,
    pub on_available_image: Option<ImageHandler>,
    pub on_unavailable_image: Option<ImageHandler>,
    channel_status_id: AtomicI32,
    counters_values: AtomicBuffer,
    is_closed: AtomicBool,
    images_version: AtomicU64,
    images: Mutex<ImageList>,
}

impl SubscriptionState {
    pub fn new(
        registration_id: i64,
        channel: &str,
        stream_id: i32,
        counters_values: AtomicBuffer,
        on_available_image: Option<ImageHandler>,
        on_unavailable_image: Option<ImageHandler>,
    ) -> Self {
        Self {
            registration_id,
            channel: channel.to_string(),
            stream_id,
            on_available_image,
            on_unavailable_image,
            channel_status_id: AtomicI32::new(-1),
            counters_values,
            is_closed: AtomicBool::new(false),
            images_version: AtomicU64::new(0),
            images: Mutex::new(Arc::from(Vec::new())),
        }
    }

    pub fn set_channel_status_id(&self, id: i32) {
        self.channel_status_id.store(id, Ordering::Release);
    }

    /// The current snapshot.
    pub fn images(&self) -> ImageList {
        self.images.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Conductor: adds an image unless one with its correlation id is there already.
    pub fn add_image(&self, image: Arc<Image>) -> bool {
        let mut images = self.images.lock().unwrap_or_else(PoisonError::into_inner);
        if images.iter().any(|i| i.correlation_id() == image.correlation_id()) {
            return false;
        }
        let mut list = images.to_vec();
        list.push(image);
        *images = Arc::from(list);
        // Release, after the store under the lock: a poller that sees the new version and
        // then takes the lock finds at least this snapshot.
        self.images_version.fetch_add(1, Ordering::Release);
        true
    }

    /// Conductor: removes and returns the image with `correlation_id`.
    pub fn remove_image(&self, correlation_id: i64) -> Option<Arc<Image>> {
        let mut images = self.images.lock().unwrap_or_else(PoisonError::into_inner);
        let position = images.iter().position(|i| i.correlation_id() == correlation_id)?;
        let mut list = images.to_vec();
        let removed = list.remove(position);
        *images = Arc::from(list);
        self.images_version.fetch_add(1, Ordering::Release);
        Some(removed)
    }

    /// Conductor: closes the subscription and returns the images it had, all closed.
    pub fn close(&self) -> Vec<Arc<Image>> {
        self.is_closed.store(true, Ordering::Release);
        let mut images = self.images.lock().unwrap_or_else(PoisonError::into_inner);
        let removed = images.to_vec();
        *images = Arc::from(Vec::new());
        self.images_version.fetch_add(1, Ordering::Release);
        drop(images);
        removed.iter().for_each(|image| image.close());
        removed
    }

    pub fn is_closed(&self) -> bool {
        self.is_closed.load(Ordering::Acquire)
    }

    pub fn image_by_session_id(&self, session_id: i32) -> Option<Arc<Image>> {
        self.images().iter().find(|i| i.session_id() == session_id).cloned()
    }

    pub fn is_connected(&self) -> bool {
        self.images().iter().any(|i| !i.is_closed())
    }

    pub fn channel_status(&self) -> i64 {
        if self.is_closed() {
            return CHANNEL_STATUS_NO_ID_ALLOCATED;
        }
        match self.channel_status_indicator_id() {
            id if id < 0 => CHANNEL_STATUS_ACTIVE,
            id => counter_value_view(&self.counters_values, id)
                .map(|c| c.get_i64_acquire(0))
                .unwrap_or(CHANNEL_STATUS_NO_ID_ALLOCATED),
        }
    }

    pub fn channel_status_indicator_id(&self) -> i32 {
        self.channel_status_id.load(Ordering::Acquire)
    }
}

/// Queries of a subscription that may run on any thread, also while another thread polls
/// it (e.g. from an image handler, which runs on the conductor's thread). It does not keep
/// the subscription alive: once the subscription is gone it reports a closed one with no
/// images.
#[derive(Clone)]
pub struct SubscriptionView {
    state: Weak<SubscriptionState>,
}

impl SubscriptionView {
    pub(crate) fn new(state: Weak<SubscriptionState>) -> Self {
        Self { state }
    }

    fn with<R>(&self, f: impl FnOnce(&SubscriptionState) -> R, gone: R) -> R {
        match self.state.upgrade() {
            Some(state) => f(&state),
            None => gone,
        }
    }

    /// A snapshot of the current images.
    pub fn images(&self) -> Vec<Arc<Image>> {
        self.with(|s| s.images().to_vec(), Vec::new())
    }

    pub fn image_count(&self) -> usize {
        self.with(|s| s.images().len(), 0)
    }

    pub fn image_at_index(&self, index: usize) -> Option<Arc<Image>> {
        self.with(|s| s.images().get(index).cloned(), None)
    }

    pub fn image_by_session_id(&self, session_id: i32) -> Option<Arc<Image>> {
        self.with(|s| s.image_by_session_id(session_id), None)
    }

    pub fn is_connected(&self) -> bool {
        self.with(SubscriptionState::is_connected, false)
    }

    pub fn is_closed(&self) -> bool {
        self.with(SubscriptionState::is_closed, true)
    }

    pub fn channel_status(&self) -> i64 {
        self.with(SubscriptionState::channel_status, CHANNEL_STATUS_NO_ID_ALLOCATED)
    }

    /// The channel status counter id; -1 until the driver named one (or once gone).
    pub fn channel_status_indicator_id(&self) -> i32 {
        self.with(SubscriptionState::channel_status_indicator_id, -1)
    }

    /// The subscription's registration id; -1 once gone.
    pub fn registration_id(&self) -> i64 {
        self.with(|s| s.registration_id, -1)
    }
}

impl std::fmt::Debug for SubscriptionView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubscriptionView").field("is_closed", &self.is_closed()).finish()
    }
}

/// A subscription. Polling takes `&mut self` (one poller at a time, as in Aeron); queries
/// take `&self`. Dropping it (or [`close`](Self::close)) removes it from the driver.
pub struct Subscription {
    state: Arc<SubscriptionState>,
    images: ImageList,
    images_version: u64,
    round_robin_index: usize,
    client: Arc<ConductorHandle>,
}

impl Subscription {
    pub(crate) fn new(state: Arc<SubscriptionState>, client: Arc<ConductorHandle>) -> Self {
        Self { state, images: Arc::from(Vec::new()), images_version: 0, round_robin_index: 0, client }
    }

    /// Takes the conductor's latest image list if it changed since the last call.
    #[inline]
    fn refresh_images(&mut self) {
        // Acquire: pairs with the conductor's release increment after it stored the list.
        let version = self.state.images_version.load(Ordering::Acquire);
        if version != self.images_version {
            self.images = self.state.images();
            self.images_version = version;
        }
    }

    /// Whether a poll now would certainly deliver nothing: the image list is the one last
    /// taken and none of its images has a frame at its position (see
    /// [`Image::has_nothing_to_poll`]). Neither panics nor calls out; `false` when unsure.
    #[inline(always)]
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    pub fn has_nothing_to_poll(&self) -> bool {
        // Acquire, as `refresh_images`: a new list is for the poll to take in.
        if self.state.images_version.load(Ordering::Acquire) != self.images_version {
            return false;
        }
        self.images.iter().all(|image| image.has_nothing_to_poll())
    }

    /// Polls the images in turn (starting one further each call, for fairness) for up to
    /// `fragment_limit` fragments in total; returns how many were delivered.
    #[inline]
    pub fn poll<F>(&mut self, mut handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header),
    {
        self.poll_with_image(|payload, header, _| handler(payload, header), fragment_limit)
    }

    /// As [`poll`](Self::poll), also telling the handler which image each fragment is from.
    #[inline]
    pub fn poll_with_image<F>(&mut self, handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header, &Arc<Image>),
    {
        match self.poll_readiness() {
            SubscriptionReadiness::Empty => 0,
            SubscriptionReadiness::Ready(ready) => ready.poll(handler, fragment_limit),
            SubscriptionReadiness::Unsure => self.poll_checked(handler, fragment_limit),
        }
    }

    /// What a poll would find now, without panicking or calling out: nothing (the image
    /// list is the one last taken and no image has a frame at its position), or the first
    /// image in this poll's round-robin order that has one, where the poll then starts (the
    /// round-robin start moves on, as a poll moves it). `Unsure` when the image list changed
    /// or an image could not tell (see [`Image::poll_readiness`]).
    #[deny(clippy::arithmetic_side_effects, clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
    #[inline(always)]
    pub(crate) fn poll_readiness(&mut self) -> SubscriptionReadiness<'_> {
        // Acquire, as `refresh_images`: a new list is for the checked poll to take in.
        if self.state.images_version.load(Ordering::Acquire) != self.images_version {
            return SubscriptionReadiness::Unsure;
        }
        let images: &[Arc<Image>] = &self.images;
        let first = if self.round_robin_index >= images.len() { 0 } else { self.round_robin_index };
        for skipped in 0..images.len() {
            let Some(image) = images.get(round_robin_index(first, skipped, images.len())) else {
                break;
            };
            match image.poll_readiness() {
                PollReadiness::Empty => {}
                PollReadiness::Ready(start) => {
                    // `first` is an index into the list, so this cannot overflow.
                    self.round_robin_index = first.wrapping_add(1);
                    return SubscriptionReadiness::Ready(ReadyPoll { images, first, skipped, start });
                }
                PollReadiness::Unsure => return SubscriptionReadiness::Unsure,
            }
        }
        SubscriptionReadiness::Empty
    }

    /// [`poll_with_image`](Self::poll_with_image) taking in a changed image list first and
    /// polling every image from its own look-ups.
    #[cold]
    #[inline(never)]
    fn poll_checked<F>(&mut self, mut handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header, &Arc<Image>),
    {
        self.refresh_images();
        let count = self.images.len();
        if count == 0 {
            return 0;
        }
        let start = self.next_start(count);
        let mut fragments = 0;
        for i in (start..count).chain(0..start) {
            if fragments >= fragment_limit {
                break;
            }
            let image = &self.images[i];
            fragments +=
                image.poll(|payload, header| handler(payload, header, image), fragment_limit - fragments);
        }
        fragments
    }

    /// Controlled poll over the images in turn; see [`Image::controlled_poll`].
    pub fn controlled_poll<F>(&mut self, mut handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header) -> ControlledPollAction,
    {
        self.controlled_poll_with_image(|payload, header, _| handler(payload, header), fragment_limit)
    }

    /// As [`controlled_poll`](Self::controlled_poll), also telling the handler the image.
    pub fn controlled_poll_with_image<F>(&mut self, mut handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header, &Arc<Image>) -> ControlledPollAction,
    {
        self.refresh_images();
        let count = self.images.len();
        if count == 0 {
            return 0;
        }
        let start = self.next_start(count);
        let mut fragments = 0;
        for i in (start..count).chain(0..start) {
            if fragments >= fragment_limit {
                break;
            }
            let image = &self.images[i];
            fragments += image.controlled_poll(
                |payload, header| handler(payload, header, image),
                fragment_limit - fragments,
            );
        }
        fragments
    }

    /// Block poll of every image; see [`Image::block_poll`]. Returns the bytes consumed.
    pub fn block_poll<F>(&mut self, mut handler: F, block_length_limit: usize) -> usize
    where
        F: FnMut(&[u8], i32, i32),
    {
        self.refresh_images();
        self.images.iter().map(|image| image.block_poll(&mut handler, block_length_limit)).sum()
    }

    #[inline]
    fn next_start(&mut self, count: usize) -> usize {
        let start = if self.round_robin_index >= count { 0 } else { self.round_robin_index };
        self.round_robin_index = start + 1;
        start
    }

    /// A view for querying this subscription from any thread, also while it is polled.
    pub fn view(&self) -> SubscriptionView {
        SubscriptionView { state: Arc::downgrade(&self.state) }
    }

    /// The image of the publisher with `session_id`, if connected.
    pub fn image_by_session_id(&self, session_id: i32) -> Option<Arc<Image>> {
        self.state.image_by_session_id(session_id)
    }

    /// The image at `index` in the current list.
    pub fn image_at_index(&self, index: usize) -> Option<Arc<Image>> {
        self.state.images().get(index).cloned()
    }

    /// A snapshot of the current images.
    pub fn images(&self) -> Vec<Arc<Image>> {
        self.state.images().to_vec()
    }

    pub fn image_count(&self) -> usize {
        self.state.images().len()
    }

    /// Whether any publisher is connected (an image is present and open).
    pub fn is_connected(&self) -> bool {
        self.state.is_connected()
    }

    pub fn is_closed(&self) -> bool {
        self.state.is_closed()
    }

    /// The receive channel endpoint status (`CHANNEL_STATUS_*`, or the counter's value).
    pub fn channel_status(&self) -> i64 {
        self.state.channel_status()
    }

    pub fn channel_status_indicator_id(&self) -> i32 {
        self.state.channel_status_indicator_id()
    }

    /// The local addresses the UDP receive endpoint is bound to (`ip:port`); empty for IPC.
    pub fn local_socket_addresses(&self) -> Vec<String> {
        let counters = self.client.counters_reader();
        crate::client::local_socket_addresses::local_socket_addresses(
            &counters,
            self.channel_status_indicator_id(),
        )
    }

    /// The first local address of the receive endpoint (`ip:port`, with any wildcard port
    /// resolved), or None while the channel is not ACTIVE or for IPC (Aeron
    /// `Subscription.resolvedEndpoint`).
    pub fn resolved_endpoint(&self) -> Option<String> {
        self.local_socket_addresses().into_iter().next()
    }

    /// The channel with a wildcard endpoint port (`endpoint=host:0`) replaced by the bound
    /// address, as Aeron `Subscription.tryResolveChannelEndpointPort`: None while the
    /// channel is not ACTIVE; the channel unchanged when it has no wildcard port, or more
    /// or fewer than one bound address.
    pub fn try_resolve_channel_endpoint_port(&self) -> Option<String> {
        if self.channel_status() != CHANNEL_STATUS_ACTIVE {
            return None;
        }
        let addresses = self.local_socket_addresses();
        if let [address] = addresses.as_slice()
            && let Ok(mut uri) = ChannelUri::parse(&self.state.channel)
            && uri.get(ENDPOINT).is_some_and(|endpoint| endpoint.ends_with(":0"))
            && uri.put(ENDPOINT, address).is_ok()
        {
            return Some(uri.to_string());
        }
        Some(self.state.channel.clone())
    }

    /// The client's counters (for the C API's address queries).
    pub(crate) fn counters_reader(&self) -> crate::concurrent::counters::CountersReader {
        self.client.counters_reader()
    }

    pub fn channel(&self) -> &str {
        &self.state.channel
    }

    pub fn stream_id(&self) -> i32 {
        self.state.stream_id
    }

    pub fn registration_id(&self) -> i64 {
        self.state.registration_id
    }

    /// Adds `endpoint_channel` (e.g. `aeron:udp?endpoint=host:port`, or `aeron:ipc`) as a
    /// destination of this multi-destination subscription (channel
    /// `aeron:udp?control-mode=manual`) and waits for the driver's answer, up to the
    /// driver timeout. Errors: the driver's refusal with its code (`Error::aeron`), a driver
    /// timeout (`CLIENT_ERROR_DRIVER_TIMEOUT`), EPERM once this subscription or the client
    /// closed, EINVAL for an empty or too long channel.
    pub fn add_destination(&self, endpoint_channel: &str) -> Result<()> {
        self.destinations().run(DestinationCommand::Add(endpoint_channel)).map(drop)
    }

    /// Removes the destination added with `endpoint_channel`, waiting as
    /// [`add_destination`](Self::add_destination) does.
    pub fn remove_destination(&self, endpoint_channel: &str) -> Result<()> {
        self.destinations().run(DestinationCommand::Remove(endpoint_channel)).map(drop)
    }

    /// [`add_destination`](Self::add_destination) without waiting: poll the handle.
    pub fn async_add_destination(&self, endpoint_channel: &str) -> Result<AsyncDestination> {
        self.destinations().send(DestinationCommand::Add(endpoint_channel))
    }

    /// [`remove_destination`](Self::remove_destination) without waiting.
    pub fn async_remove_destination(&self, endpoint_channel: &str) -> Result<AsyncDestination> {
        self.destinations().send(DestinationCommand::Remove(endpoint_channel))
    }

    /// The destination commands of this subscription, usable from any thread (also while
    /// another thread polls).
    pub(crate) fn destinations(&self) -> Destinations {
        Destinations::of_subscription(Arc::clone(&self.client), Arc::clone(&self.state))
    }

    /// Closes the subscription (its images become unavailable) and asks the driver to
    /// remove it. Idempotent; also done on drop.
    pub fn close(&self) {
        self.client.release_subscription(self.state.registration_id);
    }
}

/// What [`Subscription::poll_readiness`] found.
pub(crate) enum SubscriptionReadiness<'a> {
    /// No image has a frame to deliver.
    Empty,
    /// An image has one: poll from it.
    Ready(ReadyPoll<'a>),
    /// The image list changed, or an image could not tell: leave it to the checked poll.
    Unsure,
}

/// A subscription poll that found a frame: the images in this poll's round-robin order,
/// how many of them had nothing, and where the next one's read starts.
pub(crate) struct ReadyPoll<'a> {
    images: &'a [Arc<Image>],
    first: usize,
    skipped: usize,
    start: PollStart<'a>,
}

impl ReadyPoll<'_> {
    /// Delivers up to `fragment_limit` fragments: from the image that was found ready,
    /// then from the images after it in round-robin order. The ones before it had nothing
    /// a moment ago; what reaches them meanwhile waits for the next poll.
    #[inline]
    pub(crate) fn poll<F>(self, mut handler: F, fragment_limit: usize) -> usize
    where
        F: FnMut(&[u8], &Header, &Arc<Image>),
    {
        let count = self.images.len();
        let Some(image) = self.images.get(round_robin_index(self.first, self.skipped, count)) else {
            return 0;
        };
        let mut fragments =
            image.poll_from(self.start, |payload, header| handler(payload, header, image), fragment_limit);
        for later in self.skipped + 1..count {
            if fragments >= fragment_limit {
                break;
            }
            let image = &self.images[round_robin_index(self.first, later, count)];
            fragments +=
                image.poll(|payload, header| handler(payload, header, image), fragment_limit - fragments);
        }
        fragments
    }
}

/// The index of the `nth` image polled when a poll of `count` images starts at `first`
/// (both below `count`).
#[inline(always)]
fn round_robin_index(first: usize, nth: usize, count: usize) -> usize {
    let index = first.wrapping_add(nth);
    if index >= count { index.wrapping_sub(count) } else { index }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("channel", &self.state.channel)
            .field("stream_id", &self.state.stream_id)
            .field("registration_id", &self.state.registration_id)
            .finish()
    }
}
