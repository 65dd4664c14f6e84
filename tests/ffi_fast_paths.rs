//! The exports whose common case runs outside the panic boundary (`aeron_publication_offer`,
//! `aeron_exclusive_publication_offer`, `aeron_subscription_poll`, `aeron_image_poll`)
//! driven with extreme arguments: NULL handles, buffers and handlers, lengths up to
//! `usize::MAX`, fragment limits of `usize::MAX`, closed (lingering) publications, and an
//! exclusive publication started at the last term of its stream, offered past the largest
//! position. Run under the `ci` profile (debug assertions and overflow checks on), a panic
//! in one of those paths could not be caught: it would abort the test process. Each call
//! answers with its documented code instead, and no error message is a caught panic.

use std::ffi::{CStr, CString, c_int, c_void};
use std::path::Path;
use std::ptr;
use std::time::{Duration, Instant};

use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::ffi::async_add::{
    aeron_async_add_exclusive_publication, aeron_async_add_exclusive_publication_poll,
    aeron_async_add_publication, aeron_async_add_publication_poll, aeron_async_add_subscription,
    aeron_async_add_subscription_poll,
};
use aeronrs::ffi::client::{aeron_close, aeron_init, aeron_start, aeron_t};
use aeronrs::ffi::context::{
    aeron_context_close, aeron_context_init, aeron_context_set_dir, aeron_context_set_idle_sleep_duration_ns,
    aeron_context_set_resource_linger_duration_ns, aeron_context_t,
};
use aeronrs::ffi::error::{aeron_errcode, aeron_errmsg};
use aeronrs::ffi::exclusive_publication::{
    aeron_exclusive_publication_close, aeron_exclusive_publication_offer, aeron_exclusive_publication_t,
};
use aeronrs::ffi::header::aeron_header_t;
use aeronrs::ffi::image::aeron_image_poll;
use aeronrs::ffi::publication::{aeron_publication_close, aeron_publication_offer, aeron_publication_t};
use aeronrs::ffi::subscription::{
    aeron_subscription_close, aeron_subscription_image_at_index, aeron_subscription_image_release,
    aeron_subscription_poll, aeron_subscription_t,
};
use aeronrs::util::idle_strategy::IdleStrategy;

const WAIT: Duration = Duration::from_secs(20);
const EINVAL: c_int = 22;
const NOT_CONNECTED: i64 = -1;
const BACK_PRESSURED: i64 = -2;
const ADMIN_ACTION: i64 = -3;
const CLOSED: i64 = -4;
const MAX_POSITION_EXCEEDED: i64 = -5;
const PUBLICATION_ERROR: i64 = -6;
const TERM_LENGTH: i64 = 64 * 1024;

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL; the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
}

/// The thread's error is the EINVAL of a checked argument, not a caught panic.
fn assert_einval(what: &str) {
    assert_eq!(aeron_errcode(), EINVAL, "{what}: {}", errmsg());
    assert!(!errmsg().contains("panic"), "{what}: {}", errmsg());
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn driver(dir: &Path) -> MediaDriver {
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Shared,
        shared_idle_strategy: IdleStrategy::Sleep(Duration::from_millis(1)),
        timer_interval_ns: 10_000_000,
        ..DriverContext::default()
    })
    .unwrap()
}

/// A C client whose closed resources linger for a minute (so a closed handle stays
/// readable for the whole test), closed on drop.
struct Client {
    context: *mut aeron_context_t,
    client: *mut aeron_t,
}

