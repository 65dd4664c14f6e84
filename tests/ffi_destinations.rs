//! The C destination functions (`aeron_*_async_*destination*`) driven from Rust end to end
//! on a real Java media driver (the C tests have no external driver; ours does not do
//! destinations yet): a manual MDC publication and exclusive publication gain and lose
//! destinations, an MDS subscription gains one, messages flow, the polls answer 0, then
//! 1 or -1 with the driver's code in `aeron_errcode()`. Skips without Java, unless
//! `AERONRS_REQUIRE_INTEROP=1`.
mod client_support;

use std::ffi::{CStr, CString, c_int, c_void};
use std::ptr;
use std::time::{Duration, Instant};

use aeronrs::ffi::async_add::{
    aeron_async_add_exclusive_publication, aeron_async_add_exclusive_publication_poll,
    aeron_async_add_publication, aeron_async_add_publication_poll, aeron_async_add_subscription,
    aeron_async_add_subscription_poll, aeron_async_destination_get_registration_id,
};
use aeronrs::ffi::client::{aeron_async_destination_t, aeron_close, aeron_init, aeron_start, aeron_t};
use aeronrs::ffi::context::{
    aeron_context_close, aeron_context_init, aeron_context_set_dir, aeron_context_set_idle_sleep_duration_ns,
    aeron_context_t,
};
use aeronrs::ffi::error::{aeron_errcode, aeron_errmsg};
use aeronrs::ffi::exclusive_publication::{
    aeron_exclusive_publication_async_add_destination, aeron_exclusive_publication_async_destination_poll,
    aeron_exclusive_publication_async_remove_destination, aeron_exclusive_publication_close,
    aeron_exclusive_publication_is_connected, aeron_exclusive_publication_offer,
    aeron_exclusive_publication_t,
};
use aeronrs::ffi::header::aeron_header_t;
use aeronrs::ffi::publication::{
    aeron_publication_async_add_destination, aeron_publication_async_destination_poll,
    aeron_publication_async_remove_destination, aeron_publication_async_remove_destination_by_id,
    aeron_publication_close, aeron_publication_is_connected, aeron_publication_offer, aeron_publication_t,
};
use aeronrs::ffi::subscription::{
    aeron_subscription_async_add_destination, aeron_subscription_async_destination_poll,
    aeron_subscription_async_remove_destination, aeron_subscription_close, aeron_subscription_image_count,
    aeron_subscription_poll, aeron_subscription_t,
};
use client_support::JavaDriver;

const WAIT: Duration = Duration::from_secs(30);
const MANUAL: &str = "aeron:udp?control-mode=manual|term-length=1m";
const COUNT: u64 = 500;

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL; the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
}

fn c(text: &str) -> CString {
    CString::new(text).unwrap()
}

fn unicast() -> CString {
    let port = std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    c(&format!("aeron:udp?endpoint=127.0.0.1:{port}"))
}

