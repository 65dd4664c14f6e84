//! The accessors and destination commands [`Publication`](crate::client::Publication) and
//! [`ExclusivePublication`](crate::client::ExclusivePublication) share: both hold the same
//! [`PublicationCore`](crate::client::publication_core::PublicationCore) (`core`) and client
//! (`client`), and differ only in how they append.

/// Writes the shared methods into `impl $publication`.
macro_rules! publication_accessors {
    ($publication:ty) => {
        impl $publication {
            pub fn is_connected(&self) -> bool {
                self.core.is_connected()
            }

            pub fn is_closed(&self) -> bool {
                self.core.is_closed()
            }

            /// The send channel endpoint status (`CHANNEL_STATUS_*`, or the counter's value).
            pub fn channel_status(&self) -> i64 {
                self.core.channel_status()
            }

            pub fn channel(&self) -> &str {
                &self.core.info.channel
            }

            pub fn stream_id(&self) -> i32 {
                self.core.info.stream_id
            }

            pub fn session_id(&self) -> i32 {
                self.core.info.session_id
            }

            pub fn registration_id(&self) -> i64 {
                self.core.info.registration_id
            }

            /// The registration id of the add that made the driver's publication (an
            /// exclusive publication's own: it is never shared).
            pub fn original_registration_id(&self) -> i64 {
                self.core.info.original_registration_id
            }

            pub fn initial_term_id(&self) -> i32 {
                self.core.initial_term_id
            }

            pub fn term_buffer_length(&self) -> usize {
                self.core.term_length
            }

            pub fn position_bits_to_shift(&self) -> u32 {
                self.core.position_bits_to_shift
            }

            pub fn max_message_length(&self) -> usize {
                self.core.max_message_length
            }

            pub fn max_payload_length(&self) -> usize {
                self.core.max_payload_length
            }

            pub fn max_possible_position(&self) -> i64 {
                self.core.max_possible_position
            }

            pub fn position_limit_counter_id(&self) -> i32 {
                self.core.info.position_limit_id
            }

            pub fn channel_status_indicator_id(&self) -> i32 {
                self.core.info.channel_status_id
            }

            /// The local addresses the UDP send endpoint is bound to (`ip:port`); empty for IPC.
            pub fn local_socket_addresses(&self) -> Vec<String> {
                let counters = self.client.counters_reader();
                $crate::client::local_socket_addresses::local_socket_addresses(
                    &counters,
                    self.core.info.channel_status_id,
                )
            }

            /// Adds `endpoint_channel` (e.g. `aeron:udp?endpoint=host:port`) as a destination
            /// of this multi-destination-cast publication (channel
            /// `aeron:udp?control-mode=manual`) and waits for the driver's answer, up to the
            /// driver timeout. Returns the destination's registration id (the command's
            /// correlation id), which [`remove_destination_by_id`](Self::remove_destination_by_id)
            /// takes. Errors: the driver's refusal with its code (`Error::aeron`, e.g.
            /// INVALID_CHANNEL when the channel is not in manual control mode), a driver
            /// timeout (`CLIENT_ERROR_DRIVER_TIMEOUT`), EPERM once this publication or the
            /// client closed, EINVAL for an empty or too long channel.
            pub fn add_destination(&self, endpoint_channel: &str) -> $crate::util::error::Result<i64> {
                self.destinations()
                    .run($crate::client::destination::DestinationCommand::Add(endpoint_channel))
            }

            /// Removes the destination added with `endpoint_channel`, waiting as
            /// [`add_destination`](Self::add_destination) does.
            pub fn remove_destination(&self, endpoint_channel: &str) -> $crate::util::error::Result<()> {
                self.destinations()
                    .run($crate::client::destination::DestinationCommand::Remove(endpoint_channel))
                    .map(drop)
            }

            /// Removes the destination that the add with registration id
            /// `destination_registration_id` made, waiting as
            /// [`add_destination`](Self::add_destination) does.
            pub fn remove_destination_by_id(
                &self,
                destination_registration_id: i64,
            ) -> $crate::util::error::Result<()> {
                self.destinations()
                    .run($crate::client::destination::DestinationCommand::RemoveById(
                        destination_registration_id,
                    ))
                    .map(drop)
            }

            /// Sends what [`add_destination`](Self::add_destination) sends without waiting;
            /// poll the handle (its registration id is the destination's).
            pub fn async_add_destination(
                &self,
                endpoint_channel: &str,
            ) -> $crate::util::error::Result<$crate::client::destination::AsyncDestination> {
                self.destinations()
                    .send($crate::client::destination::DestinationCommand::Add(endpoint_channel))
            }

            /// [`remove_destination`](Self::remove_destination) without waiting.
            pub fn async_remove_destination(
                &self,
                endpoint_channel: &str,
            ) -> $crate::util::error::Result<$crate::client::destination::AsyncDestination> {
                self.destinations()
                    .send($crate::client::destination::DestinationCommand::Remove(endpoint_channel))
            }

            /// [`remove_destination_by_id`](Self::remove_destination_by_id) without waiting.
            pub fn async_remove_destination_by_id(
                &self,
                destination_registration_id: i64,
            ) -> $crate::util::error::Result<$crate::client::destination::AsyncDestination> {
                self.destinations().send($crate::client::destination::DestinationCommand::RemoveById(
                    destination_registration_id,
                ))
            }

            /// The mapped log and fixed values, readable from any thread (no writer state).
            pub(crate) fn core(&self) -> &std::sync::Arc<$crate::client::publication_core::PublicationCore> {
                &self.core
            }

            /// The destination commands of this publication, usable from any thread (they
            /// touch no writer state).
            pub(crate) fn destinations(&self) -> $crate::client::destination::Destinations {
                $crate::client::destination::Destinations::of_publication(
                    std::sync::Arc::clone(&self.client),
                    std::sync::Arc::clone(&self.core),
                )
            }

            /// Stops this handle and asks the driver to release it (asynchronously; errors go
            /// to the client's error handler). Idempotent; also done on drop.
            pub fn close(&self) {
                if self.core.close() {
                    self.client.release_publication(self.core.info.registration_id);
                }
            }
        }
    };
}

