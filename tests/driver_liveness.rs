//! Driver liveness and clean-up (`spec/cnc.md` §6-7, `spec/driver.md` §4-6): heartbeat,
//! refusing a live directory, replacing a dead one, client timeouts and CLIENT_CLOSE,
//! publication drain/linger, unblocking dead publishers and dead command writers,
//! TERMINATE_DRIVER.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aeronrs::command::Response;
use aeronrs::concurrent::mapped_file::map_existing;
use aeronrs::concurrent::ring_buffer::RingBuffer;
use aeronrs::driver::termination::TerminationHook;
use aeronrs::driver::{DriverContext, MediaDriver};
use aeronrs::util::clock::epoch_ms;
use raw_client::{RawClient, test_context, wait_until};

const STREAM: i32 = 7;

/// Short timeouts so liveness events happen within a test.
fn quick_context(dir: &std::path::Path) -> DriverContext {
    DriverContext {
        client_liveness_timeout_ns: 300_000_000,
        publication_unblock_timeout_ns: 500_000_000,
        ..test_context(dir)
    }
}

fn hb_counter(client: &mut RawClient) -> i32 {
    let id = client.client_id;
    let record = client
        .expect("heartbeat counter", |r| matches!(r, Response::CounterReady(c) if c.correlation_id == id));
    let Response::CounterReady(c) = record.response() else { unreachable!() };
    c.counter_id
}

#[test]
fn heartbeat_refusal_and_replacement() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let ctx = DriverContext { dir_delete_on_shutdown: false, ..test_context(&dir) };
    let mut first = MediaDriver::launch(ctx.clone()).unwrap();
    let client = RawClient::connect(&dir);
    let h0 = client.cnc.driver_heartbeat();
    assert!((epoch_ms() - h0).abs() < 10_000, "heartbeat is epoch ms: {h0}");
    wait_until("heartbeat refreshed each timer interval", || client.cnc.driver_heartbeat() > h0);

    // cnc.dat header (`spec/cnc.md` §3).
    let header = &client.cnc.file;
    assert_eq!(header.get_i32(0), 512);
    assert_eq!(header.get_i32(4), 1024 * 1024 + 768);
    assert_eq!(header.get_i32(8), 1024 * 1024 + 128);
    assert_eq!(header.get_i32(12), 4 * 1024 * 1024);
    assert_eq!(header.get_i32(16), 1024 * 1024);
    assert_eq!(header.get_i32(20), 1024 * 1024);
    assert_eq!(header.get_i64(24), 10_000_000_000);
    assert_eq!(header.get_i64(40), std::process::id() as i64);
    assert_eq!(header.capacity(), 8_392_704);
    assert_eq!(std::fs::metadata(dir.join("loss-report.dat")).unwrap().len(), 1024 * 1024);
    assert!(dir.join("publications").is_dir() && dir.join("images").is_dir());
    // System counters: ids, labels, version and bytes mapped.
    assert_eq!(client.cnc.counter_label(0), "Bytes sent");
    assert_eq!(client.cnc.counter_label(39), "Error Frames sent");
    assert_eq!(client.cnc.counter_type_id(24), 0);
    assert_eq!(client.cnc.counter_key(24)[..4], 24i32.to_le_bytes());
    assert_eq!(client.cnc.system_counter(34), (1 << 16) | (48 << 8));
    assert_eq!(client.cnc.system_counter(35), 8_392_704 + 1024 * 1024);

    // A second driver refuses to start over the live one.
    let err = MediaDriver::launch(ctx.clone()).unwrap_err();
    assert!(err.message().contains("active driver"), "{err}");

    // Something for the error log, then a clean close: heartbeat -1.
    client.send_raw(0x77, &[0u8; 16]);
    wait_until("error recorded", || client.cnc.system_counter(15) == 1);
    first.close().unwrap();
    assert_eq!(client.cnc.driver_heartbeat(), -1);
    assert!(dir.join("cnc.dat").exists(), "kept: not configured to delete on shutdown");

    // A new driver replaces the dead one, saving its errors next to the directory.
    let mut second = MediaDriver::launch(ctx).unwrap();
    let saved: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with("-error.log"))
        .collect();
    assert_eq!(saved.len(), 1, "errors of the dead driver saved");
    let text = std::fs::read_to_string(saved[0].path()).unwrap();
    assert!(text.contains("1 distinct errors observed."), "{text}");
    let fresh = RawClient::connect(&dir);
    assert_eq!(fresh.cnc.system_counter(15), 0, "a fresh cnc.dat");
    second.close().unwrap();
}

