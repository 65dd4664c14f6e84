//! The simulated-hosts harness (`support/netns.rs`) proven: plain UDP sockets between hosts
//! (IPv4 and IPv6 multicast to several hosts, unicast), our driver end to end between two
//! hosts over unicast, and teardown leaving no namespace and no process behind.
//!
//! Needs root and `ip netns`: skips loudly otherwise, fails instead with
//! `AERONRS_REQUIRE_NETNS=1` (CI). The processes in the hosts are this binary re-executed
//! (test `child_role`) in a role of `support/udp_roles.rs` or one of the socket roles below.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/netns.rs"]
mod netns;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_roles.rs"]
mod udp_roles;

use std::io::BufRead;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};
use std::process::{Command, Stdio};
use std::time::Duration;

use aeronrs::driver::ThreadingMode;
use netns::{Host, NetOptions, SimNetwork};
use socket2::{Domain, Protocol, Socket, Type};
use udp_roles::{Proc, RoleConfig, field, message};

/// The test the children run as.
const ENTRY: &str = "child_role";
const SHORT: Duration = Duration::from_secs(20);
const LONG: Duration = Duration::from_secs(60);
/// Each namespace has its own port space: a fixed port cannot collide with anything.
const PORT: u16 = 40_123;
/// Datagrams per socket test, sent in batches that fit every receiver's socket buffer (the
/// parent waits for every receiver to have a batch before the next is sent: no loss from
/// overrun, so "every datagram arrives" is a fair assertion).
const DATAGRAMS: u64 = 1000;
/// Asked of each receiving socket; the kernel caps it at `net.core.rmem_max`.
const RECEIVE_BUFFER: usize = 4 << 20;
const SOCKET_ROLE: &str = "AERONRS_SOCKET_ROLE";

#[test]
fn child_role() {
    // In the parent this does nothing; in a child it is the whole process.
    if !udp_roles::run_role_from_env() {
        run_socket_role_from_env();
    }
}

// ---- socket roles ---------------------------------------------------------------------------

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"))
}

fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

