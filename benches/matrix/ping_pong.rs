//! A ping-pong cell: the main thread sends a message stamped with a sequence number and the
//! send time, a pong thread echoes it on a second stream (and, over UDP, a second port), and
//! the round trip goes into an HdrHistogram. Runs for the cell's time after a warm-up of a
//! fifth of it (at most a second); every echo must be the ping just sent.

use std::cell::Cell as StdCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, FragmentAssembler, Header, Subscription};
use aeronrs::util::clock::nano_time;
use hdrhistogram::Histogram;

use crate::bench_support::Sender;
use crate::cell::{Cell, Endpoints};
use crate::client_support::wait_until;

const PING_STREAM_ID: i32 = 3001;
const PONG_STREAM_ID: i32 = 3002;
const FRAGMENT_LIMIT: usize = 10;

fn pong(aeron: Arc<Aeron>, ping_channel: String, mut pongs: Sender, running: Arc<AtomicBool>) {
    let mut pings = aeron.add_subscription(&ping_channel, PING_STREAM_ID).expect("ping subscription");
    let mut assembler = FragmentAssembler::new(|message: &[u8], _: &Header| {
        pongs.send(message);
    });
    while running.load(Ordering::Relaxed) {
        if pings.poll(|p, h| assembler.on_fragment(p, h), FRAGMENT_LIMIT) == 0 {
            std::hint::spin_loop();
        }
    }
}

/// Round trips until `until`; each recorded when `histogram` is given.
fn round_trips(
    cell: &Cell,
    pings: &mut Sender,
    pongs: &mut Subscription,
    sequence: &mut u64,
    until: Instant,
    mut histogram: Option<&mut Histogram<u64>>,
) {
    let mut message = vec![0x5Au8; cell.length];
    // (sequence, send time) of the echo once it is whole.
    let echoed = StdCell::new(None);
    let mut assembler = FragmentAssembler::new(|echo: &[u8], _: &Header| {
        assert_eq!(echo.len(), cell.length, "echo length");
        let sequence = u64::from_le_bytes(echo[..8].try_into().unwrap());
        echoed.set(Some((sequence, i64::from_le_bytes(echo[8..16].try_into().unwrap()))));
    });
    // The clock is read for the end of the run once per 64 round trips.
    while *sequence % 64 != 0 || Instant::now() < until {
        message[..8].copy_from_slice(&sequence.to_le_bytes());
        message[8..16].copy_from_slice(&nano_time().to_le_bytes());
        pings.send(&message);
        let (echo_sequence, sent) = loop {
            if pongs.poll(|p, h| assembler.on_fragment(p, h), FRAGMENT_LIMIT) == 0 {
                std::hint::spin_loop();
            }
            if let Some(echo) = echoed.take() {
                break echo;
            }
        };
        assert_eq!(echo_sequence, *sequence, "the pong is the ping just sent");
        if let Some(histogram) = histogram.as_deref_mut() {
            histogram.saturating_record((nano_time() - sent) as u64);
        }
        *sequence += 1;
    }
}

/// Runs the cell; returns (round trips per second, the histogram of round trips in ns).
pub fn run(aeron: &Arc<Aeron>, cell: &Cell) -> (f64, Histogram<u64>) {
    let endpoints = Endpoints::new();
    let (ping_channel, pong_channel) = (cell.channel(&endpoints, 0), cell.channel(&endpoints, 1));
    let mut pongs = aeron.add_subscription(&pong_channel, PONG_STREAM_ID).expect("pong subscription");
    let mut pings = Sender::add(aeron, &ping_channel, PING_STREAM_ID, cell.exclusive);
    let running = Arc::new(AtomicBool::new(true));
    let ponger = {
        let echo = Sender::add(aeron, &pong_channel, PONG_STREAM_ID, cell.exclusive);
        let (aeron, running) = (Arc::clone(aeron), Arc::clone(&running));
        std::thread::Builder::new()
            .name("pong".into())
            .spawn(move || pong(aeron, ping_channel, echo, running))
            .unwrap()
    };
    wait_until(Duration::from_secs(60), "ping and pong connected", || {
        pings.is_connected() && pongs.image_count() == 1
    });
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).expect("histogram");
    let warmup = Duration::from_secs_f64((cell.seconds / 5.0).min(1.0));
    let mut sequence = 0;
    round_trips(cell, &mut pings, &mut pongs, &mut sequence, Instant::now() + warmup, None);
    let (start, first) = (Instant::now(), sequence);
    let until = start + Duration::from_secs_f64(cell.seconds) - warmup;
    round_trips(cell, &mut pings, &mut pongs, &mut sequence, until, Some(&mut histogram));
    let elapsed = start.elapsed();
    running.store(false, Ordering::Relaxed);
    ponger.join().expect("pong thread");
    assert_eq!(histogram.len(), sequence - first, "every round trip recorded once");
    ((sequence - first) as f64 / elapsed.as_secs_f64(), histogram)
}
