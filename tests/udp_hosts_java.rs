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
use std::sync::atomic::{AtomicU32, Ordering};
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
/// A JVM starting (two cores, maybe other JVMs starting too).
const JVM: Duration = Duration::from_secs(60);
/// A transfer of `COUNT` messages, or a connection being made.
const TRANSFER: Duration = Duration::from_secs(60);
const SHORT: Duration = Duration::from_secs(20);
/// The group tag of the tagged flow-control test.
const TAG: u64 = 7;

/// One test at a time: each runs several drivers and JVMs, and the machine has two cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn child_role() {
    // In the parent this does nothing; in a child it is the whole process.
    udp_roles::run_role_from_env();
}

/// The hosts of one test, the Java classpath and the directories of every driver.
struct Lab {
    net: SimNetwork,
    classpath: String,
    tmp: tempfile::TempDir,
    dirs: AtomicU32,
}

/// `None`: skipped (by the harness's or `interop_classpath`'s rules).
fn lab(hosts: usize) -> Option<(std::sync::MutexGuard<'static, ()>, Lab)> {
    let serial = SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let net = SimNetwork::new(hosts, NetOptions::default())?;
    let classpath = java_procs::interop_classpath()?;
    let tmp = tempfile::tempdir().unwrap();
    Some((serial, Lab { net, classpath, tmp, dirs: AtomicU32::new(0) }))
}

impl Lab {
    fn host(&self, i: usize) -> &Host {
        self.net.host(i)
    }

    /// A fresh directory for a driver on host `i`.
    fn dir(&self, i: usize, what: &str) -> PathBuf {
        let n = self.dirs.fetch_add(1, Ordering::Relaxed);
        self.tmp.path().join(format!("h{i}-{what}-{n}"))
    }

    /// Starts Java's media driver on each of `hosts`, all JVMs at once.
    fn java_hosts<const N: usize>(&self, hosts: [usize; N]) -> [JavaHost; N] {
        let java = hosts.map(|i| {
            let dir = self.dir(i, "java");
            let host = self.host(i).name();
            let cmd = java_procs::interop_command(Some(host), &self.classpath, &dir, &[], &["driver"]);
            let driver = Proc::spawn_command(format!("java driver in host {i}"), cmd);
            let (netns, classpath) = (host.to_string(), self.classpath.clone());
            JavaHost { index: i, netns, classpath, dir, driver }
        });
        ready(java.iter().map(|j| &j.driver));
        java
    }

    /// Our receiver role on host `i` (its own driver), subscribed to `channel`: waits for its
    /// `READY` (subscription registered).
    fn our_receiver(&self, i: usize, channel: &str, length: usize) -> Proc {
        let mut config =
            RoleConfig::new("receiver", &self.dir(i, "rcv"), ThreadingMode::SharedNetwork, channel);
        config.count = COUNT;
        config.length = length;
        config.netns = Some(self.host(i).name().to_string());
        let receiver = Proc::spawn(ENTRY, &config);
        receiver.expect("READY", SHORT);
        receiver
    }

    /// Our sender role on host `i` publishing `COUNT` messages on `channel` (ADD_DESTINATION of
    /// each of `destinations`; with `hold`, from `go` on). Returns once the publication exists,
    /// with the driver's directory.
    fn our_sender(
        &self,
        i: usize,
        channel: &str,
        length: usize,
        destinations: &[String],
        hold: bool,
    ) -> (Proc, PathBuf) {
        let dir = self.dir(i, "snd");
        let mut config = RoleConfig::new("sender", &dir, ThreadingMode::SharedNetwork, channel);
        config.count = COUNT;
        config.length = length;
        config.destinations = destinations.to_vec();
        config.hold = hold;
        config.netns = Some(self.host(i).name().to_string());
        let sender = Proc::spawn(ENTRY, &config);
        sender.expect("PUBLICATION", SHORT);
        (sender, dir)
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

    /// `Interop sub`, starting: it prints `READY` once subscribed (see [`ready`]).
    fn subscriber(&self, channel: &str, length: usize) -> Proc {
        let (count, length) = (COUNT.to_string(), length.to_string());
        self.interop("sub", &[], &["sub", channel, STREAM, &count, &length])
    }

    /// `Interop pub` of `COUNT` messages, adding `destinations`; with `hold`, it offers from
    /// `go` on. Returns once the publication exists (`PUBLICATION`).
    fn publisher(&self, channel: &str, length: usize, destinations: &[String], hold: bool) -> Proc {
        let (count, length) = (COUNT.to_string(), length.to_string());
        let mut args = vec!["pub", channel, STREAM, &count, &length];
        args.extend(destinations.iter().map(String::as_str));
        let options: &[&str] = if hold { &["-Dinterop.hold=true"] } else { &[] };
        let publisher = self.interop("pub", options, &args);
        publisher.expect("PUBLICATION", JVM);
        publisher
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
        ]
        .iter()
        .map(|&(id, name)| format!("{name}={}", cnc.system_counter(id)))
        .collect();
        eprintln!("java driver in host {}: {}", self.index, seen.join(" "));
    }
}

