//! Channel and media timestamps over UDP loopback (`media-rcv-ts-offset`,
//! `channel-rcv-ts-offset`, `channel-snd-ts-offset`): a publication on one of our drivers
//! stamps its send time into each datagram's first frame, a subscription on another stamps
//! the kernel's and its own receive time, and the subscriber finds all three, plausible
//! and in causal order, in every fragment. Also the refusals: malformed and overlapping
//! offsets, endpoints shared with other offsets, `ats=true`.

use std::cell::RefCell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use aeronrs::client::{Aeron, Context, Header};
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::AeronErrorCode;
use aeronrs::util::idle_strategy::IdleStrategy;

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn driver(dir: &std::path::Path) -> MediaDriver {
    let sleep = IdleStrategy::Sleep(Duration::from_micros(100));
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::SharedNetwork,
        shared_network_idle_strategy: sleep.clone(),
        conductor_idle_strategy: sleep,
        term_buffer_length: 1 << 20,
        ..DriverContext::default()
    })
    .unwrap()
}

fn client(dir: &std::path::Path) -> Aeron {
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_idle_sleep_duration(Duration::from_millis(1));
    Aeron::connect(ctx).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn realtime_ns() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as i64
}

fn at(bytes: &[u8], offset: usize) -> i64 {
    i64::from_le_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

/// 1000-byte messages: a 1056-byte frame, so each datagram (MTU 1408) carries one frame
/// and every fragment is the first frame of its datagram, which is where stamps go.
const LENGTH: usize = 1000;
const SND_OFFSET: usize = 0;
const CHANNEL_RCV_OFFSET: usize = 8;
const SEQUENCE_OFFSET: usize = 16;

#[test]
fn timestamps_present_in_received_frames_at_the_configured_offsets() {
    let tmp = tempfile::tempdir().unwrap();
    let (pub_dir, sub_dir) = (tmp.path().join("pub"), tmp.path().join("sub"));
    let (mut pub_driver, mut sub_driver) = (driver(&pub_dir), driver(&sub_dir));
    let (pub_client, sub_client) = (client(&pub_dir), client(&sub_dir));
    let port = free_port();
    let sub_channel = format!(
        "aeron:udp?endpoint=127.0.0.1:{port}|media-rcv-ts-offset=reserved|channel-rcv-ts-offset={CHANNEL_RCV_OFFSET}"
    );
    let pub_channel = format!("aeron:udp?endpoint=127.0.0.1:{port}|channel-snd-ts-offset={SND_OFFSET}");
    let mut subscription = sub_client.add_subscription(&sub_channel, 9).unwrap();
    let publication = pub_client.add_publication(&pub_channel, 9).unwrap();
    wait_until("connected", || publication.is_connected() && subscription.image_count() == 1);

    let start_ns = realtime_ns();
    let count = 2_000u64;
    let mut message = vec![0u8; LENGTH];
    let seen = RefCell::new(Vec::<[i64; 3]>::new());
    let mut sent = 0u64;
    let deadline = Instant::now() + Duration::from_secs(30);
    while (seen.borrow().len() as u64) < count {
        assert!(Instant::now() < deadline, "received {} of {count}", seen.borrow().len());
        if sent < count {
            // The stamps' places hold zeroes as offered: only the drivers write them.
            message[SEQUENCE_OFFSET..SEQUENCE_OFFSET + 8].copy_from_slice(&sent.to_le_bytes());
            if publication.offer(&message).unwrap() > 0 {
                sent += 1;
            }
        }
        let polled = subscription.poll(
            |payload: &[u8], header: &Header| {
                let mut seen = seen.borrow_mut();
                let i = seen.len() as u64;
                assert_eq!(payload.len(), LENGTH);
                assert_eq!(at(payload, SEQUENCE_OFFSET), i as i64, "every message once, in order");
                assert!(
                    payload[SEQUENCE_OFFSET + 8..].iter().all(|&b| b == 0),
                    "message {i}: rest untouched"
                );
                seen.push([
                    at(payload, SND_OFFSET),
                    header.reserved_value(),
                    at(payload, CHANNEL_RCV_OFFSET),
                ]);
            },
            64,
        );
        if polled == 0 && sent == count {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    let end_ns = realtime_ns();
    let seen = seen.into_inner();
    for (i, &[snd, media_rcv, channel_rcv]) in seen.iter().enumerate() {
        // All three are CLOCK_REALTIME of this host, taken while the test ran, in causal
        // order: the sender stamps before sending, the kernel on arrival, the receiver after.
        for (name, ts) in
            [("channel send", snd), ("media receive", media_rcv), ("channel receive", channel_rcv)]
        {
            assert!(
                (start_ns..=end_ns).contains(&ts),
                "fragment {i}: {name} timestamp {ts} not in {start_ns}..={end_ns}"
            );
        }
        assert!(
            snd <= media_rcv && media_rcv <= channel_rcv,
            "fragment {i}: {snd} {media_rcv} {channel_rcv}"
        );
    }
    for pair in seen.windows(2) {
        assert!(pair[0][0] <= pair[1][0], "send stamps in send order: {pair:?}");
        assert!(pair[0][2] <= pair[1][2], "receive stamps in receive order: {pair:?}");
    }
    drop((publication, subscription));
    drop((pub_client, sub_client));
    pub_driver.close().unwrap();
    sub_driver.close().unwrap();
}

#[test]
fn bad_overlapping_and_clashing_offsets_and_ats_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut driver = driver(tmp.path());
    let aeron = client(tmp.path());
    let port = free_port();
    let base = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let refused = |what: &str, result: aeronrs::Result<()>, contains: &str| {
        let error = result.expect_err(what);
        // Aeron C answers these with EINVAL, which reaches clients as GENERIC_ERROR.
        assert_eq!(error.aeron_code(), Some(AeronErrorCode::GenericError), "{what}: {error}");
        assert!(error.to_string().contains(contains), "{what}: {error}");
    };
    for (param, contains) in [
        ("media-rcv-ts-offset=soon", "invalid media-rcv-ts-offset=soon"),
        ("channel-rcv-ts-offset=-3", "invalid channel-rcv-ts-offset=-3"),
        ("channel-snd-ts-offset=1.5", "invalid channel-snd-ts-offset=1.5"),
        (
            "media-rcv-ts-offset=0|channel-rcv-ts-offset=4",
            "media-rcv-ts-offset and channel-rcv-ts-offset overlap",
        ),
        (
            "channel-rcv-ts-offset=reserved|channel-snd-ts-offset=reserved",
            "channel-rcv-ts-offset and channel-snd-ts-offset overlap",
        ),
        ("ats=true", "ATS is not enabled and thus ats=true not allowed"),
    ] {
        let channel = format!("{base}|{param}");
        refused(&format!("subscription {param}"), aeron.add_subscription(&channel, 1).map(drop), contains);
        refused(&format!("publication {param}"), aeron.add_publication(&channel, 1).map(drop), contains);
    }
    // ats=false is what this driver does anyway: accepted.
    let plain = aeron.add_subscription(&format!("{base}|ats=false"), 1).unwrap();

    // One receive endpoint, one set of receive stamps.
    let stamped = aeron.add_subscription(&format!("{base}|channel-rcv-ts-offset=8"), 2);
    refused("second subscription, other receive stamps", stamped.map(drop), "channel-rcv-ts-offset=8");
    let other = format!("aeron:udp?endpoint=127.0.0.1:{}|media-rcv-ts-offset=reserved", free_port());
    let first = aeron.add_subscription(&other, 3).unwrap();
    let again = aeron.add_subscription(&other, 4).unwrap();
    refused(
        "unstamped subscription on a stamped endpoint",
        aeron.add_subscription(&other.replace("|media-rcv-ts-offset=reserved", ""), 5).map(drop),
        "media-rcv-ts-offset=-1 (not specified)",
    );

    // One send endpoint, one send stamp.
    let publication = aeron.add_publication(&format!("{base}|channel-snd-ts-offset=16"), 6).unwrap();
    refused(
        "second publication, other send stamp",
        aeron.add_publication(&format!("{base}|channel-snd-ts-offset=reserved"), 7).map(drop),
        "channel-snd-ts-offset=-8 (reserved)",
    );
    drop((plain, first, again, publication));
    drop(aeron);
    driver.close().unwrap();
}
