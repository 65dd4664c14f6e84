//! Port managers: the wildcard port ranges (`AERON_RECEIVER_WILDCARD_PORT_RANGE`,
//! `AERON_SENDER_WILDCARD_PORT_RANGE`) decide the ports of wildcard (port 0) endpoints, a
//! full range refuses the next one, a closed endpoint gives its port back; a port manager
//! supplied in code decides instead and hears of every port freed.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context};
use aeronrs::driver::media::port_manager::{PortManager, PortManagerSupplier};
use aeronrs::driver::media::udp_channel::UdpChannel;
use aeronrs::driver::network_config::PortRange;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::Result;

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

/// Two adjacent loopback UDP ports that are free now.
fn free_port_pair() -> u16 {
    for _ in 0..100 {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = a.local_addr().unwrap().port();
        if port < u16::MAX - 1 && std::net::UdpSocket::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
    panic!("no two adjacent free ports");
}

fn context(dir: &std::path::Path) -> DriverContext {
    DriverContext {
        // Endpoints close soon after their last subscription or publication.
        timer_interval_ns: 20_000_000,
        publication_linger_timeout_ns: 20_000_000,
        ..udp_pair::context(dir, ThreadingMode::Shared)
    }
}

#[test]
fn wildcard_ports_come_from_the_configured_ranges() {
    let tmp = tempfile::tempdir().unwrap();
    let low = free_port_pair();
    let sender_port = free_port_pair();
    let mut ctx = context(tmp.path());
    ctx.network.receiver_wildcard_port_range = PortRange { low, high: low + 1 };
    ctx.network.sender_wildcard_port_range = PortRange { low: sender_port, high: sender_port };
    let mut driver = MediaDriver::launch(ctx).unwrap();
    let aeron = client(tmp.path());

    let wildcard = "aeron:udp?endpoint=127.0.0.1:0";
    let first = aeron.add_subscription(wildcard, 1).unwrap();
    let second = aeron.add_subscription(wildcard, 2).unwrap();
    assert_eq!(first.resolved_endpoint(), Some(format!("127.0.0.1:{low}")));
    assert_eq!(second.resolved_endpoint(), Some(format!("127.0.0.1:{}", low + 1)));
    let err = aeron.add_subscription(wildcard, 3).unwrap_err();
    assert!(err.message().contains(&format!("no available ports in range {low} {}", low + 1)), "{err}");
    // The first endpoint's port is free once it closed; the search wraps round to it.
    drop(first);
    let third = Arc::new(Mutex::new(None));
    wait_until("a port back in the range", || match aeron.add_subscription(wildcard, 4) {
        Ok(s) => {
            *third.lock().unwrap() = Some(s);
            true
        }
        Err(_) => false,
    });
    let third = third.lock().unwrap().take().unwrap();
    assert_eq!(third.resolved_endpoint(), Some(format!("127.0.0.1:{low}")));

    // A publication's own port stays the OS's; a dynamic MDC control port is managed.
    let publication = aeron.add_publication(&format!("aeron:udp?endpoint=127.0.0.1:{low}"), 4).unwrap();
    let from = publication.local_socket_addresses();
    assert_eq!(from.len(), 1);
    assert_ne!(from[0], format!("127.0.0.1:{sender_port}"));
    let mdc = aeron.add_publication("aeron:udp?control=127.0.0.1:0|control-mode=dynamic", 5).unwrap();
    assert_eq!(mdc.local_socket_addresses(), vec![format!("127.0.0.1:{sender_port}")]);
    drop((second, third, publication, mdc, aeron));
    driver.close().unwrap();
}

/// Binds receive destinations with port 0 to `port`; records what it is asked.
struct FixedPort {
    port: u16,
    calls: Arc<Mutex<Vec<String>>>,
}

impl PortManager for FixedPort {
    fn get_managed_port(&mut self, channel: &UdpChannel, mut bind: SocketAddr) -> Result<SocketAddr> {
        self.calls.lock().unwrap().push(format!("get {bind} for {}", channel.original_uri));
        if bind.port() == 0 {
            bind.set_port(self.port);
        }
        Ok(bind)
    }

    fn free_managed_port(&mut self, bind: SocketAddr) {
        self.calls.lock().unwrap().push(format!("free {bind}"));
    }
}

#[test]
fn a_supplied_port_manager_decides_and_hears_of_freed_ports() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port_pair();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut ctx = context(tmp.path());
    let manager_calls = Arc::clone(&calls);
    ctx.receiver_port_manager = Some(PortManagerSupplier(Arc::new(move || {
        Box::new(FixedPort { port, calls: Arc::clone(&manager_calls) }) as Box<dyn PortManager>
    })));
    let mut driver = MediaDriver::launch(ctx).unwrap();
    let aeron = client(tmp.path());
    let channel = "aeron:udp?endpoint=127.0.0.1:0";
    let subscription = aeron.add_subscription(channel, 1).unwrap();
    assert_eq!(subscription.resolved_endpoint(), Some(format!("127.0.0.1:{port}")));
    drop(subscription);
    wait_until("the port freed", || calls.lock().unwrap().len() == 2);
    assert_eq!(
        *calls.lock().unwrap(),
        [format!("get 127.0.0.1:0 for {channel}"), format!("free 127.0.0.1:{port}")]
    );
    drop(aeron);
    driver.close().unwrap();
}
