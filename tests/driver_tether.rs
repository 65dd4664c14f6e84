//! Untethered IPC subscribers (`spec/channel-uri.md` §4, `spec/driver.md` §4.4): one that
//! falls behind is made unavailable, then rests (no longer holding the publisher back), then
//! rejoins at the current join position; a tethered one always holds the limit.

#[path = "support/raw_client.rs"]
mod raw_client;

use aeronrs::command::Response;
use aeronrs::concurrent::mapped_file::map_existing;
use aeronrs::driver::MediaDriver;
use raw_client::{RawClient, test_context, wait_until};

#[test]
fn untethered_subscriber_left_behind_rests_and_rejoins() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = MediaDriver::launch(test_context(&dir)).unwrap();
    let mut client = RawClient::connect(&dir);
    let hb_client = client.client_id;

    let channel = "aeron:ipc?untethered-window-limit-timeout=200ms|untethered-resting-timeout=300ms";
    let pub_id = client.add_publication(channel, 9, false);
    let record = client
        .expect("heartbeat", |r| matches!(r, Response::CounterReady(c) if c.correlation_id == hb_client));
    let Response::CounterReady(hb) = record.response() else { unreachable!() };
    let hb = hb.counter_id;
    let record = client.expect_correlated(pub_id);
    let Response::PublicationReady(p) = record.response() else { panic!("{record:?}") };
    let (lmt, log_path) = (p.position_limit_counter_id, p.log_file_name_str().unwrap().to_string());

    let tethered = client.add_subscription("aeron:ipc", 9);
    let untethered = client.add_subscription("aeron:ipc?tether=false", 9);
    let sub_pos = |client: &mut RawClient, subscription: i64| {
        let record = client.expect(
            "image",
            |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription),
        );
        let Response::AvailableImage(i) = record.response() else { unreachable!() };
        i.subscriber_position_id
    };
    let tethered_pos = sub_pos(&mut client, tethered);
    let untethered_pos = sub_pos(&mut client, untethered);

    // 40000 bytes published; the tethered subscriber read them all, the untethered none.
    let log = map_existing(std::path::Path::new(&log_path)).unwrap();
    let m = log.view(3 * 65536, 4096).unwrap();
    m.put_i64_release(0, ((m.get_i32(264) as i64) << 32) | 40000);
    client.cnc.set_counter_value(tethered_pos, 40000);
    wait_until("limit held by the untethered subscriber at 0", || client.cnc.counter_value(lmt) == 32768);

    let record = client.expect(
        "untethered made unavailable",
        |r| matches!(r, Response::UnavailableImage(i) if i.subscription_registration_id == untethered),
    );
    let Response::UnavailableImage(u) = record.response() else { unreachable!() };
    assert_eq!((u.correlation_id, u.channel), (pub_id, &b"aeron:ipc"[..]));
    // Resting: only the tethered subscriber counts.
    wait_until("limit follows the tethered subscriber", || {
        client.heartbeat(hb);
        client.cnc.counter_value(lmt) == 40000 + 32768
    });
    // Rejoined at the join position with its same counter.
    let record = client.expect(
        "rejoin",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == untethered),
    );
    let Response::AvailableImage(i) = record.response() else { unreachable!() };
    assert_eq!((i.correlation_id, i.subscriber_position_id), (pub_id, untethered_pos));
    assert_eq!(i.source_identity, b"aeron:ipc");
    assert_eq!(client.cnc.counter_value(untethered_pos), 40000);
    client.poll();
    assert!(
        !client.received.iter().any(|r| matches!(r.response(), Response::UnavailableImage(i) if i.subscription_registration_id == tethered)),
        "the tethered subscriber is never dropped"
    );
}
