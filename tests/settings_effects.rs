//! Effects of driver settings that `settings_walk.rs` names here (issue 18 item 7): each
//! test runs a driver with several settings away from their defaults and asserts what
//! they change, in the log buffers, the counters, the replies to a client, the agent
//! threads or the driver's output. Every assertion would fail with the default value.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver};
use aeronrs::logbuffer::LogBuffers;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::util::config::set_override;
use raw_client::{RawClient, test_context, wait_until};

/// System counter ids of the work-cycle-exceeded counts (`spec/counters.md`).
const CONDUCTOR_CYCLE_EXCEEDED: i32 = 27;
const SENDER_CYCLE_EXCEEDED: i32 = 29;
const RECEIVER_CYCLE_EXCEEDED: i32 = 31;
const RETRANSMITS_SENT: i32 = 11;

/// What ON_PUBLICATION_READY / ON_EXCLUSIVE_PUBLICATION_READY says of a publication.
struct Ready {
    registration_id: i64,
    log_file: String,
    session_id: i32,
    limit_counter_id: i32,
}

fn add_publication(client: &mut RawClient, channel: &str, stream_id: i32, exclusive: bool) -> Ready {
    let id = client.add_publication(channel, stream_id, exclusive);
    let record = client.expect_correlated(id);
    match record.response() {
        Response::PublicationReady(p) | Response::ExclusivePublicationReady(p) => Ready {
            registration_id: p.registration_id,
            log_file: p.log_file_name_str().unwrap().to_string(),
            session_id: p.session_id,
            limit_counter_id: p.position_limit_counter_id,
        },
        other => panic!("{channel}: expected a publication, got {other:?}"),
    }
}

fn add_subscription(client: &mut RawClient, channel: &str, stream_id: i32) {
    let id = client.add_subscription(channel, stream_id);
    let record = client.expect_correlated(id);
    assert!(
        matches!(record.response(), Response::SubscriptionReady(_)),
        "{channel}: {:?}",
        record.response()
    );
}

/// A free UDP port on 127.0.0.1 for an endpoint.
fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Lengths, windows, sparseness, spies, counter reuse and cycle thresholds,
/// all on one driver.
#[test]
fn logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.term_buffer_length = 256 * 1024;
    ctx.ipc_term_buffer_length = 128 * 1024;
    ctx.mtu_length = 4096;
    ctx.ipc_mtu_length = 2048;
    ctx.file_page_size = 8192;
    ctx.term_buffer_sparse_file = true;
    ctx.publication_term_window_length = 32 * 1024;
    ctx.ipc_publication_term_window_length = 16 * 1024;
    ctx.spies_simulate_connection = true;
    ctx.counters_free_to_reuse_timeout_ns = 0;
    ctx.conductor_cycle_threshold_ns = 1;
    ctx.agents.sender_cycle_threshold_ns = 1;
    ctx.agents.receiver_cycle_threshold_ns = 1;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);

    // AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT = 0: a freed id is handed out again at once
    // (after the default 1 s only, so the next counter would take a new id).
    let first = client.add_counter(1001, &[], "first");
    let Response::CounterReady(c) = client.expect_correlated(first).response() else { panic!() };
    let freed = c.counter_id;
    let removed = client.remove_counter(first);
    client.expect_correlated(removed);
    let second = client.add_counter(1001, &[], "second");
    let Response::CounterReady(c) = client.expect_correlated(second).response() else { panic!() };
    assert_eq!(c.counter_id, freed, "AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT");

    let udp = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let network = add_publication(&mut client, &udp, 10, false);
    let log = LogBuffers::map_existing(Path::new(&network.log_file)).unwrap();
    let m = log.metadata();
    assert_eq!(d::term_length(m), 256 * 1024, "AERON_TERM_BUFFER_LENGTH");
    assert_eq!(d::mtu_length(m), 4096, "AERON_MTU_LENGTH");
    assert_eq!(d::page_size(m), 8192, "AERON_FILE_PAGE_SIZE");
    let file = std::fs::metadata(&network.log_file).unwrap();
    // Three terms and the 4 KiB metadata, rounded up to the 8 KiB page.
    assert_eq!(file.len(), 3 * 256 * 1024 + 8192, "AERON_FILE_PAGE_SIZE rounds the log file");
    assert!(
        file.blocks() * 512 < file.len() / 2,
        "AERON_TERM_BUFFER_SPARSE_FILE: {} of {} bytes allocated",
        file.blocks() * 512,
        file.len()
    );
    assert!(!d::is_connected(m), "no receiver and no spy yet");

    // A spy alone connects the publication (AERON_SPIES_SIMULATE_CONNECTION) and its limit
    // is the spy's position plus the configured window.
    add_subscription(&mut client, &format!("aeron-spy:{udp}"), 10);
    wait_until("the spy connects the publication", || d::is_connected(m));
    wait_until("network publication limit", || {
        client.cnc.counter_value(network.limit_counter_id) == 32 * 1024
    });

    let ipc = add_publication(&mut client, "aeron:ipc", 11, true);
    let ipc_log = LogBuffers::map_existing(Path::new(&ipc.log_file)).unwrap();
    assert_eq!(d::mtu_length(ipc_log.metadata()), 2048, "AERON_IPC_MTU_LENGTH");
    assert_eq!(d::term_length(ipc_log.metadata()), 128 * 1024);
    add_subscription(&mut client, "aeron:ipc", 11);
    wait_until("IPC publication limit", || client.cnc.counter_value(ipc.limit_counter_id) == 16 * 1024);

    // Every cycle takes longer than 1 ns (the default threshold is 1 s).
    wait_until("every agent counts cycles over its threshold", || {
        [CONDUCTOR_CYCLE_EXCEEDED, SENDER_CYCLE_EXCEEDED, RECEIVER_CYCLE_EXCEEDED]
            .iter()
            .all(|&id| client.cnc.system_counter(id) > 0)
    });
    for id in [CONDUCTOR_CYCLE_EXCEEDED, SENDER_CYCLE_EXCEEDED, RECEIVER_CYCLE_EXCEEDED] {
        assert!(client.cnc.counter_label(id).contains("threshold=1ns"), "{}", client.cnc.counter_label(id));
    }
}

