//! Destinations from our client: multi-destination-cast publications and multi-destination
//! subscriptions on a real Java media driver (aeron-all, `interop/java`) and on our
//! `aeronmd`, on loopback. Every message is checked (intact, in order, each once). The Java
//! driver's answers to wrong commands are asserted exactly, as the reference for ours. The
//! client-side refusals (closed handles, a driver gone) run against our `aeronmd`. Without
//! Java the Java tests skip with a message, unless `AERONRS_REQUIRE_INTEROP=1`, when they
//! fail.
mod client_support;

use std::ops::Range;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, NOT_CONNECTED, Subscription};
use aeronrs::util::error::{AeronErrorCode, CLIENT_ERROR_DRIVER_TIMEOUT, Error};
use client_support::{ErrorLog, JavaDriver, RustDriver, context, fill, verify, wait_until};

const LENGTH: usize = 64;
const COUNT: u64 = 2_000;
/// Manual multi-destination-cast (and, for subscriptions, multi-destination) channel.
const MANUAL: &str = "aeron:udp?control-mode=manual|term-length=1m";
/// How long the Java driver keeps an image that hears nothing: short, so a subscriber
/// whose destination was removed sees its image go (the proof it got nothing after).
const IMAGE_LIVENESS: &str = "2s";
const WAIT: Duration = Duration::from_secs(30);

/// The Java tests run one at a time: each starts a JVM, and the machine is small.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn java_driver() -> Option<JavaDriver> {
    let liveness = format!("-Daeron.image.liveness.timeout={IMAGE_LIVENESS}");
    JavaDriver::start(&["-Daeron.term.buffer.sparse.file=true", &liveness])
}

fn our_driver() -> RustDriver {
    RustDriver::start(&[("AERON_IMAGE_LIVENESS_TIMEOUT", IMAGE_LIVENESS)])
}

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn unicast(port: u16) -> String {
    format!("aeron:udp?endpoint=127.0.0.1:{port}")
}

/// A subscription and the next message it must deliver.
struct Reader {
    name: &'static str,
    subscription: Subscription,
    next: u64,
}

impl Reader {
    fn new(name: &'static str, subscription: Subscription) -> Self {
        Self { name, subscription, next: 0 }
    }

    /// Polls once; every message must be the next one, intact.
    fn poll(&mut self) -> usize {
        let (name, next) = (self.name, &mut self.next);
        self.subscription.poll(
            |message, _| {
                if let Err(e) = verify(message, *next, LENGTH) {
                    panic!("{name}: {e}");
                }
                *next += 1;
            },
            64,
        )
    }
}

/// Offers messages `range` through `offer` while polling `readers`, until all are offered
/// and each of the first `receiving` readers delivered up to `range.end`.
fn exchange(
    offer: &mut dyn FnMut(&[u8]) -> i64,
    range: Range<u64>,
    readers: &mut [&mut Reader],
    receiving: usize,
) {
    let deadline = Instant::now() + WAIT;
    let mut message = vec![0u8; LENGTH];
    let mut i = range.start;
    loop {
        let mut work = 0;
        if i < range.end {
            fill(&mut message, i);
            let result = offer(&message);
            if result > 0 {
                i += 1;
                work += 1;
            } else {
                assert!(
                    result == BACK_PRESSURED || result == NOT_CONNECTED || result == ADMIN_ACTION,
                    "offer {i}: {result}"
                );
            }
        }
        for reader in readers.iter_mut() {
            work += reader.poll();
        }
        if i == range.end && readers[..receiving].iter().all(|r| r.next == range.end) {
            return;
        }
        let progress: Vec<_> = readers.iter().map(|r| (r.name, r.next)).collect();
        assert!(Instant::now() < deadline, "offered up to {i} of {range:?}; delivered {progress:?}");
        if work == 0 {
            std::thread::yield_now();
        }
    }
}

