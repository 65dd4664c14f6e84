use super::*;
use crate::concurrent::AtomicBuffer;
use crate::protocol::resolution::ResolutionEntry;

struct Node {
    counters: CountersManager,
    system: SystemCounters,
    resolver: DriverNameResolver,
}

fn node(name: &str, bootstrap: Option<&str>) -> Node {
    let mut counters =
        CountersManager::new(AtomicBuffer::alloc(128 * 512), AtomicBuffer::alloc(128 * 128), 0).unwrap();
    let system = SystemCounters::allocate(&mut counters, 0).unwrap();
    let error_log = Arc::new(DistinctErrorLog::new(AtomicBuffer::alloc(1 << 16)).unwrap());
    let params = DriverNameResolverParams {
        name,
        interface: "127.0.0.1:0",
        bootstrap_neighbor: bootstrap,
        mtu_length: 1408,
        buffers: SocketBuffers { so_sndbuf: 0, so_rcvbuf: 0 },
    };
    let resolver = DriverNameResolver::new(&params, &mut counters, system.clone(), error_log, 0).unwrap();
    Node { counters, system, resolver }
}

fn counter_value(node: &Node, type_id: i32) -> i64 {
    let reader = node.counters.reader();
    let id = reader.counters().into_iter().find(|c| c.type_id == type_id).unwrap().id;
    reader.counter_value(id).unwrap()
}

/// Runs both resolvers' work from `now_ms` until `done` holds (time advances 10 ms a step).
fn run_until(a: &mut Node, b: &mut Node, now_ms: &mut i64, done: impl Fn(&Node, &Node) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done(a, b) {
        assert!(std::time::Instant::now() < deadline, "resolvers did not converge");
        *now_ms += DUTY_CYCLE_MS + 1;
        a.resolver.do_work(*now_ms).unwrap();
        b.resolver.do_work(*now_ms).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn two_resolvers_find_each_other_through_a_bootstrap_neighbour() {
    let mut b = node("node-b", None);
    let b_address = b.resolver.local_address();
    let mut a = node("node-a", Some(&format!("nowhere.invalid:1,{b_address}")));
    let a_address = a.resolver.local_address();
    let mut now_ms = 0;
    run_until(&mut a, &mut b, &mut now_ms, |a, b| {
        a.resolver.cache_entry_count() == 1 && b.resolver.cache_entry_count() == 1
    });
    let resolve = |n: &mut Node, host: &str| n.resolver.resolve(host, "endpoint", false, false).unwrap();
    assert_eq!(resolve(&mut b, "node-a"), a_address.ip());
    assert_eq!(resolve(&mut a, "node-b"), b_address.ip());
    assert_eq!(resolve(&mut a, "node-a"), a_address.ip(), "its own name");
    assert_eq!(resolve(&mut a, "localhost"), IpAddr::from([127, 0, 0, 1]), "others as the system says");
    assert_eq!(counter_value(&a, NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID), 1);
    assert_eq!(counter_value(&b, NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID), 1);
    let label_of = |n: &Node, type_id| {
        let reader = n.counters.reader();
        let id = reader.counters().into_iter().find(|c| c.type_id == type_id).unwrap().id;
        reader.counter_label(id).unwrap()
    };
    assert_eq!(
        label_of(&a, NAME_RESOLVER_NEIGHBORS_COUNTER_TYPE_ID),
        format!("Resolver neighbors: bound {a_address} bootstrap {b_address}")
    );
    assert_eq!(
        label_of(&b, NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID),
        "Resolver cache entries: name=node-b"
    );

    // B goes quiet: A forgets it after the timeout.
    let quiet_since = now_ms;
    while now_ms < quiet_since + TIMEOUT_MS + 2 * SELF_RESOLUTION_INTERVAL_MS {
        now_ms += 100;
        a.resolver.do_work(now_ms).unwrap();
    }
    assert_eq!(a.resolver.cache_entry_count(), 0);
    assert_eq!(a.resolver.neighbor_count(), 0);
    assert_eq!(counter_value(&a, NAME_RESOLVER_CACHE_ENTRIES_COUNTER_TYPE_ID), 0);
    assert!(a.resolver.resolve("node-b", "endpoint", false, false).is_err());
}

#[test]
fn hostile_res_frames_are_bounded_and_counted() {
    let mut target = node("target", None);
    let to = target.resolver.local_address();
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.send_to(&[0u8; 5], to).unwrap();
    socket.send_to(&[16, 0, 0, 0, 0, 0, 7, 0, 9, 9, 9, 9, 9, 9, 9, 9], to).unwrap(); // bad entry type
    let mut sent = 0usize;
    let mut frame = vec![0u8; 1400];
    let names: Vec<String> = (0..MAX_CACHE_ENTRIES + 100).map(|i| format!("forged-{i}")).collect();
    for chunk in names.chunks(40) {
        let entries: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(k, n)| ResolutionEntry {
                flags: 0,
                udp_port: 9,
                age_in_ms: 0,
                address: IpAddr::from([10, 0, ((sent + k) / 256) as u8, ((sent + k) % 256) as u8]),
                name: n.as_bytes(),
            })
            .collect();
        sent += entries.len();
        let length = encode_resolution_frame(&entries, &mut frame).unwrap();
        socket.send_to(&frame[..length], to).unwrap();
    }
    let datagrams = 2 + names.len().div_ceil(40);
    let mut now_ms = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut polls = 0;
    while polls * DATAGRAMS_PER_POLL < datagrams + DATAGRAMS_PER_POLL {
        assert!(std::time::Instant::now() < deadline);
        now_ms += DUTY_CYCLE_MS + 1;
        target.resolver.do_work(now_ms).unwrap();
        polls += 1;
    }
    assert_eq!(target.resolver.cache_entry_count(), MAX_CACHE_ENTRIES);
    assert_eq!(target.resolver.neighbor_count(), MAX_NEIGHBORS);
    assert_eq!(
        target.system.value(SystemCounterId::InvalidPackets),
        2 + 100,
        "two bad frames, 100 over the cap"
    );
}
