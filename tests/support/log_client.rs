//! Minimal publication and image over mapped log buffers, for driver tests that need to put
//! messages through the driver without a full client: `offer` appends as a concurrent
//! publication does (limit check, term rotation), `poll` reads as an image does (fragment
//! reassembly, subscriber position).
#![allow(dead_code)]

use std::path::Path;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::logbuffer::{
    AppendOutcome, FragmentAssembler, Header, HeaderWriter, LogBuffers, TermAppender, term_reader,
};

pub const BACK_PRESSURED: i64 = -2;
pub const NOT_CONNECTED: i64 = -1;

/// A concurrent publication's writing side.
pub struct TestPublication {
    pub log: LogBuffers,
    appenders: Vec<TermAppender>,
    header: HeaderWriter,
    limit: AtomicBuffer,
    max_payload: usize,
}

impl TestPublication {
    /// Maps the publication's log; `limit_counter_id` is from ON_PUBLICATION_READY.
    pub fn map(log_file: &str, counters_values: &AtomicBuffer, limit_counter_id: i32) -> Self {
        let log = LogBuffers::map_existing(Path::new(log_file)).unwrap();
        let meta = log.metadata().clone();
        let appenders =
            (0..3).map(|i| TermAppender::new(log.term(i).clone(), meta.clone(), i).unwrap()).collect();
        let header_bytes = d::default_frame_header(&meta);
        let session_id = i32::from_le_bytes(header_bytes[12..16].try_into().unwrap());
        let stream_id = i32::from_le_bytes(header_bytes[16..20].try_into().unwrap());
        let limit = counters_values.view(limit_counter_id as usize * 128, 8).unwrap();
        let max_payload = d::mtu_length(&meta) as usize - 32;
        Self { log, appenders, header: HeaderWriter::new(session_id, stream_id), limit, max_payload }
    }

    pub fn is_connected(&self) -> bool {
        d::is_connected(self.log.metadata())
    }

    pub fn position(&self) -> i64 {
        let meta = self.log.metadata();
        let count = d::active_term_count(meta);
        let raw = d::raw_tail_volatile(meta, d::index_by_term_count(count.into()));
        let bits = d::position_bits_to_shift(self.log.term_length());
        d::compute_position(
            d::term_id(raw),
            d::term_offset(raw, self.log.term_length()),
            bits,
            d::initial_term_id(meta),
        )
    }

    /// New position, or NOT_CONNECTED / BACK_PRESSURED (rotations are retried inside).
    pub fn offer(&self, message: &[u8]) -> i64 {
        let meta = self.log.metadata();
        let bits = d::position_bits_to_shift(self.log.term_length());
        let initial = d::initial_term_id(meta);
        loop {
            let limit = self.limit.get_i64_acquire(0);
            let term_count = d::active_term_count(meta);
            let index = d::index_by_term_count(term_count.into());
            let raw = d::raw_tail_volatile(meta, index);
            let term_id = d::term_id(raw);
            let position =
                d::compute_position(term_id, d::term_offset(raw, self.log.term_length()), bits, initial);
            if position >= limit {
                return if self.is_connected() { BACK_PRESSURED } else { NOT_CONNECTED };
            }
            match self.appenders[index]
                .append(&self.header, message, self.max_payload, None, term_id)
                .unwrap()
            {
                AppendOutcome::Appended { term_id, resulting_offset, .. } => {
                    return d::compute_position(term_id, resulting_offset, bits, initial);
                }
                _ => {
                    d::rotate_log(meta, term_count, term_id);
                }
            }
        }
    }
}

/// What the image hands each whole message to.
type MessageHandler = Box<dyn FnMut(&[u8], &Header)>;

/// An image's reading side: whole messages, in order, moving the subscriber position.
pub struct TestImage {
    pub log: LogBuffers,
    position: AtomicBuffer,
    header: Header,
    assembler: FragmentAssembler<MessageHandler>,
    pub received: std::rc::Rc<std::cell::RefCell<Vec<Vec<u8>>>>,
}

impl TestImage {
    pub fn map(log_file: &str, counters_values: &AtomicBuffer, position_counter_id: i32) -> Self {
        let log = LogBuffers::map_existing(Path::new(log_file)).unwrap();
        let meta = log.metadata();
        let header = Header::new(d::initial_term_id(meta), d::position_bits_to_shift(log.term_length()));
        let position = counters_values.view(position_counter_id as usize * 128, 8).unwrap();
        let received = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = std::rc::Rc::clone(&received);
        let handler: MessageHandler =
            Box::new(move |m: &[u8], _: &Header| sink.borrow_mut().push(m.to_vec()));
        Self { log, position, header, assembler: FragmentAssembler::new(handler), received }
    }

    pub fn position(&self) -> i64 {
        self.position.get_i64_acquire(0)
    }

    /// Reads up to `limit` fragments; returns how many.
    pub fn poll(&mut self, limit: usize) -> usize {
        let position = self.position();
        let bits = d::position_bits_to_shift(self.log.term_length());
        let term = self.log.term(d::index_by_position(position, bits));
        let offset = (position & (self.log.term_length() as i64 - 1)) as usize;
        let assembler = &mut self.assembler;
        let outcome =
            term_reader::read(term, offset, limit, &mut self.header, |p, h| assembler.on_fragment(p, h));
        let new_position = position + (outcome.offset - offset) as i64;
        if new_position > position {
            self.position.put_i64_release(0, new_position);
        }
        outcome.fragments_read
    }

    /// Whether everything up to the end-of-stream position was read.
    pub fn is_end_of_stream(&self) -> bool {
        self.position() >= d::end_of_stream_position(self.log.metadata())
    }
}