impl Client {
    fn connect(dir: &Path) -> Self {
        let (mut context, mut client) = (ptr::null_mut(), ptr::null_mut());
        let dir = CString::new(dir.to_str().unwrap()).unwrap();
        // SAFETY: valid out-pointers and strings; the context outlives the client (Drop).
        unsafe {
            assert_eq!(aeron_context_init(&mut context), 0, "{}", errmsg());
            assert_eq!(aeron_context_set_dir(context, dir.as_ptr()), 0);
            assert_eq!(aeron_context_set_idle_sleep_duration_ns(context, 1_000_000), 0);
            assert_eq!(aeron_context_set_resource_linger_duration_ns(context, 60_000_000_000), 0);
            assert_eq!(aeron_init(&mut client, context), 0, "{}", errmsg());
            assert_eq!(aeron_start(client), 0, "{}", errmsg());
        }
        Self { context, client }
    }

    fn publication(&self, channel: &str, stream_id: i32) -> *mut aeron_publication_t {
        let (mut add, mut publication) = (ptr::null_mut(), ptr::null_mut());
        let channel = CString::new(channel).unwrap();
        // SAFETY: an open client, valid out-pointers, polled on this thread only.
        unsafe {
            assert_eq!(aeron_async_add_publication(&mut add, self.client, channel.as_ptr(), stream_id), 0);
            wait_for("publication", || match aeron_async_add_publication_poll(&mut publication, add) {
                0 => false,
                1 => true,
                _ => panic!("{}", errmsg()),
            });
        }
        publication
    }

    fn exclusive_publication(&self, channel: &str, stream_id: i32) -> *mut aeron_exclusive_publication_t {
        let (mut add, mut publication) = (ptr::null_mut(), ptr::null_mut());
        let channel = CString::new(channel).unwrap();
        // SAFETY: as in `publication`.
        unsafe {
            let rc =
                aeron_async_add_exclusive_publication(&mut add, self.client, channel.as_ptr(), stream_id);
            assert_eq!(rc, 0, "{}", errmsg());
            wait_for("exclusive publication", || {
                match aeron_async_add_exclusive_publication_poll(&mut publication, add) {
                    0 => false,
                    1 => true,
                    _ => panic!("{}", errmsg()),
                }
            });
        }
        publication
    }

    fn subscription(&self, channel: &str, stream_id: i32) -> *mut aeron_subscription_t {
        let (mut add, mut subscription) = (ptr::null_mut(), ptr::null_mut());
        let channel = CString::new(channel).unwrap();
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
            wait_for("subscription", || match aeron_async_add_subscription_poll(&mut subscription, add) {
                0 => false,
                1 => true,
                _ => panic!("{}", errmsg()),
            });
        }
        subscription
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: opened in `connect`, closed once.
        unsafe {
            aeron_close(self.client);
            aeron_context_close(self.context);
        }
    }
}

/// Counts the fragments it is given; `clientd` is a `usize`.
unsafe extern "C" fn count_fragment(clientd: *mut c_void, _: *const u8, _: usize, _: *mut aeron_header_t) {
    // SAFETY: the tests pass a live `usize` as clientd.
    unsafe { *clientd.cast::<usize>() += 1 };
}

fn poll_all(subscription: *mut aeron_subscription_t) -> usize {
    let mut count = 0usize;
    // SAFETY: an open subscription polled by this thread; the handler counts into `count`.
    let rc = unsafe {
        aeron_subscription_poll(subscription, Some(count_fragment), (&raw mut count).cast(), usize::MAX)
    };
    assert!(rc >= 0, "{}", errmsg());
    assert_eq!(rc as usize, count);
    count
}