/// Waits (polling all readers) until `reader`'s image is gone: the driver heard nothing
/// more on its endpoint for the image liveness timeout. Returns the messages it delivered.
fn wait_for_image_to_go(readers: &mut [&mut Reader], gone: usize) -> u64 {
    let deadline = Instant::now() + WAIT;
    while readers[gone].subscription.image_count() > 0 {
        for reader in readers.iter_mut() {
            reader.poll();
        }
        assert!(Instant::now() < deadline, "{}'s image still there after {WAIT:?}", readers[gone].name);
        std::thread::sleep(Duration::from_millis(1));
    }
    readers[gone].poll();
    readers[gone].next
}

fn expect_code(result: Result<impl std::fmt::Debug, Error>, code: AeronErrorCode, what: &str) -> Error {
    let error = result.expect_err(what);
    eprintln!("Java answers {what}: {error}");
    assert_eq!(error.aeron_code(), Some(code), "{what}: {error}");
    assert_eq!(error.code(), -(code as i32), "{what}: the C errcode is the negated driver code");
    error
}

/// (a) A manual MDC publication with two destinations: two subscriptions on those
/// endpoints each get every message once, in order. Removing one by channel stops it
/// while the other continues; removing the other by id (through a second handle of the
/// publication) stops that one too.
#[test]
fn mdc_publication_sends_to_each_destination_added() {
    let _serial = serial();
    let Some(driver) = java_driver() else { return };
    mdc_publication_sends_to_each_destination_added_on(driver.aeron_dir());
}

#[test]
fn mdc_publication_sends_to_each_destination_added_on_aeronmd() {
    let _serial = serial();
    mdc_publication_sends_to_each_destination_added_on(our_driver().aeron_dir());
}

fn mdc_publication_sends_to_each_destination_added_on(aeron_dir: &std::path::Path) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(aeron_dir, &log)).expect("connect");
    let (dst1, dst2) = (unicast(free_port()), unicast(free_port()));
    let stream = 3001;
    let mut r1 = Reader::new("sub1", aeron.add_subscription(&dst1, stream).expect("sub1"));
    let mut r2 = Reader::new("sub2", aeron.add_subscription(&dst2, stream).expect("sub2"));
    // With a control address the channel names one send endpoint, so a second add of it
    // shares the driver's publication (below); without one each add makes its own.
    let channel = format!("aeron:udp?control=127.0.0.1:{}|control-mode=manual|term-length=1m", free_port());
    let publication = aeron.add_publication(&channel, stream).expect("MDC publication");

    let id1 = publication.add_destination(&dst1).expect("add destination 1");
    let id2 = publication.add_destination(&dst2).expect("add destination 2");
    assert!(id1 > publication.registration_id() && id2 > id1, "ids {id1}, {id2}: fresh correlation ids");
    wait_until(WAIT, "both images and a connected publication", || {
        r1.subscription.image_count() == 1 && r2.subscription.image_count() == 1 && publication.is_connected()
    });
    let mut offer = |m: &[u8]| publication.offer(m).expect("offer");
    exchange(&mut offer, 0..COUNT, &mut [&mut r1, &mut r2], 2);

    publication.remove_destination(&dst1).expect("remove destination 1 by channel");
    exchange(&mut offer, COUNT..2 * COUNT, &mut [&mut r2, &mut r1], 1);
    assert_eq!(wait_for_image_to_go(&mut [&mut r1, &mut r2], 0), COUNT, "sub1 got nothing after its removal");
    assert_eq!(r2.next, 2 * COUNT);
    assert_eq!(r2.subscription.image_count(), 1, "sub2 still hears the publication");

    // A second handle of the same (shared) publication controls the same destinations: the
    // commands name the driver's publication (its original registration id).
    let other = aeron.add_publication(&channel, stream).expect("second handle");
    assert_eq!(other.original_registration_id(), publication.registration_id());
    assert_ne!(other.registration_id(), other.original_registration_id());
    other.remove_destination_by_id(id2).expect("remove destination 2 by id, through the second handle");
    exchange(&mut offer, 2 * COUNT..2 * COUNT + 50, &mut [&mut r2], 0);
    assert_eq!(wait_for_image_to_go(&mut [&mut r2], 0), 2 * COUNT, "sub2 got nothing after its removal");
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// (b) An MDS subscription with two unicast destinations, fed by a manual MDC exclusive
/// publication sending to both: one image, every message once and in order; after one
/// destination is removed, the other still carries the stream.
#[test]
fn mds_subscription_rebuilds_one_stream_from_each_destination() {
    let _serial = serial();
    let Some(driver) = java_driver() else { return };
    mds_subscription_rebuilds_one_stream_from_each_destination_on(driver.aeron_dir());
}

