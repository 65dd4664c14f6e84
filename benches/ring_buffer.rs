//! Ring buffer throughput and one-way latency between two threads, 32-byte messages, beside
//! crossbeam's `ArrayQueue` of 32-byte items holding the same number of messages.
//!
//! `cargo bench --bench ring_buffer [-- SCALE]`: SCALE (default 1) multiplies the message
//! counts; the default run takes well under a minute (`cargo test` runs a 1/1000 smoke
//! version). Both threads busy-spin, yielding
//! only after a long spin, so an oversubscribed machine still makes progress.

use std::hint::{black_box, spin_loop};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, OneToOneRingBuffer, RingBuffer};
use crossbeam_queue::ArrayQueue;
use crossbeam_utils::CachePadded;
use hdrhistogram::Histogram;

const PAYLOAD: usize = 32;
const RING_CAPACITY: usize = 64 * 1024;
/// A 32-byte message takes 40 bytes in a ring buffer (8-byte header); an `ArrayQueue` slot
/// takes 40 too (8-byte stamp), so this many slots is the same memory and the same
/// number of messages in flight.
const QUEUE_SLOTS: usize = RING_CAPACITY / (PAYLOAD + 8);
const THROUGHPUT_MESSAGES: u64 = 4_000_000;
const THROUGHPUT_RUNS: usize = 7;
const LATENCY_MESSAGES: u64 = 1_500_000;
const LATENCY_RUNS: usize = 3;
/// Longest a latency run may take before it stops sending (a busy machine).
const LATENCY_RUN_LIMIT: Duration = Duration::from_secs(4);

/// Busy-spin, then yield: spinning is what a latency-sensitive consumer does, yielding
/// keeps the benchmark alive when the other thread has no core.
struct Idle(u32);

impl Idle {
    const SPINS: u32 = 1_000;

    #[inline]
    fn idle(&mut self) {
        if self.0 < Self::SPINS {
            self.0 += 1;
            spin_loop();
        } else {
            std::thread::yield_now();
        }
    }

    #[inline]
    fn reset(&mut self) {
        self.0 = 0;
    }
}

/// The two ends of a single-producer, single-consumer channel of 32-byte messages.
trait Channel: Send + Sync {
    fn name(&self) -> &'static str;
    /// Sends one message; false when full.
    fn send(&self, payload: &[u8; PAYLOAD]) -> bool;
    /// Delivers what is available; returns how many.
    fn receive(&self, on_message: &mut impl FnMut(&[u8])) -> usize;
}

struct Ring<R>(R, &'static str);

impl<R: RingBuffer> Channel for Ring<R> {
    fn name(&self) -> &'static str {
        self.1
    }

    #[inline]
    fn send(&self, payload: &[u8; PAYLOAD]) -> bool {
        self.0.write(1, payload).unwrap()
    }

    #[inline]
    fn receive(&self, on_message: &mut impl FnMut(&[u8])) -> usize {
        self.0.read(|_, p| on_message(p), usize::MAX).unwrap()
    }
}

struct Queue(ArrayQueue<[u8; PAYLOAD]>);

impl Channel for Queue {
    fn name(&self) -> &'static str {
        "crossbeam ArrayQueue"
    }

    #[inline]
    fn send(&self, payload: &[u8; PAYLOAD]) -> bool {
        self.0.push(*payload).is_ok()
    }

    #[inline]
    fn receive(&self, on_message: &mut impl FnMut(&[u8])) -> usize {
        let mut n = 0;
        while let Some(item) = self.0.pop() {
            on_message(&item);
            n += 1;
        }
        n
    }
}

fn channels() -> Vec<Arc<dyn ChannelDyn>> {
    vec![
        Arc::new(Ring(OneToOneRingBuffer::with_capacity(RING_CAPACITY).unwrap(), "one_to_one ring buffer")),
        Arc::new(Ring(ManyToOneRingBuffer::with_capacity(RING_CAPACITY).unwrap(), "many_to_one ring buffer")),
        Arc::new(Queue(ArrayQueue::new(QUEUE_SLOTS))),
    ]
}

/// Object-safe wrapper so the three channels can sit in one list; each benchmark loop runs
/// inside the concrete type's monomorphised code.
trait ChannelDyn: Send + Sync {
    fn name(&self) -> &'static str;
    fn throughput(&self, messages: u64) -> Duration;
    fn latency(&self, messages: u64) -> Histogram<u64>;
}

