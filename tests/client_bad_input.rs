//! Bad input: a corrupted or truncated `cnc.dat` and out-of-range channel parameters give
//! our client clear errors, and nothing hangs; malformed and unknown commands written into a
//! driver process's to-driver buffer are answered with errors while the driver goes on
//! serving our client. (Bad URIs and unknown registrations at the protocol level are checked
//! byte for byte in `driver_ipc_commands.rs`.)
mod client_support;

#[path = "support/raw_client.rs"]
mod raw_client;

use std::path::Path;
use std::time::Duration;

use aeronrs::client::{Aeron, Context};
use aeronrs::util::error::Error;
use client_support::{DriverKind, DriverOptions, ErrorLog, TestDriver, context, driver_tests};

/// Connects a client to `<dir>/cnc.dat` holding `bytes`, giving up after 300 ms.
fn connect_to(dir: &Path, bytes: &[u8]) -> Error {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("cnc.dat"), bytes).unwrap();
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_driver_timeout(Duration::from_millis(300));
    let err = Aeron::connect(ctx).expect_err("a client cannot connect through a bad cnc.dat");
    assert!(err.message().contains(&dir.display().to_string()), "the error names the file: {err}");
    err
}

fn put_i32(bytes: &mut [u8], offset: usize, value: i32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn corrupted_or_truncated_cnc_is_a_clear_error() {
    let mut driver = TestDriver::start(DriverKind::Rust, DriverOptions::default()).expect("aeronmd");
    let live = std::fs::read(driver.aeron_dir().join("cnc.dat")).unwrap();
    // A client can connect to the real one, so the copies below differ only in what we broke.
    let log = ErrorLog::default();
    Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect to the live driver").close();
    let tmp = tempfile::tempdir().unwrap();
    let case = |name: &str| tmp.path().join(name);

    // Not (yet) complete files are retried until the driver timeout, which names what is missing.
    for (name, bytes, reason) in [
        ("empty", Vec::new(), "CnC file too short"),
        ("header-cut", live[..64].to_vec(), "CnC file too short"),
        ("sections-cut", live[..4096].to_vec(), "CnC file length 4096 is less than its buffers need"),
    ] {
        let err = connect_to(&case(name), &bytes);
        assert_eq!(err.code(), libc::ETIMEDOUT, "{name}: {err}");
        assert!(err.message().contains(reason), "{name}: {err}");
        assert!(err.message().contains("is a media driver running"), "{name}: {err}");
    }
    let mut no_heartbeat = live.clone();
    let to_driver_length = i32::from_le_bytes(live[4..8].try_into().unwrap()) as usize;
    // The driver heartbeat: the to-driver ring buffer trailer's consumer heartbeat slot.
    let heartbeat = 128 + to_driver_length - 768 + 640;
    no_heartbeat[heartbeat..heartbeat + 8].copy_from_slice(&0i64.to_le_bytes());
    let err = connect_to(&case("no-heartbeat"), &no_heartbeat);
    assert_eq!(err.code(), libc::ETIMEDOUT, "{err}");
    assert!(err.message().contains("no driver heartbeat detected"), "{err}");

    // Corrupt headers fail at once (EINVAL), saying which field is wrong.
    let corrupt = |offset: usize, value: i32| {
        let mut bytes = live.clone();
        put_i32(&mut bytes, offset, value);
        bytes
    };
    for (name, bytes, reason) in [
        ("version", corrupt(0, 1 << 16), "CnC version not compatible: app=0.2.0 file=1.0.0"),
        ("to-driver", corrupt(4, 1000), "CnC to-driver buffer length 1000 is not a power of two"),
        ("to-clients", corrupt(8, -8), "CnC to-clients buffer length is negative: -8"),
        ("values", corrupt(16, 100), "CnC counters values buffer length 100"),
        ("garbage", vec![0xFF; live.len()], "CnC version not compatible"),
    ] {
        let err = connect_to(&case(name), &bytes);
        assert_eq!(err.code(), libc::EINVAL, "{name}: {err}");
        assert!(err.message().contains(reason), "{name}: {err}");
    }
    driver.stop();
}

/// Term lengths outside 64 KiB..1 GiB or not a power of two are refused by either driver
/// with an error naming the term length; the client stays usable.
fn out_of_range_term_length_is_refused(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    for channel in ["aeron:ipc?term-length=32k", "aeron:ipc?term-length=2g", "aeron:ipc?term-length=100000"] {
        let err = aeron.add_publication(channel, 1).expect_err(channel);
        println!("{channel}: {err}");
        assert!(err.message().to_lowercase().contains("term"), "{channel}: {err}");
        let err = aeron.add_exclusive_publication(channel, 1).expect_err(channel);
        assert!(err.message().to_lowercase().contains("term"), "{channel}: {err}");
    }
    let publication = aeron.add_publication("aeron:ipc?term-length=64k", 1).expect("a valid term length");
    assert_eq!(publication.term_buffer_length(), 64 * 1024);
    assert!(!aeron.is_closed());
}

/// Garbage in the to-driver buffer: a too-short ADD_PUBLICATION, an unknown command type and
/// an ADD_PUBLICATION whose channel length runs past its record. Each gets an ON_ERROR
/// (correlation id 0: the command could not be read far enough to find its own), as do
/// removals of registrations that do not exist (UNKNOWN_PUBLICATION/_SUBSCRIPTION); then our
/// client, in this process, still adds a publication and a subscription and exchanges a
/// message through the driver process.
fn malformed_and_unknown_commands_are_answered_and_others_served(driver: &mut TestDriver) {
    let mut raw = raw_client::RawClient::connect(driver.aeron_dir());
    let mut overlong = vec![0u8; 24];
    overlong[0..8].copy_from_slice(&raw.client_id.to_le_bytes());
    overlong[20..24].copy_from_slice(&1000i32.to_le_bytes());
    for (type_id, body, code) in [(0x01, vec![0u8; 10], 7), (0x77, vec![0u8; 16], 6), (0x01, overlong, 7)] {
        raw.send_raw(type_id, &body);
        let (got, message) = raw.expect_error(0);
        println!("command 0x{type_id:x} of {} bytes: ON_ERROR {got}: {message}", body.len());
        assert_eq!(got, code, "{message}");
    }
    // Removing what was never added: the unknown registration is named.
    for (correlation_id, code) in
        [(raw.remove_publication(987_654_321), 3), (raw.remove_subscription(987_654_321), 2)]
    {
        let (got, message) = raw.expect_error(correlation_id);
        println!("remove of an unknown registration: ON_ERROR {got}: {message}");
        assert_eq!(got, code, "{message}");
        assert!(message.contains("987654321"), "{message}");
    }
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let mut subscription = aeron.add_subscription("aeron:ipc", 7).expect("subscription");
    let publication = aeron.add_publication("aeron:ipc", 7).expect("publication");
    client_support::wait_until(Duration::from_secs(20), "connected", || publication.is_connected());
    while publication.offer(b"still serving").unwrap() < 0 {}
    let mut received = Vec::new();
    client_support::wait_until(Duration::from_secs(20), "the message", || {
        subscription.poll(|p: &[u8], _: &aeronrs::client::Header| received.push(p.to_vec()), 10);
        !received.is_empty()
    });
    assert_eq!(received, vec![b"still serving".to_vec()]);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

driver_tests!(
    out_of_range_term_length_is_refused,
    malformed_and_unknown_commands_are_answered_and_others_served
);