/// With all but the top eight ids reserved, every driver hands out only those. The first id
/// is random, so ten drivers make sure a start below the default range's low end (-1),
/// where ignoring `AERON_PUBLICATION_RESERVED_SESSION_ID_LOW` would show, is among them.
#[test]
fn session_ids_stay_out_of_the_reserved_range() {
    let tmp = tempfile::tempdir().unwrap();
    for round in 0..10 {
        let dir = tmp.path().join(format!("aeron-{round}"));
        let mut ctx = test_context(&dir);
        ctx.publication_reserved_session_id_low = i32::MIN;
        ctx.publication_reserved_session_id_high = i32::MAX - 8;
        let _driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        let first = add_publication(&mut client, "aeron:ipc", 1, true);
        let second = add_publication(&mut client, "aeron:ipc", 1, true);
        for id in [first.session_id, second.session_id] {
            assert!(id > i32::MAX - 8, "round {round}: session id {id} is reserved");
        }
        assert_ne!(first.session_id, second.session_id);
    }
}

/// x86-64 system call numbers of the sleeps `std::thread::sleep` makes through glibc.
const SYS_NANOSLEEP: u64 = 35;
const SYS_CLOCK_NANOSLEEP: u64 = 230;

/// Names of this process's threads with, for each one blocked in a relative sleep, the
/// period it asked for: `/proc/self/task/<tid>/syscall` gives the call and the address of
/// its `struct timespec`, `/proc/self/mem` the timespec (on the sleeping thread's stack).
fn sleeping_threads() -> Vec<(String, Option<Duration>)> {
    let mem = std::fs::File::open("/proc/self/mem").unwrap();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    let mut threads = Vec::new();
    for task in tasks.flatten() {
        let path = task.path();
        let (Ok(name), Ok(call)) =
            (std::fs::read_to_string(path.join("comm")), std::fs::read_to_string(path.join("syscall")))
        else {
            continue;
        };
        let words: Vec<u64> = call
            .split_whitespace()
            .map(|w| {
                u64::from_str_radix(w.trim_start_matches("0x"), if w.starts_with("0x") { 16 } else { 10 })
            })
            .map_while(Result::ok)
            .collect();
        // clock_nanosleep(clock, flags, request, remain) with flags 0 is relative.
        let request = match words.as_slice() {
            [SYS_NANOSLEEP, request, ..] => Some(*request),
            [SYS_CLOCK_NANOSLEEP, _, 0, request, ..] => Some(*request),
            _ => None,
        };
        let period = request.and_then(|address| {
            let mut timespec = [0u8; 16];
            mem.read_exact_at(&mut timespec, address).ok()?;
            // Still the same call: the timespec was read while the thread slept on it.
            (std::fs::read_to_string(path.join("syscall")).ok()? == call).then(|| {
                let seconds = u64::from_le_bytes(timespec[..8].try_into().unwrap());
                let nanos = u64::from_le_bytes(timespec[8..].try_into().unwrap());
                Duration::from_secs(seconds) + Duration::from_nanos(nanos)
            })
        });
        threads.push((name.trim().to_string(), period));
    }
    threads
}

