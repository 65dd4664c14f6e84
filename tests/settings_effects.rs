//! Effects of driver settings that `settings_walk.rs` names here (issue 18 item 7): each
//! test runs a driver with settings away from their defaults and asserts what they
//! change, in the log buffers, the counters, the replies to a client, the agent threads or
//! the driver's output. Every assertion would fail with the default value. The effects
//! seen on the wire are in `settings_effects_udp.rs`.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/settings_effects_support.rs"]
mod settings_effects_support;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver};
use aeronrs::logbuffer::LogBuffers;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::util::config::set_override;
use raw_client::{RawClient, test_context, wait_until};
use settings_effects_support::{add_publication, add_subscription, free_port, sleeping_threads, wait_within};

/// System counter ids of the work-cycle-exceeded counts (`spec/counters.md`).
const CONDUCTOR_CYCLE_EXCEEDED: i32 = 27;
const SENDER_CYCLE_EXCEEDED: i32 = 29;
const RECEIVER_CYCLE_EXCEEDED: i32 = 31;

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

/// `AERONRS_DRIVER_AGENT_TIME_SLICE` (3.1 ms, the default 100 us) is each agent thread's
/// scheduler slice, as `/proc/self/task/<tid>/sched` shows it (`se.slice`, Linux 6.12+).
#[test]
fn agent_threads_ask_for_the_configured_time_slice() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ctx = test_context(&tmp.path().join("aeron"));
    ctx.threading_mode = aeronrs::driver::ThreadingMode::Dedicated;
    ctx.agents.agent_time_slice_ns = 3_100_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    // No other test here asks for 3.1 ms.
    let slices = || -> Vec<(String, u64)> {
        let tasks = std::fs::read_dir("/proc/self/task").unwrap();
        tasks
            .flatten()
            .filter_map(|task| {
                let name = std::fs::read_to_string(task.path().join("comm")).ok()?.trim().to_string();
                let sched = std::fs::read_to_string(task.path().join("sched")).ok()?;
                let slice = sched.lines().find_map(|l| l.strip_prefix("se.slice"))?;
                Some((name, slice.trim_start_matches([' ', ':']).trim().parse().ok()?))
            })
            .collect()
    };
    wait_until("each agent thread's slice", || {
        ["conductor", "sender", "receiver"]
            .iter()
            .all(|agent| slices().iter().any(|(n, s)| n == agent && *s == 3_100_000))
    });
}

/// A publisher that claimed space and died blocks the log until
/// `AERON_PUBLICATION_UNBLOCK_TIMEOUT` (2.5 s, above the 2 s client liveness as it must be)
/// passes: the driver pads over the claim within 10 s (the default being 15 s).
#[test]
fn a_dead_claim_is_unblocked_after_the_configured_timeout() {
    const UNBLOCKED_PUBLICATIONS: i32 = 19;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.client_liveness_timeout_ns = 2_000_000_000;
    ctx.publication_unblock_timeout_ns = 2_500_000_000;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let publication = client.add_publication("aeron:ipc", 24, false);
    // The driver makes the client's heartbeat counter on its first command.
    let client_id = client.client_id;
    let record = client.expect(
        "heartbeat counter",
        |r| matches!(r, Response::CounterReady(c) if c.correlation_id == client_id),
    );
    let Response::CounterReady(heartbeat) = record.response() else { unreachable!() };
    let heartbeat = heartbeat.counter_id;
    let record = client.expect_correlated(publication);
    let Response::PublicationReady(ready) = record.response() else { panic!("{record:?}") };
    let log = LogBuffers::map_existing(Path::new(ready.log_file_name_str().unwrap())).unwrap();
    add_subscription(&mut client, "aeron:ipc", 24);
    // Publisher A claimed [0, 64) and died (negative length); publisher B wrote [64, 128).
    let (m, term) = (log.metadata(), log.term(0));
    m.put_i64_release(0, (i64::from(d::initial_term_id(m)) << 32) | 128);
    term.put_i32_release(0, -64);
    term.put_i32_release(64, 64);
    wait_within(Duration::from_secs(10), "the dead claim unblocked", || {
        client.heartbeat(heartbeat);
        client.cnc.system_counter(UNBLOCKED_PUBLICATIONS) == 1
    });
    assert_eq!(term.get_i32_acquire(0), 64, "padding over the dead claim");
}

/// `AERON_DRIVER_RESOURCE_FREE_LIMIT` (1): three publications removed in one duty cycle end
/// their lives in the same timer check, and an invoker-mode driver then deletes one log
/// per duty cycle (the default 10 would delete all three in one).
#[test]
fn ended_logs_are_freed_up_to_the_limit_per_duty_cycle() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut ctx = test_context(&dir);
    ctx.threading_mode = aeronrs::driver::ThreadingMode::Invoker;
    ctx.resource_free_limit = 1;
    ctx.timer_interval_ns = 10_000_000;
    let mut driver = MediaDriver::init(ctx).unwrap();
    driver.start(true).unwrap();
    let mut client = RawClient::connect(&dir);
    let mut drive_until = |client: &mut RawClient, what: &str, done: &dyn Fn(&RawClient) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(client) {
            assert!(Instant::now() < deadline, "{what}");
            driver.do_work().unwrap();
            client.poll();
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let ids: Vec<i64> = (0..3).map(|i| client.add_publication("aeron:ipc", 30 + i, true)).collect();
    drive_until(&mut client, "three publications", &|c| {
        ids.iter().all(|&id| {
            c.received.iter().any(
                |r| matches!(r.response(), Response::ExclusivePublicationReady(p) if p.correlation_id == id),
            )
        })
    });
    let logs: Vec<std::path::PathBuf> = ids
        .iter()
        .map(|&id| {
            let record = client.expect_correlated(id);
            let Response::ExclusivePublicationReady(p) = record.response() else { unreachable!() };
            p.log_file_name_str().unwrap().into()
        })
        .collect();
    let removals: Vec<i64> = ids.iter().map(|&id| client.remove_publication(id)).collect();
    // All three draining before any timer check moves them on: they end together.
    drive_until(&mut client, "three removals", &|c| {
        removals.iter().all(|&id| {
            c.received
                .iter()
                .any(|r| matches!(r.response(), Response::OperationSuccess(o) if o.correlation_id == id))
        })
    });
    let existing = || logs.iter().filter(|l| l.exists()).count();
    let mut counts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while existing() == 3 {
        assert!(Instant::now() < deadline, "no log freed");
        driver.do_work().unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    counts.push(existing());
    while existing() > 0 {
        driver.do_work().unwrap();
        counts.push(existing());
    }
    assert_eq!(counts, [2, 1, 0], "logs left after each duty cycle");
}