#[test]
fn mds_subscription_rebuilds_one_stream_from_each_destination_on_aeronmd() {
    let _serial = serial();
    mds_subscription_rebuilds_one_stream_from_each_destination_on(our_driver().aeron_dir());
}

fn mds_subscription_rebuilds_one_stream_from_each_destination_on(aeron_dir: &std::path::Path) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(aeron_dir, &log)).expect("connect");
    let (dst3, dst4) = (unicast(free_port()), unicast(free_port()));
    let stream = 3002;
    let mut reader = Reader::new("mds", aeron.add_subscription(MANUAL, stream).expect("MDS subscription"));
    reader.subscription.add_destination(&dst3).expect("add receive destination 3");
    reader.subscription.add_destination(&dst4).expect("add receive destination 4");
    wait_until(WAIT, "both receive destinations bound", || {
        reader.subscription.local_socket_addresses().len() == 2
    });
    let mut publication = aeron.add_exclusive_publication(MANUAL, stream).expect("MDC exclusive publication");
    publication.add_destination(&dst3).expect("add destination 3");
    publication.add_destination(&dst4).expect("add destination 4");
    wait_until(WAIT, "an image and a connected publication", || {
        reader.subscription.image_count() == 1 && publication.is_connected()
    });

    let mut offer = |m: &[u8]| publication.offer(m).expect("offer");
    exchange(&mut offer, 0..COUNT, &mut [&mut reader], 1);
    assert_eq!(reader.subscription.image_count(), 1, "both destinations feed one image");

    reader.subscription.remove_destination(&dst3).expect("remove receive destination 3");
    wait_until(WAIT, "one receive destination left", || {
        reader.subscription.local_socket_addresses().len() == 1
    });
    exchange(&mut offer, COUNT..2 * COUNT, &mut [&mut reader], 1);
    assert_eq!(reader.subscription.image_count(), 1);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

/// (c) What the Java driver answers to destination commands it cannot carry out: errors
/// reach the caller with the driver's code; unknown destinations are acknowledged.
#[test]
fn destination_errors_are_the_drivers_answers() {
    let _serial = serial();
    let Some(driver) = java_driver() else { return };
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let dst = unicast(free_port());
    let stream = 3003;

    let plain = aeron.add_publication(&unicast(free_port()), stream).expect("unicast publication");
    let e = expect_code(
        plain.add_destination(&dst),
        AeronErrorCode::InvalidChannel,
        "ADD_DESTINATION, not manual",
    );
    assert!(e.message().contains("channel does not allow manual control"), "{e}");
    expect_code(
        plain.remove_destination(&dst),
        AeronErrorCode::InvalidChannel,
        "REMOVE_DESTINATION, not manual",
    );
    expect_code(
        plain.remove_destination_by_id(1),
        AeronErrorCode::InvalidChannel,
        "REMOVE_DESTINATION_BY_ID, not manual",
    );

    let ipc = aeron.add_exclusive_publication("aeron:ipc", stream).expect("IPC publication");
    let e =
        expect_code(ipc.add_destination(&dst), AeronErrorCode::UnknownPublication, "ADD_DESTINATION, IPC");
    assert!(e.message().contains(&format!("unknown publication: {}", ipc.registration_id())), "{e}");
    expect_code(
        ipc.remove_destination_by_id(1),
        AeronErrorCode::UnknownPublication,
        "REMOVE_DESTINATION_BY_ID, IPC",
    );

    let mdc = aeron.add_publication(MANUAL, stream).expect("MDC publication");
    mdc.remove_destination(&dst).expect("Java acknowledges removing a destination it does not have");
    mdc.remove_destination_by_id(i64::MAX).expect("Java acknowledges removing an unknown destination id");
    let e = expect_code(
        mdc.add_destination("aeron:udp?endpoint=127.0.0.1:0"),
        AeronErrorCode::InvalidChannel,
        "ADD_DESTINATION, port 0",
    );
    assert!(e.message().contains("port=0"), "{e}");
    expect_code(
        mdc.add_destination("aeron:bogus"),
        AeronErrorCode::InvalidChannel,
        "ADD_DESTINATION, bad URI",
    );
    expect_code(
        mdc.remove_destination("aeron:bogus"),
        AeronErrorCode::InvalidChannel,
        "REMOVE_DESTINATION, bad URI",
    );

    let plain_sub = aeron.add_subscription(&unicast(free_port()), stream).expect("unicast subscription");
    let e = expect_code(
        plain_sub.add_destination(&dst),
        AeronErrorCode::UnknownSubscription,
        "ADD_RCV_DESTINATION, not MDS",
    );
    assert!(e.message().contains("unknown MDS subscription"), "{e}");
    expect_code(
        plain_sub.remove_destination(&dst),
        AeronErrorCode::InvalidChannel,
        "REMOVE_RCV_DESTINATION, not MDS",
    );
    let mds = aeron.add_subscription(MANUAL, stream).expect("MDS subscription");
    mds.remove_destination(&dst).expect("Java acknowledges removing a receive destination it does not have");

    assert!(log.errors().is_empty(), "errors reached the caller, not the handler: {:?}", log.errors());
}