pub(crate) use publication_accessors;

use crate::client::{ExclusivePublication, Publication};
use crate::logbuffer::BufferClaim;
use crate::util::error::Result;

/// The calls the C API's shared export bodies make on either kind of publication (its
/// queries call the concrete types): implemented for `&Publication` (any number of threads
/// share it) and for `&mut ExclusivePublication` (its one writer).
pub trait PublicationWriter {
    fn offer_general_inline(&mut self, message: &[u8]) -> Result<i64>;
    fn offerv(&mut self, parts: &[&[u8]]) -> Result<i64>;
    fn offer_with_reserved_value(
        &mut self,
        parts: &[&[u8]],
        supplier: &mut dyn FnMut(&[u8]) -> i64,
    ) -> Result<i64>;
    fn try_claim(&mut self, length: usize) -> Result<(i64, Option<BufferClaim<'_>>)>;
    fn close(&self);
    fn local_socket_addresses(&self) -> Vec<String>;
}

/// The same forwarding for both: `self` derefs to the publication either way.
macro_rules! publication_writer {
    ($writer:ty, $publication:ident) => {
        impl PublicationWriter for $writer {
            #[inline(always)]
            fn offer_general_inline(&mut self, message: &[u8]) -> Result<i64> {
                $publication::offer_general_inline(self, message)
            }
            fn offerv(&mut self, parts: &[&[u8]]) -> Result<i64> {
                $publication::offerv(self, parts)
            }
            fn offer_with_reserved_value(
                &mut self,
                parts: &[&[u8]],
                supplier: &mut dyn FnMut(&[u8]) -> i64,
            ) -> Result<i64> {
                $publication::offer_with_reserved_value(self, parts, supplier)
            }
            fn try_claim(&mut self, length: usize) -> Result<(i64, Option<BufferClaim<'_>>)> {
                $publication::try_claim(self, length)
            }
            fn close(&self) {
                $publication::close(self)
            }
            fn local_socket_addresses(&self) -> Vec<String> {
                $publication::local_socket_addresses(self)
            }
        }
    };
}

publication_writer!(&Publication, Publication);
publication_writer!(&mut ExclusivePublication, ExclusivePublication);
