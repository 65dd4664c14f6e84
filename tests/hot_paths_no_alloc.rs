//! The hot paths DESIGN.md promises never allocate (ring buffer write/read, broadcast
//! transmit/receive, term appenders, term reader, the fragment assembler's unfragmented
//! path), checked with a global allocator that counts the allocations of the calling
//! thread only (the harness runs other tests on other threads at the same time).
//!
//! Each case sets up and warms up first (a first call may size a scratch buffer once), then
//! asserts that many further operations allocate nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::broadcast::descriptor::TRAILER_LENGTH;
use aeronrs::concurrent::broadcast::{BroadcastReceiver, BroadcastTransmitter, CopyBroadcastReceiver};
use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, OneToOneRingBuffer, RingBuffer};
use aeronrs::logbuffer::descriptor::initialise_tails;
use aeronrs::logbuffer::term_reader;
use aeronrs::logbuffer::{
    ControlledFragmentAssembler, ControlledPollAction, ExclusiveTermAppender, FragmentAssembler, Header,
    HeaderWriter, LogBuffers, TermAppender,
};

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is a
// const-initialised thread local, so touching it never allocates or re-enters.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: as for `dealloc`; the new size is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations made by this thread while `f` runs.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

const ROUNDS: usize = 10_000;

fn ring_buffer_round_trips(rb: &impl RingBuffer) -> usize {
    let payload = [7u8; 100];
    let mut received = 0usize;
    let allocations = allocations_during(|| {
        for _ in 0..ROUNDS {
            assert!(rb.write(1, &payload).unwrap());
            let index = rb.try_claim(2, 16).unwrap().unwrap();
            rb.buffer().store_bytes(index, &[1; 16]);
            rb.commit(index).unwrap();
            received += rb.read(|_, p| assert!(p.len() == 100 || p.len() == 16), usize::MAX).unwrap();
            received += rb
                .controlled_read(|_, _| aeronrs::concurrent::ring_buffer::ControlledReadAction::Continue, 10)
                .unwrap();
        }
    });
    assert_eq!(received, 2 * ROUNDS);
    allocations
}

#[test]
fn ring_buffers_write_claim_and_read_without_allocating() {
    let many = ManyToOneRingBuffer::with_capacity(64 * 1024).unwrap();
    assert_eq!(ring_buffer_round_trips(&many), 0, "many-to-one");
    let one = OneToOneRingBuffer::with_capacity(64 * 1024).unwrap();
    assert_eq!(ring_buffer_round_trips(&one), 0, "one-to-one");
}

#[test]
fn broadcast_transmit_and_receive_without_allocating() {
    let buffer = AtomicBuffer::alloc(64 * 1024 + TRAILER_LENGTH);
    let mut transmitter = BroadcastTransmitter::new(buffer.clone()).unwrap();
    let mut copy_receiver = CopyBroadcastReceiver::new(BroadcastReceiver::new(buffer.clone()).unwrap());
    let mut receiver = BroadcastReceiver::new(buffer).unwrap();
    let payload = [3u8; 200];
    let mut scratch = [0u8; 200];
    let mut received = 0;
    let allocations = allocations_during(|| {
        for _ in 0..ROUNDS {
            transmitter.transmit(0x0F01, &payload).unwrap();
            received += copy_receiver.receive(|_, p| assert_eq!(p.len(), 200)).unwrap();
            assert!(receiver.receive_next());
            receiver.copy_payload(&mut scratch).unwrap();
            assert!(receiver.validate());
        }
    });
    assert_eq!(received, ROUNDS);
    assert_eq!(allocations, 0);
}

