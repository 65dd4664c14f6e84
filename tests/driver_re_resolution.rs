//! Re-resolution: a publication to a name follows the name to its new address. Our
//! `aeronmd` runs the CSV table resolver with `server0` → 127.0.0.1 (initial) / 127.0.0.2
//! (re-resolution); subscriptions listen on both addresses (same port). Messages flow to
//! the first; then the row's toggle counter is flipped through the CnC file (as Aeron's
//! own tests do) and the first subscription closes. Its silence (no status messages for
//! 5 s) makes the sender ask for the name again, every `AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL`;
//! the publication reconnects to 127.0.0.2, the second subscription gets the stream, every
//! message intact and in order, and `Resolution changes` counts one.
//!
//! The same for a manual multi-destination-cast destination given by name (the sender
//! re-resolves a destination quiet for 5 s; a literal destination beside it keeps its
//! stream), and for a dynamic MDC subscription's `control` name (the receiver re-resolves
//! a `control` it heard nothing from for 5 s and announces itself to the new address).
mod client_support;
#[path = "support/named_streams.rs"]
mod named_streams;

use aeronrs::client::Aeron;
use client_support::{ErrorLog, RustDriver, context};
use named_streams::WAIT;
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

/// A driver with the CSV table resolver: `server0` → 127.0.0.1, then 127.0.0.2.
fn resolving_driver() -> RustDriver {
    RustDriver::start(&[
        ("AERON_NAME_RESOLVER_SUPPLIER", "csv_table"),
        ("AERON_NAME_RESOLVER_INIT_ARGS", "server0,127.0.0.1,127.0.0.2"),
        ("AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL", "100ms"),
    ])
}

#[test]
fn a_manual_destination_follows_a_name_whose_address_changed() {
    let driver = resolving_driver();
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let port = free_port();
    let toggle = counter_of_type(&aeron, CSV_ENTRY_COUNTER_TYPE_ID).expect("the row's toggle counter");
    let sub =
        |host: &str| aeron.add_subscription(&format!("aeron:udp?endpoint={host}:{port}"), STREAM_ID).unwrap();
    let mut first = Reader::new("127.0.0.1", sub("127.0.0.1"));
    let mut second = Reader::new("127.0.0.2", sub("127.0.0.2"));
    let mut literal = Reader::new("127.0.0.3", sub("127.0.0.3"));
    let publication = aeron.add_publication("aeron:udp?control-mode=manual", STREAM_ID).unwrap();
    let named = format!("aeron:udp?endpoint=server0:{port}");
    publication.add_destination(&named).unwrap();
    publication.add_destination(&format!("aeron:udp?endpoint=127.0.0.3:{port}")).unwrap();
    let mut i = 0;
    stream_until(&publication, &mut i, &mut [&mut first, &mut second, &mut literal], "to both", |r| {
        r[0].delivered() >= 500 && r[2].delivered() >= 500
    });
    assert_eq!(second.delivered(), 0, "nothing reached the re-resolution host yet");
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 0);

    set_counter_value(&aeron, toggle, 1);
    first.subscription.close();
    drop(first);
    let before = literal.delivered();
    stream_until(&publication, &mut i, &mut [&mut second, &mut literal], "to the re-resolution host", |r| {
        r[0].delivered() >= 500
    });
    assert!(literal.delivered() > before + 500, "the literal destination kept its stream");
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 1, "one change of address");
    // The driver knows the destination by its new address.
    publication.remove_destination(&named).expect("remove the named destination by its channel");
    drop(publication);
    aeron.close();
}

#[test]
fn a_dynamic_subscription_follows_a_control_name_whose_address_changed() {
    let driver = resolving_driver();
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let (port, control_port) = (free_port(), free_port());
    let toggle = counter_of_type(&aeron, CSV_ENTRY_COUNTER_TYPE_ID).expect("the row's toggle counter");
    let publication = |host: &str| {
        let channel = format!("aeron:udp?control={host}:{control_port}|control-mode=dynamic");
        aeron.add_publication(&channel, STREAM_ID).unwrap()
    };
    let initial = publication("127.0.0.1");
    let re_resolved = publication("127.0.0.2");
    let channel =
        format!("aeron:udp?endpoint=127.0.0.1:{port}|control=server0:{control_port}|control-mode=dynamic");
    let mut reader = Reader::new("subscription", aeron.add_subscription(&channel, STREAM_ID).unwrap());
    let mut i = 0;
    stream_until(&initial, &mut i, &mut [&mut reader], "from the initial control", |r| {
        r[0].delivered() >= 500
    });
    assert_eq!(reader.first, Some(0));
    assert!(!re_resolved.is_connected(), "the other control address has not heard of the subscription");
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 0);

    set_counter_value(&aeron, toggle, 1);
    drop(initial);
    // The first stream ends; its image goes before the second one's can come.
    let deadline = std::time::Instant::now() + WAIT;
    while reader.subscription.image_count() > 0 {
        reader.poll();
        assert!(std::time::Instant::now() < deadline, "the first image never went");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    reader.first = None;
    let mut j = 0;
    stream_until(&re_resolved, &mut j, &mut [&mut reader], "from the re-resolved control", |r| {
        r[0].delivered() >= 500
    });
    assert_eq!(reader.first, Some(0), "the subscription joined the second stream at its start");
    assert_eq!(counter_value(&aeron, RESOLUTION_CHANGES), 1, "one change of address");
    drop(re_resolved);
    drop(reader);
    aeron.close();
}