#[test]
fn null_handles_buffers_and_handlers_are_refused_without_a_panic() {
    let bytes = [7u8; 64];
    // SAFETY: NULL handles are allowed by every one of these exports and reported.
    unsafe {
        let offer =
            aeron_publication_offer(ptr::null_mut(), bytes.as_ptr(), bytes.len(), None, ptr::null_mut());
        assert_eq!(offer, PUBLICATION_ERROR);
        assert_einval("offer to NULL");
        let offer = aeron_publication_offer(ptr::null_mut(), ptr::null(), usize::MAX, None, ptr::null_mut());
        assert_eq!(offer, PUBLICATION_ERROR);
        assert_einval("offer of NULL to NULL");
        let offer =
            aeron_exclusive_publication_offer(ptr::null_mut(), bytes.as_ptr(), 0, None, ptr::null_mut());
        assert_eq!(offer, PUBLICATION_ERROR);
        assert_einval("exclusive offer to NULL");
        let mut count = 0usize;
        let clientd = (&raw mut count).cast();
        assert_eq!(aeron_subscription_poll(ptr::null_mut(), Some(count_fragment), clientd, usize::MAX), -1);
        assert_einval("poll of NULL");
        assert_eq!(aeron_subscription_poll(ptr::null_mut(), None, clientd, 0), -1);
        assert_einval("poll of NULL without a handler");
        assert_eq!(aeron_image_poll(ptr::null_mut(), Some(count_fragment), clientd, usize::MAX), -1);
        assert_einval("image poll of NULL");
        assert_eq!(count, 0);
    }
}

#[test]
fn extreme_lengths_and_limits_on_live_and_closed_publications() {
    let dir = tempfile::tempdir().unwrap();
    let _driver = driver(dir.path());
    let client = Client::connect(dir.path());
    let channel = "aeron:ipc?term-length=64k";
    let subscription = client.subscription(channel, 1101);
    let publication = client.publication(channel, 1101);
    let exclusive = client.exclusive_publication(channel, 1102);
    let exclusive_subscription = client.subscription(channel, 1102);
    // Longer than the 8 KiB a 64 KiB term allows, so refused by length alone.
    let big = vec![1u8; 1 << 20];
    let small = [2u8; 32];
    // SAFETY: open handles (closed ones linger for the test: see `Client::connect`), every
    // buffer valid for its length, polled and offered on this thread only.
    unsafe {
        wait_for("connected", || {
            aeron_publication_offer(publication, small.as_ptr(), small.len(), None, ptr::null_mut()) > 0
        });
        for length in [9000, big.len()] {
            let offer = aeron_publication_offer(publication, big.as_ptr(), length, None, ptr::null_mut());
            assert_eq!(offer, PUBLICATION_ERROR, "{length} bytes");
            assert_einval("too long");
            let offer =
                aeron_exclusive_publication_offer(exclusive, big.as_ptr(), length, None, ptr::null_mut());
            assert_eq!(offer, PUBLICATION_ERROR, "{length} bytes");
            assert_einval("too long (exclusive)");
        }
        // NULL with a length: refused; NULL with none: an empty message.
        let offer = aeron_publication_offer(publication, ptr::null(), usize::MAX, None, ptr::null_mut());
        assert_eq!(offer, PUBLICATION_ERROR);
        assert_einval("NULL buffer");
        assert!(aeron_publication_offer(publication, ptr::null(), 0, None, ptr::null_mut()) > 0);
        wait_for("exclusive connected", || {
            aeron_exclusive_publication_offer(exclusive, ptr::null(), 0, None, ptr::null_mut()) > 0
        });
        assert_eq!(poll_all(subscription), 2, "the first accepted offer and the empty one");
        assert_eq!(poll_all(exclusive_subscription), 1);
        assert_eq!(poll_all(subscription), 0, "an empty poll with usize::MAX as the limit");

        let image = aeron_subscription_image_at_index(subscription, 0);
        assert!(!image.is_null(), "{}", errmsg());
        let mut count = 0usize;
        let clientd = (&raw mut count).cast();
        assert_eq!(aeron_image_poll(image, Some(count_fragment), clientd, usize::MAX), 0);
        assert_eq!(aeron_image_poll(image, None, clientd, usize::MAX), -1);
        assert_einval("image poll without a handler");
        assert_eq!(aeron_subscription_poll(subscription, None, clientd, usize::MAX), -1);
        assert_einval("poll without a handler");
        assert_eq!(aeron_subscription_image_release(subscription, image), 0);

        // Closed: the handles linger and every offer, fast or not, is CLOSED.
        assert_eq!(aeron_publication_close(publication, None, ptr::null_mut()), 0);
        assert_eq!(aeron_exclusive_publication_close(exclusive, None, ptr::null_mut()), 0);
        for length in [0, small.len(), 4096, big.len()] {
            let offer = aeron_publication_offer(publication, big.as_ptr(), length, None, ptr::null_mut());
            assert!(offer == CLOSED || offer == PUBLICATION_ERROR, "closed, {length} bytes: {offer}");
            let offer =
                aeron_exclusive_publication_offer(exclusive, big.as_ptr(), length, None, ptr::null_mut());
            assert!(offer == CLOSED || offer == PUBLICATION_ERROR, "closed, {length} bytes: {offer}");
        }
        assert_eq!(
            aeron_publication_offer(publication, small.as_ptr(), small.len(), None, ptr::null_mut()),
            CLOSED
        );
        assert_eq!(
            aeron_exclusive_publication_offer(exclusive, small.as_ptr(), small.len(), None, ptr::null_mut()),
            CLOSED
        );
        aeron_subscription_close(subscription, None, ptr::null_mut());
        aeron_subscription_close(exclusive_subscription, None, ptr::null_mut());
    }
}

