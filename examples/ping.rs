//! Round-trip latency, the Rust twin of `examples-c/ping.c` (same options, loop and
//! output): timestamped pings on an exclusive publication, each sent once the previous pong
//! (echoed by `pong`) arrived on the pong image, both sides busy-spinning; prints the
//! percentiles after a warm-up. `scripts/perf-c.sh` runs it beside the C sample.
//!
//! `cargo run --release --example ping -- [-C uri] [-c uri] [-L length] [-m messages]
//! [-p aeron-dir] [-S stream-id] [-s stream-id] [-w warm-up messages]`

#[path = "sample_util/mod.rs"]
mod sample_util;

use std::cell::Cell;

use aeronrs::client::{CLOSED, ExclusivePublication, FragmentAssembler, Header, Image};
use aeronrs::util::clock::nano_time;
use sample_util::*;

const USAGE: &str =
    "[-h][-C uri][-c uri][-L length][-m messages][-p prefix][-S stream-id][-s stream-id][-w messages]";

/// Sends `count` pings, each only after the previous pong arrived.
fn ping_pong(
    publication: &mut ExclusivePublication,
    image: &Image,
    histogram: &mut LatencyHistogram,
    count: u64,
    message: &mut [u8],
) {
    let received = Cell::new(0u64);
    let mut assembler = FragmentAssembler::new(|buffer: &[u8], _: &Header| {
        if let Some(stamp) = buffer.get(..8) {
            let sent_ns = i64::from_le_bytes(stamp.try_into().expect("8 bytes"));
            histogram.record((nano_time() - sent_ns) as u64);
            received.set(received.get() + 1);
        }
    });
    for i in 0..count {
        if !is_running() {
            break;
        }
        loop {
            message[..8].copy_from_slice(&nano_time().to_le_bytes());
            let result = publication.offer(message).unwrap_or_else(|e| fail(&format!("offer: {e}")));
            if result >= 0 || result == CLOSED || !is_running() {
                break;
            }
        }
        while received.get() < i + 1 && is_running() {
            let fragments =
                image.poll(|b: &[u8], h: &Header| assembler.on_fragment(b, h), DEFAULT_FRAGMENT_COUNT_LIMIT);
            if fragments == 0 {
                std::hint::spin_loop();
            }
        }
    }
}

fn main() {
    let options = Options::parse(USAGE, "CcLmpSsw");
    let pong_channel = options.text('C', DEFAULT_PONG_CHANNEL);
    let ping_channel = options.text('c', DEFAULT_PING_CHANNEL);
    let message_length = options.number('L', DEFAULT_MESSAGE_LENGTH);
    let messages = options.number('m', DEFAULT_NUMBER_OF_MESSAGES);
    let aeron_dir = options.text('p', "");
    let pong_stream_id = options.number('S', DEFAULT_PONG_STREAM_ID);
    let ping_stream_id = options.number('s', DEFAULT_PING_STREAM_ID);
    let warm_up_messages = options.number('w', DEFAULT_NUMBER_OF_WARM_UP_MESSAGES);
    if message_length < 8 {
        fail("message length must be at least 8 bytes (the timestamp)");
    }
    install_signal_handlers();
    println!("Publishing Ping at channel {ping_channel} on Stream ID {ping_stream_id}");
    println!("Subscribing Pong at channel {pong_channel} on Stream ID {pong_stream_id}");
    let aeron = connect_client(&aeron_dir);
    let subscription = aeron
        .add_subscription(&pong_channel, pong_stream_id)
        .unwrap_or_else(|e| fail(&format!("add subscription: {e}")));
    println!("Subscription channel status {}", subscription.channel_status());
    let mut publication = aeron
        .add_exclusive_publication(&ping_channel, ping_stream_id)
        .unwrap_or_else(|e| fail(&format!("add exclusive publication: {e}")));
    println!("Publication channel status {}", publication.channel_status());
    await_or_exit(|| subscription.is_connected());
    let image = subscription.image_at_index(0).unwrap_or_else(|| fail("could not find the pong image"));
    let mut message = vec![0u8; message_length];
    let mut histogram = LatencyHistogram::new();

    println!("Warming up the media driver with {warm_up_messages} messages of length {message_length} bytes");
    let start_ns = nano_time();
    ping_pong(&mut publication, &image, &mut histogram, warm_up_messages, &mut message);
    println!("Warm up complete in {}ns", nano_time() - start_ns);
    println!("Pinging {messages} messages of length {message_length} bytes");
    histogram.reset();
    let start_ns = nano_time();
    ping_pong(&mut publication, &image, &mut histogram, messages, &mut message);
    let elapsed_s = (nano_time() - start_ns) as f64 / 1e9;
    histogram.print("round trips", elapsed_s);
}
