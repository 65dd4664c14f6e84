//! Counters clients ask for (`spec/control-protocol.md` §5.7-5.8, `spec/counters.md` §6):
//! ADD_COUNTER (owned by the client, freed with it), REMOVE_COUNTER, ADD_STATIC_COUNTER
//! (owner -1, outlives the client, found again by type id and registration id).
#![forbid(unsafe_code)]

use crate::command::CorrelatedMessage;
use crate::concurrent::counters::descriptor::{MAX_KEY_LENGTH, MAX_LABEL_LENGTH};
use crate::driver::conductor::Conductor;
use crate::driver::conductor::clients::CounterLink;
use crate::driver::position_counters::free_counter;
use crate::util::error::{AeronErrorCode, Error, Result};

/// Owner id of static counters.
pub const STATIC_COUNTER_OWNER_ID: i64 = -1;

fn clamp(bytes: &[u8], max: usize) -> &[u8] {
    &bytes[..bytes.len().min(max)]
}

impl Conductor {
    /// A counter with the client's key and label, each cut to what a record holds. Labels
    /// are ASCII by protocol; other bytes are kept readable rather than rejected.
    fn allocate_client_counter(&mut self, type_id: i32, key: &[u8], label: &[u8]) -> Result<i32> {
        let label = String::from_utf8_lossy(clamp(label, MAX_LABEL_LENGTH));
        self.counters.allocate(type_id, clamp(key, MAX_KEY_LENGTH), &label, self.now_ms)
    }

    pub(crate) fn on_add_counter(
        &mut self,
        correlated: CorrelatedMessage,
        type_id: i32,
        key: &[u8],
        label: &[u8],
    ) -> Result<()> {
        self.get_or_add_client(correlated.client_id)?;
        let counter_id = self.allocate_client_counter(type_id, key, label)?;
        self.counters.set_counter_registration_id(counter_id, correlated.correlation_id)?;
        self.counters.set_counter_owner_id(counter_id, correlated.client_id)?;
        let link = CounterLink { registration_id: correlated.correlation_id, counter_id };
        self.clients.add_counter_link(correlated.client_id, link);
        self.proxy.on_counter_ready(correlated.correlation_id, counter_id);
        Ok(())
    }

    /// Only the client that added a counter may remove it.
    pub(crate) fn on_remove_counter(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
    ) -> Result<()> {
        let Some(link) = self.clients.take_counter_link(correlated.client_id, registration_id) else {
            return Err(Error::aeron(
                AeronErrorCode::UnknownCounter,
                format!(
                    "unknown counter client_id={} registration_id={registration_id}",
                    correlated.client_id
                ),
            ));
        };
        self.proxy.on_operation_succeeded(correlated.correlation_id);
        self.proxy.on_unavailable_counter(link.registration_id, link.counter_id);
        free_counter(&mut self.counters, link.counter_id, self.now_ms);
        Ok(())
    }

    pub(crate) fn on_add_static_counter(
        &mut self,
        correlated: CorrelatedMessage,
        registration_id: i64,
        type_id: i32,
        key: &[u8],
        label: &[u8],
    ) -> Result<()> {
        self.get_or_add_client(correlated.client_id)?;
        let counter_id = match self
            .counters
            .reader()
            .find_by_type_id_and_registration_id(type_id, registration_id)
        {
            Some(existing) => {
                if self.counters.reader().counter_owner_id(existing)? != STATIC_COUNTER_OWNER_ID {
                    return Err(Error::aeron(
                        AeronErrorCode::GenericError,
                        format!(
                            "cannot add static counter, because a non-static counter exists (counterId={existing}) \
                             for typeId={type_id} and registrationId={registration_id}"
                        ),
                    ));
                }
                existing
            }
            None => {
                let id = self.allocate_client_counter(type_id, key, label)?;
                self.counters.set_counter_registration_id(id, registration_id)?;
                self.counters.set_counter_owner_id(id, STATIC_COUNTER_OWNER_ID)?;
                id
            }
        };
        self.proxy.on_static_counter(correlated.correlation_id, counter_id);
        Ok(())
    }
}
