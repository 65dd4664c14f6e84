//! A throughput cell: publisher threads offer to every stream in turn as fast as they can,
//! each subscriber thread polls every stream and receives every message. Each message is
//! stamped with its publisher, stream and sequence number; every subscriber checks that it
//! sees each publisher's messages on each stream once and in order, and at the end that it
//! saw all of them.

use std::cell::Cell as StdCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, ExclusivePublication, FragmentAssembler, Header, NOT_CONNECTED,
    Publication, Subscription,
};
use aeronrs::concurrent::counters::type_ids::SYSTEM_COUNTER_TYPE_ID;
use crossbeam_utils::CachePadded;

use crate::cell::{Cell, Endpoints, Sharing};
use crate::client_support::wait_until;

/// Bytes at the start of each message: publisher (u32), stream (u32), sequence (u64).
pub const STAMP_LENGTH: usize = 16;
const STREAM_ID_BASE: i32 = 2000;
/// As the Java samples poll.
const FRAGMENT_LIMIT: usize = 10;
/// How long subscribers may take to drain what was sent once the publishers stopped.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);

/// Spins a little, then yields: more threads than cores must not starve each other.
struct Backoff(u32);

impl Backoff {
    #[inline]
    fn idle(&mut self) {
        self.0 += 1;
        if self.0 < 64 { std::hint::spin_loop() } else { std::thread::yield_now() }
    }
}

/// One publisher thread's publication to one stream. A thread holds one per stream, so the
/// size does not matter; boxing the exclusive one would add a pointer chase to every offer.
#[allow(clippy::large_enum_variant)]
pub enum Sender {
    Concurrent(Arc<Publication>),
    Exclusive(ExclusivePublication),
}

impl Sender {
    fn is_connected(&self) -> bool {
        match self {
            Self::Concurrent(p) => p.is_connected(),
            Self::Exclusive(p) => p.is_connected(),
        }
    }

    #[inline]
    fn offer(&mut self, message: &[u8]) -> i64 {
        let result = match self {
            Self::Concurrent(p) => p.offer(message),
            Self::Exclusive(p) => p.offer(message),
        }
        .expect("offer");
        assert!(
            result > 0 || matches!(result, BACK_PRESSURED | ADMIN_ACTION | NOT_CONNECTED),
            "offer: {result}"
        );
        result
    }
}

/// `senders[publisher][stream]`: what each publisher thread offers to.
fn add_publications(aeron: &Aeron, cell: &Cell, endpoints: &Endpoints) -> Vec<Vec<Sender>> {
    let stream_id = |s: usize| STREAM_ID_BASE + s as i32;
    let channel = cell.channel(endpoints, 0);
    if cell.sharing == Sharing::Shared {
        let shared: Vec<Arc<Publication>> = (0..cell.streams)
            .map(|s| Arc::new(aeron.add_publication(&channel, stream_id(s)).expect("publication")))
            .collect();
        return (0..cell.publishers)
            .map(|_| shared.iter().cloned().map(Sender::Concurrent).collect())
            .collect();
    }
    (0..cell.publishers)
        .map(|_| {
            (0..cell.streams)
                .map(|s| {
                    let publication =
                        aeron.add_exclusive_publication(&channel, stream_id(s)).expect("publication");
                    Sender::Exclusive(publication)
                })
                .collect()
        })
        .collect()
}

/// Offers stamped messages to each stream in turn until told to stop; returns how many it
/// sent to each stream.
fn publish(publisher: usize, mut senders: Vec<Sender>, length: usize, running: &AtomicBool) -> Vec<u64> {
    let mut message = vec![0xA5u8; length];
    message[..4].copy_from_slice(&(publisher as u32).to_le_bytes());
    let mut sent = vec![0u64; senders.len()];
    'run: while running.load(Ordering::Relaxed) {
        for (stream, sender) in senders.iter_mut().enumerate() {
            message[4..8].copy_from_slice(&(stream as u32).to_le_bytes());
            message[8..16].copy_from_slice(&sent[stream].to_le_bytes());
            let mut backoff = Backoff(0);
            while sender.offer(&message) < 0 {
                if !running.load(Ordering::Relaxed) {
                    break 'run;
                }
                backoff.idle();
            }
            sent[stream] += 1;
        }
    }
    sent
}

/// What one subscriber shares with the main thread.
struct Progress {
    /// Messages received so far, stored after each round of polls.
    received: CachePadded<AtomicU64>,
}

