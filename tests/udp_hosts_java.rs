//! Real Java Aeron (aeron-all 1.47, `interop/java`) and our driver on different simulated
//! hosts (`support/netns.rs`): multicast both ways over IPv4 and IPv6, multi-destination-cast
//! (dynamic and manual) both ways, and min and tagged flow control over receivers of both
//! kinds. Every message is checked once, in order, intact, by whichever side receives it.
//!
//! A "Java host" runs `Interop driver` (Java's media driver) and `Interop pub|sub` clients on
//! it, all inside the host's namespace, sharing the host's Aeron directory under the test's
//! temp dir. An "our host" runs the roles of `support/udp_roles.rs` (each an embedded driver
//! of ours plus a publisher or subscriber; this binary re-executed as test `child_role`).
//! The test reads the counters of either kind of driver straight from its `cnc.dat` (the
//! file system is shared; only the network is per host).
//!
//! Every receiver must see the stream from message 0, so every publisher (ours or Java's)
//! holds its first message until `go`, which the test sends once every receiver has its
//! image: an image made later (a receiver that missed the first SETUP, or a dynamic MDC
//! receiver the publication learned of after its last SETUP) starts where the stream is
//! then, as Aeron intends. Each host has one interface, so `interface=` by address and by
//! subnet/prefix are shown to be accepted and to work on both sides, not to pick the right
//! one of several.
//!
//! Needs root and `ip netns` (skips loudly without, fails with `AERONRS_REQUIRE_NETNS=1`)
//! and `java` + `mvn` (skips without, fails with `AERONRS_REQUIRE_INTEROP=1`).

#[path = "support/java_procs.rs"]
mod java_procs;
#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/netns.rs"]
mod netns;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_roles.rs"]
mod udp_roles;

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use aeronrs::concurrent::counters::type_ids::{
    CHANNEL_NUM_DESTINATIONS_TYPE_ID, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID,
};
use aeronrs::driver::ThreadingMode;
use netns::{Host, NetOptions, SimNetwork};
use raw_client::Cnc;
use udp_roles::{Proc, RoleConfig, field};

/// The test the children of our side run as.
const ENTRY: &str = "child_role";
/// The stream of `udp_roles` (fixed there) and of every Java client here.
const STREAM: &str = "1001";
/// Messages per transfer.
const COUNT: u64 = 100_000;
/// A JVM starting (two cores, maybe other JVMs starting too). This and the bounds below are
/// far above what a run takes (a JVM is up in about a second, a transfer takes seconds): they
/// only bound a failing run, and a machine shared with other jobs can be many times slower.
const JVM: Duration = Duration::from_secs(90);
/// A transfer of `COUNT` messages (seconds when the machine is not overloaded; a receiver
/// that max flow control leaves behind catches up through NAKs, slowly when starved of CPU),
/// or a connection being made. `Interop sub` gives up after 120 s of its own.
const TRANSFER: Duration = Duration::from_secs(120);
/// A driver starting or a process exiting.
const SHORT: Duration = Duration::from_secs(60);
/// On every publication: terms of 64 MiB, twice the longest stream here (100,000 frames of
/// 256 B). Aeron gives up on a receiver more than half a term behind the sender (the sender
/// resends only from half a term and a maximum message back, and the receiver takes even
/// heartbeats from further ahead as over-runs, so its image times out); the default max
/// flow control of multicast and MDC, and tagged flow control for untagged receivers, let a
/// receiver starved of CPU fall that far behind the fastest. With the whole stream in half a
/// term, such a receiver catches up through NAKs instead. Every driver here makes its logs
/// sparse files: pre-touching 3 x 64 MiB per log would cost more than the traffic.
const TERM: &str = "|term-length=64m";
/// The group tag of the tagged flow-control test.
const TAG: u64 = 7;

/// One test at a time: each runs several drivers and JVMs, and the machine has two cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn child_role() {
    // In the parent this does nothing; in a child it is the whole process.
    udp_roles::run_role_from_env();
}

// ---- hosts, drivers and clients -------------------------------------------------------------

