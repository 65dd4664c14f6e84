//! Echoes every ping (see `ping`) back on the pong channel until interrupted,
//! busy-spinning: the Rust twin of `examples-c/pong.c` (same options and loop).
//!
//! `cargo run --release --example pong -- [-C uri] [-c uri] [-p aeron-dir] [-S stream-id]
//! [-s stream-id]`

#[path = "sample_util/mod.rs"]
mod sample_util;

use aeronrs::client::{CLOSED, FragmentAssembler, Header};
use sample_util::*;

const USAGE: &str = "[-h][-C uri][-c uri][-p prefix][-S stream-id][-s stream-id]";

fn main() {
    let options = Options::parse(USAGE, "CcpSs");
    let pong_channel = options.text('C', DEFAULT_PONG_CHANNEL);
    let ping_channel = options.text('c', DEFAULT_PING_CHANNEL);
    let aeron_dir = options.text('p', "");
    let pong_stream_id = options.number('S', DEFAULT_PONG_STREAM_ID);
    let ping_stream_id = options.number('s', DEFAULT_PING_STREAM_ID);
    install_signal_handlers();
    println!("Subscribing Ping at channel {ping_channel} on Stream ID {ping_stream_id}");
    println!("Publishing Pong at channel {pong_channel} on Stream ID {pong_stream_id}");
    let aeron = connect_client(&aeron_dir);
    let subscription = aeron
        .add_subscription(&ping_channel, ping_stream_id)
        .unwrap_or_else(|e| fail(&format!("add subscription: {e}")));
    println!("Subscription channel status {}", subscription.channel_status());
    let mut publication = aeron
        .add_exclusive_publication(&pong_channel, pong_stream_id)
        .unwrap_or_else(|e| fail(&format!("add exclusive publication: {e}")));
    println!("Publication channel status {}", publication.channel_status());
    await_or_exit(|| subscription.is_connected());
    let image = subscription.image_at_index(0).unwrap_or_else(|| fail("could not find the ping image"));
    let mut assembler = FragmentAssembler::new(|buffer: &[u8], _: &Header| {
        loop {
            let result = publication.offer(buffer).unwrap_or_else(|e| fail(&format!("offer: {e}")));
            if result >= 0 || result == CLOSED || !is_running() {
                break;
            }
            std::hint::spin_loop();
        }
    });
    while is_running() {
        let fragments =
            image.poll(|b: &[u8], h: &Header| assembler.on_fragment(b, h), DEFAULT_FRAGMENT_COUNT_LIMIT);
        if fragments == 0 {
            std::hint::spin_loop();
        }
    }
    println!("Shutting down...");
}
