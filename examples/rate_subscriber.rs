//! Receives messages as fast as they come (busy-spinning), reassembling fragmented ones,
//! and prints the rate each second until interrupted: the Rust twin of
//! `examples-c/rate_subscriber.c` (same options, loop and output).
//!
//! `cargo run --release --example rate_subscriber -- [-c uri] [-f fragments] [-p aeron-dir]
//! [-s stream-id]`

#[path = "sample_util/mod.rs"]
mod sample_util;

use aeronrs::client::{FragmentAssembler, Header};
use sample_util::*;

const USAGE: &str = "[-h][-c uri][-f fragments][-p prefix][-s stream-id]";

fn main() {
    let options = Options::parse(USAGE, "cfps");
    let channel = options.text('c', DEFAULT_CHANNEL);
    let fragment_limit = options.number('f', DEFAULT_FRAGMENT_COUNT_LIMIT);
    let aeron_dir = options.text('p', "");
    let stream_id = options.number('s', DEFAULT_STREAM_ID);
    if fragment_limit == 0 {
        fail("the fragment limit must be at least 1");
    }
    install_signal_handlers();
    println!("Subscribing to channel {channel} on Stream ID {stream_id}");
    let aeron = connect_client(&aeron_dir);
    let mut subscription = aeron
        .add_subscription(&channel, stream_id)
        .unwrap_or_else(|e| fail(&format!("add subscription: {e}")));
    println!("Subscription channel status {}", subscription.channel_status());
    let mut reporter = RateReporter::start();
    {
        let mut assembler =
            FragmentAssembler::new(|buffer: &[u8], _: &Header| reporter.on_message(buffer.len()));
        while is_running() {
            let fragments =
                subscription.poll(|b: &[u8], h: &Header| assembler.on_fragment(b, h), fragment_limit);
            if fragments == 0 {
                std::hint::spin_loop();
            }
        }
    }
    reporter.halt();
    println!("Shutting down...");
}