/// Waits until each `(thread name, period)` is seen: a thread of that name asleep for
/// exactly that period.
fn wait_for_sleepers(expected: &[(&str, Duration)]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = vec![false; expected.len()];
    loop {
        let threads = sleeping_threads();
        for (i, (name, period)) in expected.iter().enumerate() {
            seen[i] |= threads.iter().any(|(n, p)| n == name && *p == Some(*period));
        }
        if seen.iter().all(|&s| s) {
            return;
        }
        assert!(Instant::now() < deadline, "expected {expected:?}, seen {seen:?}, threads {threads:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A driver context from these variables (as `aeronmd` reads them), in its own directory.
fn context_from(variables: &[(&str, &str)], dir: &Path) -> DriverContext {
    for (name, value) in variables {
        set_override(name, value);
    }
    let ctx = DriverContext::from_env();
    for (name, _) in variables {
        set_override(name, "");
    }
    DriverContext { aeron_dir: dir.to_path_buf(), dir_delete_on_shutdown: true, ..ctx.unwrap() }
}

/// Settings as (variable, value), and the (thread name, sleep period) they should give.
type Variables = Vec<(&'static str, &'static str)>;
type Sleepers = Vec<(&'static str, Duration)>;

/// `AERON_*_IDLE_STRATEGY=sleep-ns` with `..._INIT_ARGS` periods: each agent thread sleeps
/// exactly its own period when idle (the default backoff parks on a futex, 1 ms at most).
/// Periods are odd milliseconds no other test uses, so other drivers cannot match them.
#[test]
fn each_agent_thread_idles_with_its_configured_strategy_and_period() {
    let tmp = tempfile::tempdir().unwrap();
    let ms = Duration::from_millis;
    let runs: [(&str, Variables, Sleepers); 3] = [
        (
            "DEDICATED",
            vec![
                ("AERON_CONDUCTOR_IDLE_STRATEGY", "sleep-ns"),
                ("AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS", "37ms"),
                ("AERON_SENDER_IDLE_STRATEGY", "sleep-ns"),
                ("AERON_SENDER_IDLE_STRATEGY_INIT_ARGS", "41ms"),
                ("AERON_RECEIVER_IDLE_STRATEGY", "sleep-ns"),
                ("AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS", "43ms"),
            ],
            vec![("conductor", ms(37)), ("sender", ms(41)), ("receiver", ms(43))],
        ),
        (
            "SHARED_NETWORK",
            vec![
                ("AERON_SHAREDNETWORK_IDLE_STRATEGY", "sleep-ns"),
                ("AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS", "47ms"),
            ],
            // Thread names are cut at 15 bytes, as Linux keeps them.
            vec![("[sender, receiv", ms(47))],
        ),
        (
            "SHARED",
            vec![
                ("AERON_SHARED_IDLE_STRATEGY", "sleep-ns"),
                ("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "53ms"),
            ],
            vec![("[conductor, sen", ms(53))],
        ),
    ];
    for (mode, mut variables, expected) in runs {
        variables.push(("AERON_THREADING_MODE", mode));
        let ctx = context_from(&variables, &tmp.path().join(mode));
        assert_eq!(ctx.threading_mode.name(), mode);
        let driver = MediaDriver::launch(ctx).unwrap();
        wait_for_sleepers(&expected);
        drop(driver);
    }
}

/// Kills `aeronmd` if the test fails before it exits.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines of a child's output, read on a thread of their own.
fn lines_of(out: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    received
}

/// Waits for a line containing `text`; returns every line read so far if none comes.
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, seen: &mut Vec<String>, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !seen.iter().any(|l| l.contains(text)) {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no line with {text:?} in {seen:#?}"),
        }
    }
}

/// `aeronmd` over the CnC of a driver whose heartbeat stopped 3 s ago: with
/// `AERON_DRIVER_TIMEOUT=1000` that driver is dead and is replaced (with the default 10 s
/// it is live and `aeronmd` refuses to start), `AERON_DIR_WARN_IF_EXISTS` warns about the
/// directory, `AERON_PRINT_CONFIGURATION` prints the settings, and a
/// `AERON_LOW_FILE_STORE_WARNING_THRESHOLD` above any disk's free space warns when a
/// publication's log is made.
#[test]
fn aeronmd_replaces_a_stale_driver_warns_and_prints_its_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let stale =
        MediaDriver::launch(DriverContext { dir_delete_on_shutdown: false, ..test_context(&dir) }).unwrap();
    drop(stale);
    let cnc = raw_client::Cnc::map(&dir);
    let heartbeat_offset = cnc.to_driver.capacity() - 768 + 640;
    cnc.to_driver.put_i64_release(heartbeat_offset, aeronrs::util::clock::epoch_ms() - 3000);
    drop(cnc);

    let threshold = (1u64 << 50).to_string();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_aeronmd"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("AERON") {
            command.env_remove(name);
        }
    }
    let child = command
        .env("AERON_DIR", &dir)
        .env("AERON_DRIVER_TIMEOUT", "1000")
        .env("AERON_DIR_WARN_IF_EXISTS", "true")
        .env("AERON_PRINT_CONFIGURATION", "true")
        .env("AERON_LOW_FILE_STORE_WARNING_THRESHOLD", &threshold)
        .env("AERON_DIR_DELETE_ON_SHUTDOWN", "true")
        .env("AERON_DRIVER_TERMINATION_VALIDATOR", "allow")
        .env("AERON_THREADING_MODE", "SHARED")
        .env("AERON_SHARED_IDLE_STRATEGY", "sleep-ns")
        .env("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "1ms")
        .env("AERON_IPC_TERM_BUFFER_LENGTH", "64k")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let pid = i64::from(child.0.id());
    let (stdout, stderr) =
        (lines_of(child.0.stdout.take().unwrap()), lines_of(child.0.stderr.take().unwrap()));
    let (mut out, mut err) = (Vec::new(), Vec::new());

    // The stale CnC is replaced by one carrying aeronmd's pid.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let replaced =
            aeronrs::concurrent::mapped_file::map_existing(&dir.join("cnc.dat")).is_ok_and(|file| {
                file.capacity() > 128 && file.get_i32_acquire(0) != 0 && file.get_i64(40) == pid
            });
        if replaced {
            break;
        }
        if let Some(status) = child.0.try_wait().unwrap() {
            err.extend(stderr.try_iter());
            panic!("aeronmd exited ({status}) instead of replacing the stale driver: {err:#?}");
        }
        assert!(Instant::now() < deadline, "aeronmd never replaced the stale CnC");
        std::thread::sleep(Duration::from_millis(5));
    }
    wait_for_line(&stderr, &mut err, &format!("WARNING: {} exists", dir.display()));
    wait_for_line(&stdout, &mut out, "print_configuration: true");
    wait_for_line(&stdout, &mut out, "driver_timeout_ms: 1000");

    let mut client = RawClient::connect(&dir);
    add_publication(&mut client, "aeron:ipc", 1, false);
    wait_for_line(&stderr, &mut err, &format!("space is running low: threshold={threshold}"));
    client.terminate_driver(b"");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "aeronmd did not exit");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(0));
}

/// `(rb, tb)` of the UDP socket bound to 127.0.0.1:`port`, from `ss -uamn` (its `skmem`
/// line: `rb` is SO_RCVBUF, `tb` SO_SNDBUF, both as the kernel doubled them).
fn socket_buffers(port: u16) -> Option<(u64, u64)> {
    let out = std::process::Command::new("ss").args(["-uamn"]).output().expect("ss (iproute2) runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.split_whitespace().nth(3) == Some(format!("127.0.0.1:{port}").as_str()) {
            let skmem = lines.next()?;
            let field = |key: &str| {
                skmem.split([',', '(', ')']).find_map(|f| f.trim().strip_prefix(key)?.parse::<u64>().ok())
            };
            return Some((field("rb")?, field("tb")?));
        }
    }
    None
}

