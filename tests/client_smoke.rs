//! Quick end-to-end check of the client against a real Java media driver.
mod client_support;

use std::time::Duration;

use aeronrs::client::{Aeron, FragmentAssembler};
use client_support::{ErrorLog, JavaDriver, context, wait_until};

#[test]
fn ipc_round_trip_in_one_process() {
    let Some(driver) = JavaDriver::start(&["-Daeron.term.buffer.sparse.file=true"]) else { return };
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut sub = aeron.add_subscription(channel, 10).expect("subscription");
    let publication = aeron.add_publication(channel, 10).expect("publication");
    wait_until(Duration::from_secs(10), "connection", || {
        publication.is_connected() && sub.image_count() == 1
    });
    let received = std::cell::RefCell::new(Vec::new());
    let mut assembler = FragmentAssembler::new(|payload: &[u8], _h: &aeronrs::client::Header| {
        received.borrow_mut().push(u32::from_le_bytes(payload.try_into().unwrap()))
    });
    for i in 0..100u32 {
        loop {
            let r = publication.offer(&i.to_le_bytes()).unwrap();
            if r > 0 {
                break;
            }
            std::thread::yield_now();
        }
    }
    wait_until(Duration::from_secs(10), "messages", || {
        sub.poll(|p, h| assembler.on_fragment(p, h), 10);
        received.borrow().len() == 100
    });
    assert_eq!(*received.borrow(), (0..100).collect::<Vec<u32>>());
    println!("errors {:?}", log.errors());
}
