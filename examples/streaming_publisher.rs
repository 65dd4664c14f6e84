//! Streams messages as fast as the subscribers take them, printing the rate each second
//! and totals at the end: the Rust twin of `examples-c/streaming_publisher.c` (same
//! options, loop and output), run beside it by `scripts/perf-c.sh`.
//!
//! `cargo run --release --example streaming_publisher -- [-c uri] [-L length] [-l linger]
//! [-m messages] [-p aeron-dir] [-s stream-id]`

#[path = "sample_util/mod.rs"]
mod sample_util;

use aeronrs::client::{CLOSED, MAX_POSITION_EXCEEDED, PUBLICATION_ERROR};
use aeronrs::util::clock::nano_time;
use aeronrs::util::config::parse_duration_ns;
use sample_util::*;

const USAGE: &str = "[-h][-c uri][-L length][-l linger][-m messages][-p prefix][-s stream-id]";

fn main() {
    let options = Options::parse(USAGE, "cLlmps");
    let channel = options.text('c', DEFAULT_CHANNEL);
    let message_length = options.number('L', DEFAULT_MESSAGE_LENGTH);
    let linger_ns = parse_duration_ns("-l", &options.text('l', "0")).unwrap_or_else(|e| fail(&e.to_string()));
    let messages = options.number('m', DEFAULT_NUMBER_OF_MESSAGES);
    let aeron_dir = options.text('p', "");
    let stream_id = options.number('s', DEFAULT_STREAM_ID);
    if message_length < 8 {
        fail("message length must be at least 8 bytes (the sequence number)");
    }
    install_signal_handlers();
    println!(
        "Streaming {messages} messages of payload length {message_length} bytes to {channel} on stream id {stream_id}"
    );
    let aeron = connect_client(&aeron_dir);
    let publication =
        aeron.add_publication(&channel, stream_id).unwrap_or_else(|e| fail(&format!("add publication: {e}")));
    println!("Publication channel status {}", publication.channel_status());
    let mut message = vec![0u8; message_length];
    let mut reporter = RateReporter::start();
    let (mut back_pressured, mut sent) = (0u64, 0u64);
    let start_ns = nano_time();
    for i in 0..messages {
        if !is_running() {
            break;
        }
        message[..8].copy_from_slice(&i.to_le_bytes());
        loop {
            let result = publication.offer(&message).unwrap_or_else(|e| fail(&format!("offer: {e}")));
            if result >= 0 {
                sent += 1;
                reporter.on_message(message_length);
                break;
            }
            if result == CLOSED || result == PUBLICATION_ERROR || result == MAX_POSITION_EXCEEDED {
                fail(&format!("offer failed: {result}"));
            }
            back_pressured += 1;
            if !is_running() {
                break;
            }
            std::hint::spin_loop();
        }
    }
    let duration_ns = (nano_time() - start_ns).max(1);
    println!("Done sending.");
    reporter.halt();
    let ratio = if sent > 0 { back_pressured as f64 / sent as f64 } else { 0.0 };
    println!("Publisher back pressure ratio {ratio}");
    println!(
        "Total: {}ms, {} msgs/sec, {} bytes/sec, totals {sent} messages {} MB payloads",
        duration_ns / 1_000_000,
        c_g4(sent as f64 * 1e9 / duration_ns as f64),
        c_g4((sent * message_length as u64) as f64 * 1e9 / duration_ns as f64),
        sent * message_length as u64 / (1024 * 1024)
    );
    if linger_ns > 0 {
        println!("Lingering for {linger_ns} nanoseconds");
        std::thread::sleep(std::time::Duration::from_nanos(linger_ns));
    }
}