/// A receiving driver answers a SETUP from a test socket with status messages showing its
/// initial window and receiver group tag, sent every `AERON_RCV_STATUS_MESSAGE_TIMEOUT`,
/// from a socket with the configured buffer sizes; sessions over the stream's and the
/// endpoint's image limits are refused.
#[test]
fn status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings() {
    use aeronrs::protocol::setup::Setup;
    use aeronrs::protocol::status_message::StatusMessageFlyweight;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.rcv_initial_window_length = 64 * 1024;
    ctx.network.receiver_group_tag = Some(77);
    ctx.status_message_timeout_ns = 20_000_000;
    ctx.socket_so_rcvbuf = 64 * 1024;
    ctx.socket_so_sndbuf = 96 * 1024;
    ctx.stream_session_limit = 1;
    ctx.network.max_images_per_endpoint = 2;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 5);

    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let setup = Setup {
        flags: 0,
        term_offset: 0,
        session_id: 4242,
        stream_id: 5,
        initial_term_id: 9,
        active_term_id: 9,
        // Half a term (512 KiB) is above either window, so the window is the setting's.
        term_length: 1024 * 1024,
        mtu: 1408,
        ttl: 0,
    };
    let mut frame = [0u8; 40];
    setup.encode(&mut frame).unwrap();
    // Setups go on until the first SM; then 40 more SMs come in 0.8 s (8 s at the default
    // 200 ms, past this wait's bound).
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut status_messages = 0;
    let mut buffer = [0u8; 1500];
    while status_messages < 41 {
        assert!(Instant::now() < deadline, "{status_messages} status messages in 6 s");
        if status_messages == 0 {
            sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
        }
        let Ok(length) = sender.recv(&mut buffer) else { continue };
        let Ok(sm) = StatusMessageFlyweight::parse(&buffer[..length]) else { continue };
        assert_eq!((sm.session_id(), sm.stream_id()), (4242, 5));
        assert_eq!(sm.receiver_window(), 64 * 1024, "AERON_RCV_INITIAL_WINDOW_LENGTH");
        assert_eq!(sm.group_tag().unwrap(), Some(77), "AERON_RECEIVER_GROUP_TAG");
        assert_eq!(sm.frame_length(), 44, "the group tag extends the SM");
        status_messages += 1;
    }
    // Linux reports twice what was set.
    assert_eq!(socket_buffers(port), Some((128 * 1024, 192 * 1024)), "AERON_SOCKET_SO_RCVBUF, _SNDBUF");

    // AERON_DRIVER_STREAM_SESSION_LIMIT = 1: a second session of stream 5 is refused.
    let send_setup = |session_id: i32, stream_id: i32, port: u16| {
        let mut frame = [0u8; 40];
        Setup { session_id, stream_id, ..setup }.encode(&mut frame).unwrap();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    };
    send_setup(4243, 5, port);
    wait_until("the session limit refusal", || {
        client
            .cnc
            .errors()
            .iter()
            .any(|e| e.contains("session-id=4243") && e.contains("stream session limit of 1"))
    });
    // AERONRS_MAX_IMAGES_PER_ENDPOINT = 2: a third image on another endpoint is refused,
    // one stream each (under the session limit).
    let other_port = free_port();
    for stream_id in [6, 7, 8] {
        add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{other_port}"), stream_id);
    }
    for stream_id in [6, 7] {
        send_setup(5000 + stream_id, stream_id, other_port);
        client.expect("the image", |r| matches!(r, Response::AvailableImage(i) if i.stream_id == stream_id));
    }
    send_setup(5008, 8, other_port);
    wait_until("the endpoint limit refusal", || {
        client
            .cnc
            .errors()
            .iter()
            .any(|e| e.contains("session-id=5008") && e.contains("endpoint image limit of 2"))
    });
}

/// The C setters (`idle_strategy_specs`): init args, then the name that applies them, give
/// the conductor thread of a driver made through the C API its sleep.
#[test]
fn c_setters_choose_the_conductor_idle_strategy_and_its_period() {
    use aeronrs::ffi::driver::context::{
        aeron_driver_context_close, aeron_driver_context_init, aeron_driver_context_set_dir,
    };
    use aeronrs::ffi::driver::settings::call_setter;
    use aeronrs::ffi::driver::settings_idle as idle;
    use aeronrs::ffi::driver::{aeron_driver_close, aeron_driver_init, aeron_driver_start};
    use std::ffi::CString;

    let tmp = tempfile::tempdir().unwrap();
    let dir = CString::new(tmp.path().join("aeron").to_str().unwrap()).unwrap();
    let (name, period) = (CString::new("sleep-ns").unwrap(), CString::new("59ms").unwrap());
    let mut context = std::ptr::null_mut();
    // SAFETY: a valid out pointer; then a live context and NUL-terminated strings.
    unsafe {
        assert_eq!(aeron_driver_context_init(&mut context), 0);
        assert_eq!(aeron_driver_context_set_dir(context, dir.as_ptr()), 0);
        assert_eq!(call_setter(context, "aeron_driver_context_set_dir_delete_on_shutdown", "true"), Some(0));
        assert_eq!(
            idle::aeron_driver_context_set_conductor_idle_strategy_init_args(context, period.as_ptr()),
            0
        );
        assert_eq!(idle::aeron_driver_context_set_conductor_idle_strategy(context, name.as_ptr()), 0);
    }
    let mut driver = std::ptr::null_mut();
    // SAFETY: a valid out pointer and a live context; the driver is closed once below.
    unsafe {
        assert_eq!(aeron_driver_init(&mut driver, context), 0);
        assert_eq!(aeron_driver_start(driver, false), 0);
    }
    wait_for_sleepers(&[("conductor", Duration::from_millis(59))]);
    // SAFETY: from aeron_driver_init and aeron_driver_context_init, each closed once.
    unsafe {
        assert_eq!(aeron_driver_close(driver), 0);
        assert_eq!(aeron_driver_context_close(context), 0);
    }
}

/// Waits until `condition`, failing after `bound`: for a timeout set well below its
/// default, a bound under the default shows the setting made it fire.
fn wait_within(bound: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + bound;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} not within {bound:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// `AERON_TETHER_SUBSCRIPTIONS=false`: a subscriber left a window behind is let go (a
/// tethered one holds the publication back for ever) after the 100 ms
/// `AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT` (its image goes unavailable within 4 s, the
/// default being 5 s) and rejoins after `AERON_UNTETHERED_RESTING_TIMEOUT` (available again
/// within 8 s, the default being 10 s). A closed network publication's log goes after the 50 ms
/// `AERON_PUBLICATION_LINGER_TIMEOUT` (within 4 s, the default being 5 s).
#[test]
fn untethered_subscribers_rest_and_rejoin_and_closed_publications_linger_as_set() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.tether_subscriptions = false;
    ctx.untethered_window_limit_timeout_ns = 100_000_000;
    ctx.untethered_resting_timeout_ns = 100_000_000;
    ctx.publication_linger_timeout_ns = 50_000_000;
    ctx.timer_interval_ns = 10_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let ready = add_publication(&mut client, "aeron:ipc", 3, false);
    let (fast, slow) = (client.add_subscription("aeron:ipc", 3), client.add_subscription("aeron:ipc", 3));
    let mut fast_position = None;
    for subscription in [fast, slow] {
        let record = client.expect(
            "an image",
            |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription),
        );
        let Response::AvailableImage(image) = record.response() else { unreachable!() };
        if subscription == fast {
            fast_position = Some(image.subscriber_position_id);
        }
    }
    let publication = log_client::TestPublication::map(
        &ready.log_file,
        &client.cnc.counters_values,
        ready.limit_counter_id,
    );
    // Three quarters of the 32 KiB window, then the fast subscriber reads it all.
    let mut position = 0;
    while position < 24 * 1024 + 1024 {
        position = publication.offer(&[7u8; 992]);
        assert!(position > 0, "offer: {position}");
    }
    client.cnc.set_counter_value(fast_position.unwrap(), position);
    let left_behind = Instant::now();
    client.expect(
        "the slow subscriber let go",
        |r| matches!(r, Response::UnavailableImage(i) if i.subscription_registration_id == slow),
    );
    assert!(left_behind.elapsed() < Duration::from_secs(4), "let go after {:?}", left_behind.elapsed());
    client.expect(
        "the slow subscriber rejoined",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == slow),
    );
    assert!(left_behind.elapsed() < Duration::from_secs(8), "rejoined after {:?}", left_behind.elapsed());

    // A network publication that sent nothing drains at once, then lingers.
    let udp = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let lingering = add_publication(&mut client, &udp, 4, true);
    let log_file = std::path::PathBuf::from(&lingering.log_file);
    assert!(log_file.exists());
    let removed = client.remove_publication(lingering.registration_id);
    client.expect_correlated(removed);
    wait_within(Duration::from_secs(4), "the closed publication's log deleted", || !log_file.exists());
}