#[test]
fn client_timeout_removes_everything_it_held() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(quick_context(&dir)).unwrap();
    let mut doomed = RawClient::connect(&dir);
    let mut alive = RawClient::connect(&dir);

    let pub_id = doomed.add_publication("aeron:ipc", STREAM, false);
    let doomed_hb = hb_counter(&mut doomed);
    doomed.expect_correlated(pub_id);
    let sub_id = doomed.add_subscription("aeron:ipc", STREAM);
    let record = doomed.expect(
        "image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == sub_id),
    );
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    let sub_pos = image.subscriber_position_id;
    let counter_corr = doomed.add_counter(1200, &[], "held");
    let record = doomed.expect_correlated(counter_corr);
    let Response::CounterReady(c) = record.response() else { panic!() };
    let counter_id = c.counter_id;

    let alive_sub = alive.add_subscription("aeron:ipc", STREAM);
    let alive_hb = hb_counter(&mut alive);
    alive.expect_correlated(alive_sub);
    let log = dir.join("publications").join(format!("{pub_id}.logbuffer"));
    assert!(log.exists());

    // Only `alive` heartbeats; `doomed` goes silent.
    let doomed_id = doomed.client_id;
    let record =
        {
            let deadline = std::time::Instant::now() + raw_client::TIMEOUT;
            loop {
                alive.heartbeat(alive_hb);
                alive.poll();
                if let Some(i) = alive.received.iter().position(
                    |r| matches!(r.response(), Response::ClientTimeout(t) if t.client_id == doomed_id),
                ) {
                    break alive.received.remove(i);
                }
                assert!(std::time::Instant::now() < deadline, "no ON_CLIENT_TIMEOUT");
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        };
    assert!(matches!(record.response(), Response::ClientTimeout(_)));
    let hb_gone = alive.expect("heartbeat unavailable", |r| {
        matches!(r, Response::UnavailableCounter(u) if u.correlation_id == doomed_id && u.counter_id == doomed_hb)
    });
    assert!(matches!(hb_gone.response(), Response::UnavailableCounter(_)));
    alive.expect("client counter unavailable", |r| {
        matches!(r, Response::UnavailableCounter(u) if u.correlation_id == counter_corr && u.counter_id == counter_id)
    });
    for id in [doomed_hb, sub_pos, counter_id] {
        assert_eq!(alive.cnc.counter_state(id), -1, "counter {id} freed");
    }
    assert_eq!(alive.cnc.system_counter(24), 1, "client liveness timeouts");

    // The publication lost its last reference; `alive`'s subscriber has consumed nothing
    // but there is nothing to consume, so it drains, lingers and its log is deleted.
    let unavailable = alive.expect(
        "image unavailable for alive",
        |r| matches!(r, Response::UnavailableImage(i) if i.subscription_registration_id == alive_sub),
    );
    let Response::UnavailableImage(u) = unavailable.response() else { unreachable!() };
    assert_eq!((u.correlation_id, u.stream_id, u.channel), (pub_id, STREAM, &b"aeron:ipc"[..]));
    wait_until("log deleted", || {
        alive.heartbeat(alive_hb);
        !log.exists()
    });
    assert!(
        !alive
            .received
            .iter()
            .any(|r| matches!(r.response(), Response::ClientTimeout(t) if t.client_id == alive.client_id))
    );
}

#[test]
fn client_close_is_not_a_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(quick_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    let corr = client.add_counter(1300, &[], "c");
    let hb = hb_counter(&mut client);
    client.expect_correlated(corr);
    client.close();
    let id = client.client_id;
    client.expect(
        "heartbeat unavailable",
        |r| matches!(r, Response::UnavailableCounter(u) if u.correlation_id == id && u.counter_id == hb),
    );
    client.poll();
    assert!(!client.received.iter().any(|r| matches!(r.response(), Response::ClientTimeout(_))));
    assert_eq!(client.cnc.system_counter(24), 0);
    assert_eq!(client.cnc.counter_state(hb), -1);
}

#[test]
fn drained_publication_signals_end_of_stream_and_unavailable_image() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(quick_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    let pub_id = client.add_publication("aeron:ipc", STREAM, false);
    let hb = hb_counter(&mut client);
    let record = client.expect_correlated(pub_id);
    let Response::PublicationReady(p) = record.response() else { panic!() };
    let (lmt, log_path) = (p.position_limit_counter_id, p.log_file_name_str().unwrap().to_string());
    let sub_id = client.add_subscription("aeron:ipc", STREAM);
    let record = client.expect(
        "image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == sub_id),
    );
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    let sub_pos = image.subscriber_position_id;

    // A publisher appended 256 bytes (only the tail matters to the driver here).
    let log = map_existing(std::path::Path::new(&log_path)).unwrap();
    let m = log.view(3 * 65536, 4096).unwrap();
    let initial_term_id = m.get_i32(264);
    m.put_i64_release(0, ((initial_term_id as i64) << 32) | 256);
    wait_until("pub-pos sampled", || client.cnc.counter_value(lmt - 1) == 256);

    let remove = client.remove_publication(pub_id);
    client.expect_correlated(remove);
    wait_until("end of stream at the producer position", || m.get_i64_acquire(128) == 256);
    assert_eq!(client.cnc.counter_value(lmt), 256, "limit lowered to the producer position");
    // Not drained while the subscriber is behind; drained once it catches up.
    client.heartbeat(hb);
    std::thread::sleep(std::time::Duration::from_millis(150));
    client.poll();
    assert!(!client.received.iter().any(|r| matches!(r.response(), Response::UnavailableImage(_))));
    client.cnc.set_counter_value(sub_pos, 256);
    let record = client.expect(
        "unavailable image",
        |r| matches!(r, Response::UnavailableImage(i) if i.correlation_id == pub_id),
    );
    let Response::UnavailableImage(u) = record.response() else { unreachable!() };
    assert_eq!(u.subscription_registration_id, sub_id);
    wait_until("log deleted after linger", || {
        client.heartbeat(hb);
        !std::path::Path::new(&log_path).exists()
    });
}