/// The hosts of one test, the Java classpath and the directories of every driver.
struct Lab {
    net: SimNetwork,
    classpath: String,
    tmp: tempfile::TempDir,
    dirs: std::sync::Mutex<Vec<PathBuf>>,
}

impl Drop for Lab {
    /// A failed test shows the counters of every driver it started (killed by now; their
    /// `cnc.dat` stays until the temp dir goes).
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let dirs = self.dirs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for dir in dirs.iter().filter(|d| d.join("cnc.dat").exists()) {
            eprintln!("---- counters of the driver in {}:\n{}", dir.display(), counters(&Cnc::map(dir)));
        }
    }
}

/// `None`: skipped (by the harness's or `interop_classpath`'s rules).
fn lab(hosts: usize) -> Option<(std::sync::MutexGuard<'static, ()>, Lab)> {
    let serial = SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let net = SimNetwork::new(hosts, NetOptions::default())?;
    let classpath = java_procs::interop_classpath()?;
    let tmp = tempfile::tempdir().unwrap();
    Some((serial, Lab { net, classpath, tmp, dirs: Default::default() }))
}

impl Lab {
    fn host(&self, i: usize) -> &Host {
        self.net.host(i)
    }

    /// A fresh directory for a driver on host `i`.
    fn dir(&self, i: usize, what: &str) -> PathBuf {
        let mut dirs = self.dirs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let dir = self.tmp.path().join(format!("h{i}-{what}-{}", dirs.len()));
        dirs.push(dir.clone());
        dir
    }

    /// Starts Java's media driver on each of `hosts`, all JVMs at once.
    fn java_hosts<const N: usize>(&self, hosts: [usize; N]) -> [JavaHost; N] {
        let java = hosts.map(|i| {
            let dir = self.dir(i, "java");
            let host = self.host(i).name();
            let options = ["-Daeron.term.buffer.sparse.file=true"];
            let cmd = java_procs::interop_command(Some(host), &self.classpath, &dir, &options, &["driver"]);
            let driver = Proc::spawn_command(format!("java driver in host {i}"), cmd);
            let (netns, classpath) = (host.to_string(), self.classpath.clone());
            JavaHost { index: i, netns, classpath, dir, driver }
        });
        for j in &java {
            j.driver.expect("READY", JVM);
        }
        java
    }

    /// Our receiver role on host `i` (its own driver) subscribing to `channel`.
    fn our_receiver(&self, i: usize, channel: &str, length: usize) -> Receiver {
        let mut config =
            RoleConfig::new("receiver", &self.dir(i, "rcv"), ThreadingMode::SharedNetwork, channel);
        config.count = COUNT;
        config.length = length;
        config.sparse_logs = true;
        config.netns = Some(self.host(i).name().to_string());
        Receiver { proc: Proc::spawn(ENTRY, &config), java: false }
    }

    /// Our sender role on host `i` publishing `COUNT` messages on `channel` from `go` on
    /// (ADD_DESTINATION of each of `destinations` first). Returns once the publication exists,
    /// with the driver's directory.
    fn our_sender(
        &self,
        i: usize,
        channel: &str,
        length: usize,
        destinations: &[String],
    ) -> (Publisher, PathBuf) {
        let dir = self.dir(i, "snd");
        let mut config = RoleConfig::new("sender", &dir, ThreadingMode::SharedNetwork, channel);
        config.count = COUNT;
        config.length = length;
        config.destinations = destinations.to_vec();
        config.hold = true;
        config.sparse_logs = true;
        config.netns = Some(self.host(i).name().to_string());
        let sender = Proc::spawn(ENTRY, &config);
        sender.expect("PUBLICATION", SHORT);
        (Publisher::new(sender, false), dir)
    }
}

/// Java's media driver in one host; `Interop` clients run beside it.
struct JavaHost {
    index: usize,
    netns: String,
    classpath: String,
    dir: PathBuf,
    /// Killed on drop (and by the network's teardown).
    driver: Proc,
}