/// Peer addresses of the connected UDP sockets, from `ss -uan`.
fn connected_peers() -> Vec<String> {
    let out = std::process::Command::new("ss").args(["-uan"]).output().expect("ss (iproute2) runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("ESTAB"))
        .filter_map(|l| l.split_whitespace().nth(4).map(str::to_string))
        .collect()
}

/// The SETUP a publication's sender sends to `receiver`, and where it came from.
fn receive_setup(receiver: &std::net::UdpSocket) -> (aeronrs::protocol::setup::Setup, std::net::SocketAddr) {
    use aeronrs::protocol::setup::SetupFlyweight;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut buffer = [0u8; 1500];
    loop {
        assert!(Instant::now() < deadline, "no SETUP");
        let Ok((length, from)) = receiver.recv_from(&mut buffer) else { continue };
        if let Ok(setup) = SetupFlyweight::parse(&buffer[..length]) {
            let s = aeronrs::protocol::setup::Setup {
                flags: setup.flags(),
                term_offset: setup.term_offset(),
                session_id: setup.session_id(),
                stream_id: setup.stream_id(),
                initial_term_id: setup.initial_term_id(),
                active_term_id: setup.active_term_id(),
                term_length: setup.term_length(),
                mtu: setup.mtu(),
                ttl: setup.ttl(),
            };
            return (s, from);
        }
    }
}

/// `AERON_DRIVER_CONNECT=false`: the send socket of a unicast publication is not
/// connected to its endpoint (the default driver's is); and the publication, connected by
/// one status message from a test socket, is no longer connected once
/// `AERON_PUBLICATION_CONNECTION_TIMEOUT` (300 ms) passes without another (within 4 s, the
/// default being 5 s).
#[test]
fn unconnected_send_sockets_and_the_connection_timeout_follow_the_settings() {
    use aeronrs::protocol::status_message::StatusMessage;

    let tmp = tempfile::tempdir().unwrap();
    let (default_dir, dir) = (tmp.path().join("default"), tmp.path().join("aeron"));
    let _default_driver = MediaDriver::launch(test_context(&default_dir)).unwrap();
    let mut ctx = test_context(&dir);
    ctx.network.connect_enabled = false;
    ctx.publication_connection_timeout_ns = 300_000_000;
    ctx.timer_interval_ns = 10_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();

    let mut clients = [RawClient::connect(&default_dir), RawClient::connect(&dir)];
    let mut readies = Vec::new();
    let mut receivers = Vec::new();
    for client in &mut clients {
        let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        receiver.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let endpoint = receiver.local_addr().unwrap();
        readies.push(add_publication(client, &format!("aeron:udp?endpoint={endpoint}"), 9, false));
        receivers.push(receiver);
    }
    let (setup, sender) = receive_setup(&receivers[1]);
    receive_setup(&receivers[0]);
    let peers = connected_peers();
    let endpoints: Vec<String> = receivers.iter().map(|r| r.local_addr().unwrap().to_string()).collect();
    assert!(peers.contains(&endpoints[0]), "the default driver connects: {peers:?}");
    assert!(!peers.contains(&endpoints[1]), "AERON_DRIVER_CONNECT=false: {peers:?}");

    let sm = StatusMessage {
        flags: 0,
        session_id: setup.session_id,
        stream_id: setup.stream_id,
        consumption_term_id: setup.active_term_id,
        consumption_term_offset: setup.term_offset,
        receiver_window: 64 * 1024,
        receiver_id: 1,
        group_tag: None,
    };
    let mut frame = [0u8; 64];
    let length = sm.encode(&mut frame).unwrap();
    let log = LogBuffers::map_existing(Path::new(&readies[1].log_file)).unwrap();
    let m = log.metadata();
    wait_until("connected by the status message", || {
        receivers[1].send_to(&frame[..length], sender).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        d::is_connected(m)
    });
    wait_within(Duration::from_secs(4), "the publication no longer connected", || !d::is_connected(m));
}

/// A test socket in the role of a sender: a SETUP for `(session_id, stream_id)`, then
/// frames at term offsets 0 and 2048, leaving the gap [1024, 2048). Returns when the
/// second frame was sent.
fn send_stream_with_gap(sender: &std::net::UdpSocket, port: u16, session_id: i32, stream_id: i32) -> Instant {
    send_stream(sender, port, session_id, stream_id, &[0, 2048])
}

/// As [`send_stream_with_gap`], with 1024-byte frames at `offsets`.
fn send_stream(
    sender: &std::net::UdpSocket,
    port: u16,
    session_id: i32,
    stream_id: i32,
    offsets: &[i32],
) -> Instant {
    use aeronrs::protocol::data::DataHeader;
    use aeronrs::protocol::setup::Setup;
    let setup = Setup {
        flags: 0,
        term_offset: 0,
        session_id,
        stream_id,
        initial_term_id: 9,
        active_term_id: 9,
        term_length: 64 * 1024,
        mtu: 1408,
        ttl: 0,
    };
    let mut frame = vec![0u8; 1024];
    setup.encode(&mut frame).unwrap();
    sender.send_to(&frame[..40], ("127.0.0.1", port)).unwrap();
    let mut buffer = [0u8; 1500];
    // The first status message says the image is there.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no status message for session {session_id}");
        let Ok(length) = sender.recv(&mut buffer) else {
            sender.send_to(&frame[..40], ("127.0.0.1", port)).unwrap();
            continue;
        };
        if aeronrs::protocol::status_message::StatusMessageFlyweight::parse(&buffer[..length])
            .is_ok_and(|sm| sm.session_id() == session_id)
        {
            break;
        }
    }
    for &offset in offsets {
        DataHeader::data(session_id, stream_id, 9, offset, 1024 - 32)
            .encode_frame(&[5u8; 992], &mut frame)
            .unwrap();
        sender.send_to(&frame, ("127.0.0.1", port)).unwrap();
    }
    Instant::now()
}

