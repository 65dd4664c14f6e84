//! Re-resolution: a publication to a name follows the name to its new address. Our
//! `aeronmd` runs the CSV table resolver with `server0` → 127.0.0.1 (initial) / 127.0.0.2
//! (re-resolution); subscriptions listen on both addresses (same port). Messages flow to
//! the first; then the row's toggle counter is flipped through the CnC file (as Aeron's
//! own tests do) and the first subscription closes. Its silence (no status messages for
//! 5 s) makes the sender ask for the name again, every `AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL`;
//! the publication reconnects to 127.0.0.2, the second subscription gets the stream, every
//! message intact and in order, and `Resolution changes` counts one.
mod client_support;
#[path = "support/named_streams.rs"]
mod named_streams;

use aeronrs::client::Aeron;
use client_support::{ErrorLog, RustDriver, context};
use named_streams::{
    Reader, counter_of_type, counter_value, free_port, set_counter_value, stream_until, wait_until,
};

const CSV_ENTRY_COUNTER_TYPE_ID: i32 = 2001;
const RESOLUTION_CHANGES: i32 = 25;
const STREAM_ID: i32 = 1001;

#[test]
fn a_publication_follows_a_name_whose_address_changed() {
    let driver = RustDriver::start(&[
        ("AERON_NAME_RESOLVER_SUPPLIER", "csv_table"),
        ("AERON_NAME_RESOLVER_INIT_ARGS", "server0,127.0.0.1,127.0.0.2"),
        ("AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL", "100ms"),
        ("AERON_DRIVER_RESOLVER_NAME", "node-a"),
    ]);
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let port = free_port();
    let toggle = counter_of_type(&aeron, CSV_ENTRY_COUNTER_TYPE_ID).expect("the row's toggle counter");
    assert_eq!(
        aeron.counters_reader().counter_label(toggle).unwrap(),
        "NameEntry{name='server0', initialResolutionHost='127.0.0.1', reResolutionHost='127.0.0.2'}"
    );
    let label = aeron.counters_reader().counter_label(RESOLUTION_CHANGES).unwrap();
    assert_eq!(label, "Resolution changes: driverName=node-a");

    let mut first = Reader::new(
        "127.0.0.1",
        aeron.add_subscription(&format!("aeron:udp?endpoint=127.0.0.1:{port}"), STREAM_ID).unwrap(),
    );
    let mut second = Reader::new(
        "127.0.0.2",
        aeron.add_subscription(&format!("aeron:udp?endpoint=127.0.0.2:{port}"), STREAM_ID).unwrap(),
    );
    let publication =
        aeron.add_publication(&format!("aeron:udp?endpoint=server0:{port}"), STREAM_ID).unwrap();
    let mut i = 0;
    stream_until(&publication, &mut i, &mut [&mut first, &mut second], "to the initial host", |r| {
        r[0].delivered() >= 500
    });
    assert_eq!(first.first, Some(0), "the first subscription had the stream from its start");
    assert_eq!(second.delivered(), 0, "nothing reached the re-resolution host yet");
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 0);

    set_counter_value(&aeron, toggle, 1);
    first.subscription.close();
    drop(first);
    stream_until(&publication, &mut i, &mut [&mut second], "to the re-resolution host", |r| {
        r[0].delivered() >= 500
    });
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 1, "one change of address");
    wait_until("the publication connected again", || publication.is_connected());
    drop(publication);
    drop(second);
    aeron.close();
}
