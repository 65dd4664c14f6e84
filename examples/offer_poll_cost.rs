//! What one offer and one poll cost on the Rust client API, on one thread: the Rust twin
//! of `examples-c/offer_poll_cost.c` (same set-up, loop and output), which
//! `scripts/c-api-cost.sh` runs beside it to show what the C layer adds per call.
//!
//! `cargo run --release --example offer_poll_cost -- [-c uri] [-L length] [-m messages]
//! [-p aeron-dir] [-s stream-id]`

#[path = "sample_util/mod.rs"]
mod sample_util;

use std::cell::Cell;

use aeronrs::client::{ADMIN_ACTION, BACK_PRESSURED, FragmentAssembler, Header};
use aeronrs::util::clock::nano_time;
use sample_util::*;

const USAGE: &str = "[-h][-c uri][-L length][-m messages][-p prefix][-s stream-id]";
const BATCH: u64 = 256;
const ROUNDS: u32 = 3;

fn main() {
    let options = Options::parse(USAGE, "cLmps");
    let channel = options.text('c', "aeron:ipc?term-length=64m");
    let length: usize = options.number('L', 32);
    let messages: u64 = options.number('m', 20_000_000u64);
    let aeron_dir = options.text('p', "");
    let stream_id: i32 = options.number('s', 1010);
    if !(8..=4096).contains(&length) {
        fail("length must be 8..4096 bytes");
    }
    let messages = messages - messages % BATCH;
    let aeron = connect_client(&aeron_dir);
    let mut subscription = aeron
        .add_subscription(&channel, stream_id)
        .unwrap_or_else(|e| fail(&format!("add subscription: {e}")));
    let publication =
        aeron.add_publication(&channel, stream_id).unwrap_or_else(|e| fail(&format!("add publication: {e}")));
    await_or_exit(|| subscription.is_connected());
    let (received, bytes) = (Cell::new(0u64), Cell::new(0u64));
    let mut assembler = FragmentAssembler::new(|buffer: &[u8], _: &Header| {
        received.set(received.get() + 1);
        bytes.set(bytes.get() + buffer.len() as u64);
    });
    // A runtime length, as the C twin's: the copy is not specialised for a constant.
    let mut message = vec![0u8; length];

    // The first round faults the log's pages in; the last is the steady figure.
    for round in 1..=ROUNDS {
        let (mut offer_ns, mut poll_ns) = (0i64, 0i64);
        let mut expected = received.get();
        let mut i = 0u64;
        while i < messages {
            let start_ns = nano_time();
            for _ in 0..BATCH {
                message[..8].copy_from_slice(&i.to_le_bytes());
                loop {
                    let result = publication.offer(&message).unwrap_or_else(|e| fail(&format!("offer: {e}")));
                    if result >= 0 {
                        break;
                    }
                    if result != BACK_PRESSURED && result != ADMIN_ACTION {
                        fail(&format!("offer failed: {result}"));
                    }
                }
            }
            let offered_ns = nano_time();
            expected += BATCH;
            while received.get() < expected {
                subscription.poll(|b: &[u8], h: &Header| assembler.on_fragment(b, h), 1024);
            }
            offer_ns += offered_ns - start_ns;
            poll_ns += nano_time() - offered_ns;
            i += BATCH;
        }
        println!(
            "round {round}: {messages} messages of {length} bytes: offer {:.2} ns/msg, poll {:.2} ns/msg",
            offer_ns as f64 / messages as f64,
            poll_ns as f64 / messages as f64
        );
    }
    if bytes.get() != received.get() * length as u64 {
        std::process::exit(1);
    }
}
