//! Simulated hosts for multi-host network tests: a [`SimNetwork`] is N Linux network
//! namespaces ("hosts") joined by veth pairs to one bridge, built and removed with `ip`.
//!
//! ```text
//!  <prefix>-h0              <prefix>-br                 <prefix>-h1
//!  +-------------+          +--------------------+      +-------------+
//!  | lo          |          |        br0         |      | lo          |
//!  | veth0 ======|== veth ==|= h0            h1 =|=veth=|====== veth0 |
//!  +-------------+          +--------------------+      +-------------+
//!  10.A.B.1/24                 (more hosts: h2, h3,     10.A.B.2/24
//!  fd61:6572:6f6e:N::1/64       ... on the same br0)    fd61:6572:6f6e:N::2/64
//!  fe80::1/64                                           fe80::2/64
//! ```
//!
//! Every host has `lo` up, one interface `veth0` with an IPv4 address in a /24, a ULA IPv6
//! address in a /64 and the link-local `fe80::<i+1>` (all without duplicate address
//! detection, so none is ever tentative), the MTU of [`NetOptions`] on every link, and
//! multicast routes `224.0.0.0/4` and `ff00::/8` through `veth0`. The other ends of the veth
//! pairs are ports of the bridge `br0`, which lives in its own namespace: nothing is added to
//! the machine's own (root) namespace, whose networking stays untouched.
//!
//! Rules:
//! - Private addresses only, and only inside namespaces made here. Each network of a process
//!   gets its own subnet (`10.A.B.0/24`, `fd61:6572:6f6e:N::/64` with `N = 256 A + B`) so
//!   names and addresses never collide between parallel tests; networks of different
//!   processes could share a subnet, harmlessly, as they share no link. Ports are free to
//!   choose: each namespace has its own port space.
//! - Namespaces are named `aeronrs-<pid>-<seq>-{br,h<i>}`. [`SimNetwork`]'s `Drop` (which
//!   also runs when the test panics) kills every process still inside them (`ip netns pids`)
//!   and deletes them; the first network of a process also deletes any `aeronrs-<pid>-*`
//!   left by a process that is gone (a crashed or killed run).
//! - Needs root and `ip netns`. Without them [`SimNetwork::new`] prints `SKIP: ...` and
//!   returns `None`, unless `AERONRS_REQUIRE_NETNS=1` (set by `.ci/run`): then it panics.
//!
//! Use (see `tests/netns_hosts.rs`):
//! ```text
//! let Some(net) = SimNetwork::new(4, NetOptions::default()) else { return }; // skipped
//! let channel = format!("aeron:udp?endpoint={}:40123", net.host(1).ipv4());
//! receiver_config.netns = Some(net.host(1).name().to_string()); // udp_roles::Proc::spawn
//! let child = net.host(2).command("/path/to/program").spawn()?;   // any process in a host
//! ```
#![allow(dead_code)]

use std::ffi::OsStr;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Every namespace this harness makes starts with this.
pub const NAME_PREFIX: &str = "aeronrs-";
pub const REQUIRE_VAR: &str = "AERONRS_REQUIRE_NETNS";
/// The host's end of its veth pair (every host has the same name: they are in different
/// namespaces).
pub const INTERFACE: &str = "veth0";
const BRIDGE: &str = "br0";
/// `fd` + a 40-bit global id (the bytes of "aeron"): the ULA /48 every network's /64 is in.
const ULA_PREFIX: [u16; 3] = [0xfd61, 0x6572, 0x6f6e];
/// Bound on waiting for links to come up and on processes dying at teardown.
const SETTLE: Duration = Duration::from_secs(10);

/// Options of one network.
#[derive(Debug, Clone)]
pub struct NetOptions {
    /// MTU of every link (veth ends and the bridge). IPv6 needs at least 1280.
    pub mtu: u32,
}

impl Default for NetOptions {
    fn default() -> Self {
        Self { mtu: 1500 }
    }
}

/// One simulated host: a network namespace with one interface on the bridge.
#[derive(Debug, Clone)]
pub struct Host {
    namespace: String,
    index: usize,
    ipv4: Ipv4Addr,
    ipv6: Ipv6Addr,
    ipv6_link_local: Ipv6Addr,
    interface_index: u32,
    mtu: u32,
}