/// Calls `poll` (sleeping 1 ms between calls) until it answers other than 0; the answer.
fn until_done(what: &str, mut poll: impl FnMut() -> c_int) -> c_int {
    let deadline = Instant::now() + WAIT;
    loop {
        match poll() {
            0 => assert!(Instant::now() < deadline, "{what}: no answer within {WAIT:?}"),
            done => return done,
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A C client of the driver in `dir`, closed on drop.
struct Client {
    context: *mut aeron_context_t,
    client: *mut aeron_t,
}

impl Client {
    fn connect(dir: &std::path::Path) -> Self {
        let (mut context, mut client) = (ptr::null_mut(), ptr::null_mut());
        let dir = c(dir.to_str().unwrap());
        // SAFETY: valid out-pointers, a NUL-terminated directory, and a context that lives
        // until after the client is closed (Drop).
        unsafe {
            assert_eq!(aeron_context_init(&mut context), 0, "{}", errmsg());
            assert_eq!(aeron_context_set_dir(context, dir.as_ptr()), 0);
            assert_eq!(aeron_context_set_idle_sleep_duration_ns(context, 1_000_000), 0);
            assert_eq!(aeron_init(&mut client, context), 0, "{}", errmsg());
            assert_eq!(aeron_start(client), 0, "{}", errmsg());
        }
        Self { context, client }
    }

    fn publication(&self, channel: &str, stream_id: i32) -> *mut aeron_publication_t {
        let (mut add, mut publication) = (ptr::null_mut(), ptr::null_mut());
        let channel = c(channel);
        // SAFETY: an open client, valid out-pointers, polled on this thread only.
        unsafe {
            assert_eq!(aeron_async_add_publication(&mut add, self.client, channel.as_ptr(), stream_id), 0);
            let done =
                until_done("add publication", || aeron_async_add_publication_poll(&mut publication, add));
            assert_eq!(done, 1, "{}", errmsg());
        }
        publication
    }

    fn exclusive_publication(&self, channel: &str, stream_id: i32) -> *mut aeron_exclusive_publication_t {
        let (mut add, mut publication) = (ptr::null_mut(), ptr::null_mut());
        let channel = c(channel);
        // SAFETY: as in `publication`.
        unsafe {
            assert_eq!(
                aeron_async_add_exclusive_publication(&mut add, self.client, channel.as_ptr(), stream_id),
                0
            );
            let done = until_done("add exclusive publication", || {
                aeron_async_add_exclusive_publication_poll(&mut publication, add)
            });
            assert_eq!(done, 1, "{}", errmsg());
        }
        publication
    }

    fn subscription(&self, channel: &CStr, stream_id: i32) -> *mut aeron_subscription_t {
        let (mut add, mut subscription) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: as in `publication`; no image handlers.
        unsafe {
            let rc = aeron_async_add_subscription(
                &mut add,
                self.client,
                channel.as_ptr(),
                stream_id,
                None,
                ptr::null_mut(),
                None,
                ptr::null_mut(),
            );
            assert_eq!(rc, 0, "{}", errmsg());
            let done =
                until_done("add subscription", || aeron_async_add_subscription_poll(&mut subscription, add));
            assert_eq!(done, 1, "{}", errmsg());
        }
        subscription
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: opened in `connect`, closed once, with no resource used after.
        unsafe {
            aeron_close(self.client);
            aeron_context_close(self.context);
        }
    }
}

/// Sends a destination command with `start` and polls it with `poll` (each one of the three
/// C polls); the poll's final answer. The async handle is freed by that answer.
fn run(
    what: &str,
    start: impl FnOnce(*mut *mut aeron_async_destination_t) -> c_int,
    poll: unsafe extern "C" fn(*mut aeron_async_destination_t) -> c_int,
) -> (c_int, i64) {
    let mut pending = ptr::null_mut();
    assert_eq!(start(&mut pending), 0, "{what}: {}", errmsg());
    assert!(!pending.is_null());
    // SAFETY: pending until its poll answers 1 or -1 below.
    let id = unsafe { aeron_async_destination_get_registration_id(pending) };
    assert!(id > 0, "{what}: registration id {id}");
    // SAFETY: polled on this thread only, not after it answered.
    (until_done(what, || unsafe { poll(pending) }), id)
}

/// Counts the messages a subscription delivers; each must be the next in sequence.
struct Counted {
    next: u64,
    out_of_order: Option<(u64, u64)>,
}

unsafe extern "C" fn on_fragment(
    clientd: *mut c_void,
    buffer: *const u8,
    length: usize,
    _: *mut aeron_header_t,
) {
    // SAFETY: clientd is the &mut Counted of the polling call, alive for it.
    let counted = unsafe { &mut *clientd.cast::<Counted>() };
    assert_eq!(length, 8);
    // SAFETY: the fragment is `length` (8) readable bytes for the call.
    let got = u64::from_le_bytes(unsafe { std::slice::from_raw_parts(buffer, 8) }.try_into().unwrap());
    if got != counted.next && counted.out_of_order.is_none() {
        counted.out_of_order = Some((counted.next, got));
    }
    counted.next += 1;
}

fn poll_into(subscription: *mut aeron_subscription_t, counted: &mut Counted) -> c_int {
    // SAFETY: an open subscription polled on this thread only; clientd lives for the call.
    unsafe { aeron_subscription_poll(subscription, Some(on_fragment), ptr::from_mut(counted).cast(), 64) }
}

/// Offers messages `range` (each its sequence number) with `offer` while polling the
/// `subscriptions`, until all are offered and each subscription delivered them in order.
fn exchange(
    offer: &mut dyn FnMut(&[u8; 8]) -> i64,
    range: std::ops::Range<u64>,
    subscriptions: &mut [(*mut aeron_subscription_t, &mut Counted)],
) {
    let deadline = Instant::now() + WAIT;
    let mut i = range.start;
    loop {
        if i < range.end {
            let result = offer(&i.to_le_bytes());
            if result > 0 {
                i += 1;
            } else {
                assert!((-3..=-1).contains(&result), "offer {i}: {result} {}", errmsg());
            }
        }
        let mut done = i == range.end;
        for (subscription, counted) in subscriptions.iter_mut() {
            poll_into(*subscription, counted);
            assert_eq!(counted.out_of_order, None, "(expected, got)");
            done &= counted.next == range.end;
        }
        if done {
            return;
        }
        assert!(Instant::now() < deadline, "offered {i} of {range:?}");
        std::thread::yield_now();
    }
}

#[test]
fn c_destination_functions_end_to_end_on_a_java_driver() {
    let Some(driver) = JavaDriver::start(&["-Daeron.term.buffer.sparse.file=true"]) else { return };
    let client = Client::connect(driver.aeron_dir());
    let cl = client.client;
    let (dst1, dst2, dst3) = (unicast(), unicast(), unicast());

    // An MDC publication with two destinations; a subscription on each.
    let sub1 = client.subscription(&dst1, 4001);
    let sub2 = client.subscription(&dst2, 4001);
    let publication = client.publication(MANUAL, 4001);
    let (done, id1) = run(
        "add destination 1",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_publication_async_add_destination(out, cl, publication, dst1.as_ptr()) },
        aeron_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    let (done, id2) = run(
        "add destination 2",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_publication_async_add_destination(out, cl, publication, dst2.as_ptr()) },
        aeron_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    assert!(id2 > id1);
    // SAFETY: open handles, queried on this thread.
    wait_for("both images", || unsafe {
        aeron_subscription_image_count(sub1) == 1
            && aeron_subscription_image_count(sub2) == 1
            && aeron_publication_is_connected(publication)
    });
    let (mut c1, mut c2) = (Counted { next: 0, out_of_order: None }, Counted { next: 0, out_of_order: None });
    // SAFETY: an open publication; the message is 8 readable bytes; no supplier.
    let mut offer =
        |m: &[u8; 8]| unsafe { aeron_publication_offer(publication, m.as_ptr(), 8, None, ptr::null_mut()) };
    exchange(&mut offer, 0..COUNT, &mut [(sub1, &mut c1), (sub2, &mut c2)]);

    // Removed by channel, then by id (the add's registration id).
    let (done, _) = run(
        "remove destination 1",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_publication_async_remove_destination(out, cl, publication, dst1.as_ptr()) },
        aeron_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    exchange(&mut offer, COUNT..2 * COUNT, &mut [(sub2, &mut c2)]);
    let (done, _) = run(
        "remove destination 2 by id",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_publication_async_remove_destination_by_id(out, cl, publication, id2) },
        aeron_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());

    // The driver's refusal: a non-manual publication.
    let plain = client.publication(&dst3.to_string_lossy(), 4001);
    let (done, _) = run(
        "add destination to a non-manual publication",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_publication_async_add_destination(out, cl, plain, dst1.as_ptr()) },
        aeron_publication_async_destination_poll,
    );
    assert_eq!(done, -1);
    assert_eq!(aeron_errcode(), -1, "-AERON_ERROR_CODE_INVALID_CHANNEL: {}", errmsg());
    assert!(errmsg().contains("channel does not allow manual control"), "{}", errmsg());

    // An MDS subscription with one destination, fed by an exclusive MDC publication.
    let mds = client.subscription(&c(MANUAL), 4002);
    let (done, _) = run(
        "add receive destination",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_subscription_async_add_destination(out, cl, mds, dst3.as_ptr()) },
        aeron_subscription_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    let exclusive = client.exclusive_publication(MANUAL, 4002);
    let (done, _) = run(
        "add exclusive destination",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_exclusive_publication_async_add_destination(out, cl, exclusive, dst3.as_ptr()) },
        aeron_exclusive_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    // SAFETY: open handles, used on this thread only.
    wait_for("the MDS image", || unsafe {
        aeron_subscription_image_count(mds) == 1 && aeron_exclusive_publication_is_connected(exclusive)
    });
    let mut c3 = Counted { next: 0, out_of_order: None };
    // SAFETY: an open exclusive publication used by this thread only; 8 readable bytes.
    let mut offer_exclusive = |m: &[u8; 8]| unsafe {
        aeron_exclusive_publication_offer(exclusive, m.as_ptr(), 8, None, ptr::null_mut())
    };
    exchange(&mut offer_exclusive, 0..COUNT, &mut [(mds, &mut c3)]);
    let (done, _) = run(
        "remove exclusive destination",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe {
            aeron_exclusive_publication_async_remove_destination(out, cl, exclusive, dst3.as_ptr())
        },
        aeron_exclusive_publication_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());
    let (done, _) = run(
        "remove receive destination",
        // SAFETY: open client and resource, NUL-terminated URI, writable out-pointer.
        |out| unsafe { aeron_subscription_async_remove_destination(out, cl, mds, dst3.as_ptr()) },
        aeron_subscription_async_destination_poll,
    );
    assert_eq!(done, 1, "{}", errmsg());

    // SAFETY: open handles, each closed once; nothing uses them after.
    unsafe {
        for subscription in [sub1, sub2, mds] {
            assert_eq!(aeron_subscription_close(subscription, None, ptr::null_mut()), 0);
        }
        assert_eq!(aeron_publication_close(publication, None, ptr::null_mut()), 0);
        assert_eq!(aeron_publication_close(plain, None, ptr::null_mut()), 0);
        assert_eq!(aeron_exclusive_publication_close(exclusive, None, ptr::null_mut()), 0);
    }
}