/// Waits for each JVM's `READY` (started together: they warm up in parallel).
fn ready<'a>(procs: impl IntoIterator<Item = &'a Proc>) {
    for p in procs {
        p.expect("READY", JVM);
    }
}

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

/// Every allocated counter: what a failed wait shows.
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

/// The address of an `IMAGE source=<address>:<port> ...` line. Ours writes an IPv6 address as
/// `[fd61::3]:port`, Java (`InetAddress.getHostAddress`) as `fd61:0:0:0:0:0:0:3:port`.
fn image_source(line: &str) -> IpAddr {
    let identity =
        line.split_whitespace().find_map(|w| w.strip_prefix("source=")).unwrap_or_else(|| panic!("{line}"));
    let (address, _port) = identity.rsplit_once(':').unwrap_or_else(|| panic!("{line}"));
    let address = address.trim_start_matches('[').trim_end_matches(']');
    address.parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// Our receiver got every message from the first on, from `source` (the publisher host's
/// address, as in its image's source identity); then it exits.
fn ours_received_all(receiver: &mut Proc, source: IpAddr) {
    let image = receiver.expect("IMAGE", TRANSFER);
    assert_eq!(image_source(&image), source, "{}: {image}", receiver.name);
    receiver.expect("FIRST 0", TRANSFER);
    receiver.expect(&format!("DONE {COUNT}"), TRANSFER);
    let counters = receiver.expect("COUNTERS", SHORT);
    assert_eq!(field(&counters, "invalid"), 0, "{}: {counters}", receiver.name);
    receiver.tell("exit");
    receiver.expect("EXITED", SHORT);
    receiver.wait_success(SHORT);
    eprintln!("{}: {image}, {counters}", receiver.name);
}

/// A Java subscriber got every message (it checks each from message 0 on and exits 0 only
/// then) from `source`.
fn java_received_all(subscriber: &mut Proc, source: IpAddr) {
    let image = subscriber.expect("IMAGE", TRANSFER);
    assert_eq!(image_source(&image), source, "{}: {image}", subscriber.name);
    subscriber.expect(&format!("DONE {COUNT}"), TRANSFER);
    subscriber.wait_success(SHORT);
    eprintln!("{}: {image}", subscriber.name);
}

/// Our sender sent every message; then it exits (after its receivers are done).
fn our_sender_done(sender: &mut Proc) {
    let sent = sender.expect("SENT", TRANSFER);
    assert!(sent.starts_with(&format!("SENT {COUNT} ")), "{}: {sent}", sender.name);
    sender.tell("counters");
    let counters = sender.expect("COUNTERS", SHORT);
    sender.tell("exit");
    sender.expect("EXITED", SHORT);
    sender.wait_success(SHORT);
    eprintln!("{}: {sent}, {counters}", sender.name);
}

/// A Java publisher offered every message and exited 0.
fn java_publisher_done(publisher: &mut Proc) {
    let done = publisher.expect("DONE", TRANSFER);
    assert!(done.starts_with(&format!("DONE {COUNT} ")), "{}: {done}", publisher.name);
    publisher.wait_success(SHORT);
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
    let mut ours = [
        lab.our_receiver(2, &format!("aeron:udp?endpoint={group}|interface={}", ipv4(lab.host(2))), 200),
        lab.our_receiver(3, &format!("aeron:udp?endpoint={group}|interface={subnet}"), 200),
    ];
    let mut publisher =
        java0.publisher(&format!("aeron:udp?endpoint={group}|interface={subnet}"), 200, &[], false);
    publisher.expect("READY", TRANSFER);
    for receiver in &mut ours {
        ours_received_all(receiver, lab.host(0).ipv4().into());
    }
    java_publisher_done(&mut publisher);
    eprintln!("java → ours: {:.1?}", start.elapsed());

    // Our publisher on host 2 (interface by address) → Java subscribers on hosts 0 (interface
    // by address) and 1 (by subnet).
    let group = "239.193.7.3:40458";
    let mut subscribers = [
        java0.subscriber(&format!("aeron:udp?endpoint={group}|interface={}", ipv4(lab.host(0))), 64),
        java1.subscriber(&format!("aeron:udp?endpoint={group}|interface={subnet}"), 64),
    ];
    ready(&subscribers);
    let channel = format!("aeron:udp?endpoint={group}|interface={}", ipv4(lab.host(2)));
    let (mut sender, _) = lab.our_sender(2, &channel, 64, &[], false);
    sender.expect("READY", TRANSFER);
    for subscriber in &mut subscribers {
        java_received_all(subscriber, lab.host(2).ipv4().into());
    }
    our_sender_done(&mut sender);
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
    let mut subscribers = [
        java0.subscriber(&format!("aeron:udp?endpoint={group}|interface={}", ipv6(lab.host(0))), 137),
        java1.subscriber(&format!("aeron:udp?endpoint={group}|interface={prefix}"), 137),
    ];
    ready(&subscribers);
    let channel = format!("aeron:udp?endpoint={group}|interface={}", ipv6(lab.host(2)));
    let (mut sender, _) = lab.our_sender(2, &channel, 137, &[], false);
    sender.expect("READY", TRANSFER);
    for subscriber in &mut subscribers {
        java_received_all(subscriber, lab.host(2).ipv6().into());
    }
    our_sender_done(&mut sender);

    // Java on host 1 (by prefix) → ours on hosts 2 (by prefix) and 3 (by address).
    let group = "[ff0e::a:e:3]:40462";
    let mut ours = [
        lab.our_receiver(2, &format!("aeron:udp?endpoint={group}|interface={prefix}"), 137),
        lab.our_receiver(3, &format!("aeron:udp?endpoint={group}|interface={}", ipv6(lab.host(3))), 137),
    ];
    let mut publisher =
        java1.publisher(&format!("aeron:udp?endpoint={group}|interface={prefix}"), 137, &[], false);
    publisher.expect("READY", TRANSFER);
    for receiver in &mut ours {
        ours_received_all(receiver, lab.host(1).ipv6().into());
    }
    java_publisher_done(&mut publisher);
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
    // from their status messages. It holds its first message until both are known, so each
    // gets the stream from message 0.
    let control = format!("{}:40470", ipv4(lab.host(0)));
    let mut subscribers: Vec<Proc> = java
        .iter()
        .map(|j| {
            let channel = format!(
                "aeron:udp?endpoint={}:40471|control={control}|control-mode=dynamic",
                ipv4(lab.host(j.index))
            );
            j.subscriber(&channel, 64)
        })
        .collect();
    ready(&subscribers);
    let channel = format!("aeron:udp?control={control}|control-mode=dynamic");
    let (mut sender, dir) = lab.our_sender(0, &channel, 64, &[], true);
    sender.expect("READY", TRANSFER);
    let cnc = Cnc::map(&dir);
    wait_for_counter(&cnc, CHANNEL_NUM_DESTINATIONS_TYPE_ID, &channel, 2);
    sender.tell("go");
    for subscriber in &mut subscribers {
        java_received_all(subscriber, lab.host(0).ipv4().into());
    }
    our_sender_done(&mut sender);
    eprintln!("ours → java, dynamic MDC: {:.1?}", start.elapsed());

    // Manual: our publication has both Java hosts as destinations from the start.
    let endpoints: Vec<String> = java.iter().map(|j| format!("{}:40473", ipv4(lab.host(j.index)))).collect();
    let mut subscribers: Vec<Proc> = java
        .iter()
        .zip(&endpoints)
        .map(|(j, e)| j.subscriber(&format!("aeron:udp?endpoint={e}"), 200))
        .collect();
    ready(&subscribers);
    let destinations: Vec<String> = endpoints.iter().map(|e| format!("aeron:udp?endpoint={e}")).collect();
    let (mut sender, _) = lab.our_sender(0, "aeron:udp?control-mode=manual", 200, &destinations, false);
    sender.expect("READY", TRANSFER);
    for subscriber in &mut subscribers {
        java_received_all(subscriber, lab.host(0).ipv4().into());
    }
    our_sender_done(&mut sender);
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

    // Dynamic, held until the Java driver knows both of our receivers.
    let control = format!("{}:40480", ipv4(lab.host(0)));
    let mut ours: Vec<Proc> = [1, 2]
        .iter()
        .map(|&i| {
            let channel = format!(
                "aeron:udp?endpoint={}:40481|control={control}|control-mode=dynamic",
                ipv4(lab.host(i))
            );
            lab.our_receiver(i, &channel, 200)
        })
        .collect();
    let channel = format!("aeron:udp?control={control}|control-mode=dynamic");
    let mut publisher = java.publisher(&channel, 200, &[], true);
    publisher.expect("READY", TRANSFER);
    let cnc = java.cnc();
    wait_for_counter(&cnc, CHANNEL_NUM_DESTINATIONS_TYPE_ID, &channel, 2);
    publisher.tell("go");
    for receiver in &mut ours {
        ours_received_all(receiver, lab.host(0).ipv4().into());
    }
    java_publisher_done(&mut publisher);
    eprintln!("java → ours, dynamic MDC: {:.1?}", start.elapsed());

    // Manual: `Interop pub` adds both of our hosts as destinations before it connects.
    let endpoints: Vec<String> = [1, 2].iter().map(|&i| format!("{}:40483", ipv4(lab.host(i)))).collect();
    let mut ours: Vec<Proc> = [1, 2]
        .iter()
        .zip(&endpoints)
        .map(|(&i, e)| lab.our_receiver(i, &format!("aeron:udp?endpoint={e}"), 64))
        .collect();
    let destinations: Vec<String> = endpoints.iter().map(|e| format!("aeron:udp?endpoint={e}")).collect();
    let mut publisher = java.publisher("aeron:udp?control-mode=manual", 64, &destinations, false);
    publisher.expect("READY", TRANSFER);
    for receiver in &mut ours {
        ours_received_all(receiver, lab.host(0).ipv4().into());
    }
    java_publisher_done(&mut publisher);
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

    // min, our publisher: four receivers, one tagged on each side (min ignores tags).
    let group = "239.193.8.1:40490";
    let mut java_subs = [
        java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 64),
        java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 64),
    ];
    ready(&java_subs);
    let mut ours = [
        lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 64),
        lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 64),
    ];
    let channel = on(group, OUR_PUB, "|fc=min");
    let (mut sender, dir) = lab.our_sender(OUR_PUB, &channel, 64, &[], false);
    sender.expect("READY", TRANSFER);
    for s in &mut java_subs {
        java_received_all(s, lab.host(OUR_PUB).ipv4().into());
    }
    for r in &mut ours {
        ours_received_all(r, lab.host(OUR_PUB).ipv4().into());
    }
    let receivers = counter(&Cnc::map(&dir), FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel);
    our_sender_done(&mut sender);
    eprintln!("fc=min, ours → 2 java + 2 ours: {:.1?}, fc-receivers {receivers:?}", start.elapsed());

    // tagged g:TAG/2, our publisher: an untagged receiver on each side and the Java tagged
    // one first; the publication connects only once our tagged receiver is there too.
    let group = "239.193.8.3:40492";
    let channel = on(group, OUR_PUB, &format!("|fc=tagged,g:{TAG}/2"));
    let mut java_subs = [
        java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 200),
        java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 200),
    ];
    ready(&java_subs);
    let mut untagged = lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 200);
    let (mut sender, dir) = lab.our_sender(OUR_PUB, &channel, 200, &[], false);
    let cnc = Cnc::map(&dir);
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 1);
    sender.tell("status");
    let status = sender.expect("STATUS", SHORT);
    assert_eq!(status, "STATUS sent=0 connected=false", "one of two tagged receivers");
    let mut second = lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 200);
    sender.expect("READY", TRANSFER);
    assert_eq!(counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel), Some(2));
    for s in &mut java_subs {
        java_received_all(s, lab.host(OUR_PUB).ipv4().into());
    }
    for r in [&mut untagged, &mut second] {
        ours_received_all(r, lab.host(OUR_PUB).ipv4().into());
    }
    our_sender_done(&mut sender);
    eprintln!("fc=tagged, ours → 2 java + 2 ours: {:.1?}", start.elapsed());

    // tagged g:TAG/2, Java publisher: untagged receivers on each side and our tagged one
    // first; connected only once the Java tagged receiver is there too.
    let group = "239.193.8.5:40494";
    let channel = on(group, JAVA_PUB, &format!("|fc=tagged,g:{TAG}/2"));
    let mut java_untagged = java_rcv[1].subscriber(&on(group, JAVA_RCV[1], ""), 64);
    ready([&java_untagged]);
    let mut ours = [
        lab.our_receiver(OUR_RCV[1], &on(group, OUR_RCV[1], ""), 64),
        lab.our_receiver(OUR_RCV[0], &on(group, OUR_RCV[0], &tagged), 64),
    ];
    let mut publisher = java_pub.publisher(&channel, 64, &[], false);
    let cnc = java_pub.cnc();
    wait_for_counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel, 1);
    publisher.tell("status");
    let status = publisher.expect("STATUS", SHORT);
    assert!(status.starts_with("STATUS connected=false "), "one of two tagged receivers: {status}");
    let mut java_tagged = java_rcv[0].subscriber(&on(group, JAVA_RCV[0], &tagged), 64);
    ready([&java_tagged]);
    publisher.expect("READY", TRANSFER);
    assert_eq!(counter(&cnc, FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, &channel), Some(2));
    for s in [&mut java_untagged, &mut java_tagged] {
        java_received_all(s, lab.host(JAVA_PUB).ipv4().into());
    }
    for r in &mut ours {
        ours_received_all(r, lab.host(JAVA_PUB).ipv4().into());
    }
    java_publisher_done(&mut publisher);
    eprintln!("fc=min and tagged, both publishers: {:.1?}", start.elapsed());
    for java in [&java_pub, &java_rcv[0], &java_rcv[1]] {
        java.assert_clean();
    }
}