impl Host {
    /// The namespace's name (for `ip netns exec`, `ip -n`).
    pub fn name(&self) -> &str {
        &self.namespace
    }

    /// Position in the network: host `i` has addresses ending in `i + 1`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The IPv4 address of [`Host::interface`] (prefix length 24).
    pub fn ipv4(&self) -> Ipv4Addr {
        self.ipv4
    }

    /// The ULA IPv6 address of [`Host::interface`] (prefix length 64; never tentative).
    pub fn ipv6(&self) -> Ipv6Addr {
        self.ipv6
    }

    /// The link-local IPv6 address of [`Host::interface`], `fe80::<index + 1>`.
    pub fn ipv6_link_local(&self) -> Ipv6Addr {
        self.ipv6_link_local
    }

    /// The name of the host's interface on the bridge.
    pub fn interface(&self) -> &str {
        INTERFACE
    }

    /// The interface's index inside the host's namespace: the scope id of link-local
    /// addresses and the interface of `IPV6_JOIN_GROUP` / `IPV6_MULTICAST_IF`.
    pub fn interface_index(&self) -> u32 {
        self.interface_index
    }

    pub fn mtu(&self) -> u32 {
        self.mtu
    }

    /// A command that runs `program` inside this host (`ip netns exec <ns> program`). `ip`
    /// execs the program, so the child's pid is the program's.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.namespace]).arg(program);
        cmd
    }

    /// `ip -n <ns> <args>`: runs an `ip` command against this host, panicking with what
    /// failed.
    pub fn ip(&self, args: &[&str]) -> String {
        let mut full = vec!["-n", &self.namespace];
        full.extend_from_slice(args);
        ip(&full).unwrap_or_else(|e| panic!("host {}: {e}", self.index))
    }

    /// Processes currently inside this host.
    pub fn pids(&self) -> Vec<i32> {
        namespace_pids(&self.namespace).unwrap_or_else(|e| panic!("host {}: {e}", self.index))
    }
}

/// N hosts on one bridge; removed (processes killed, namespaces deleted) on drop.
#[derive(Debug)]
pub struct SimNetwork {
    prefix: String,
    bridge: String,
    hosts: Vec<Host>,
    /// Every namespace created so far, in creation order: what `Drop` removes, even after a
    /// set-up that failed half way.
    created: Vec<String>,
    options: NetOptions,
    number: u16,
}

/// Serialises `ip netns add/del` within the process: on a fresh machine the first
/// `ip netns add` makes `/run/netns` a shared bind mount, and two racing first calls stack
/// two mounts, hiding the namespaces made under the lower one.
static NETNS_FILES: Mutex<()> = Mutex::new(());
static SEQUENCE: AtomicU32 = AtomicU32::new(0);
static SWEEP: Once = Once::new();

impl SimNetwork {
    /// Builds `hosts` hosts on one bridge; `None` (after a loud `SKIP:`) when network
    /// namespaces are unavailable, unless `AERONRS_REQUIRE_NETNS=1`. Panics, after removing
    /// what it made, if a step of the set-up fails.
    pub fn new(hosts: usize, options: NetOptions) -> Option<SimNetwork> {
        assert!((1..=250).contains(&hosts), "1 to 250 hosts, not {hosts}");
        assert!(options.mtu >= 1280, "MTU {} is below IPv6's minimum of 1280", options.mtu);
        if let Err(reason) = available() {
            return skip(&reason);
        }
        SWEEP.call_once(|| {
            remove_stale_namespaces();
        });
        let pid = std::process::id();
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        // Distinct for the first 65536 networks of a process.
        let number = (pid.wrapping_mul(64).wrapping_add(seq) & 0xffff) as u16;
        let prefix = format!("{NAME_PREFIX}{pid}-{seq}");
        let mut network = SimNetwork {
            bridge: format!("{prefix}-br"),
            prefix,
            hosts: Vec::with_capacity(hosts),
            created: Vec::new(),
            options,
            number,
        };
        // The first namespace and the bridge are the probe: failing there means namespaces
        // (or bridges) are not available here, e.g. root without CAP_SYS_ADMIN in a container.
        let bridge_ns = network.bridge.clone();
        if let Err(e) = network.add_namespace(&bridge_ns) {
            return skip(&format!("cannot create a network namespace: {e}"));
        }
        let mtu = network.options.mtu.to_string();
        if let Err(e) = ip(&["-n", &bridge_ns, "link", "add", BRIDGE, "mtu", &mtu, "type", "bridge"]) {
            return skip(&format!("cannot create a bridge: {e}"));
        }
        network.build_bridge();
        for i in 0..hosts {
            network.add_host(i);
        }
        network.step("bringing the bridge up", &["-n", &bridge_ns, "link", "set", BRIDGE, "up"]);
        network.wait_until_up();
        Some(network)
    }

