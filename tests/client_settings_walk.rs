//! No silent client settings (issue 18 item 7, the client half of `settings_walk.rs`):
//! every `aeron_context_set_*` the C header declares is a row here, and each row names
//! where its effect on a running client is shown: checked in this walk (the client's
//! environment variables, read by `aeron_context_init` and `Context::from_env` alike, each
//! set to a value whose effect the default could not have), or by a C test (checked to
//! exist and to run). A setter in the header without a row fails the walk, so a client
//! setting cannot be added without its test. The client's settings table
//! (`Context::settings`) lists the variables and the generated C functions: each variable
//! is also read from a properties file, and each generated setter and getter is called
//! with a live and a NULL context. One test: the environment is process-wide.

mod client_support;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/settings_effects_support.rs"]
mod settings_effects_support;

use std::collections::BTreeSet;
use std::ffi::{CStr, c_char};
use std::path::Path;
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context};
use aeronrs::ffi::context::{
    aeron_context_close, aeron_context_get_client_name, aeron_context_get_dir,
    aeron_context_get_driver_timeout_ms, aeron_context_get_idle_sleep_duration_ns,
    aeron_context_get_pre_touch_mapped_memory, aeron_context_get_resource_linger_duration_ns,
    aeron_context_init, aeron_context_set_client_name, aeron_context_set_dir, aeron_context_t, call_getter,
    call_setter,
};
use aeronrs::ffi::error::aeron_errcode;
use aeronrs::util::config::set_override;
use aeronrs::util::properties;
use aeronrs::util::settings::Setting;
use client_support::RustDriver;
use settings_effects_support::sleeping_threads;

/// Where each setter's effect is shown: `Here` (this walk) or a C test (file, function).
enum Shown {
    Here,
    CTest(&'static str, &'static str),
}