impl JavaHost {
    fn interop(&self, what: &str, options: &[&str], args: &[&str]) -> Proc {
        let cmd = java_procs::interop_command(Some(&self.netns), &self.classpath, &self.dir, options, args);
        Proc::spawn_command(format!("java {what} in host {}", self.index), cmd)
    }

    /// `Interop sub` of `COUNT` messages on `channel`.
    fn subscriber(&self, channel: &str, length: usize) -> Receiver {
        let (count, length) = (COUNT.to_string(), length.to_string());
        Receiver { proc: self.interop("sub", &[], &["sub", channel, STREAM, &count, &length]), java: true }
    }

    /// `Interop pub` of `COUNT` messages from `go` on, adding `destinations` first. Returns
    /// once the publication exists.
    fn publisher(&self, channel: &str, length: usize, destinations: &[String]) -> Publisher {
        let (count, length) = (COUNT.to_string(), length.to_string());
        let mut args = vec!["pub", channel, STREAM, &count, &length];
        args.extend(destinations.iter().map(String::as_str));
        let publisher = self.interop("pub", &["-Dinterop.hold=true"], &args);
        publisher.expect("PUBLICATION", JVM);
        Publisher::new(publisher, true)
    }

    fn cnc(&self) -> Cnc {
        Cnc::map(&self.dir)
    }

    /// Java's driver saw nothing of ours it could not take: no invalid packet, no error.
    fn assert_clean(&self) {
        let cnc = self.cnc();
        // Aeron system counters: 14 invalid packets, 15 errors.
        let (invalid, errors) = (cnc.system_counter(14), cnc.system_counter(15));
        assert_eq!((invalid, errors), (0, 0), "java driver in host {}: {:?}", self.index, cnc.errors());
        let seen: Vec<String> = [
            (5, "naks_sent"),
            (6, "naks_received"),
            (11, "retransmits"),
            (12, "underruns"),
            (13, "overruns"),
            (21, "ttl_asymmetry"),
            (23, "loss_gap_fills"),
            (26, "conductor_max_cycle_ns"),
        ]
        .iter()
        .map(|&(id, name)| format!("{name}={}", cnc.system_counter(id)))
        .collect();
        eprintln!("java driver in host {}: {}", self.index, seen.join(" "));
    }
}

/// A subscriber of either side: prints `READY` once subscribed, `IMAGE source=...` when its
/// image is available, `DONE n` after `COUNT` checked messages (ours also `FIRST i`).
struct Receiver {
    proc: Proc,
    java: bool,
}

/// A publisher of either side, holding its first message until `go`: prints `PUBLICATION`
/// (already seen), `READY` when connected, answers `status` with `STATUS ... connected=...`.
struct Publisher {
    proc: Proc,
    java: bool,
    connected: bool,
}

impl Publisher {
    fn new(proc: Proc, java: bool) -> Self {
        Self { proc, java, connected: false }
    }

    /// Waits for `READY`: connected, by its flow control's rules.
    fn await_connected(&mut self) {
        if !self.connected {
            self.proc.expect("READY", TRANSFER);
            self.connected = true;
        }
    }
}

/// Waits until every receiver is subscribed (JVMs started together warm up in parallel).
fn ready<'a>(receivers: impl IntoIterator<Item = &'a Receiver>) {
    for r in receivers {
        r.proc.expect("READY", JVM);
    }
}