    pub fn host(&self, i: usize) -> &Host {
        &self.hosts[i]
    }

    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The namespace holding the bridge.
    pub fn bridge_namespace(&self) -> &str {
        &self.bridge
    }

    /// Every namespace of this network (hosts and bridge).
    pub fn namespaces(&self) -> Vec<String> {
        self.created.clone()
    }

    /// The common prefix of this network's namespace names.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The IPv4 subnet, `10.A.B.0`, prefix length 24.
    pub fn ipv4_subnet(&self) -> Ipv4Addr {
        Ipv4Addr::new(10, (self.number >> 8) as u8, self.number as u8, 0)
    }

    /// The IPv6 subnet, `fd61:6572:6f6e:N::`, prefix length 64.
    pub fn ipv6_subnet(&self) -> Ipv6Addr {
        let [a, b, c] = ULA_PREFIX;
        Ipv6Addr::new(a, b, c, self.number, 0, 0, 0, 0)
    }

    pub fn mtu(&self) -> u32 {
        self.options.mtu
    }

    fn add_namespace(&mut self, name: &str) -> Result<(), String> {
        let _files = NETNS_FILES.lock().unwrap_or_else(|e| e.into_inner());
        ip(&["netns", "add", name])?;
        self.created.push(name.to_string());
        Ok(())
    }

    /// Runs one set-up step; on failure the panic names the step (and `Drop` removes what
    /// was made).
    fn step(&self, what: &str, args: &[&str]) -> String {
        ip(args).unwrap_or_else(|e| panic!("{}: {what}: {e}", self.prefix))
    }

    fn build_bridge(&self) {
        let ns = &self.bridge;
        // Multicast snooping off: with it on, the bridge forwards a group only to ports it saw
        // IGMP/MLD reports from once a querier is around, and drops members whose reports it
        // missed; off, it floods multicast to every port like a hub, and each host's kernel
        // keeps what its sockets joined. STP off and no forward delay: ports forward at once.
        self.step(
            "configuring the bridge (multicast snooping, STP off)",
            &[
                "-n",
                ns,
                "link",
                "set",
                BRIDGE,
                "type",
                "bridge",
                "mcast_snooping",
                "0",
                "stp_state",
                "0",
                "forward_delay",
                "0",
            ],
        );
        // No IPv6 addresses on the bridge: it would only add its own MLD and router
        // solicitations to the wire.
        self.step(
            "turning off IPv6 addresses on the bridge",
            &["-n", ns, "link", "set", BRIDGE, "addrgenmode", "none"],
        );
        let details =
            self.step("reading the bridge's settings", &["-n", ns, "-d", "link", "show", "dev", BRIDGE]);
        assert!(
            details.contains("mcast_snooping 0"),
            "{}: bridge still snoops multicast: {details}",
            self.prefix
        );
    }

