//! The built-in name resolvers in running drivers, and resolution off the conductor's
//! thread:
//! * two `aeronmd`s with driver resolvers (`AERON_DRIVER_RESOLVER_NAME`/`_INTERFACE`, one
//!   bootstrapping from the other, on two ports of 127.0.0.1) learn each other's names and a
//!   stream flows by name each way; their neighbour and cache counters say so;
//! * `AERON_NAME_RESOLVER_SUPPLIER` naming no built-in resolver stops the driver with an
//!   error naming the choices;
//! * with the async executor (the default) a resolution that blocks runs on the executor
//!   thread while the conductor's duty cycle goes on (its heartbeat advances), and the
//!   command behind it waits its turn; with 0 threads it runs on the conductor.
mod client_support;
#[path = "support/named_streams.rs"]
mod named_streams;
#[path = "support/raw_client.rs"]
mod raw_client;

use std::net::IpAddr;
use std::sync::{Arc, Condvar, Mutex};

use aeronrs::client::Aeron;
use aeronrs::command::Response;
use aeronrs::driver::MediaDriver;
use aeronrs::driver::media::name_resolver::{NameResolver, NameResolverSupplier};
use aeronrs::util::error::{Error, Result};
use client_support::{ErrorLog, RustDriver, context};
use named_streams::{Reader, counter_of_type, counter_value, free_port, stream_until, wait_until};
use raw_client::{RawClient, test_context};

const NEIGHBORS_TYPE_ID: i32 = 15;
const CACHE_ENTRIES_TYPE_ID: i32 = 16;

fn resolver_driver(name: &str, port: u16, bootstrap: Option<u16>) -> RustDriver {
    let interface = format!("127.0.0.1:{port}");
    let bootstrap = bootstrap.map(|p| format!("127.0.0.1:{p}"));
    let mut envs =
        vec![("AERON_DRIVER_RESOLVER_NAME", name), ("AERON_DRIVER_RESOLVER_INTERFACE", interface.as_str())];
    if let Some(b) = &bootstrap {
        envs.push(("AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR", b.as_str()));
    }
    RustDriver::start(&envs)
}

/// A stream from `from` to `to` on `channel` delivers 200 messages in order.
fn stream_by_name(from: &Aeron, to: &Aeron, channel: &str, stream_id: i32) {
    let mut reader = Reader::new("by name", to.add_subscription(channel, stream_id).unwrap());
    let publication = from.add_publication(channel, stream_id).unwrap();
    let mut i = 0;
    stream_until(&publication, &mut i, &mut [&mut reader], channel, |r| r[0].delivered() >= 200);
    assert_eq!(reader.first, Some(0), "{channel}: from the first message");
}

#[test]
fn two_driver_resolvers_find_each_other_through_a_bootstrap_neighbour() {
    let (port_a, port_b) = (free_port(), free_port());
    let driver_a = resolver_driver("node-a", port_a, None);
    let driver_b = resolver_driver("node-b", port_b, Some(port_a));
    let log = ErrorLog::default();
    let a = Aeron::connect(context(driver_a.aeron_dir(), &log)).expect("connect a");
    let b = Aeron::connect(context(driver_b.aeron_dir(), &log)).expect("connect b");
    let neighbors_a = counter_of_type(&a, NEIGHBORS_TYPE_ID).expect("a's neighbours counter");
    let neighbors_b = counter_of_type(&b, NEIGHBORS_TYPE_ID).expect("b's neighbours counter");
    let cache_a = counter_of_type(&a, CACHE_ENTRIES_TYPE_ID).expect("a's cache counter");
    let cache_b = counter_of_type(&b, CACHE_ENTRIES_TYPE_ID).expect("b's cache counter");
    wait_until("both resolvers know each other", || {
        [(&a, neighbors_a), (&b, neighbors_b), (&a, cache_a), (&b, cache_b)]
            .iter()
            .all(|(aeron, id)| counter_value(aeron, *id) == 1)
    });
    let label = |aeron: &Aeron, id| aeron.counters_reader().counter_label(id).unwrap();
    assert_eq!(label(&a, neighbors_a), format!("Resolver neighbors: bound 127.0.0.1:{port_a}"));
    assert_eq!(
        label(&b, neighbors_b),
        format!("Resolver neighbors: bound 127.0.0.1:{port_b} bootstrap 127.0.0.1:{port_a}")
    );
    assert_eq!(label(&b, cache_b), "Resolver cache entries: name=node-b");

    stream_by_name(&a, &b, &format!("aeron:udp?endpoint=node-b:{}", free_port()), 1001);
    stream_by_name(&b, &a, &format!("aeron:udp?endpoint=node-a:{}", free_port()), 1002);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
    a.close();
    b.close();
}

#[test]
fn an_unknown_supplier_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_aeronmd"))
        .env("AERON_DIR", dir.path().join("aeron"))
        .env("AERON_NAME_RESOLVER_SUPPLIER", "dns-over-carrier-pigeon")
        .output()
        .expect("run aeronmd");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("AERON_NAME_RESOLVER_SUPPLIER=\"dns-over-carrier-pigeon\": unknown name resolver")
            && stderr.contains("default, csv_table, driver"),
        "{stderr}"
    );
}