/// The NAKs for `session_id` reaching `sender` until `count` came: (when, offset, length).
fn receive_naks(sender: &std::net::UdpSocket, session_id: i32, count: usize) -> Vec<(Instant, i32, i32)> {
    use aeronrs::protocol::nak::NakFlyweight;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut naks = Vec::new();
    let mut buffer = [0u8; 1500];
    while naks.len() < count {
        assert!(Instant::now() < deadline, "NAKs so far: {naks:?}");
        let Ok(length) = sender.recv(&mut buffer) else { continue };
        if let Ok(nak) = NakFlyweight::parse(&buffer[..length]) {
            if nak.session_id() == session_id {
                naks.push((Instant::now(), nak.term_offset(), nak.length()));
            }
        }
    }
    naks
}

/// A receiver NAKs a gap `AERON_NAK_UNICAST_DELAY` (300 ms) after it saw it, never sooner
/// (the default is 100 µs), and NAKs it again `AERON_NAK_UNICAST_RETRY_DELAY_RATIO` (2)
/// times that later (the default 100 would make it 30 s); with `AERON_RELIABLE_STREAM=false`
/// a receiver never NAKs and pads the gap instead.
#[test]
fn naks_follow_the_delay_and_ratio_and_unreliable_streams_pad_gaps() {
    let tmp = tempfile::tempdir().unwrap();
    let (reliable_dir, unreliable_dir) = (tmp.path().join("reliable"), tmp.path().join("unreliable"));
    let mut ctx = test_context(&reliable_dir);
    ctx.nak_unicast_delay_ns = 300_000_000;
    ctx.nak_unicast_retry_delay_ratio = 2;
    let _reliable = MediaDriver::launch(ctx).unwrap();
    let _unreliable =
        MediaDriver::launch(DriverContext { reliable_stream: false, ..test_context(&unreliable_dir) })
            .unwrap();

    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let mut client = RawClient::connect(&reliable_dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 12);
    let gap_sent = send_stream_with_gap(&sender, port, 777, 12);
    let naks = receive_naks(&sender, 777, 2);
    assert_eq!((naks[0].1, naks[0].2), (1024, 1024), "the gap");
    assert_eq!((naks[1].1, naks[1].2), (1024, 1024), "the gap again");
    assert!(naks[0].0 - gap_sent >= Duration::from_millis(300), "first NAK after {:?}", naks[0].0 - gap_sent);
    let retry = naks[1].0 - naks[0].0;
    assert!(retry >= Duration::from_millis(600), "NAK again after {retry:?}");

    let mut client = RawClient::connect(&unreliable_dir);
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 13);
    send_stream_with_gap(&sender, port, 778, 13);
    let record =
        client.expect("the image", |r| matches!(r, Response::AvailableImage(i) if i.session_id == 778));
    let Response::AvailableImage(image) = record.response() else { unreachable!() };
    let log = LogBuffers::map_existing(Path::new(image.log_file_name_str().unwrap())).unwrap();
    wait_until("the gap padded", || log.term(0).get_i32_acquire(1024) == 1024);
    assert_eq!(log.term(0).get_u16(1024 + 6), 0, "a PAD frame over the gap");
    let mut buffer = [0u8; 1500];
    while let Ok(length) = sender.recv(&mut buffer) {
        assert!(
            aeronrs::protocol::nak::NakFlyweight::parse(&buffer[..length]).is_err(),
            "an unreliable stream NAKed"
        );
    }
}

/// A sender retransmits a NAKed range `AERON_RETRANSMIT_UNICAST_DELAY` (300 ms) after the
/// NAK, never sooner (the default is at once), and ignores NAKs of it for
/// `AERON_RETRANSMIT_UNICAST_LINGER` (10 s) after; a test socket plays the receiver.
#[test]
fn retransmits_follow_the_delay_and_linger() {
    use aeronrs::protocol::data::DataFlyweight;
    use aeronrs::protocol::nak::Nak;
    use aeronrs::protocol::status_message::StatusMessage;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.retransmit_unicast_delay_ns = 300_000_000;
    ctx.retransmit_unicast_linger_ns = 10_000_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let endpoint = receiver.local_addr().unwrap();
    let ready = add_publication(&mut client, &format!("aeron:udp?endpoint={endpoint}"), 14, false);
    let (setup, sender) = receive_setup(&receiver);
    let sm = StatusMessage {
        flags: 0,
        session_id: setup.session_id,
        stream_id: setup.stream_id,
        consumption_term_id: setup.active_term_id,
        consumption_term_offset: 0,
        receiver_window: 64 * 1024,
        receiver_id: 1,
        group_tag: None,
    };
    let mut frame = [0u8; 64];
    let length = sm.encode(&mut frame).unwrap();
    let publication = log_client::TestPublication::map(
        &ready.log_file,
        &client.cnc.counters_values,
        ready.limit_counter_id,
    );
    wait_until("connected", || {
        receiver.send_to(&frame[..length], sender).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        publication.is_connected()
    });
    assert!(publication.offer(&[3u8; 100]) > 0);
    let mut buffer = [0u8; 1500];
    // When data at `offset` came (heartbeats have frame length 0), and the data offsets
    // that came before it.
    let mut data_at = |offset: i32| {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut before = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "no data frame at term offset {offset}");
            let Ok(length) = receiver.recv(&mut buffer) else { continue };
            match DataFlyweight::parse(&buffer[..length]) {
                Ok(d) if d.frame_length() > 0 && d.term_offset() == offset => {
                    return (Instant::now(), before);
                }
                Ok(d) if d.frame_length() > 0 => before.push(d.term_offset()),
                _ => {}
            }
        }
    };
    data_at(0);
    let mut nak_frame = [0u8; 32];
    let mut send_nak = |term_offset: i32| {
        // Each frame: 32 + 100 bytes, aligned to 32.
        let nak = Nak::new(setup.session_id, setup.stream_id, setup.active_term_id, term_offset, 160);
        let nak_length = nak.encode(&mut nak_frame).unwrap();
        receiver.send_to(&nak_frame[..nak_length], sender).unwrap();
        Instant::now()
    };
    let naked = send_nak(0);
    let (retransmitted, _) = data_at(0);
    assert!(
        retransmitted - naked >= Duration::from_millis(300),
        "retransmitted after {:?}",
        retransmitted - naked
    );

    // Past the default 10 ms linger, but within the 10 s one, the range NAKed again is not
    // resent: data offered once its resend would have been due comes with none before it.
    std::thread::sleep(Duration::from_millis(50));
    send_nak(0);
    let past_the_retransmit_delay = Duration::from_millis(400);
    std::thread::sleep(past_the_retransmit_delay);
    assert!(publication.offer(&[3u8; 100]) > 0);
    let (_, before) = data_at(160);
    assert!(before.is_empty(), "AERON_RETRANSMIT_UNICAST_LINGER: resent again ({before:?})");
    assert_eq!(client.cnc.system_counter(RETRANSMITS_SENT), 1);
}