    fn add_host(&mut self, i: usize) {
        let ns = format!("{}-h{i}", self.prefix);
        if let Err(e) = self.add_namespace(&ns) {
            panic!("{}: creating host {i}'s namespace: {e}", self.prefix);
        }
        let br = self.bridge.clone();
        let port = format!("h{i}");
        let mtu = self.options.mtu.to_string();
        let n = (i + 1) as u8;
        let subnet = self.ipv4_subnet().octets();
        let ipv4 = Ipv4Addr::new(subnet[0], subnet[1], subnet[2], n);
        let [a, b, c] = ULA_PREFIX;
        let ipv6 = Ipv6Addr::new(a, b, c, self.number, 0, 0, 0, n as u16);
        let ipv6_link_local = Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, n as u16);
        let (v4, v6, ll) = (format!("{ipv4}/24"), format!("{ipv6}/64"), format!("{ipv6_link_local}/64"));
        let steps: [(&str, Vec<&str>); 12] = [
            ("bringing lo up", vec!["-n", &ns, "link", "set", "lo", "up"]),
            (
                "creating the veth pair",
                vec![
                    "link", "add", INTERFACE, "netns", &ns, "mtu", &mtu, "type", "veth", "peer", "name",
                    &port, "netns", &br, "mtu", &mtu,
                ],
            ),
            ("attaching the veth to the bridge", vec!["-n", &br, "link", "set", &port, "master", BRIDGE]),
            (
                "turning off IPv6 addresses on the bridge port",
                vec!["-n", &br, "link", "set", &port, "addrgenmode", "none"],
            ),
            ("bringing the bridge port up", vec!["-n", &br, "link", "set", &port, "up"]),
            // The link-local address is added below with nodad, not generated: a generated
            // one would be tentative (unusable as a source) for a second or two of DAD.
            (
                "turning off generated IPv6 addresses",
                vec!["-n", &ns, "link", "set", INTERFACE, "addrgenmode", "none"],
            ),
            ("bringing the veth up", vec!["-n", &ns, "link", "set", INTERFACE, "up"]),
            ("adding the IPv4 address", vec!["-n", &ns, "addr", "add", &v4, "dev", INTERFACE]),
            (
                "adding the link-local IPv6 address",
                vec!["-n", &ns, "addr", "add", &ll, "dev", INTERFACE, "nodad"],
            ),
            ("adding the ULA IPv6 address", vec!["-n", &ns, "addr", "add", &v6, "dev", INTERFACE, "nodad"]),
            (
                "adding the IPv4 multicast route",
                vec!["-n", &ns, "route", "add", "224.0.0.0/4", "dev", INTERFACE],
            ),
            (
                "adding the IPv6 multicast route",
                vec!["-n", &ns, "-6", "route", "add", "ff00::/8", "dev", INTERFACE],
            ),
        ];
        for (what, args) in &steps {
            self.step(&format!("host {i}: {what}"), args);
        }
        let link = self.step(
            &format!("host {i}: reading the veth"),
            &["-n", &ns, "-o", "link", "show", "dev", INTERFACE],
        );
        let interface_index = link
            .split(':')
            .next()
            .and_then(|index| index.trim().parse().ok())
            .unwrap_or_else(|| panic!("{}: host {i}: no interface index in {link:?}", self.prefix));
        self.hosts.push(Host {
            namespace: ns,
            index: i,
            ipv4,
            ipv6,
            ipv6_link_local,
            interface_index,
            mtu: self.options.mtu,
        });
    }

    /// Waits until every host's veth has carrier and no tentative address, and every bridge
    /// port forwards.
    fn wait_until_up(&self) {
        let deadline = Instant::now() + SETTLE;
        for host in &self.hosts {
            let (i, ns, port) = (host.index, host.namespace.as_str(), format!("h{}", host.index));
            self.wait_for(
                deadline,
                i,
                "veth up",
                &["-n", ns, "-o", "link", "show", "dev", INTERFACE],
                |out| out.contains("LOWER_UP") && out.contains("state UP"),
            );
            self.wait_for(
                deadline,
                i,
                "no tentative IPv6 address",
                &["-n", ns, "-6", "addr", "show", "tentative"],
                |out| out.trim().is_empty(),
            );
            let bridge_port = ["-n", &self.bridge, "-d", "-o", "link", "show", "dev", &port];
            self.wait_for(deadline, i, "bridge port forwarding", &bridge_port, |out| {
                out.contains("state forwarding")
            });
        }
    }

    /// Runs `ip <args>` until its output is `ok`, up to `deadline`.
    fn wait_for(&self, deadline: Instant, host: usize, what: &str, args: &[&str], ok: impl Fn(&str) -> bool) {
        loop {
            let out = self.step(&format!("host {host}: checking {what}"), args);
            if ok(&out) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: host {host}: not {what} after {SETTLE:?}: {out}",
                self.prefix
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for SimNetwork {
    fn drop(&mut self) {
        // Never panics (it may run while a test unwinds): failures are reported on stderr.
        let errors = remove_namespaces(&self.created);
        for e in &errors {
            eprintln!("{}: teardown: {e}", self.prefix);
        }
    }
}

/// Kills every process in the namespaces, then deletes them; returns what failed.
fn remove_namespaces(names: &[String]) -> Vec<String> {
    let mut errors = Vec::new();
    for name in names {
        if let Err(e) = kill_processes_in(name) {
            errors.push(e);
        }
    }
    let _files = NETNS_FILES.lock().unwrap_or_else(|e| e.into_inner());
    for name in names {
        if let Err(e) = ip(&["netns", "del", name]) {
            errors.push(e);
        }
    }
    errors
}

/// SIGKILLs the processes inside namespace `name` until none is left (a zombie has left its
/// namespace already, so it does not count).
fn kill_processes_in(name: &str) -> Result<(), String> {
    let deadline = Instant::now() + SETTLE;
    loop {
        let pids = namespace_pids(name)?;
        if pids.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("processes {pids:?} still in namespace {name} after {SETTLE:?}"));
        }
        // The shell's builtin kill: std can only kill its own children.
        let list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
        let status =
            Command::new("sh").args(["-c", "kill -KILL \"$@\" 2>/dev/null", "kill"]).args(&list).status();
        if let Err(e) = status {
            return Err(format!("could not run sh to kill {list:?} in namespace {name}: {e}"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn namespace_pids(name: &str) -> Result<Vec<i32>, String> {
    let out = ip(&["netns", "pids", name])?;
    out.split_whitespace()
        .map(|p| p.parse().map_err(|e| format!("`ip netns pids {name}` printed {p:?}: {e}")))
        .collect()
}

/// The names `ip netns list` shows (without its `(id: N)` suffixes).
pub fn list_namespaces() -> Vec<String> {
    ip(&["netns", "list"])
        .unwrap_or_else(|e| panic!("listing namespaces: {e}"))
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Removes the namespaces of this harness whose process is gone (a crashed run); returns
/// their names. Leaves those of live processes, parallel runs included.
pub fn remove_stale_namespaces() -> Vec<String> {
    let Ok(listing) = ip(&["netns", "list"]) else { return Vec::new() };
    let own = std::process::id() as i32;
    let stale: Vec<String> = listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| {
            let pid = name.strip_prefix(NAME_PREFIX).and_then(|rest| rest.split('-').next());
            match pid.and_then(|p| p.parse::<i32>().ok()) {
                Some(pid) => pid != own && !aeronrs::util::sys::process_exists(pid),
                None => false,
            }
        })
        .map(str::to_string)
        .collect();
    if !stale.is_empty() {
        eprintln!("netns: removing namespaces left by processes that are gone: {stale:?}");
        for e in remove_namespaces(&stale) {
            // A parallel run may be removing the same ones.
            eprintln!("netns: removing stale namespaces: {e}");
        }
    }
    stale
}

/// Whether this process can make namespaces: root and a working `ip netns`.
fn available() -> Result<(), String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    // "Uid: real effective saved fs"
    let euid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .ok_or_else(|| "no Uid: line in /proc/self/status".to_string())?;
    if euid != "0" {
        return Err(format!("not root (effective uid {euid})"));
    }
    ip(&["netns", "list"]).map(|_| ())
}

fn skip(reason: &str) -> Option<SimNetwork> {
    let test = std::thread::current().name().unwrap_or("?").to_string();
    if std::env::var(REQUIRE_VAR).as_deref() == Ok("1") {
        panic!("{test}: network namespaces are unavailable and {REQUIRE_VAR}=1: {reason}");
    }
    // Straight to the stderr handle, not eprintln!: the test harness captures the macros'
    // output of passing tests, and a skip should be seen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIP: {test}: network namespaces unavailable: {reason}. This multi-host test needs root and \
         iproute2 (`ip netns`); {REQUIRE_VAR}=1 makes this a failure."
    );
    None
}

/// Runs `ip <args>`; the error names the command, its exit status and what it printed.
pub fn ip(args: &[&str]) -> Result<String, String> {
    let shown = || format!("`ip {}`", args.join(" "));
    let out =
        Command::new("ip").args(args).output().map_err(|e| format!("{} could not start: {e}", shown()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("{} failed ({}): {}", shown(), out.status, String::from_utf8_lossy(&out.stderr).trim()))
    }
}
