//! The receiver clients actually use (`spec/broadcast.md` §4, copy receiver): each record
//! is copied into a private scratch buffer and validated before the handler sees it, so a
//! handler never reads bytes the transmitter is overwriting. A lap is an error: the client
//! cannot know which responses it lost.

use super::receiver::BroadcastReceiver;
use crate::util::error::{Error, Result};

/// Initial scratch length (Agrona's and Aeron C's default); grown by 1.5x when a larger
/// record arrives, up to the buffer's max message length.
pub const SCRATCH_BUFFER_LENGTH: usize = 4096;

/// Message of the error returned when this receiver was lapped.
pub const LAPPED_MESSAGE: &str = "unable to keep up with broadcast";

/// Copies each broadcast record out before handing it to a handler.
#[derive(Debug)]
pub struct CopyBroadcastReceiver {
    receiver: BroadcastReceiver,
    scratch: Vec<u8>,
}

impl CopyBroadcastReceiver {
    pub fn new(receiver: BroadcastReceiver) -> Self {
        Self { receiver, scratch: vec![0; SCRATCH_BUFFER_LENGTH] }
    }

    /// The wrapped receiver (lapped count, capacity).
    pub fn receiver(&self) -> &BroadcastReceiver {
        &self.receiver
    }

    /// Current scratch length (grows only when a record needs it).
    pub fn scratch_length(&self) -> usize {
        self.scratch.len()
    }

    /// Receives at most one record: `Ok(1)` after calling `handler(msg_type_id, payload)`,
    /// `Ok(0)` when nothing is available, `Err` when the receiver was lapped before or
    /// during the copy. Either way the record is dropped and the receiver carries on from
    /// the latest record, one lap counted per error.
    pub fn receive<F: FnMut(i32, &[u8])>(&mut self, mut handler: F) -> Result<usize> {
        let last_seen_lapped_count = self.receiver.lapped_count();
        if !self.receiver.receive_next() {
            return Ok(0);
        }
        if self.receiver.lapped_count() != last_seen_lapped_count {
            // The header at the latest record was read after the jump and may itself have
            // been overwritten since; validating resyncs the receiver if so.
            self.receiver.validate();
            return Err(lapped_error());
        }

        let Some(length) = self.receiver.payload_length() else {
            // A length that cannot be right is either a record being overwritten under us
            // (validate says so) or a corrupt buffer.
            if !self.receiver.validate() {
                return Err(lapped_error());
            }
            return Err(Error::out_of_bounds(format!(
                "broadcast record at position {} has invalid length {}",
                self.receiver.cursor(),
                self.receiver.record_length()
            )));
        };
        let msg_type_id = self.receiver.type_id();

        if length > self.scratch.len() {
            // Not the steady state: responses are far below 4 KiB; grow once and keep it.
            let grown = (self.scratch.len() + self.scratch.len() / 2).max(length);
            self.scratch.resize(grown, 0);
        }
        let payload = &mut self.scratch[..length];
        self.receiver.copy_payload(payload)?;

        if !self.receiver.validate() {
            return Err(lapped_error());
        }
        handler(msg_type_id, &self.scratch[..length]);
        Ok(1)
    }
}

fn lapped_error() -> Error {
    Error::invalid_argument(LAPPED_MESSAGE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::concurrent::broadcast::BroadcastTransmitter;
    use crate::concurrent::broadcast::descriptor::TRAILER_LENGTH;

    fn pair(capacity: usize) -> (BroadcastTransmitter, CopyBroadcastReceiver) {
        let buffer = AtomicBuffer::alloc(capacity + TRAILER_LENGTH);
        let t = BroadcastTransmitter::new(buffer.clone()).unwrap();
        let r = CopyBroadcastReceiver::new(BroadcastReceiver::new(buffer).unwrap());
        (t, r)
    }

    fn receive_one(r: &mut CopyBroadcastReceiver) -> Result<Option<(i32, Vec<u8>)>> {
        let mut got = None;
        let n = r.receive(|t, p| got = Some((t, p.to_vec())))?;
        assert_eq!(n, usize::from(got.is_some()));
        Ok(got)
    }

    #[test]
    fn hands_out_one_record_per_call() {
        let (mut t, mut r) = pair(1024);
        assert_eq!(receive_one(&mut r).unwrap(), None);
        t.transmit(0x0f08, b"one").unwrap();
        t.transmit(0x0f07, b"two").unwrap();
        assert_eq!(receive_one(&mut r).unwrap(), Some((0x0f08, b"one".to_vec())));
        assert_eq!(receive_one(&mut r).unwrap(), Some((0x0f07, b"two".to_vec())));
        assert_eq!(receive_one(&mut r).unwrap(), None);
    }

    #[test]
    fn lap_is_an_error_then_the_receiver_recovers() {
        let (mut t, mut r) = pair(1024);
        for i in 0..40u8 {
            t.transmit(1, &[i; 40]).unwrap();
        }
        let err = receive_one(&mut r).unwrap_err();
        assert_eq!(err.message(), LAPPED_MESSAGE);
        assert_eq!(err.code(), libc::EINVAL);
        assert_eq!(r.receiver().lapped_count(), 1);
        // The latest record was consumed by the failed call; new ones arrive intact.
        assert_eq!(receive_one(&mut r).unwrap(), None);
        t.transmit(2, b"after").unwrap();
        assert_eq!(receive_one(&mut r).unwrap(), Some((2, b"after".to_vec())));
        assert_eq!(r.receiver().lapped_count(), 1);
    }

    #[test]
    fn scratch_grows_for_large_records() {
        let (mut t, mut r) = pair(64 * 1024);
        let big: Vec<u8> = (0..8192u32).map(|i| (i % 251) as u8).collect();
        t.transmit(3, &big).unwrap();
        assert_eq!(r.scratch_length(), SCRATCH_BUFFER_LENGTH);
        assert_eq!(receive_one(&mut r).unwrap(), Some((3, big)));
        assert_eq!(r.scratch_length(), 8192);
    }
}
