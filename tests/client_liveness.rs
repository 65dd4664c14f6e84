//! Liveness both ways: no driver at connect, a driver killed with SIGKILL or shut down
//! cleanly, the driver timing the client out (ON_CLIENT_TIMEOUT), the client's own
//! inter-service timeout, and invoker mode. Every wait is bounded: nothing may hang.
mod client_support;

use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, CLOSED, Context, Header};
use aeronrs::util::error::{
    CLIENT_ERROR_CLIENT_TIMEOUT, CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT, CLIENT_ERROR_DRIVER_TIMEOUT,
};
use client_support::{DriverOptions, ErrorLog, TestDriver, context, driver_tests, wait_until};

const CHANNEL: &str = "aeron:ipc?term-length=64k";

/// Waits for an error with `code` in `log`; returns how long that took.
fn wait_for_error(log: &ErrorLog, code: i32, timeout: Duration) -> Duration {
    let start = Instant::now();
    wait_until(timeout, &format!("error {code}"), || log.errors().iter().any(|e| e.code() == code));
    start.elapsed()
}

#[test]
fn connect_without_a_driver_fails_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir.path()).set_driver_timeout(Duration::from_millis(300));
    let err = Aeron::connect(ctx).unwrap_err();
    assert_eq!(err.code(), libc::ETIMEDOUT, "{err}");
    assert!(err.message().contains("CnC file not created"), "{err}");
    assert!(err.message().contains(&dir.path().display().to_string()), "{err}");
}

fn killed_driver_is_reported_and_nothing_hangs(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_driver_timeout(Duration::from_secs(2)).set_keepalive_interval(Duration::from_millis(100));
    let aeron = Aeron::connect(ctx).expect("connect");
    let mut subscription = aeron.add_subscription(CHANNEL, 1).expect("subscription");
    let publication = aeron.add_publication(CHANNEL, 1).expect("publication");
    let mut exclusive = aeron.add_exclusive_publication(CHANNEL, 1).expect("exclusive publication");
    let counter = aeron.add_counter(1001, &[], "killed driver").expect("counter");
    wait_until(Duration::from_secs(20), "connected", || {
        publication.is_connected() && exclusive.is_connected() && subscription.image_count() == 2
    });
    assert!(publication.offer(b"before").unwrap() > 0);
    let image = subscription.image_by_session_id(exclusive.session_id()).expect("image");

    driver.kill();
    let killed = Instant::now();
    // A command sent to the dead driver fails instead of waiting forever.
    let err = aeron.add_publication(CHANNEL, 2).unwrap_err();
    assert_eq!(err.code(), CLIENT_ERROR_DRIVER_TIMEOUT, "{err}");
    let detected = wait_for_error(&log, CLIENT_ERROR_DRIVER_TIMEOUT, Duration::from_secs(20));
    println!(
        "driver timeout reported {:?} after the kill (driver timeout 2 s)",
        killed.elapsed().max(detected)
    );
    let error = log.errors().into_iter().find(|e| e.code() == CLIENT_ERROR_DRIVER_TIMEOUT).unwrap();
    assert!(error.message().contains("driver heartbeat"), "{error}");

    assert!(aeron.is_closed());
    assert!(publication.is_closed());
    assert_eq!(publication.offer(b"after").unwrap(), CLOSED);
    assert!(matches!(publication.try_claim(8).unwrap(), (CLOSED, None)));
    assert!(exclusive.is_closed());
    assert_eq!(exclusive.offer(b"after").unwrap(), CLOSED);
    assert!(matches!(exclusive.try_claim(8).unwrap(), (CLOSED, None)));
    assert!(counter.is_closed());
    assert!(image.is_closed());
    assert_eq!(image.poll(|_: &[u8], _: &Header| panic!("a closed image delivers nothing"), 10), 0);
    assert_eq!(subscription.poll(|_: &[u8], _: &Header| panic!("closed images deliver nothing"), 10), 0);
    assert!(subscription.is_closed());
    assert_eq!(subscription.image_count(), 0);
    assert!(aeron.add_subscription(CHANNEL, 3).is_err());
    assert!(aeron.add_exclusive_publication(CHANNEL, 3).is_err());
    assert!(aeron.add_counter(1001, &[], "c").is_err());
    assert!(aeron.async_add_counter(1001, &[], "c").is_err());
    assert!(aeron.async_add_publication(CHANNEL, 3).is_err());
}

fn clean_driver_shutdown_closes_the_client(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_keepalive_interval(Duration::from_millis(100));
    let aeron = Aeron::connect(ctx).expect("connect");
    let publication = aeron.add_publication(CHANNEL, 1).expect("publication");
    driver.stop();
    wait_for_error(&log, CLIENT_ERROR_DRIVER_TIMEOUT, Duration::from_secs(20));
    let error = log.errors().into_iter().find(|e| e.code() == CLIENT_ERROR_DRIVER_TIMEOUT).unwrap();
    assert!(error.message().contains("shut down"), "{error}");
    assert!(publication.is_closed());
}