#[test]
fn offers_and_polls_at_the_end_of_the_last_term() {
    let dir = tempfile::tempdir().unwrap();
    let _driver = driver(dir.path());
    let client = Client::connect(dir.path());
    // The last term of the stream (term count i32::MAX), 1 KiB before its end: the largest
    // positions a 64 KiB term allows (64 KiB x 2^31 = 2^47).
    let term_offset = TERM_LENGTH - 1024;
    let channel =
        format!("aeron:ipc?term-length=64k|init-term-id=0|term-id={}|term-offset={term_offset}", i32::MAX);
    let subscription = client.subscription(&channel, 1103);
    let exclusive = client.exclusive_publication(&channel, 1103);
    let message = [3u8; 200];
    let mut accepted = 0usize;
    let mut last_position = 0i64;
    let mut polled = 0;
    // SAFETY: open handles, a valid buffer, this thread only.
    unsafe {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "no MAX_POSITION_EXCEEDED (last position {last_position})");
            match aeron_exclusive_publication_offer(
                exclusive,
                message.as_ptr(),
                message.len(),
                None,
                ptr::null_mut(),
            ) {
                MAX_POSITION_EXCEEDED => break,
                NOT_CONNECTED | BACK_PRESSURED | ADMIN_ACTION => std::thread::yield_now(),
                position if position > 0 => {
                    assert!(position > last_position, "{position} after {last_position}");
                    assert!(position <= TERM_LENGTH << 31, "{position} beyond the stream's end");
                    last_position = position;
                    accepted += 1;
                }
                other => panic!("offer: {other} {}", errmsg()),
            }
            polled += poll_all(subscription);
        }
        // Stays refused; fast path or not, nothing panics past the end.
        for _ in 0..3 {
            let offer =
                aeron_exclusive_publication_offer(exclusive, message.as_ptr(), 8, None, ptr::null_mut());
            assert_eq!(offer, MAX_POSITION_EXCEEDED);
        }
        assert!(accepted >= 1, "some messages fit before the end");
        wait_for("the messages at the end of the stream", || {
            polled += poll_all(subscription);
            polled >= accepted
        });
        assert_eq!(polled, accepted);
        let image = aeron_subscription_image_at_index(subscription, 0);
        assert!(!image.is_null(), "{}", errmsg());
        let mut count = 0usize;
        let clientd = (&raw mut count).cast();
        assert_eq!(aeron_image_poll(image, Some(count_fragment), clientd, usize::MAX), 0);
        assert_eq!(aeron_subscription_image_release(subscription, image), 0);
        aeron_exclusive_publication_close(exclusive, None, ptr::null_mut());
        aeron_subscription_close(subscription, None, ptr::null_mut());
    }
}