/// `recv`: binds `SOCK_BIND`, joins `SOCK_GROUP` (if set) on the interface `SOCK_IFACE` (an
/// IPv4 address or an IPv6 interface index), prints `READY rcvbuf=<bytes>`, then receives
/// `SOCK_COUNT` datagrams of `SOCK_LENGTH` bytes, each checked to be `message(i)` in order:
/// prints `FROM <source ip>` on the first, `GOT <n>` after each, `DONE <n>` at the end.
///
/// `hold-network`: builds a 2-host network with `sleep` running in host 1, prints
/// `UP <prefix> <sleep pid>` and waits to be killed (a crashed run's leftovers).
///
/// `send`: sends `message(i)` datagrams to `SOCK_DEST` (through the interface index
/// `SOCK_IFACE` if set: `IPV6_MULTICAST_IF`, for link-local groups); on stdin `send <n>` sends the next `n` and
/// prints `SENT <total>`, `exit` ends.
fn run_socket_role_from_env() {
    let Ok(role) = std::env::var(SOCKET_ROLE) else { return };
    let length = || -> usize { env("SOCK_LENGTH").parse().unwrap() };
    match role.as_str() {
        "recv" => {
            let length = length();
            let bind: SocketAddr = env("SOCK_BIND").parse().unwrap();
            let count: u64 = env("SOCK_COUNT").parse().unwrap();
            let socket = Socket::new(Domain::for_address(bind), Type::DGRAM, Some(Protocol::UDP)).unwrap();
            socket.set_reuse_address(true).unwrap();
            socket.set_recv_buffer_size(RECEIVE_BUFFER).unwrap();
            if bind.is_ipv6() {
                socket.set_only_v6(true).unwrap();
            }
            socket.bind(&bind.into()).unwrap_or_else(|e| panic!("bind {bind}: {e}"));
            let socket: std::net::UdpSocket = socket.into();
            match std::env::var("SOCK_GROUP").ok().map(|g| g.parse::<IpAddr>().unwrap()) {
                Some(IpAddr::V4(group)) => {
                    let iface: Ipv4Addr = env("SOCK_IFACE").parse().unwrap();
                    socket.join_multicast_v4(&group, &iface).unwrap_or_else(|e| panic!("join {group}: {e}"));
                }
                Some(IpAddr::V6(group)) => {
                    let iface: u32 = env("SOCK_IFACE").parse().unwrap();
                    socket.join_multicast_v6(&group, iface).unwrap_or_else(|e| panic!("join {group}: {e}"));
                }
                None => {}
            }
            // Bounds the child on its own, should the parent never send.
            socket.set_read_timeout(Some(SHORT)).unwrap();
            let rcvbuf = socket2::SockRef::from(&socket).recv_buffer_size().unwrap();
            say(&format!("READY rcvbuf={rcvbuf}"));
            let mut buf = vec![0u8; 65536];
            for i in 0..count {
                let (n, from) = socket
                    .recv_from(&mut buf)
                    .unwrap_or_else(|e| panic!("receiving datagram {i} of {count} on {bind}: {e}"));
                assert!(buf[..n] == message(i, length), "datagram {i} from {from} differs ({n} bytes)");
                if i == 0 {
                    say(&format!("FROM {}", from.ip()));
                }
                say(&format!("GOT {}", i + 1));
            }
            say(&format!("DONE {count}"));
        }
        "send" => {
            let length = length();
            let dest: SocketAddr = env("SOCK_DEST").parse().unwrap();
            let any: SocketAddr = match dest {
                SocketAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
                SocketAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
            };
            let socket = std::net::UdpSocket::bind(any).unwrap();
            if let Ok(iface) = std::env::var("SOCK_IFACE") {
                let socket = socket2::SockRef::from(&socket);
                socket.set_multicast_if_v6(iface.parse().unwrap()).unwrap();
            }
            say("READY");
            let mut sent = 0u64;
            for line in std::io::stdin().lock().lines().map_while(Result::ok) {
                match line.split_whitespace().collect::<Vec<_>>()[..] {
                    ["send", n] => {
                        for _ in 0..n.parse::<u64>().unwrap() {
                            socket
                                .send_to(&message(sent, length), dest)
                                .unwrap_or_else(|e| panic!("sending datagram {sent} to {dest}: {e}"));
                            sent += 1;
                        }
                        say(&format!("SENT {sent}"));
                    }
                    ["exit"] => break,
                    _ => panic!("unknown command {line:?}"),
                }
            }
        }
        "hold-network" => {
            let net = SimNetwork::new(2, NetOptions::default()).expect("no network namespaces in the child");
            let host = net.host(1);
            let mut sleeper = host.command("sleep").arg("600").stdin(Stdio::null()).spawn().unwrap();
            let deadline = std::time::Instant::now() + SHORT;
            while !host.pids().contains(&(sleeper.id() as i32)) {
                assert!(std::time::Instant::now() < deadline, "sleep never entered {}", host.name());
                std::thread::sleep(Duration::from_millis(5));
            }
            say(&format!("UP {} {}", net.prefix(), sleeper.id()));
            // Until the parent kills this process: then `net` is never dropped.
            for _ in std::io::stdin().lock().lines() {}
            let _ = sleeper.kill();
            let _ = sleeper.wait();
            panic!("hold-network: stdin closed before the parent killed this process");
        }
        other => panic!("unknown socket role {other}"),
    }
}

fn socket_role(host: &Host, role: &str, vars: &[(&str, String)]) -> Proc {
    let mut cmd = host.command(std::env::current_exe().unwrap());
    cmd.args(["--exact", ENTRY, "--nocapture", "--test-threads=1"]).env(SOCKET_ROLE, role);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    Proc::spawn_command(format!("{role} in host {}", host.index()), cmd)
}