/// Type ids of the sender limit and flow control receivers counters.
const SENDER_LIMIT_TYPE_ID: i32 = 9;
const FC_RECEIVERS_TYPE_ID: i32 = 17;
const STATUS_MESSAGES_RECEIVED: i32 = 8;

/// The value of the first allocated counter of `type_id` (one publication per driver here).
fn counter_of_type(client: &RawClient, type_id: i32) -> Option<i64> {
    (0..1024)
        .find(|&id| client.cnc.counter_state(id) == 1 && client.cnc.counter_type_id(id) == type_id)
        .map(|id| client.cnc.counter_value(id))
}

/// Two receivers (receiver ids 1 and 2) of one publication played by one test socket,
/// sending status messages for consumption position 0 with their own windows to `sender`.
struct TwoReceivers {
    sockets: [std::net::UdpSocket; 2],
    frames: [Vec<u8>; 2],
    sender: std::net::SocketAddr,
}

impl TwoReceivers {
    /// Receiver 1 has window 48 KiB and `first_tag`, receiver 2 32 KiB and no group tag.
    fn new(
        first: std::net::UdpSocket,
        sender: std::net::SocketAddr,
        (session_id, stream_id, term_id): (i32, i32, i32),
        first_tag: Option<i64>,
    ) -> Self {
        use aeronrs::protocol::status_message::StatusMessage;
        let frame = |receiver_id: i64, window: i32, group_tag: Option<i64>| {
            let sm = StatusMessage {
                flags: 0,
                session_id,
                stream_id,
                consumption_term_id: term_id,
                consumption_term_offset: 0,
                receiver_window: window,
                receiver_id,
                group_tag,
            };
            let mut frame = vec![0u8; 64];
            let length = sm.encode(&mut frame).unwrap();
            frame.truncate(length);
            frame
        };
        // A connected send socket hears only its endpoint: both receivers use its address,
        // told apart by their receiver ids.
        let second = first.try_clone().unwrap();
        Self {
            sockets: [first, second],
            frames: [frame(1, 48 * 1024, first_tag), frame(2, 32 * 1024, None)],
            sender,
        }
    }

    /// Receiver `which` sends status messages until `done`.
    fn send_until(&self, which: usize, what: &str, mut done: impl FnMut() -> bool) {
        wait_until(what, || {
            self.sockets[which].send_to(&self.frames[which], self.sender).unwrap();
            std::thread::sleep(Duration::from_millis(2));
            done()
        });
    }

    /// Receiver `which` sends until the sender has handled two more status messages: the
    /// first of them wholly before the counter moves past it.
    fn send_two_handled(&self, which: usize, client: &RawClient) {
        let before = client.cnc.system_counter(STATUS_MESSAGES_RECEIVED);
        self.send_until(which, "two status messages handled", || {
            client.cnc.system_counter(STATUS_MESSAGES_RECEIVED) >= before + 2
        });
    }
}

/// `AERON_UNICAST_FLOWCONTROL_SUPPLIER=min` gives a unicast publication min flow control
/// (an `fc-receivers` counter, the sender limit of the slowest receiver) with
/// `AERON_FLOW_CONTROL_GROUP_MIN_SIZE` (2: no progress with one receiver) and
/// `AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT` (300 ms: a quiet receiver dropped
/// within 4 s, the default being 5 s); `AERON_MULTICAST_FLOWCONTROL_SUPPLIER=min` or
/// `tagged` gives a dynamic MDC publication that instead of the default max, tagged
/// counting only the receivers of `AERON_FLOW_CONTROL_GROUP_TAG`.
#[test]
fn flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("unicast");
    let mut ctx = test_context(&dir);
    ctx.unicast_flow_control_supplier = "min".to_string();
    ctx.network.flow_control_group_min_size = 2;
    ctx.network.flow_control_receiver_timeout_ns = 300_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let first = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    first.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let endpoint = first.local_addr().unwrap();
    add_publication(&mut client, &format!("aeron:udp?endpoint={endpoint}"), 15, false);
    let (setup, sender) = receive_setup(&first);
    let receivers =
        TwoReceivers::new(first, sender, (setup.session_id, setup.stream_id, setup.active_term_id), None);
    receivers
        .send_until(0, "one receiver counted", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1));
    receivers.send_two_handled(0, &client);
    assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(0), "one receiver of a group of 2");
    receivers
        .send_until(1, "two receivers counted", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(2));
    receivers.send_two_handled(0, &client);
    assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(32 * 1024), "the slower window");
    let deadline = Instant::now() + Duration::from_secs(4);
    receivers.send_until(0, "the quiet receiver dropped", || {
        assert!(Instant::now() < deadline, "the quiet receiver still counted after 4 s");
        counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1)
    });

    // Dynamic MDC: min (both receivers counted, the slower window) or tagged with
    // `AERON_FLOW_CONTROL_GROUP_TAG` 99 (only receiver 1, tagged 99, counted).
    for (supplier, tagged) in [("min", false), ("tagged", true)] {
        let dir = tmp.path().join(supplier);
        let mut ctx = test_context(&dir);
        ctx.multicast_flow_control_supplier = supplier.to_string();
        ctx.network.flow_control_group_tag = 99;
        let _driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        let control = format!("127.0.0.1:{}", free_port());
        let ready = add_publication(
            &mut client,
            &format!("aeron:udp?control={control}|control-mode=dynamic"),
            16,
            false,
        );
        let log = LogBuffers::map_existing(Path::new(&ready.log_file)).unwrap();
        let receivers = TwoReceivers::new(
            std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
            control.parse().unwrap(),
            (ready.session_id, 16, d::initial_term_id(log.metadata())),
            Some(99),
        );
        receivers
            .send_until(0, "one MDC receiver", || counter_of_type(&client, FC_RECEIVERS_TYPE_ID) == Some(1));
        receivers.send_two_handled(1, &client);
        receivers.send_two_handled(0, &client);
        let (count, limit) = if tagged { (1, 48 * 1024) } else { (2, 32 * 1024) };
        assert_eq!(
            counter_of_type(&client, FC_RECEIVERS_TYPE_ID),
            Some(count),
            "{supplier}: receivers counted"
        );
        assert_eq!(counter_of_type(&client, SENDER_LIMIT_TYPE_ID), Some(limit), "{supplier}: sender limit");
    }
}