/// The whole stream from `source` (the publisher host's address): waits for the publisher to
/// connect and for every receiver's image, lets the publisher go, and checks that each
/// receiver got every message from message 0 on; then every process exits cleanly.
fn stream(mut publisher: Publisher, receivers: Vec<Receiver>, source: IpAddr) {
    publisher.await_connected();
    let mut images = Vec::new();
    for r in &receivers {
        let image = r.proc.expect("IMAGE", TRANSFER);
        assert_eq!(image_source(&image), source, "{}: {image}", r.proc.name);
        if r.java {
            assert!(image.ends_with(" joinPosition=0"), "{}: {image}", r.proc.name);
        }
        images.push(image);
    }
    publisher.proc.tell("go");
    for (mut r, image) in receivers.into_iter().zip(images) {
        let name = r.proc.name.clone();
        if r.java {
            // `Interop sub` checks each message from message 0 on and exits 0 only then.
            r.proc.expect(&format!("DONE {COUNT}"), TRANSFER);
            r.proc.wait_success(SHORT);
            eprintln!("{name}: {image}");
        } else {
            assert_eq!(r.proc.expect("FIRST", TRANSFER), "FIRST 0", "{name}");
            r.proc.expect(&format!("DONE {COUNT}"), TRANSFER);
            let counters = r.proc.expect("COUNTERS", SHORT);
            assert_eq!(field(&counters, "invalid"), 0, "{name}: {counters}");
            r.proc.tell("exit");
            r.proc.expect("EXITED", SHORT);
            r.proc.wait_success(SHORT);
            eprintln!("{name}: {image}, {counters}");
        }
    }
    let name = publisher.proc.name.clone();
    if publisher.java {
        let done = publisher.proc.expect("DONE", TRANSFER);
        assert!(done.starts_with(&format!("DONE {COUNT} ")), "{name}: {done}");
        publisher.proc.wait_success(SHORT);
    } else {
        let sent = publisher.proc.expect("SENT", TRANSFER);
        assert!(sent.starts_with(&format!("SENT {COUNT} ")), "{name}: {sent}");
        publisher.proc.tell("counters");
        let counters = publisher.proc.expect("COUNTERS", SHORT);
        publisher.proc.tell("exit");
        publisher.proc.expect("EXITED", SHORT);
        publisher.proc.wait_success(SHORT);
        eprintln!("{name}: {sent}, {counters}");
    }
}

