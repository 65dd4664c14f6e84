//! Arbitrary bytes as a term of a log buffer: the term reader (plain and controlled), the
//! fragment assemblers, the term scanner, the gap scanner and the unblocker must never
//! panic or read outside the term, whatever the frame lengths, types and flags say.
#![no_main]

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::logbuffer::descriptor::{LOG_META_DATA_LENGTH, TERM_MIN_LENGTH};
use aeronrs::logbuffer::term_unblocker::unblock;
use aeronrs::logbuffer::{
    ControlledFragmentAssembler, ControlledPollAction, FragmentAssembler, Header, term_gap_scanner, term_reader,
    term_scanner,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks a start offset (32-byte aligned) and a controlled action pattern.
    let Some((&selector, bytes)) = data.split_first() else { return };
    let term = AtomicBuffer::alloc(TERM_MIN_LENGTH);
    term.store_bytes(0, &bytes[..bytes.len().min(TERM_MIN_LENGTH)]);
    let start = (usize::from(selector) * 32) % TERM_MIN_LENGTH;

    let mut delivered = 0usize;
    let mut assembler = FragmentAssembler::new(|p: &[u8], h: &Header| {
        delivered += p.len();
        let _ = h.position();
    });
    let mut header = Header::new(0, 16);
    let mut offset = start;
    loop {
        let outcome = term_reader::read(&term, offset, 16, &mut header, |p, h| assembler.on_fragment(p, h));
        assert!(outcome.offset <= TERM_MIN_LENGTH);
        if outcome.offset == offset {
            break;
        }
        offset = outcome.offset;
    }

    let mut calls = 0u32;
    let mut controlled = ControlledFragmentAssembler::new(|_: &[u8], h: &Header| {
        calls += 1;
        let _ = h.position();
        match (u32::from(selector) + calls) % 4 {
            0 => ControlledPollAction::Abort,
            1 => ControlledPollAction::Break,
            2 => ControlledPollAction::Commit,
            _ => ControlledPollAction::Continue,
        }
    });
    let mut offset = start;
    for _ in 0..64 {
        let outcome =
            term_reader::controlled_read(&term, offset, 8, &mut header, |p, h| controlled.on_fragment(p, h), |o| {
                assert!(o <= TERM_MIN_LENGTH)
            });
        offset = outcome.offset;
    }

    let scan = term_scanner::scan_for_availability(&term, start, 1408);
    assert!(scan.available.unsigned_abs() as usize <= TERM_MIN_LENGTH - start);
    term_gap_scanner::scan_for_gap(&term, 0, start, TERM_MIN_LENGTH, |_, o, l| assert!(o + l <= TERM_MIN_LENGTH));

    let metadata = AtomicBuffer::alloc(LOG_META_DATA_LENGTH);
    let tail = usize::from(bytes.first().copied().unwrap_or(0)) * 256;
    let _ = unblock(&metadata, &term, start, tail, 7);
});