#[test]
fn term_appenders_and_reader_without_allocating() {
    let term_length = 1 << 20;
    let log = LogBuffers::alloc(term_length, 4096).unwrap();
    initialise_tails(log.metadata(), 0, 0, 0).unwrap();
    let header = HeaderWriter::new(1, 9);
    let payload = [5u8; 64];
    let appender = TermAppender::new(log.term(0).clone(), log.metadata().clone(), 0).unwrap();
    let frames = 1000;
    let allocations = allocations_during(|| {
        for _ in 0..frames {
            appender.append(&header, &payload, 1376, None, 0).unwrap().resulting_offset().unwrap();
        }
    });
    assert_eq!(allocations, 0, "concurrent appender");

    let exclusive_log = LogBuffers::alloc(term_length, 4096).unwrap();
    initialise_tails(exclusive_log.metadata(), 0, 0, 0).unwrap();
    let mut exclusive =
        ExclusiveTermAppender::new(exclusive_log.term(0).clone(), exclusive_log.metadata().clone(), 0)
            .unwrap();
    let mut term_offset = 0;
    let allocations = allocations_during(|| {
        for _ in 0..frames {
            let outcome = exclusive.append(&header, 0, term_offset, &payload, 1376, None).unwrap();
            term_offset = outcome.resulting_offset().unwrap();
        }
    });
    assert_eq!(allocations, 0, "exclusive appender");

    let mut reader_header = Header::new(0, term_length.trailing_zeros());
    let mut delivered = 0;
    let mut assembler = FragmentAssembler::new(|p: &[u8], _: &Header| {
        assert_eq!(p.len(), 64);
        delivered += 1;
    });
    let allocations = allocations_during(|| {
        let outcome = term_reader::read(log.term(0), 0, usize::MAX, &mut reader_header, |p, h| {
            assembler.on_fragment(p, h)
        });
        assert_eq!(outcome.fragments_read, frames);
    });
    drop(assembler);
    assert_eq!((allocations, delivered), (0, frames), "term reader + fragment assembler");

    let mut controlled =
        ControlledFragmentAssembler::new(|_: &[u8], _: &Header| ControlledPollAction::Continue);
    let allocations = allocations_during(|| {
        let outcome = term_reader::controlled_read(
            exclusive_log.term(0),
            0,
            usize::MAX,
            &mut reader_header,
            |p, h| controlled.on_fragment(p, h),
            |_| {},
        );
        assert_eq!(outcome.fragments_read, frames);
    });
    assert_eq!(allocations, 0, "controlled read + controlled assembler");
}

#[test]
fn the_counter_sees_this_threads_allocations() {
    let allocations = allocations_during(|| {
        std::hint::black_box(Vec::<u8>::with_capacity(16));
    });
    assert_eq!(allocations, 1, "otherwise the zero counts above prove nothing");
}

#[test]
fn batched_udp_send_and_receive_without_allocating() {
    use aeronrs::driver::media::transport_poller::TransportPoller;
    use aeronrs::driver::media::udp_transport::{SocketBuffers, UdpIo, UdpTransport};
    let buffers = SocketBuffers { so_sndbuf: 4 << 20, so_rcvbuf: 4 << 20 };
    let open = || {
        let t = UdpTransport::bind("127.0.0.1:0".parse().unwrap(), buffers).unwrap();
        t.configure_io(UdpIo::default());
        t
    };
    let (sender, receiver) = (open(), open());
    let dest = receiver.local_addr();
    let mut poller = TransportPoller::new(16, None);
    poller.add(receiver);
    let (datagrams, last) = ([[3u8; 1408]; 15], [4u8; 100]);
    let batch: Vec<&[u8]> = datagrams.iter().map(|d| &d[..]).chain([&last[..]]).collect();
    let (mut sent, mut received) = (0usize, 0usize);
    let mut round = || {
        sent += sender.send_batch(&batch, Some(dest)).unwrap();
        for _ in 0..1000 {
            received +=
                poller.poll(|_, _, d, _, _| assert!(d.len() == 1408 || d.len() == 100)).unwrap().messages;
            if received >= sent {
                break;
            }
            std::thread::yield_now();
        }
    };
    round();
    let allocations = allocations_during(|| (0..200).for_each(|_| round()));
    assert!(sent >= 201 * 16 / 2, "sent {sent}");
    assert_eq!(allocations, 0, "send_batch and the poller's batched receive allocate nothing");
}