/// The address of an `IMAGE source=<address>:<port> ...` line. Ours writes an IPv6 address as
/// `[fd61::3]:port`, Java (`InetAddress.getHostAddress`) as `fd61:0:0:0:0:0:0:3:port`.
fn image_source(line: &str) -> IpAddr {
    let identity =
        line.split_whitespace().find_map(|w| w.strip_prefix("source=")).unwrap_or_else(|| panic!("{line}"));
    let (address, _port) = identity.rsplit_once(':').unwrap_or_else(|| panic!("{line}"));
    let address = address.trim_start_matches('[').trim_end_matches(']');
    address.parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

// ---- counters -------------------------------------------------------------------------------

/// The value of the allocated counter of `type_id` whose label names `channel`, if any (a
/// word of the label: Java ends channel-endpoint labels with a space, ours does not).
fn counter(cnc: &Cnc, type_id: i32, channel: &str) -> Option<i64> {
    let records = (cnc.counters_metadata.capacity() / 512) as i32;
    (0..records)
        .find(|&id| {
            cnc.counter_state(id) == 1
                && cnc.counter_type_id(id) == type_id
                && cnc.counter_label(id).split_whitespace().any(|word| word == channel)
        })
        .map(|id| cnc.counter_value(id))
}

/// Every allocated counter: what a failure shows.
fn counters(cnc: &Cnc) -> String {
    let records = (cnc.counters_metadata.capacity() / 512) as i32;
    let allocated = (0..records).filter(|&id| cnc.counter_state(id) == 1);
    allocated
        .map(|id| {
            format!(
                "{id} type {}: {} = {}",
                cnc.counter_type_id(id),
                cnc.counter_label(id),
                cnc.counter_value(id)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until the counter of `type_id` for `channel` in `cnc` is `expected`.
fn wait_for_counter(cnc: &Cnc, type_id: i32, channel: &str, expected: i64) {
    let deadline = Instant::now() + TRANSFER;
    while counter(cnc, type_id, channel) != Some(expected) {
        assert!(
            Instant::now() < deadline,
            "no counter of type {type_id} for {channel} reached {expected} within {TRANSFER:?}; counters:\n{}",
            counters(cnc)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn ipv4(host: &Host) -> String {
    host.ipv4().to_string()
}

fn ipv6(host: &Host) -> String {
    format!("[{}]", host.ipv6())
}

// ---- multicast ------------------------------------------------------------------------------

#[test]
fn ipv4_multicast_from_a_java_host_to_two_of_ours_and_from_ours_to_two_java_hosts() {
    let Some((_serial, lab)) = lab(4) else { return };
    let start = Instant::now();
    let subnet = format!("{}/24", lab.net.ipv4_subnet());
    let [java0, java1] = lab.java_hosts([0, 1]);

    // Java publisher (interface by subnet) → our subscribers on hosts 2 (interface by address)
    // and 3 (by subnet).
    let group = "239.193.7.1:40456";
    let receivers = vec![
        lab.our_receiver(2, &format!("aeron:udp?endpoint={group}|interface={}", ipv4(lab.host(2))), 200),
        lab.our_receiver(3, &format!("aeron:udp?endpoint={group}|interface={subnet}"), 200),
    ];
    ready(&receivers);
    let publisher =
        java0.publisher(&format!("aeron:udp?endpoint={group}|interface={subnet}{TERM}"), 200, &[]);
    stream(publisher, receivers, lab.host(0).ipv4().into());
    eprintln!("java → ours: {:.1?}", start.elapsed());

    // Our publisher on host 2 (interface by address) → Java subscribers on hosts 0 (interface
    // by address) and 1 (by subnet).
    let group = "239.193.7.3:40458";
    let receivers = vec![
        java0.subscriber(&format!("aeron:udp?endpoint={group}|interface={}", ipv4(lab.host(0))), 64),
        java1.subscriber(&format!("aeron:udp?endpoint={group}|interface={subnet}"), 64),
    ];
    ready(&receivers);
    let channel = format!("aeron:udp?endpoint={group}|interface={}{TERM}", ipv4(lab.host(2)));
    let (publisher, _) = lab.our_sender(2, &channel, 64, &[]);
    stream(publisher, receivers, lab.host(2).ipv4().into());
    eprintln!("java ↔ ours, IPv4 multicast: {:.1?}", start.elapsed());
    for java in [&java0, &java1] {
        java.assert_clean();
    }
}

#[test]
fn ipv6_multicast_from_our_host_to_two_java_hosts_and_back() {
    let Some((_serial, lab)) = lab(4) else { return };
    let start = Instant::now();
    let prefix = format!("[{}]/64", lab.net.ipv6_subnet());
    let [java0, java1] = lab.java_hosts([0, 1]);

    // Ours on host 2 (interface by address) → Java on hosts 0 (by address) and 1 (by prefix),
    // on a global-scope group.
    let group = "[ff0e::a:e:1]:40460";
    let receivers = vec![
        java0.subscriber(&format!("aeron:udp?endpoint={group}|interface={}", ipv6(lab.host(0))), 137),
        java1.subscriber(&format!("aeron:udp?endpoint={group}|interface={prefix}"), 137),
    ];
    ready(&receivers);
    let channel = format!("aeron:udp?endpoint={group}|interface={}{TERM}", ipv6(lab.host(2)));
    let (publisher, _) = lab.our_sender(2, &channel, 137, &[]);
    stream(publisher, receivers, lab.host(2).ipv6().into());
    eprintln!("ours → java: {:.1?}", start.elapsed());

    // Java on host 1 (by prefix) → ours on hosts 2 (by prefix) and 3 (by address).
    let group = "[ff0e::a:e:3]:40462";
    let receivers = vec![
        lab.our_receiver(2, &format!("aeron:udp?endpoint={group}|interface={prefix}"), 137),
        lab.our_receiver(3, &format!("aeron:udp?endpoint={group}|interface={}", ipv6(lab.host(3))), 137),
    ];
    ready(&receivers);
    let publisher =
        java1.publisher(&format!("aeron:udp?endpoint={group}|interface={prefix}{TERM}"), 137, &[]);
    stream(publisher, receivers, lab.host(1).ipv6().into());
    eprintln!("java ↔ ours, IPv6 multicast: {:.1?}", start.elapsed());
    for java in [&java0, &java1] {
        java.assert_clean();
    }
}

// ---- multi-destination-cast -----------------------------------------------------------------

#[test]
fn mdc_dynamic_and_manual_from_our_host_to_two_java_hosts() {
    let Some((_serial, lab)) = lab(3) else { return };
    let start = Instant::now();
    let java = lab.java_hosts([1, 2]);

    // Dynamic: the Java receivers name our publication's control address; it learns them
    // from their status messages.
    let control = format!("{}:40470", ipv4(lab.host(0)));
    let receivers: Vec<Receiver> = java
        .iter()
        .map(|j| {
            let endpoint = format!("{}:40471", ipv4(lab.host(j.index)));
            j.subscriber(&format!("aeron:udp?endpoint={endpoint}|control={control}|control-mode=dynamic"), 64)
        })
        .collect();
    ready(&receivers);
    let channel = format!("aeron:udp?control={control}|control-mode=dynamic{TERM}");
    let (publisher, dir) = lab.our_sender(0, &channel, 64, &[]);
    wait_for_counter(&Cnc::map(&dir), CHANNEL_NUM_DESTINATIONS_TYPE_ID, &channel, 2);
    stream(publisher, receivers, lab.host(0).ipv4().into());
    eprintln!("ours → java, dynamic MDC: {:.1?}", start.elapsed());

    // Manual: our publication has both Java hosts as destinations from the start.
    let endpoints: Vec<String> =
        java.iter().map(|j| format!("aeron:udp?endpoint={}:40473", ipv4(lab.host(j.index)))).collect();
    let receivers: Vec<Receiver> = java.iter().zip(&endpoints).map(|(j, e)| j.subscriber(e, 200)).collect();
    ready(&receivers);
    let (publisher, _) = lab.our_sender(0, &format!("aeron:udp?control-mode=manual{TERM}"), 200, &endpoints);
    stream(publisher, receivers, lab.host(0).ipv4().into());
    eprintln!("ours → java, dynamic and manual MDC: {:.1?}", start.elapsed());
    for j in &java {
        j.assert_clean();
    }
}

#[test]
fn mdc_dynamic_and_manual_from_a_java_host_to_two_of_ours() {
    let Some((_serial, lab)) = lab(3) else { return };
    let start = Instant::now();
    let [java] = lab.java_hosts([0]);

    // Dynamic: the Java driver learns our receivers from their status messages.
    let control = format!("{}:40480", ipv4(lab.host(0)));
    let receivers: Vec<Receiver> = [1, 2]
        .iter()
        .map(|&i| {
            let endpoint = format!("{}:40481", ipv4(lab.host(i)));
            lab.our_receiver(
                i,
                &format!("aeron:udp?endpoint={endpoint}|control={control}|control-mode=dynamic"),
                200,
            )
        })
        .collect();
    ready(&receivers);
    let channel = format!("aeron:udp?control={control}|control-mode=dynamic{TERM}");
    let publisher = java.publisher(&channel, 200, &[]);
    wait_for_counter(&java.cnc(), CHANNEL_NUM_DESTINATIONS_TYPE_ID, &channel, 2);
    stream(publisher, receivers, lab.host(0).ipv4().into());
    eprintln!("java → ours, dynamic MDC: {:.1?}", start.elapsed());

    // Manual: `Interop pub` adds both of our hosts as destinations before it connects.
    let endpoints: Vec<String> =
        [1, 2].iter().map(|&i| format!("aeron:udp?endpoint={}:40483", ipv4(lab.host(i)))).collect();
    let receivers: Vec<Receiver> =
        [1, 2].iter().zip(&endpoints).map(|(&i, e)| lab.our_receiver(i, e, 64)).collect();
    ready(&receivers);
    let publisher = java.publisher(&format!("aeron:udp?control-mode=manual{TERM}"), 64, &endpoints);
    stream(publisher, receivers, lab.host(0).ipv4().into());
    eprintln!("java → ours, dynamic and manual MDC: {:.1?}", start.elapsed());
    java.assert_clean();
}

// ---- min and tagged flow control --------------------------------------------------------------

/// Hosts of the flow-control test: our publisher, a Java publisher, two Java receivers, two
/// of ours.
const OUR_PUB: usize = 0;
const JAVA_PUB: usize = 1;
const JAVA_RCV: [usize; 2] = [2, 3];
const OUR_RCV: [usize; 2] = [4, 5];

#[test]
fn min_and_tagged_flow_control_over_java_and_our_receivers_on_multicast() {
    let Some((_serial, lab)) = lab(6) else { return };
    let start = Instant::now();
    let [java_pub, java_rcv0, java_rcv1] = lab.java_hosts([JAVA_PUB, JAVA_RCV[0], JAVA_RCV[1]]);
    let java_rcv = [java_rcv0, java_rcv1];
    let on = |group: &str, i: usize, extra: &str| {
        format!("aeron:udp?endpoint={group}|interface={}{extra}", ipv4(lab.host(i)))
    };
    let tagged = format!("|gtag={TAG}");
    let fc_receivers =
        |cnc: &Cnc, channel: &str| counter(cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, channel);

    // min, our publisher: four receivers, one tagged on each side (min ignores tags).
    let group = "239.193.8.1:40490";
    let receivers = vec![
        java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 64),
        java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 64),
        lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 64),
        lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 64),
    ];
    ready(&receivers);
    let channel = on(group, OUR_PUB, &format!("|fc=min{TERM}"));
    let (publisher, dir) = lab.our_sender(OUR_PUB, &channel, 64, &[]);
    // min tracks every receiver, tagged or not, ours and Java's.
    wait_for_counter(&Cnc::map(&dir), FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 4);
    stream(publisher, receivers, lab.host(OUR_PUB).ipv4().into());
    eprintln!("fc=min, ours → 2 java + 2 ours: {:.1?}", start.elapsed());

    // tagged g:TAG/2, our publisher: an untagged receiver on each side and the Java tagged
    // one first; the publication connects only once our tagged receiver is there too.
    let group = "239.193.8.3:40492";
    let channel = on(group, OUR_PUB, &format!("|fc=tagged,g:{TAG}/2{TERM}"));
    let mut receivers = vec![
        java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 200),
        java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 200),
        lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 200),
    ];
    ready(&receivers);
    let (mut publisher, dir) = lab.our_sender(OUR_PUB, &channel, 200, &[]);
    let cnc = Cnc::map(&dir);
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 1);
    publisher.proc.tell("status");
    let status = publisher.proc.expect("STATUS", SHORT);
    assert_eq!(status, "STATUS sent=0 connected=false", "one of two tagged receivers");
    let second = lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 200);
    ready([&second]);
    receivers.push(second);
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 2);
    publisher.await_connected();
    assert_eq!(fc_receivers(&cnc, &channel), Some(2), "connected with both tagged receivers");
    stream(publisher, receivers, lab.host(OUR_PUB).ipv4().into());
    eprintln!("fc=tagged, ours → 2 java + 2 ours: {:.1?}", start.elapsed());

    // tagged g:TAG/2, Java publisher: an untagged receiver on each side and our tagged one
    // first; connected only once the Java tagged receiver is there too.
    let group = "239.193.8.5:40494";
    let channel = on(group, JAVA_PUB, &format!("|fc=tagged,g:{TAG}/2{TERM}"));
    let mut receivers = vec![
        java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 64),
        lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 64),
        lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 64),
    ];
    ready(&receivers);
    let mut publisher = java_pub.publisher(&channel, 64, &[]);
    let cnc = java_pub.cnc();
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 1);
    publisher.proc.tell("status");
    let status = publisher.proc.expect("STATUS", SHORT);
    assert!(status.starts_with("STATUS connected=false "), "one of two tagged receivers: {status}");
    let second = java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 64);
    ready([&second]);
    receivers.push(second);
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 2);
    publisher.await_connected();
    assert_eq!(fc_receivers(&cnc, &channel), Some(2), "connected with both tagged receivers");
    stream(publisher, receivers, lab.host(JAVA_PUB).ipv4().into());
    eprintln!("fc=min and tagged, both publishers: {:.1?}", start.elapsed());
    for java in [&java_pub, &java_rcv[0], &java_rcv[1]] {
        java.assert_clean();
    }
}
