//! Resending a NAKed range from the publication's term (`spec/flow-congestion-loss.md`
//! §4.3, Aeron C `aeron_network_publication_resend`): only data still in the resend
//! window, `[snd-pos − T/2 − max_message_length, snd-pos)`, is resent, in datagrams of
//! at most one MTU built by the term scanner exactly like the original sends (a PAD frame
//! contributes its header and ends the datagram). Stops at the first short send or when
//! nothing more is available.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::descriptor::compute_max_message_length;
use crate::logbuffer::term_scanner::scan_published;
use crate::util::error::Result;
use crate::util::sys::udp::MAX_BATCH;

/// Whether `resend_position` may still be resent when the sender is at `sender_position`.
pub fn is_in_resend_window(sender_position: i64, resend_position: i64, term_length: usize) -> bool {
    let bottom = sender_position - (term_length / 2) as i64 - compute_max_message_length(term_length) as i64;
    bottom <= resend_position && resend_position < sender_position
}

/// What a resend did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResendOutcome {
    /// Term bytes covered by what was sent, padding included (the *Retransmitted bytes*
    /// counter); a non-zero value also counts one *Retransmits sent*.
    pub bytes: usize,
    /// Datagrams sent.
    pub datagrams: usize,
    /// The socket took less than a whole datagram (count a *Short sends*).
    pub short_send: bool,
}

/// Sends `length` bytes of `term` from `term_offset` in MTU-sized datagrams through
/// `send`, up to [`MAX_BATCH`] at a time; `send` returns how many of a batch went whole.
pub fn resend_from_term(
    term: &AtomicBuffer,
    term_offset: usize,
    length: usize,
    mtu_length: usize,
    mut send: impl FnMut(&[&[u8]]) -> Result<usize>,
) -> Result<ResendOutcome> {
    let mut outcome = ResendOutcome::default();
    let mut offset = term_offset;
    let mut remaining = length;
    let mut batch: [&[u8]; MAX_BATCH] = [&[]; MAX_BATCH];
    let mut consumed = [0usize; MAX_BATCH];
    loop {
        let mut count = 0;
        let (mut scan_offset, mut scan_remaining) = (offset, remaining);
        while count < MAX_BATCH && scan_remaining > 0 {
            let (availability, run) = scan_published(term, scan_offset, scan_remaining.min(mtu_length));
            let Some(run) = run.filter(|_| availability.available > 0) else {
                break;
            };
            let available = availability.available as usize;
            // The frames whose lengths the scanner acquired.
            batch[count] = run.as_slice();
            consumed[count] = available + availability.padding as usize;
            scan_offset += consumed[count];
            scan_remaining = scan_remaining.saturating_sub(consumed[count]);
            count += 1;
        }
        if count == 0 {
            break;
        }
        let sent = send(&batch[..count])?.min(count);
        for &c in &consumed[..sent] {
            outcome.bytes += c;
            outcome.datagrams += 1;
            offset += c;
            remaining = remaining.saturating_sub(c);
        }
        if sent < count {
            outcome.short_send = true;
            break;
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbuffer::header_writer::HeaderWriter;
    use crate::logbuffer::term_appender::write_padding;

    fn frame(term: &AtomicBuffer, offset: usize, length: i32) {
        HeaderWriter::new(1, 2).write(term, offset, length, 0);
        term.put_i32_release(offset, length);
    }

    #[test]
    fn window_is_half_a_term_plus_a_max_message_behind() {
        // 64 KiB term: max message 8 KiB; window bottom = snd-pos − 32 KiB − 8 KiB.
        let snd = 100_000;
        assert!(is_in_resend_window(snd, snd - 1, 65536));
        assert!(!is_in_resend_window(snd, snd, 65536));
        assert!(is_in_resend_window(snd, snd - 32768 - 8192, 65536));
        assert!(!is_in_resend_window(snd, snd - 32768 - 8192 - 1, 65536));
    }

    #[test]
    fn resends_a_2112_byte_nak_as_two_datagrams() {
        // udp-loss.pcap: NAKs of 2112 bytes were answered with two 1056-byte datagrams.
        let term = AtomicBuffer::alloc(65536);
        for i in 0..4 {
            frame(&term, 23104 + i * 1056, 1032);
        }
        let mut datagrams = Vec::new();
        let outcome = resend_from_term(&term, 23104, 2112, 1408, |batch| {
            for d in batch {
                datagrams.push((d.len(), i32::from_le_bytes(d[8..12].try_into().unwrap())));
            }
            Ok(batch.len())
        })
        .unwrap();
        assert_eq!(outcome, ResendOutcome { bytes: 2112, datagrams: 2, short_send: false });
        assert_eq!(datagrams, vec![(1056, 23104), (1056, 24160)]);
        // Larger MTU: both frames fit one datagram.
        let one = resend_from_term(&term, 23104, 2112, 4096, |batch| Ok(batch.len())).unwrap();
        assert_eq!((one.bytes, one.datagrams), (2112, 1));
    }

    #[test]
    fn padding_ends_a_datagram_and_counts_in_full() {
        // As pkt 65: F56 at 64288 then PAD at 65344 (192 bytes): 1088 bytes on the wire.
        let term = AtomicBuffer::alloc(65536);
        frame(&term, 64288, 1032);
        write_padding(&term, &HeaderWriter::new(1, 2), 65344, 192, 0);
        let mut sizes = Vec::new();
        let outcome = resend_from_term(&term, 64288, 4096, 1408, |batch| {
            sizes.extend(batch.iter().map(|d| d.len()));
            Ok(batch.len())
        })
        .unwrap();
        assert_eq!(sizes, vec![1088]);
        assert_eq!(outcome, ResendOutcome { bytes: 1056 + 192, datagrams: 1, short_send: false });
    }

    #[test]
    fn stops_on_short_send_or_missing_data() {
        let term = AtomicBuffer::alloc(65536);
        frame(&term, 0, 1032);
        frame(&term, 1056, 1032);
        let short = resend_from_term(&term, 0, 2112, 1408, |_| Ok(0)).unwrap();
        assert_eq!(short, ResendOutcome { bytes: 0, datagrams: 0, short_send: true });
        let partial = resend_from_term(&term, 0, 8192, 1408, |batch| Ok(batch.len())).unwrap();
        assert_eq!((partial.bytes, partial.datagrams), (2112, 2));
        let none = resend_from_term(&term, 4096, 1056, 1408, |batch| Ok(batch.len())).unwrap();
        assert_eq!(none, ResendOutcome::default());
        // The socket takes the first of a batch only: one datagram resent, then short.
        let first = resend_from_term(&term, 0, 2112, 1408, |batch| Ok(batch.len().min(1))).unwrap();
        assert_eq!(first, ResendOutcome { bytes: 1056, datagrams: 1, short_send: true });
    }
}