/// Host 0 sends `DATAGRAMS` datagrams to `dest`; every receiver host (bound to `bind`,
/// joined to `group` on its interface) gets each one, in order, from `source(host 0)`.
fn send_and_receive_everywhere(
    net: &SimNetwork,
    receivers: &[usize],
    dest: SocketAddr,
    bind: SocketAddr,
    group: Option<IpAddr>,
    length: usize,
    source: fn(&Host) -> IpAddr,
) {
    let mut procs: Vec<Proc> = receivers
        .iter()
        .map(|&i| {
            let host = net.host(i);
            let mut vars = vec![
                ("SOCK_BIND", bind.to_string()),
                ("SOCK_COUNT", DATAGRAMS.to_string()),
                ("SOCK_LENGTH", length.to_string()),
            ];
            match group {
                Some(IpAddr::V4(_)) => vars.push(("SOCK_IFACE", host.ipv4().to_string())),
                Some(IpAddr::V6(_)) => vars.push(("SOCK_IFACE", host.interface_index().to_string())),
                None => {}
            }
            if let Some(g) = group {
                vars.push(("SOCK_GROUP", g.to_string()));
            }
            socket_role(host, "recv", &vars)
        })
        .collect();
    // What a datagram costs a socket buffer (its skb's truesize) is at most about twice its
    // length plus 1 KiB; a batch takes up to half the smallest buffer.
    let rcvbuf = procs.iter().map(|p| field(&p.expect("READY", SHORT), "rcvbuf")).min().unwrap();
    let batch = (rcvbuf / 2 / (2 * (length as u64 + 1024))).clamp(1, 100);
    let sender_host = net.host(0);
    let mut vars = vec![("SOCK_DEST", dest.to_string()), ("SOCK_LENGTH", length.to_string())];
    if let SocketAddr::V6(d) = dest {
        if d.scope_id() != 0 {
            vars.push(("SOCK_IFACE", d.scope_id().to_string()));
        }
    }
    let mut sender = socket_role(sender_host, "send", &vars);
    sender.expect("READY", SHORT);
    let mut sent = 0;
    while sent < DATAGRAMS {
        let first = sent == 0;
        let n = batch.min(DATAGRAMS - sent);
        sender.tell(&format!("send {n}"));
        sent += n;
        sender.expect(&format!("SENT {sent}"), SHORT);
        for p in &procs {
            if first {
                let from = p.expect("FROM", SHORT);
                assert_eq!(from, format!("FROM {}", source(sender_host)), "{}", p.name);
            }
            p.expect(&format!("GOT {sent}"), SHORT);
        }
    }
    for p in &mut procs {
        p.expect(&format!("DONE {DATAGRAMS}"), SHORT);
        p.wait_success(SHORT);
    }
    sender.tell("exit");
    sender.wait_success(SHORT);
}

fn network(hosts: usize) -> Option<SimNetwork> {
    SimNetwork::new(hosts, NetOptions::default())
}

/// Aeron's default MTU payload with room for the IPv6 and UDP headers.
const DATAGRAM_LENGTH: usize = 1408;

#[test]
fn ipv4_multicast_from_one_host_reaches_the_three_that_joined() {
    let Some(net) = network(4) else { return };
    // An administratively scoped group, odd last octet as Aeron's data groups.
    let group = Ipv4Addr::new(239, 193, 7, 1);
    send_and_receive_everywhere(
        &net,
        &[1, 2, 3],
        (group, PORT).into(),
        (group, PORT).into(),
        Some(group.into()),
        DATAGRAM_LENGTH,
        |h| h.ipv4().into(),
    );
}

#[test]
fn ipv6_global_scope_multicast_reaches_the_three_that_joined_through_the_route() {
    let Some(net) = network(4) else { return };
    // ff0e: global scope; the sender names no interface, so the route ff00::/8 via veth0
    // picks it.
    let group: Ipv6Addr = "ff0e::a:e:1".parse().unwrap();
    send_and_receive_everywhere(
        &net,
        &[1, 2, 3],
        (group, PORT).into(),
        (group, PORT).into(),
        Some(group.into()),
        DATAGRAM_LENGTH,
        |h| h.ipv6().into(),
    );
}