/// CPUs in a `Cpus_allowed_list` such as `0-1,4`.
fn cpu_list(status: &str) -> Vec<usize> {
    let list =
        status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("Cpus_allowed_list").trim();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// `AERON_DRIVER_ASYNC_EXECUTOR_CPU_AFFINITY` pins the name resolution executor thread.
#[test]
fn the_async_executor_thread_is_pinned_as_set() {
    let cpus = cpu_list(&std::fs::read_to_string("/proc/self/status").unwrap());
    assert!(cpus.len() > 1, "pinning shows only with two CPUs to choose from: {cpus:?}");
    let cpu = *cpus.last().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut ctx = test_context(&tmp.path().join("aeron"));
    ctx.agents.async_executor_cpu_affinity = cpu as i32;
    let _driver = MediaDriver::launch(ctx).unwrap();
    // Other tests' executors here are not pinned: only this driver's can match.
    wait_until("the executor pinned", || {
        std::fs::read_dir("/proc/self/task").unwrap().flatten().any(|task| {
            let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            name.trim() == "aeron-executor" && !status.is_empty() && cpu_list(&status) == [cpu]
        })
    });
}

/// `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS` and `..._MULTI_GAP_LOSS_ARGS` say
/// which frames the `fixed-loss` and `multi-gap-loss` interceptors drop (none without
/// them): the receiver NAKs the frame dropped, of a stream a test socket sent whole.
#[test]
fn loss_interceptors_drop_the_frames_their_args_name() {
    let tmp = tempfile::tempdir().unwrap();
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    for (interceptor, stream_id, dropped) in [("fixed-loss", 20, 0), ("multi-gap-loss", 21, 1024)] {
        let dir = tmp.path().join(interceptor);
        let mut ctx = test_context(&dir);
        ctx.udp_channel_incoming_interceptors = Some(interceptor.to_string());
        ctx.udp_channel_fixed_loss_args = Some("term-id=9|term-offset=0|length=1024".to_string());
        ctx.udp_channel_multi_gap_loss_args =
            Some("term-id=9|gap-radix=1024|gap-length=1024|total-gaps=1".to_string());
        let _driver = MediaDriver::launch(ctx).unwrap();
        let mut client = RawClient::connect(&dir);
        let port = free_port();
        add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), stream_id);
        send_stream(&sender, port, 900 + stream_id, stream_id, &[0, 1024, 2048, 3072, 4096]);
        let naks = receive_naks(&sender, 900 + stream_id, 1);
        assert_eq!(naks[0].1, dropped, "{interceptor}: the NAKed offset");
        if interceptor == "fixed-loss" {
            assert_eq!(naks[0].2, 1024, "fixed-loss: the NAKed length");
        }
    }
}

/// `AERON_RECEIVER_GROUP_CONSIDERATION=true` treats a unicast image as multicast: its NAK
/// delay is the multicast back-off (under the 1 ms `AERON_NAK_MULTICAST_MAX_BACKOFF`), not
/// the 60 s unicast delay also set, so a NAK comes within the 20 s wait.
#[test]
fn group_consideration_gives_unicast_images_the_multicast_nak_delay() {
    use aeronrs::driver::network_config::InferableBoolean;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.network.receiver_group_consideration = InferableBoolean::ForceTrue;
    ctx.nak_unicast_delay_ns = 60_000_000_000;
    ctx.nak_multicast_max_backoff_ns = 1_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let sender = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let port = free_port();
    add_subscription(&mut client, &format!("aeron:udp?endpoint=127.0.0.1:{port}"), 22);
    send_stream_with_gap(&sender, port, 922, 22);
    let naks = receive_naks(&sender, 922, 1);
    assert_eq!((naks[0].1, naks[0].2), (1024, 1024), "the gap");
}

/// `AERON_MAX_RESEND` (1) bounds the resends a publication with group semantics keeps in
/// hand (unicast keeps one, as upstream): with a 1 s retransmit delay holding the first, a
/// NAK for another range overflows.
#[test]
fn max_resend_bounds_the_resends_of_a_multi_destination_publication() {
    use aeronrs::protocol::nak::Nak;
    const RETRANSMIT_OVERFLOW: i32 = 37;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.max_resend = 1;
    ctx.retransmit_unicast_delay_ns = 1_000_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let control = format!("127.0.0.1:{}", free_port());
    let ready =
        add_publication(&mut client, &format!("aeron:udp?control={control}|control-mode=dynamic"), 23, false);
    let log = LogBuffers::map_existing(Path::new(&ready.log_file)).unwrap();
    let term_id = d::initial_term_id(log.metadata());
    let receivers = TwoReceivers::new(
        std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
        control.parse().unwrap(),
        (ready.session_id, 23, term_id),
        None,
    );
    receivers.send_two_handled(0, &client);
    let mut frame = [0u8; 32];
    for term_offset in [0, 160] {
        let length = Nak::new(ready.session_id, 23, term_id, term_offset, 160).encode(&mut frame).unwrap();
        receivers.sockets[0].send_to(&frame[..length], receivers.sender).unwrap();
    }
    wait_until("the second resend overflows", || client.cnc.system_counter(RETRANSMIT_OVERFLOW) == 1);
}