impl<C: Channel> ChannelDyn for C {
    fn name(&self) -> &'static str {
        Channel::name(self)
    }

    fn throughput(&self, messages: u64) -> Duration {
        std::thread::scope(|s| {
            let start = Instant::now();
            s.spawn(|| {
                let mut payload = [7u8; PAYLOAD];
                let mut idle = Idle(0);
                for seq in 0..messages {
                    payload[..8].copy_from_slice(&seq.to_le_bytes());
                    while !self.send(&payload) {
                        idle.idle();
                    }
                    idle.reset();
                }
            });
            let mut received = 0u64;
            let mut checksum = 0u64;
            let mut idle = Idle(0);
            while received < messages {
                let n = self.receive(&mut |p| {
                    checksum = checksum.wrapping_add(u64::from_le_bytes(p[..8].try_into().unwrap()))
                });
                if n == 0 {
                    idle.idle();
                } else {
                    idle.reset();
                }
                received += n as u64;
            }
            let elapsed = start.elapsed();
            assert_eq!(
                checksum,
                messages * (messages - 1) / 2,
                "{}: lost or duplicated",
                Channel::name(self)
            );
            elapsed
        })
    }

    /// One message in flight at a time: the producer stamps a message, sends it, and sends
    /// the next only once the consumer has taken this one, so each sample is one hand-off
    /// and a stall on the machine spoils only the samples it overlaps.
    fn latency(&self, messages: u64) -> Histogram<u64> {
        let origin = Instant::now();
        let consumed = CachePadded::new(AtomicU64::new(0));
        // How many the producer sent; it stops early past LATENCY_RUN_LIMIT on a busy machine.
        let sent_total = CachePadded::new(AtomicU64::new(u64::MAX));
        let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut payload = [0u8; PAYLOAD];
                let mut idle = Idle(0);
                let mut sent = 0;
                while sent < messages && !(sent % 1024 == 0 && origin.elapsed() > LATENCY_RUN_LIMIT) {
                    // Acquire: pairs with the consumer's release after it took the message.
                    while consumed.load(Ordering::Acquire) < sent {
                        idle.idle();
                    }
                    idle.reset();
                    let sent_at = origin.elapsed().as_nanos() as u64;
                    payload[..8].copy_from_slice(&sent_at.to_le_bytes());
                    while !self.send(&payload) {
                        idle.idle();
                    }
                    sent += 1;
                }
                sent_total.store(sent, Ordering::Release);
            });
            let mut received = 0u64;
            let mut idle = Idle(0);
            while received < sent_total.load(Ordering::Acquire) {
                let n = self.receive(&mut |p| {
                    let now = origin.elapsed().as_nanos() as u64;
                    let sent_at = u64::from_le_bytes(p[..8].try_into().unwrap());
                    histogram.saturating_record(now.saturating_sub(sent_at).max(1));
                });
                if n == 0 {
                    idle.idle();
                } else {
                    idle.reset();
                    received += n as u64;
                    consumed.store(received, Ordering::Release);
                }
            }
        });
        histogram
    }
}

/// `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it,
/// and then a quick smoke run checks the benchmark still works.
fn scale_from_args() -> f64 {
    if !std::env::args().any(|a| a == "--bench") {
        return 0.001;
    }
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .find_map(|a| a.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(1.0)
}

fn main() {
    let scale = scale_from_args();
    let throughput_messages = ((THROUGHPUT_MESSAGES as f64 * scale) as u64).max(1000);
    let latency_messages = ((LATENCY_MESSAGES as f64 * scale) as u64).max(1000);
    let started = Instant::now();
    let channels = channels();

    println!(
        "throughput: {PAYLOAD}-byte messages, 1 producer thread -> 1 consumer thread, \
         {throughput_messages} messages, best and median of {THROUGHPUT_RUNS} runs"
    );
    println!("ring capacity {RING_CAPACITY} bytes; ArrayQueue {QUEUE_SLOTS} slots");
    // Runs are interleaved across the channels so a busy spell on the machine hits all of
    // them alike; the best run is the least disturbed one.
    for channel in &channels {
        channel.throughput(throughput_messages / 10);
    }
    let mut rates = vec![Vec::new(); channels.len()];
    for _ in 0..THROUGHPUT_RUNS {
        for (channel, rates) in channels.iter().zip(&mut rates) {
            rates.push(throughput_messages as f64 / channel.throughput(throughput_messages).as_secs_f64());
        }
    }
    for (channel, rates) in channels.iter().zip(&mut rates) {
        rates.sort_by(|a, b| b.total_cmp(a));
        println!(
            "  {:<26} best {:>7.2} M msgs/s   median {:>7.2} M msgs/s",
            channel.name(),
            rates[0] / 1e6,
            rates[THROUGHPUT_RUNS / 2] / 1e6
        );
    }

    println!(
        "\none-way latency: {latency_messages} messages, one in flight at a time, {LATENCY_RUNS} interleaved runs (ns)"
    );
    println!("  {:<26} {:>8} {:>8} {:>8} {:>10} {:>10}", "", "p50", "p99", "p99.9", "max", "samples");
    for channel in &channels {
        channel.latency(latency_messages / 10);
    }
    let mut histograms: Vec<Histogram<u64>> =
        channels.iter().map(|c| c.latency(latency_messages / LATENCY_RUNS as u64)).collect();
    for _ in 1..LATENCY_RUNS {
        for (channel, h) in channels.iter().zip(&mut histograms) {
            h.add(channel.latency(latency_messages / LATENCY_RUNS as u64)).unwrap();
        }
    }
    for (channel, h) in channels.iter().zip(&histograms) {
        println!(
            "  {:<26} {:>8} {:>8} {:>8} {:>10} {:>10}",
            channel.name(),
            h.value_at_quantile(0.5),
            h.value_at_quantile(0.99),
            h.value_at_quantile(0.999),
            h.max(),
            h.len()
        );
    }
    black_box(&channels);
    println!("\ntotal {:.1} s (scale {scale})", started.elapsed().as_secs_f64());
}