#[test]
fn ipv6_link_local_multicast_reaches_the_three_that_joined_on_their_interface() {
    let Some(net) = network(4) else { return };
    // ff02: link-local scope, so the join, the bind and the send name the interface.
    let group: Ipv6Addr = "ff02::a:e:1".parse().unwrap();
    let index = net.host(1).interface_index();
    for h in net.hosts() {
        // Every host has one interface besides lo, so the indexes agree.
        assert_eq!(h.interface_index(), index, "{}", h.name());
    }
    let addr = SocketAddr::V6(SocketAddrV6::new(group, PORT, 0, index));
    // The source of a link-local-scope datagram is the sender's link-local address.
    send_and_receive_everywhere(&net, &[1, 2, 3], addr, addr, Some(group.into()), DATAGRAM_LENGTH, |h| {
        h.ipv6_link_local().into()
    });
}

#[test]
fn unicast_between_two_hosts_over_ipv4_and_ipv6_at_a_larger_mtu() {
    let Some(net) = SimNetwork::new(2, NetOptions { mtu: 9000 }) else { return };
    for host in net.hosts() {
        let link = host.ip(&["-o", "link", "show", "dev", host.interface()]);
        assert!(link.contains("mtu 9000"), "{link}");
    }
    let bridge = netns::ip(&["-n", net.bridge_namespace(), "-o", "link", "show", "dev", "br0"]).unwrap();
    assert!(bridge.contains("mtu 9000"), "{bridge}");
    // IPv6 (40 B) and UDP (8 B) headers: the largest datagram a 9000 B link carries whole.
    let length = 9000 - 48;
    let to: SocketAddr = (net.host(1).ipv4(), PORT).into();
    send_and_receive_everywhere(&net, &[1], to, to, None, length, |h| h.ipv4().into());
    let to: SocketAddr = (net.host(1).ipv6(), PORT).into();
    send_and_receive_everywhere(&net, &[1], to, to, None, length, |h| h.ipv6().into());
}

// ---- the driver across hosts ---------------------------------------------------------------

/// Our sender (driver + publication) in host 0 and receiver in host 1 over `channel`:
/// 100,000 messages, each delivered once and in order (the receiver role checks).
fn driver_transfer(net: &SimNetwork, channel: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let mode = ThreadingMode::SharedNetwork;
    let mut sender = RoleConfig::new("sender", &tmp.path().join("snd"), mode, channel);
    let mut receiver = RoleConfig::new("receiver", &tmp.path().join("rcv"), mode, channel);
    for (config, host) in [(&mut sender, 0), (&mut receiver, 1)] {
        config.count = 100_000;
        config.netns = Some(net.host(host).name().to_string());
    }
    let mut rx = Proc::spawn(ENTRY, &receiver);
    rx.expect("READY", SHORT);
    let mut tx = Proc::spawn(ENTRY, &sender);
    tx.expect("READY", SHORT);
    let image = rx.expect("IMAGE", SHORT);
    // The image's source is host 0's address, so the data crossed the bridge.
    let source_ip = if channel.contains('[') {
        format!("[{}]", net.host(0).ipv6())
    } else {
        net.host(0).ipv4().to_string()
    };
    assert!(image.contains(&format!("source={source_ip}:")), "{image}");
    rx.expect("FIRST 0", SHORT);
    rx.expect("DONE 100000", LONG);
    let counters = rx.expect("COUNTERS", SHORT);
    assert_eq!(field(&counters, "invalid"), 0, "{counters}");
    tx.expect("SENT 100000", SHORT);
    for p in [&mut tx, &mut rx] {
        p.tell("exit");
        p.expect("EXITED", SHORT);
        p.wait_success(SHORT);
    }
    eprintln!("{channel}: {image}; receiver {counters}");
}

#[test]
fn driver_unicast_ipv4_between_two_hosts() {
    let Some(net) = network(2) else { return };
    driver_transfer(&net, &format!("aeron:udp?endpoint={}:{PORT}", net.host(1).ipv4()));
}

#[test]
fn driver_unicast_ipv6_between_two_hosts() {
    let Some(net) = network(2) else { return };
    driver_transfer(&net, &format!("aeron:udp?endpoint=[{}]:{PORT}", net.host(1).ipv6()));
}

// ---- teardown ------------------------------------------------------------------------------