/// (c) The async forms: nothing completes before the conductor runs (invoker mode makes
/// that deterministic), then each completes once; a handle dropped while pending leaves
/// its refusal to the error handler.
#[test]
fn async_destination_commands_are_pending_until_the_driver_answers() {
    let _serial = serial();
    let Some(driver) = java_driver() else { return };
    async_destination_commands_are_pending_until_the_driver_answers_on(driver.aeron_dir());
}

#[test]
fn async_destination_commands_are_pending_until_the_driver_answers_on_aeronmd() {
    let _serial = serial();
    async_destination_commands_are_pending_until_the_driver_answers_on(our_driver().aeron_dir());
}

fn async_destination_commands_are_pending_until_the_driver_answers_on(aeron_dir: &std::path::Path) {
    let log = ErrorLog::default();
    let mut ctx = context(aeron_dir, &log);
    ctx.set_use_conductor_agent_invoker(true);
    let aeron = Aeron::connect(ctx).expect("connect");
    let complete = |pending: &mut aeronrs::client::AsyncDestination| {
        assert!(!pending.poll().expect("pending"), "no answer before the conductor runs");
        assert!(!pending.poll().expect("pending"));
        let deadline = Instant::now() + WAIT;
        loop {
            aeron.do_work().expect("do_work");
            match pending.poll() {
                Ok(false) => assert!(Instant::now() < deadline, "no answer within {WAIT:?}"),
                done => return done,
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let (dst1, dst2) = (unicast(free_port()), unicast(free_port()));
    let stream = 3004;

    let mdc = aeron.add_publication(MANUAL, stream).expect("MDC publication");
    let mut add = mdc.async_add_destination(&dst1).expect("send add");
    let id = add.registration_id();
    assert!(id > mdc.registration_id());
    assert!(complete(&mut add).expect("added"));
    assert!(add.poll().is_err(), "a completed handle answers once");
    assert_eq!(add.registration_id(), id);
    let mut remove = mdc.async_remove_destination_by_id(id).expect("send remove by id");
    assert!(remove.registration_id() > id);
    assert!(complete(&mut remove).expect("removed by id"));
    let mut add = mdc.async_add_destination(&dst2).expect("send add");
    assert!(complete(&mut add).expect("added"));
    let mut remove = mdc.async_remove_destination(&dst2).expect("send remove");
    assert!(complete(&mut remove).expect("removed by channel"));

    let mds = aeron.add_subscription(MANUAL, stream).expect("MDS subscription");
    let mut add = mds.async_add_destination(&dst2).expect("send receive add");
    assert!(complete(&mut add).expect("receive destination added"));
    let mut remove = mds.async_remove_destination(&dst2).expect("send receive remove");
    assert!(complete(&mut remove).expect("receive destination removed"));

    let plain = aeron.add_publication(&unicast(free_port()), stream).expect("unicast publication");
    let mut refused = plain.async_add_destination(&dst1).expect("send add");
    let error = complete(&mut refused).expect_err("refused");
    assert_eq!(error.aeron_code(), Some(AeronErrorCode::InvalidChannel), "{error}");
    assert!(log.errors().is_empty(), "{:?}", log.errors());

    drop(plain.async_add_destination(&dst1).expect("send add"));
    wait_until(WAIT, "the dropped command's refusal at the error handler", || {
        aeron.do_work().expect("do_work");
        !log.errors().is_empty()
    });
    let errors = log.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].aeron_code(), Some(AeronErrorCode::InvalidChannel), "{errors:?}");
}

/// Closed publications, subscriptions and clients refuse destination commands before
/// sending anything (EPERM), and bad channels are refused by the client (EINVAL). No
/// destination support is needed from the driver: this runs on our `aeronmd`.
#[test]
fn closed_handles_and_bad_channels_are_refused_by_the_client() {
    let driver = RustDriver::start(&[]);
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let dst = unicast(free_port());
    let publication = aeron.add_publication("aeron:ipc", 3005).expect("publication");
    let exclusive = aeron.add_exclusive_publication("aeron:ipc", 3006).expect("exclusive publication");
    let subscription = aeron.add_subscription("aeron:ipc", 3005).expect("subscription");
    let kept = aeron.add_publication("aeron:ipc", 3007).expect("publication kept open");

    assert_eq!(publication.add_destination("").unwrap_err().code(), libc::EINVAL);
    assert_eq!(subscription.add_destination(&"x".repeat(5000)).unwrap_err().code(), libc::EINVAL);

    publication.close();
    exclusive.close();
    subscription.close();
    for (what, result) in [
        ("publication add", publication.add_destination(&dst).map(drop)),
        ("publication remove", publication.remove_destination(&dst)),
        ("publication remove by id", publication.async_remove_destination_by_id(1).map(drop)),
        ("exclusive add", exclusive.async_add_destination(&dst).map(drop)),
        ("exclusive remove by id", exclusive.remove_destination_by_id(1)),
        ("subscription add", subscription.add_destination(&dst)),
        ("subscription remove", subscription.async_remove_destination(&dst).map(drop)),
    ] {
        let error = result.expect_err(what);
        assert_eq!(error.code(), libc::EPERM, "{what}: {error}");
        assert!(error.message().contains("is closed"), "{what}: {error}");
    }

    aeron.close();
    let error = kept.add_destination(&dst).expect_err("client closed");
    assert_eq!(error.code(), libc::EPERM, "{error}");
    assert!(error.message().contains("closed"), "{error}");
}

/// A command the driver never answers (it was killed) fails with the driver timeout
/// instead of waiting for ever.
#[test]
fn a_driver_that_went_away_fails_the_command_with_a_driver_timeout() {
    let mut driver = RustDriver::start(&[]);
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_driver_timeout(Duration::from_secs(1));
    let aeron = Aeron::connect(ctx).expect("connect");
    let publication = aeron.add_publication("aeron:ipc", 3008).expect("publication");
    driver.kill();
    let start = Instant::now();
    let error = publication.add_destination(&unicast(free_port())).expect_err("no driver");
    assert_eq!(error.code(), CLIENT_ERROR_DRIVER_TIMEOUT, "{error}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "bounded by the driver timeout: {:?}",
        start.elapsed()
    );
    // The client closes itself once the driver's heartbeat is older than the timeout.
    wait_until(WAIT, "the client to close", || aeron.is_closed());
    let error = publication.add_destination(&unicast(free_port())).expect_err("client closed");
    assert_eq!(error.code(), libc::EPERM, "{error}");
    assert!(log.errors().iter().any(|e| e.code() == CLIENT_ERROR_DRIVER_TIMEOUT), "{:?}", log.errors());
}