fn driver_times_out_a_silent_client(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let closed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut ctx = context(driver.aeron_dir(), &log);
    // Keepalives so rare the heartbeat is never written: the driver must time us out.
    ctx.set_keepalive_interval(Duration::from_secs(3600));
    let flag = std::sync::Arc::clone(&closed);
    ctx.set_on_close_client(move || flag.store(true, std::sync::atomic::Ordering::Release));
    let aeron = Aeron::connect(ctx).expect("connect");
    let publication = aeron.add_publication(CHANNEL, 1).expect("publication");
    wait_for_error(&log, CLIENT_ERROR_CLIENT_TIMEOUT, Duration::from_secs(30));
    assert!(aeron.is_closed());
    assert!(publication.is_closed());
    assert!(closed.load(std::sync::atomic::Ordering::Acquire), "close-client handler called");
}

fn heartbeat_keeps_a_client_alive_past_the_liveness_timeout(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_keepalive_interval(Duration::from_millis(200)).set_client_name("liveness-test").unwrap();
    let aeron = Aeron::connect(ctx).expect("connect");
    let publication = aeron.add_publication(CHANNEL, 1).expect("publication");
    // The driver's heartbeat counter for us carries our name once we found it.
    let counters = aeron.counters_reader().clone();
    let client_id = aeron.client_id();
    let mut heartbeat_id = None;
    wait_until(Duration::from_secs(10), "named heartbeat counter", || {
        heartbeat_id = counters.find_by_type_id_and_registration_id(11, client_id);
        heartbeat_id
            .is_some_and(|id| counters.counter_label(id).unwrap().contains(" name=liveness-test version="))
    });
    let heartbeat_id = heartbeat_id.unwrap();
    assert_eq!(
        counters.counter_label(heartbeat_id).unwrap(),
        format!(
            "client-heartbeat: id={client_id} name=liveness-test version=1.48.0 commit=aeronrs-{}",
            env!("CARGO_PKG_VERSION")
        )
    );
    std::thread::sleep(Duration::from_secs(4));
    let age_ms = aeronrs::util::clock::epoch_ms() - counters.counter_value(heartbeat_id).unwrap();
    assert!((0..2000).contains(&age_ms), "heartbeat {age_ms} ms old with a 200 ms keepalive");
    assert!(!aeron.is_closed(), "{:?}", log.errors());
    assert!(!publication.is_closed());
    assert!(aeron.add_subscription(CHANNEL, 1).is_ok());
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn invoker_mode_works_and_enforces_the_service_interval(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_use_conductor_agent_invoker(true);
    let aeron = Aeron::connect(ctx).expect("connect");
    let mut subscription = aeron.add_subscription(CHANNEL, 1).expect("subscription");
    let publication = aeron.add_publication(CHANNEL, 1).expect("publication");
    wait_until(Duration::from_secs(20), "connected", || {
        aeron.do_work().unwrap();
        subscription.image_count() == 1
    });
    // The image can reach the subscription before the driver has raised the publication's
    // limit (Java's driver does that on a later duty cycle): offer until it is accepted.
    wait_until(Duration::from_secs(20), "offer accepted", || {
        aeron.do_work().unwrap();
        // Not connected and back pressure come back as negative positions, to retry.
        publication.offer(b"invoked").expect("offer") > 0
    });
    let mut received = Vec::new();
    wait_until(Duration::from_secs(20), "message", || {
        aeron.do_work().unwrap();
        subscription.poll(|p: &[u8], _: &Header| received.push(p.to_vec()), 10);
        !received.is_empty()
    });
    assert_eq!(received, vec![b"invoked".to_vec()]);
    // Not driving the conductor for longer than the CnC's client liveness timeout (2 s)
    // closes the client.
    std::thread::sleep(Duration::from_millis(2500));
    aeron.do_work().unwrap();
    assert!(
        log.errors().iter().any(|e| e.code() == CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT),
        "{:?}",
        log.errors()
    );
    assert!(aeron.is_closed());
    assert_eq!(publication.offer(b"late").unwrap(), CLOSED);
}

fn do_work_is_refused_in_threaded_mode(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    assert!(aeron.do_work().is_err());
    assert!(aeron.client_id() >= 0);
    aeron.close();
    assert!(aeron.is_closed());
    assert!(aeron.add_publication(CHANNEL, 1).is_err());
}

const SHORT_LIVENESS: DriverOptions =
    DriverOptions { client_liveness_timeout: Some("2s"), ..DriverOptions::DEFAULT };

driver_tests!(
    killed_driver_is_reported_and_nothing_hangs,
    clean_driver_shutdown_closes_the_client,
    do_work_is_refused_in_threaded_mode,
    driver_times_out_a_silent_client with super::SHORT_LIVENESS,
    heartbeat_keeps_a_client_alive_past_the_liveness_timeout with super::SHORT_LIVENESS,
    invoker_mode_works_and_enforces_the_service_interval with super::SHORT_LIVENESS,
);
