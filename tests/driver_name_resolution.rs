//! Name resolution in a running driver: every lookup and resolution of a channel's
//! addresses is timed into system counters 32 (NameResolver max time) and 33 (exceeded
//! `AERON_DRIVER_NAME_RESOLVER_THRESHOLD`), and a resolver supplied in code replaces the
//! default one for channels and destinations.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use aeronrs::command::Response;
use aeronrs::driver::MediaDriver;
use aeronrs::driver::media::name_resolver::{NameResolver, NameResolverSupplier};
use aeronrs::util::error::{Error, Result};
use raw_client::{RawClient, test_context};

const NAME_RESOLVER_MAX_TIME: i32 = 32;
const NAME_RESOLVER_THRESHOLD_EXCEEDED: i32 = 33;

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Adds a publication and waits for the driver's answer; true when it is ready.
fn publication_ready(client: &mut RawClient, channel: &str) -> bool {
    let id = client.add_publication(channel, 1001, false);
    matches!(client.expect_correlated(id).response(), Response::PublicationReady(_))
}

#[test]
fn resolving_localhost_is_timed_and_counted_over_the_threshold() {
    for (threshold_ns, counted) in [(1, true), (5_000_000_000, false)] {
        let tmp = tempfile::tempdir().unwrap();
        let mut ctx = test_context(tmp.path());
        ctx.agents.name_resolver_threshold_ns = threshold_ns;
        let mut driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(tmp.path());
        assert_eq!(client.cnc.system_counter(NAME_RESOLVER_MAX_TIME), 0, "nothing resolved yet");
        assert!(publication_ready(&mut client, &format!("aeron:udp?endpoint=localhost:{}", free_port())));
        let max_time = client.cnc.system_counter(NAME_RESOLVER_MAX_TIME);
        let exceeded = client.cnc.system_counter(NAME_RESOLVER_THRESHOLD_EXCEEDED);
        assert!(max_time > 0, "threshold {threshold_ns}: max time {max_time}");
        if counted {
            // The lookup of `localhost:<port>` and the resolution of `localhost`.
            assert_eq!(exceeded, 2, "a 1 ns threshold counts both calls");
        } else {
            assert_eq!(exceeded, 0, "nothing takes 5 s");
        }
        driver.close().unwrap();
    }
}

/// Looks `service-a:1` up as `host-a:<port>` and resolves `host-a` as 127.0.0.1; records
/// every call.
struct ServiceTable {
    port: u16,
    calls: Arc<Mutex<Vec<String>>>,
}

impl NameResolver for ServiceTable {
    fn lookup(&mut self, name: &str, uri_param_name: &str, _: bool) -> Result<Option<String>> {
        self.calls.lock().unwrap().push(format!("lookup {uri_param_name}={name}"));
        Ok((name == "service-a:1").then(|| format!("host-a:{}", self.port)))
    }

    fn resolve(&mut self, host: &str, _: &str, _: bool, _: bool) -> Result<IpAddr> {
        self.calls.lock().unwrap().push(format!("resolve {host}"));
        match host {
            "host-a" => Ok(IpAddr::from([127, 0, 0, 1])),
            _ => Err(Error::invalid_argument(format!("{host} is not in the table"))),
        }
    }

    fn close(&mut self) {
        self.calls.lock().unwrap().push("close".to_string());
    }
}

#[test]
fn a_supplied_resolver_resolves_channels_for_the_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut ctx = test_context(tmp.path());
    ctx.network.name_resolver_init_args = Some("table=services".to_string());
    let supplier_calls = Arc::clone(&calls);
    ctx.name_resolver_supplier = Some(NameResolverSupplier(Arc::new(move |args: Option<&str>| {
        supplier_calls.lock().unwrap().push(format!("supply {args:?}"));
        Ok(Box::new(ServiceTable { port, calls: Arc::clone(&supplier_calls) }) as Box<dyn NameResolver>)
    })));
    let mut driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(tmp.path());
    // The subscription binds what the resolver said; a publication to that literal
    // address connects to it.
    let subscription = client.add_subscription("aeron:udp?endpoint=service-a:1", 1001);
    let answer = client.expect_correlated(subscription);
    assert!(matches!(answer.response(), Response::SubscriptionReady(_)), "{:?}", answer.response());
    assert!(publication_ready(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}")));
    client.expect("image of the resolved subscription", |r| matches!(r, Response::AvailableImage(_)));
    let unknown = client.add_publication("aeron:udp?endpoint=service-b:1", 1001, false);
    let (_, message) = client.expect_error(unknown);
    assert!(message.contains("service-b is not in the table"), "{message}");
    driver.close().unwrap();
    let calls = calls.lock().unwrap().clone();
    assert_eq!(
        calls,
        [
            "supply Some(\"table=services\")".to_string(),
            "lookup endpoint=service-a:1".to_string(),
            "resolve host-a".to_string(),
            format!("lookup endpoint=127.0.0.1:{port}"),
            "lookup endpoint=service-b:1".to_string(),
            "resolve service-b".to_string(),
            "close".to_string(),
        ]
    );
}