/// Polls every stream until told how many messages to expect (`u64::MAX` until then) and
/// they are all in; returns the next expected sequence of each `[stream][publisher]`.
fn subscribe(
    mut subscriptions: Vec<Subscription>,
    publishers: usize,
    length: usize,
    progress: &Progress,
    expected_total: &AtomicU64,
) -> Vec<u64> {
    let next: Vec<StdCell<u64>> = (0..subscriptions.len() * publishers).map(|_| StdCell::new(0)).collect();
    let received = StdCell::new(0u64);
    let on_message = |message: &[u8], _: &Header| {
        assert_eq!(message.len(), length, "message length");
        let publisher = u32::from_le_bytes(message[..4].try_into().unwrap()) as usize;
        let stream = u32::from_le_bytes(message[4..8].try_into().unwrap()) as usize;
        let sequence = u64::from_le_bytes(message[8..16].try_into().unwrap());
        let slot = &next[stream * publishers + publisher];
        assert_eq!(
            sequence,
            slot.get(),
            "stream {stream} publisher {publisher}: message out of order or repeated"
        );
        slot.set(sequence + 1);
        received.set(received.get() + 1);
    };
    let mut assemblers: Vec<_> = subscriptions.iter().map(|_| FragmentAssembler::new(&on_message)).collect();
    let mut backoff = Backoff(0);
    let mut drain_deadline = None;
    loop {
        let mut fragments = 0;
        for (subscription, assembler) in subscriptions.iter_mut().zip(assemblers.iter_mut()) {
            fragments += subscription.poll(|p, h| assembler.on_fragment(p, h), FRAGMENT_LIMIT);
        }
        // Relaxed: the main thread only samples the count for the rate.
        progress.received.store(received.get(), Ordering::Relaxed);
        if fragments > 0 {
            backoff.0 = 0;
            continue;
        }
        // Acquire pairs with the main thread's Release store after the publishers stopped.
        let expected = expected_total.load(Ordering::Acquire);
        if expected != u64::MAX {
            if received.get() >= expected {
                break;
            }
            let deadline = *drain_deadline.get_or_insert_with(|| Instant::now() + DRAIN_TIMEOUT);
            assert!(Instant::now() < deadline, "only {} of {expected} messages arrived", received.get());
        }
        backoff.idle();
    }
    drop(assemblers);
    next.iter().map(StdCell::get).collect()
}

/// Runs the cell; returns messages per second each subscriber received in the measured part.
pub fn run(aeron: &Arc<Aeron>, cell: &Cell) -> f64 {
    let endpoints = Endpoints::new();
    let channel = cell.channel(&endpoints, 0);
    let subscriptions: Vec<Vec<Subscription>> = (0..cell.subscribers)
        .map(|_| {
            (0..cell.streams)
                .map(|s| aeron.add_subscription(&channel, STREAM_ID_BASE + s as i32).expect("subscription"))
                .collect()
        })
        .collect();
    let senders = add_publications(aeron, cell, &endpoints);
    let images_per_stream = if cell.sharing == Sharing::Shared { 1 } else { cell.publishers };
    wait_until(Duration::from_secs(60), "every image at every subscriber", || {
        subscriptions.iter().flatten().all(|s| s.image_count() == images_per_stream)
            && senders.iter().flatten().all(Sender::is_connected)
    });

    let running = Arc::new(AtomicBool::new(true));
    let expected_total = Arc::new(AtomicU64::new(u64::MAX));
    let progress: Vec<Arc<Progress>> = (0..cell.subscribers)
        .map(|_| Arc::new(Progress { received: CachePadded::new(AtomicU64::new(0)) }))
        .collect();
    let subscribers: Vec<_> = subscriptions
        .into_iter()
        .zip(&progress)
        .enumerate()
        .map(|(i, (subscriptions, progress))| {
            let (progress, expected_total) = (Arc::clone(progress), Arc::clone(&expected_total));
            let (publishers, length) = (cell.publishers, cell.length);
            std::thread::Builder::new()
                .name(format!("subscriber-{i}"))
                .spawn(move || subscribe(subscriptions, publishers, length, &progress, &expected_total))
                .unwrap()
        })
        .collect();
    let publishers: Vec<_> = senders
        .into_iter()
        .enumerate()
        .map(|(p, senders)| {
            let (running, length) = (Arc::clone(&running), cell.length);
            std::thread::Builder::new()
                .name(format!("publisher-{p}"))
                .spawn(move || publish(p, senders, length, &running))
                .unwrap()
        })
        .collect();

    let received = || progress.iter().map(|p| p.received.load(Ordering::Relaxed)).sum::<u64>();
    // The first fifth (at most a second) warms up: page faults, JIT-free but cold caches.
    std::thread::sleep(Duration::from_secs_f64((cell.seconds / 5.0).min(1.0)));
    let (start, start_count) = (Instant::now(), received());
    std::thread::sleep(Duration::from_secs_f64(cell.seconds - (cell.seconds / 5.0).min(1.0)));
    let (end, end_count) = (Instant::now(), received());
    running.store(false, Ordering::Relaxed);

    let sent: Vec<Vec<u64>> = publishers.into_iter().map(|p| p.join().expect("publisher")).collect();
    let total: u64 = sent.iter().flatten().sum();
    expected_total.store(total, Ordering::Release);
    for subscriber in subscribers {
        let next = match subscriber.join() {
            Ok(next) => next,
            Err(panic) => {
                // What the driver did (NAKs, retransmits, short sends) says why.
                print_system_counters(aeron);
                std::panic::resume_unwind(panic)
            }
        };
        for (p, sent) in sent.iter().enumerate() {
            for (s, &count) in sent.iter().enumerate() {
                assert_eq!(
                    next[s * cell.publishers + p],
                    count,
                    "stream {s} publisher {p}: every message arrives"
                );
            }
        }
    }
    if cell.transport == crate::cell::Transport::Udp {
        print_system_counters(aeron);
    }
    (end_count - start_count) as f64 / cell.subscribers as f64 / (end - start).as_secs_f64()
}

/// The driver's system counters that are not zero, one `COUNTER name value` line each.
fn print_system_counters(aeron: &Aeron) {
    aeron.counters_reader().for_each_counter(|record| {
        if record.type_id == SYSTEM_COUNTER_TYPE_ID && record.value != 0 {
            println!("COUNTER {} {}", record.label(), record.value);
        }
    });
}