/// A gate a resolution waits at until the test opens it.
#[derive(Default)]
struct Gate {
    state: Mutex<(bool, bool, Option<String>)>, // (entered, open, resolving thread's name)
    changed: Condvar,
}

/// Resolves `slow` to 127.0.0.1 once the gate opens.
struct GatedResolver(Arc<Gate>);

impl NameResolver for GatedResolver {
    fn lookup(&mut self, _: &str, _: &str, _: bool) -> Result<Option<String>> {
        Ok(None)
    }

    fn resolve(&mut self, host: &str, _: &str, _: bool, _: bool) -> Result<IpAddr> {
        if host != "slow" {
            return Err(Error::invalid_argument(format!("{host} unknown")));
        }
        let mut state = self.0.state.lock().unwrap();
        state.0 = true;
        state.2 = std::thread::current().name().map(str::to_string);
        self.0.changed.notify_all();
        while !state.1 {
            state = self.0.changed.wait(state).unwrap();
        }
        Ok(IpAddr::from([127, 0, 0, 1]))
    }
}

fn blocked_resolution(executor_threads: u32) -> Option<String> {
    let tmp = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let mut ctx = test_context(tmp.path());
    ctx.agents.async_executor_threads = executor_threads;
    let supplied = Arc::clone(&gate);
    ctx.name_resolver_supplier = Some(NameResolverSupplier(Arc::new(move |_: Option<&str>| {
        Ok(Box::new(GatedResolver(Arc::clone(&supplied))) as Box<dyn NameResolver>)
    })));
    let mut driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(tmp.path());
    let publication = client.add_publication(&format!("aeron:udp?endpoint=slow:{}", free_port()), 7, false);
    let behind = client.add_subscription("aeron:ipc", 8);
    wait_until("the resolution to start", || gate.state.lock().unwrap().0);
    let thread = gate.state.lock().unwrap().2.clone();
    if executor_threads > 0 {
        let before = client.cnc.driver_heartbeat();
        wait_until("the conductor's heartbeat while the resolution blocks", || {
            client.cnc.driver_heartbeat() > before
        });
        assert!(!gate.state.lock().unwrap().1, "still blocked");
    }
    {
        let mut state = gate.state.lock().unwrap();
        state.1 = true;
        gate.changed.notify_all();
    }
    let answer = client.expect_correlated(publication);
    assert!(matches!(answer.response(), Response::PublicationReady(_)), "{:?}", answer.response());
    let answer = client.expect_correlated(behind);
    assert!(matches!(answer.response(), Response::SubscriptionReady(_)), "{:?}", answer.response());
    driver.close().unwrap();
    thread
}

#[test]
fn a_blocking_resolution_runs_on_the_executor_and_the_conductor_goes_on() {
    assert_eq!(blocked_resolution(1).as_deref(), Some("aeron-executor"));
}

#[test]
fn without_executor_threads_the_conductor_resolves() {
    assert_ne!(blocked_resolution(0).as_deref(), Some("aeron-executor"));
}

/// Interop: a Java `aeron-all` MediaDriver with its driver resolver
/// (`aeron.driver.resolver.name`/`.interface`) and ours, bootstrapping from it, learn each
/// other's names over RES frames, and streams flow by name both ways. Skips loudly without
/// Java, unless `AERONRS_REQUIRE_INTEROP=1`.
#[test]
fn our_driver_resolver_and_javas_find_each_other_by_name() {
    let (port_java, port_ours) = (free_port(), free_port());
    let name = "-Daeron.driver.resolver.name=java-node".to_string();
    let interface = format!("-Daeron.driver.resolver.interface=127.0.0.1:{port_java}");
    let Some(java) =
        client_support::JavaDriver::start(&["-Daeron.term.buffer.sparse.file=true", &name, &interface])
    else {
        return;
    };
    let ours = resolver_driver("rust-node", port_ours, Some(port_java));
    let log = ErrorLog::default();
    let j = Aeron::connect(context(java.aeron_dir(), &log)).expect("connect to java");
    let r = Aeron::connect(context(ours.aeron_dir(), &log)).expect("connect to ours");
    let ids = |aeron: &Aeron| {
        (
            counter_of_type(aeron, NEIGHBORS_TYPE_ID).unwrap(),
            counter_of_type(aeron, CACHE_ENTRIES_TYPE_ID).unwrap(),
        )
    };
    // Java's resolver allocates its counters as its conductor starts, after READY.
    wait_until("java's resolver counters", || counter_of_type(&j, CACHE_ENTRIES_TYPE_ID).is_some());
    let (java_neighbors, java_cache) = ids(&j);
    let (our_neighbors, our_cache) = ids(&r);
    wait_until("java's resolver and ours know each other", || {
        [(&j, java_neighbors), (&j, java_cache), (&r, our_neighbors), (&r, our_cache)]
            .iter()
            .all(|(aeron, id)| counter_value(aeron, *id) == 1)
    });
    stream_by_name(&r, &j, &format!("aeron:udp?endpoint=java-node:{}", free_port()), 1001);
    stream_by_name(&j, &r, &format!("aeron:udp?endpoint=rust-node:{}", free_port()), 1002);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
    j.close();
    r.close();
}