const ROWS: &[(&str, Shown)] = &[
    ("aeron_context_set_dir", Shown::Here),
    ("aeron_context_set_client_name", Shown::Here),
    ("aeron_context_set_driver_timeout_ms", Shown::Here),
    ("aeron_context_set_keepalive_interval_ns", Shown::Here),
    ("aeron_context_set_resource_linger_duration_ns", Shown::Here),
    ("aeron_context_set_idle_sleep_duration_ns", Shown::Here),
    ("aeron_context_set_pre_touch_mapped_memory", Shown::Here),
    (
        "aeron_context_set_use_conductor_agent_invoker",
        Shown::CTest("test_client_lifecycle.c", "invoker_mode_is_driven_by_the_application"),
    ),
    (
        "aeron_context_set_error_handler",
        Shown::CTest("test_client_errors.c", "client_closes_when_the_driver_goes"),
    ),
    (
        "aeron_context_set_publication_error_frame_handler",
        Shown::CTest("test_image_reject.c", "rejected_image_reaches_the_publisher"),
    ),
    (
        "aeron_context_set_on_new_publication",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_on_new_exclusive_publication",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_on_new_subscription",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_on_available_counter",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_on_unavailable_counter",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_on_close_client",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
    (
        "aeron_context_set_agent_on_start_function",
        Shown::CTest("test_client_lifecycle.c", "threaded_client_with_callbacks"),
    ),
];

/// Sets (or with `None` removes) an environment variable for the rest of the walk, and the
/// settings override of the same name (which the properties files set, and which an empty
/// value makes hide the environment).
fn set_env(name: &str, value: Option<&str>) {
    set_override(name, value.unwrap_or(""));
    // SAFETY: the walk is this binary's only test, so no other thread reads the
    // environment meanwhile (the drivers are separate processes).
    unsafe {
        match value {
            Some(value) => std::env::set_var(name, value),
            None => std::env::remove_var(name),
        }
    }
}

/// A C context read from the environment as it is now, or the error text.
fn c_context() -> Result<*mut aeron_context_t, String> {
    let mut context = std::ptr::null_mut();
    // SAFETY: a valid out pointer.
    if unsafe { aeron_context_init(&mut context) } == 0 {
        Ok(context)
    } else {
        // SAFETY: aeron_errmsg returns a NUL-terminated string valid until the next call.
        Err(unsafe { text(aeronrs::ffi::error::aeron_errmsg()) })
    }
}

/// # Safety
/// `text` NULL or NUL-terminated.
unsafe fn text(text: *const c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    // SAFETY: NUL-terminated (contract).
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

/// `variable=value` read back through the C context with `get`, and `variable=bad`
/// refused by `aeron_context_init` with a message naming the variable.
fn c_reads(variable: &str, value: &str, bad: &str, get: impl Fn(*mut aeron_context_t) -> String) -> String {
    set_env(variable, Some(bad));
    let error = c_context().expect_err(variable);
    assert!(error.contains(variable), "{variable}={bad}: {error}");
    set_env(variable, Some(value));
    let context = c_context().unwrap_or_else(|e| panic!("{variable}={value}: {e}"));
    let read = get(context);
    // SAFETY: from aeron_context_init, closed once.
    assert_eq!(unsafe { aeron_context_close(context) }, 0);
    read
}

/// The client's heartbeat counter (type 11, registration id the client id): (counter id,
/// label). The driver makes it on the client's first command, so an IPC publication is
/// added first.
fn heartbeat_counter(aeron: &Aeron) -> (i32, String) {
    let publication = aeron.add_publication("aeron:ipc?term-length=64k", 39).unwrap();
    let reader = aeron.counters_reader();
    let deadline = Instant::now() + Duration::from_secs(20);
    let id = loop {
        if let Some(id) = reader.find_by_type_id_and_registration_id(11, aeron.client_id()) {
            break id;
        }
        assert!(Instant::now() < deadline, "no heartbeat counter for client {}", aeron.client_id());
        std::thread::sleep(Duration::from_millis(5));
    };
    // The client then tags the label with its name and version.
    let label = loop {
        let label = reader.counter_label(id).unwrap_or_default();
        if label.contains(" name=") {
            break label;
        }
        assert!(Instant::now() < deadline, "label never tagged: {label}");
        std::thread::sleep(Duration::from_millis(5));
    };
    drop(publication);
    (id, label)
}

/// Lines of `/proc/self/smaps` for the mapping of a file whose path contains `part`:
/// its `Rss` in KiB, or `None` when the file is not mapped.
fn mapped_rss_kib(part: &str) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut lines = smaps.lines();
    while let Some(line) = lines.next() {
        if line.contains(part) {
            return lines
                .find_map(|l| l.strip_prefix("Rss:"))
                .map(|v| v.trim().trim_end_matches(" kB").parse().unwrap());
        }
    }
    None
}

/// The C functions `build.rs` generates from the table's rows: a value set on a live
/// context reads back, and a NULL context is refused (setter -1, getter 0 or false, both
/// with EINVAL). The rows whose C functions are written by hand are the text ones.
fn generated_c_functions(table: &[Setting]) {
    let context = c_context().unwrap();
    let mut generated = 0;
    for row in table {
        let (Some(setter), Some(getter)) = (row.c_setter, row.c_getter) else { continue };
        // SAFETY: a live context.
        let Some(default) = (unsafe { call_getter(context, getter) }) else {
            assert!(
                ["aeron_context_set_dir", "aeron_context_set_client_name"].contains(&setter),
                "{setter}: neither generated nor written by hand"
            );
            continue;
        };
        generated += 1;
        let value = match default.as_str() {
            "true" => "false".to_string(),
            "false" => "true".to_string(),
            number => (number.parse::<u64>().unwrap() + 1234).to_string(),
        };
        // SAFETY: a live context.
        assert_eq!(unsafe { call_setter(context, setter, &value) }, Some(0), "{setter}");
        // SAFETY: a live context.
        assert_eq!(unsafe { call_getter(context, getter) }.as_deref(), Some(value.as_str()), "{getter}");
        // SAFETY: NULL contexts are refused.
        assert_eq!(unsafe { call_setter(std::ptr::null_mut(), setter, &value) }, Some(-1), "{setter}");
        assert_eq!(aeron_errcode(), libc::EINVAL, "{setter}(NULL)");
        // SAFETY: as above.
        let null = unsafe { call_getter(std::ptr::null_mut(), getter) }.unwrap();
        assert!(null == "0" || null == "false", "{getter}(NULL) = {null}");
        assert_eq!(aeron_errcode(), libc::EINVAL, "{getter}(NULL)");
    }
    assert_eq!(generated, 6, "the plain rows' C functions");
    // The hand-written text setters refuse a NULL context too; their getters answer NULL.
    let value = std::ffi::CString::new("x").unwrap();
    // SAFETY: NULL contexts and a NUL-terminated value.
    unsafe {
        assert_eq!(aeron_context_set_dir(std::ptr::null_mut(), value.as_ptr()), -1);
        assert_eq!(aeron_context_set_client_name(std::ptr::null_mut(), value.as_ptr()), -1);
        assert!(aeron_context_get_dir(std::ptr::null_mut()).is_null());
        assert!(aeron_context_get_client_name(std::ptr::null_mut()).is_null());
    }
    // SAFETY: from aeron_context_init, closed once.
    assert_eq!(unsafe { aeron_context_close(context) }, 0);
}

fn connect_from_env() -> Aeron {
    Aeron::connect(Context::from_env().expect("context from the environment")).expect("connect")
}

#[test]
fn every_client_setting_has_an_effect_shown() {
    // Every setter in the header has exactly one row.
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/aeronrs.h")).unwrap();
    let declared: BTreeSet<&str> = header
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("aeron_context_set_"))
        .collect();
    let rows: BTreeSet<&str> = ROWS.iter().map(|(name, _)| *name).collect();
    assert_eq!(rows.len(), ROWS.len(), "a setter listed twice");
    assert_eq!(declared, rows, "every aeron_context_set_* needs a row (and only those)");
    // The table and the header agree on the generated and hand-written C setters.
    let table = Context::settings();
    for row in &table {
        if let Some(setter) = row.c_setter {
            assert!(declared.contains(setter), "{}: {setter} is not in the header", row.field);
        }
    }
    generated_c_functions(&table);
    for (name, shown) in ROWS {
        if let Shown::CTest(file, test) = shown {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("c-tests").join(file);
            let source = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                source.contains(&format!("static void {test}(void)"))
                    && source.contains(&format!("RUN({test});")),
                "{name}: no C test {test} run by {file}"
            );
            assert!(source.contains(name), "{name}: {file} never calls it");
        }
    }

    // Each variable also comes from a properties file (`aeron_properties_load`), read by
    // the C context as the variable would be.
    let files = tempfile::tempdir().unwrap();
    type Getter = fn(*mut aeron_context_t) -> String;
    let from_files: [(&str, &str, &str, Getter); 6] = [
        ("aeron.dir", "/tmp/aeronrs-client-walk", "/tmp/aeronrs-client-walk", |c| {
            // SAFETY: a live context.
            unsafe { text(aeron_context_get_dir(c)) }
        }),
        ("aeron.client.name", "file-client", "file-client", |c| {
            // SAFETY: a live context.
            unsafe { text(aeron_context_get_client_name(c)) }
        }),
        ("aeron.driver.timeout", "4321", "4321", |c| {
            // SAFETY: a live context.
            unsafe { aeron_context_get_driver_timeout_ms(c) }.to_string()
        }),
        ("aeron.client.resource.linger.duration", "7s", "7000000000", |c| {
            // SAFETY: a live context.
            unsafe { aeron_context_get_resource_linger_duration_ns(c) }.to_string()
        }),
        ("aeron.client.idle.sleep.duration", "9ms", "9000000", |c| {
            // SAFETY: a live context.
            unsafe { aeron_context_get_idle_sleep_duration_ns(c) }.to_string()
        }),
        ("aeron.client.pre.touch.mapped.memory", "true", "true", |c| {
            // SAFETY: a live context.
            unsafe { aeron_context_get_pre_touch_mapped_memory(c) }.to_string()
        }),
    ];
    let variables: BTreeSet<String> = table.iter().filter_map(Setting::property).collect();
    let in_files: BTreeSet<String> = from_files.iter().map(|f| f.0.to_string()).collect();
    assert_eq!(in_files, variables, "every variable of the client's table, from a properties file");
    for (property, value, expected, get) in from_files {
        let file = files.path().join(format!("{property}.properties"));
        std::fs::write(&file, format!("# client walk\n{property}={value}\n")).unwrap();
        properties::apply(&properties::load(file.to_str().unwrap()).unwrap());
        let context = c_context().unwrap_or_else(|e| panic!("{property}={value}: {e}"));
        assert_eq!(get(context), expected, "{property} from a properties file");
        // SAFETY: from aeron_context_init, closed once.
        assert_eq!(unsafe { aeron_context_close(context) }, 0);
        set_override(&properties::env_name(property), "");
    }

    let driver = RustDriver::start(&[]);
    let dir = driver.aeron_dir().to_str().unwrap().to_string();

    // AERON_DIR and AERON_CLIENT_NAME: the client finds the driver there, and the driver's
    // heartbeat counter of the client carries the name.
    let read = c_reads("AERON_CLIENT_NAME", "walk-client", &"n".repeat(200), |c| {
        // SAFETY: a live context.
        unsafe { text(aeron_context_get_client_name(c)) }
    });
    assert_eq!(read, "walk-client");
    set_env("AERON_DIR", Some(&dir));
    let context = c_context().unwrap();
    // SAFETY: a live context, then closed once.
    assert_eq!(unsafe { text(aeron_context_get_dir(context)) }, dir);
    // SAFETY: as above.
    assert_eq!(unsafe { aeron_context_close(context) }, 0);
    let aeron = connect_from_env();
    let (_, label) = heartbeat_counter(&aeron);
    assert!(label.contains(" name=walk-client "), "{label}");
    aeron.close();
    set_env("AERON_CLIENT_NAME", None);

    // AERON_CLIENT_IDLE_SLEEP_DURATION (7.3 ms, a period nothing else here sleeps): the
    // client conductor's thread sleeps exactly that when idle (the default is 16 ms).
    let read = c_reads("AERON_CLIENT_IDLE_SLEEP_DURATION", "7300us", "soon", |c| {
        // SAFETY: a live context.
        unsafe { aeron_context_get_idle_sleep_duration_ns(c) }.to_string()
    });
    assert_eq!(read, "7300000");
    let aeron = connect_from_env();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sleeping_threads().iter().any(|(_, p)| *p == Some(Duration::from_micros(7300))) {
        assert!(Instant::now() < deadline, "no thread sleeps 7.3 ms: {:?}", sleeping_threads());
        std::thread::sleep(Duration::from_millis(3));
    }
    aeron.close();
    set_env("AERON_CLIENT_IDLE_SLEEP_DURATION", None);

    // AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY: a publication's log is resident in the
    // client's mapping at once; without it only what was touched is.
    let read = c_reads("AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY", "true", "maybe", |c| {
        // SAFETY: a live context.
        unsafe { aeron_context_get_pre_touch_mapped_memory(c) }.to_string()
    });
    assert_eq!(read, "true");
    let touching = connect_from_env();
    let touched = touching.add_publication("aeron:ipc?term-length=64k", 31).unwrap();
    set_env("AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY", None);
    let plain = connect_from_env();
    let untouched = plain.add_publication("aeron:ipc?term-length=64k", 32).unwrap();
    let log = |id: i64| format!("publications/{id}.logbuffer");
    let touched_rss = mapped_rss_kib(&log(touched.original_registration_id())).expect("mapped");
    let untouched_rss = mapped_rss_kib(&log(untouched.original_registration_id())).expect("mapped");
    assert!(touched_rss >= 3 * 64, "pre-touched log: {touched_rss} KiB resident");
    assert!(untouched_rss < 3 * 64, "log without pre-touch: {untouched_rss} KiB resident");
    drop((touched, untouched));
    touching.close();
    plain.close();

    // AERON_CLIENT_RESOURCE_LINGER_DURATION (60 s): a closed publication's log stays
    // mapped past the 3 s default (so 4.5 s later it is still there).
    let read = c_reads("AERON_CLIENT_RESOURCE_LINGER_DURATION", "60s", "long", |c| {
        // SAFETY: a live context.
        unsafe { aeron_context_get_resource_linger_duration_ns(c) }.to_string()
    });
    assert_eq!(read, "60000000000");
    let lingering = connect_from_env();
    let publication = lingering.add_publication("aeron:ipc?term-length=64k", 33).unwrap();
    let file = log(publication.original_registration_id());
    publication.close();
    drop(publication);
    let closed = Instant::now();
    while closed.elapsed() < Duration::from_millis(4500) {
        assert!(mapped_rss_kib(&file).is_some(), "unmapped {:?} after the close", closed.elapsed());
        std::thread::sleep(Duration::from_millis(100));
    }
    lingering.close();
    set_env("AERON_CLIENT_RESOURCE_LINGER_DURATION", None);

    // aeron_context_set_keepalive_interval_ns (1.5 s; no variable, as in Aeron C): the
    // heartbeat counter's timestamp moves at that pace (the default is every 0.5 s).
    let mut context = Context::from_env().unwrap();
    context.set_keepalive_interval(Duration::from_millis(1500));
    let aeron = Aeron::connect(context).unwrap();
    let (counter, _) = heartbeat_counter(&aeron);
    let mut changes = Vec::new();
    let mut last = aeron.counters_reader().counter_value(counter).unwrap();
    let start = Instant::now();
    while changes.len() < 3 {
        assert!(start.elapsed() < Duration::from_secs(30), "heartbeat changes {changes:?}");
        let now = aeron.counters_reader().counter_value(counter).unwrap();
        if now != last {
            changes.push(Instant::now());
            last = now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let gaps: Vec<Duration> = changes.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|g| *g >= Duration::from_millis(1000)), "heartbeat gaps {gaps:?}");
    aeron.close();

    // AERON_DRIVER_TIMEOUT (300 ms): connecting where no driver runs fails well within the
    // 10 s default.
    let read = c_reads("AERON_DRIVER_TIMEOUT", "300", "soon", |c| {
        // SAFETY: a live context.
        unsafe { aeron_context_get_driver_timeout_ms(c) }.to_string()
    });
    assert_eq!(read, "300");
    let empty = tempfile::tempdir().unwrap();
    set_env("AERON_DIR", Some(empty.path().to_str().unwrap()));
    let started = Instant::now();
    let error = Aeron::connect(Context::from_env().unwrap()).expect_err("no driver there");
    assert!(started.elapsed() < Duration::from_secs(5), "gave up after {:?}: {error}", started.elapsed());
    set_env("AERON_DRIVER_TIMEOUT", None);
    set_env("AERON_DIR", None);
    drop(driver);
}