fn ours(prefix: &str) -> Vec<String> {
    netns::list_namespaces().into_iter().filter(|n| n.starts_with(prefix)).collect()
}

/// A process parked inside `host` (reads stdin until it closes).
fn park(host: &Host) -> std::process::Child {
    host.command("sh")
        .args(["-c", "read line"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning sh in {}: {e}", host.name()))
}

/// The child was killed by SIGKILL (and by nobody else: only the harness knows of it).
fn assert_killed(mut child: std::process::Child) {
    use std::os::unix::process::ExitStatusExt;
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "{status}");
}

#[test]
fn dropping_the_network_kills_its_processes_and_removes_its_namespaces() {
    let Some(net) = network(3) else { return };
    let prefix = format!("{}-", net.prefix());
    let names = net.namespaces();
    assert_eq!(names.len(), 4, "{names:?}");
    let mut listed = ours(&prefix);
    listed.sort();
    let mut expected = names.clone();
    expected.sort();
    assert_eq!(listed, expected);
    let child = park(net.host(2));
    let pid = child.id() as i32;
    let deadline = std::time::Instant::now() + SHORT;
    while !net.host(2).pids().contains(&pid) {
        assert!(std::time::Instant::now() < deadline, "pid {pid} never showed in {}", net.host(2).name());
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(net);
    assert_eq!(ours(&prefix), Vec::<String>::new(), "namespaces left after drop");
    assert_killed(child);
}

#[test]
fn a_test_that_panics_still_removes_its_namespaces_and_processes() {
    let (tx, rx) = std::sync::mpsc::channel();
    let inner = "a_test_that_panics_still_removes_its_namespaces_and_processes (panicking thread)";
    let result = std::thread::Builder::new().name(inner.to_string()).spawn(move || {
        let Some(net) = network(2) else { return };
        let child = park(net.host(1));
        tx.send((format!("{}-", net.prefix()), child)).unwrap();
        panic!("deliberate panic with a network up (this message is expected)");
    });
    let result = result.unwrap().join();
    let Ok((prefix, child)) = rx.recv() else {
        // Skipped, or SimNetwork::new itself panicked (AERONRS_REQUIRE_NETNS=1): pass that on.
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
        return;
    };
    assert!(result.is_err(), "the thread was meant to panic");
    assert_eq!(ours(&prefix), Vec::<String>::new(), "namespaces left after a panic");
    assert_killed(child);
}

/// Whether `pid` is a live process (a zombie is not).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "pid (comm) state ...": the state follows the last ')'.
        Ok(stat) => stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"),
        Err(_) => false,
    }
}

#[test]
fn namespaces_left_by_a_killed_test_process_are_removed_and_live_ones_kept() {
    // Our own network first: the process's one sweep has run by now, so the sweep below is
    // the only one that sees the killed process's namespaces.
    let Some(net) = network(1) else { return };
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", ENTRY, "--nocapture", "--test-threads=1"]).env(SOCKET_ROLE, "hold-network");
    let mut holder = Proc::spawn_command("hold-network".to_string(), cmd);
    let up = holder.expect("UP", SHORT);
    let [_, prefix, sleeper] = up.split_whitespace().collect::<Vec<_>>()[..] else { panic!("{up}") };
    let (prefix, sleeper) = (format!("{prefix}-"), sleeper.parse::<u32>().unwrap());
    // SIGKILL: the holder's SimNetwork is never dropped, as in a crashed run.
    holder.kill();
    assert_eq!(ours(&prefix).len(), 3, "the killed process's bridge and two hosts");
    assert!(running(sleeper), "the process in the killed run's host");

    netns::remove_stale_namespaces();
    assert_eq!(ours(&prefix), Vec::<String>::new(), "stale namespaces kept");
    let deadline = std::time::Instant::now() + SHORT;
    while running(sleeper) {
        assert!(std::time::Instant::now() < deadline, "pid {sleeper} in a stale namespace still runs");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut live = ours(&format!("{}-", net.prefix()));
    live.sort();
    let mut expected = net.namespaces();
    expected.sort();
    assert_eq!(live, expected, "a live network's namespaces were removed");
}
