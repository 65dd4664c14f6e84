//! The bound socket addresses the Rust client reports for UDP channels (Aeron
//! `localSocketAddresses`, `resolvedEndpoint`, `tryResolveChannelEndpointPort`): a
//! subscription on a wildcard port (`endpoint=127.0.0.1:0`) learns the port its driver
//! bound, and a publication sent to the resolved channel reaches it; publications report
//! the address their datagrams come from (the image's source identity).

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context};
use aeronrs::driver::{MediaDriver, ThreadingMode};

fn driver(dir: &std::path::Path) -> MediaDriver {
    MediaDriver::launch(udp_pair::context(dir, ThreadingMode::Shared)).unwrap()
}

fn client(dir: &std::path::Path, errors: &Arc<Mutex<Vec<String>>>) -> Aeron {
    let mut ctx = Context::default();
    let sink = Arc::clone(errors);
    ctx.set_aeron_dir(dir)
        .set_idle_sleep_duration(Duration::from_millis(1))
        .set_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    Aeron::connect(ctx).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn port_of(address: &str) -> u16 {
    address.rsplit_once(':').unwrap().1.parse().unwrap()
}

#[test]
fn wildcard_port_resolves_to_the_bound_port_and_carries_data() {
    let tmp = tempfile::tempdir().unwrap();
    let mut media_driver = driver(tmp.path());
    let errors = Arc::new(Mutex::new(Vec::new()));
    let aeron = client(tmp.path(), &errors);

    let wildcard = "aeron:udp?endpoint=127.0.0.1:0|mtu=1408";
    let mut subscription = aeron.add_subscription(wildcard, 9).unwrap();
    assert_eq!(subscription.channel_status(), 1, "receive endpoint ACTIVE once added");
    let bound = subscription.local_socket_addresses();
    assert_eq!(bound.len(), 1, "{bound:?}");
    let port = port_of(&bound[0]);
    assert_ne!(port, 0);
    assert_eq!(bound[0], format!("127.0.0.1:{port}"));
    assert_eq!(subscription.resolved_endpoint().as_deref(), Some(bound[0].as_str()));
    let resolved = subscription.try_resolve_channel_endpoint_port().unwrap();
    assert_eq!(resolved, format!("aeron:udp?endpoint=127.0.0.1:{port}|mtu=1408"), "endpoint kept in place");

    // The resolved channel is the one the driver listens on: data sent there arrives.
    let publication = aeron.add_exclusive_publication(&resolved, 9).unwrap();
    assert_eq!(publication.channel_status(), 1);
    let sent_from = publication.local_socket_addresses();
    assert_eq!(sent_from.len(), 1, "{sent_from:?}");
    assert!(sent_from[0].starts_with("127.0.0.1:"), "{sent_from:?}");
    assert_ne!(port_of(&sent_from[0]), 0);
    wait_until("connected", || publication.is_connected() && subscription.image_count() == 1);
    let image = subscription.images().remove(0);
    assert_eq!(image.source_identity(), sent_from[0], "datagrams come from the reported address");
    let mut publication = publication;
    wait_until("offered", || publication.offer(b"through the resolved port").unwrap_or(0) > 0);
    let mut received = Vec::new();
    wait_until("received", || {
        subscription.poll(|payload, _| received.push(payload.to_vec()), 10);
        !received.is_empty()
    });
    assert_eq!(received, vec![b"through the resolved port".to_vec()]);

    // An untagged wildcard endpoint is never shared (as in Aeron): the same channel again
    // binds a port of its own. A channel without a wildcard port resolves to itself; IPC
    // has no addresses.
    let other = aeron.add_subscription(wildcard, 10).unwrap();
    let other_bound = other.resolved_endpoint().unwrap();
    assert_ne!(other_bound, bound[0]);
    assert_eq!(
        other.try_resolve_channel_endpoint_port().unwrap(),
        format!("aeron:udp?endpoint={other_bound}|mtu=1408")
    );
    let port = std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let explicit = format!("aeron:udp?endpoint=127.0.0.1:{port}");
    let fixed = aeron.add_subscription(&explicit, 10).unwrap();
    assert_eq!(fixed.try_resolve_channel_endpoint_port().as_deref(), Some(explicit.as_str()));
    assert_eq!(fixed.local_socket_addresses(), vec![format!("127.0.0.1:{port}")]);
    let ipc = aeron.add_subscription("aeron:ipc", 11).unwrap();
    assert!(ipc.local_socket_addresses().is_empty());
    assert_eq!(ipc.resolved_endpoint(), None);
    let ipc_publication = aeron.add_publication("aeron:ipc", 11).unwrap();
    assert!(ipc_publication.local_socket_addresses().is_empty());

    // Once the subscriptions are gone the endpoint closes; a new wildcard one may differ,
    // but it again reports what it bound.
    drop((fixed, other, subscription, publication, image));
    let again = aeron.add_subscription(wildcard, 12).unwrap();
    let rebound = again.resolved_endpoint().unwrap();
    assert!(rebound.starts_with("127.0.0.1:") && port_of(&rebound) != 0, "{rebound}");
    assert!(errors.lock().unwrap().is_empty(), "{:?}", errors.lock().unwrap());
    drop((again, ipc, ipc_publication, aeron));
    media_driver.close().unwrap();
}