#[test]
fn dead_publisher_is_unblocked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(quick_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    let pub_id = client.add_publication("aeron:ipc", STREAM, false);
    let hb = hb_counter(&mut client);
    let record = client.expect_correlated(pub_id);
    let Response::PublicationReady(p) = record.response() else { panic!() };
    let log = map_existing(std::path::Path::new(p.log_file_name_str().unwrap())).unwrap();
    let sub_id = client.add_subscription("aeron:ipc", STREAM);
    client.expect_correlated(sub_id);

    // Publisher A claimed [0, 64) and died (negative length); publisher B wrote [64, 128).
    let m = log.view(3 * 65536, 4096).unwrap();
    let term = log.view(0, 65536).unwrap();
    let initial_term_id = m.get_i32(264);
    m.put_i64_release(0, ((initial_term_id as i64) << 32) | 128);
    term.put_i32_release(0, -64);
    term.put_i32(64 + 12, 0);
    term.put_i32_release(64, 64);
    wait_until("unblocked publications = 1", || {
        client.heartbeat(hb);
        client.cnc.system_counter(19) == 1
    });
    assert_eq!(term.get_i32_acquire(0), 64, "padding over the dead claim");
    assert_eq!(term.get_u16(6), 0, "PAD frame type");
    assert_eq!(term.get_i32(8), 0, "term offset");
    assert_eq!(term.get_i32(20), initial_term_id, "term id");
}

#[test]
fn dead_command_writer_is_unblocked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(quick_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    // A client claims a record and dies before committing it.
    let claimed = client.to_driver.try_claim(0x06, 16).unwrap();
    assert!(claimed.is_some());
    let corr = client.add_counter(1400, &[], "after the dead claim");
    let record = client.expect_correlated(corr);
    assert!(matches!(record.response(), Response::CounterReady(_)));
    assert_eq!(client.cnc.system_counter(20), 1, "unblocked control commands");
}

#[test]
fn terminate_driver_follows_the_validator() {
    for allow in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("aeron");
        let hooked = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&hooked);
        let mut ctx = test_context(&dir);
        if allow {
            ctx.termination_validator = aeronrs::driver::context::TerminationValidator::Allow;
        }
        ctx.termination_hook = Some(TerminationHook::new(move || flag.store(true, Ordering::Release)));
        let driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        client.terminate_driver(b"token");
        // A command sent after it is answered, so the terminate has been processed.
        let corr = client.add_counter(1500, &[], "x");
        client.expect_correlated(corr);
        assert_eq!(hooked.load(Ordering::Acquire), allow);
        assert_eq!(driver.termination_requested(), allow);
    }
}

#[test]
fn keepalive_command_refreshes_the_heartbeat_counter() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    let corr = client.add_counter(1600, &[], "registers the client");
    let hb = hb_counter(&mut client);
    client.expect_correlated(corr);
    client.cnc.set_counter_value(hb, 5);
    client.send(aeronrs::command::Command::ClientKeepalive(aeronrs::command::CorrelatedMessage::new(
        client.client_id,
        0,
    )));
    let before = epoch_ms() - 5_000;
    wait_until("keepalive stored the driver's epoch ms", || client.cnc.counter_value(hb) > before);
}

#[test]
fn delete_on_start_clears_an_existing_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    std::fs::create_dir_all(dir.join("publications")).unwrap();
    std::fs::write(dir.join("publications").join("99.logbuffer"), b"stale").unwrap();
    std::fs::write(dir.join("cnc.dat"), vec![0u8; 64]).unwrap();
    let ctx = DriverContext { dir_delete_on_start: true, ..test_context(&dir) };
    let _driver = MediaDriver::launch(ctx).unwrap();
    assert!(!dir.join("publications").join("99.logbuffer").exists());
    let client = RawClient::connect(&dir);
    assert!(client.cnc.driver_heartbeat() > 0);
}
