//! `aeronrs_subscription_has_nothing_to_poll` through the C API against an in-process
//! driver: false for NULL (setting no error) and before the first poll, true once a poll
//! found nothing, false as soon as a fragment waits (the batch poll then describes it), true
//! again once it is committed.

use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;
use std::time::{Duration, Instant};

use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::ffi::async_add::{
    aeron_async_add_exclusive_publication, aeron_async_add_exclusive_publication_poll,
    aeron_async_add_subscription, aeron_async_add_subscription_poll,
};
use aeronrs::ffi::client::{aeron_close, aeron_init, aeron_start, aeron_t};
use aeronrs::ffi::context::{
    aeron_context_close, aeron_context_init, aeron_context_set_dir, aeron_context_set_idle_sleep_duration_ns,
    aeron_context_t,
};
use aeronrs::ffi::error::{aeron_err_clear, aeron_errcode, aeron_errmsg};
use aeronrs::ffi::exclusive_publication::{
    aeron_exclusive_publication_is_connected, aeron_exclusive_publication_offer,
};
use aeronrs::ffi::extras::poll_batch::{
    aeronrs_fragment_batch_commit, aeronrs_fragment_descriptor_t, aeronrs_subscription_poll_batch,
};
use aeronrs::ffi::extras::poll_batch_idle::aeronrs_subscription_has_nothing_to_poll;
use aeronrs::ffi::subscription::{aeron_subscription_image_count, aeron_subscription_t};
use aeronrs::util::idle_strategy::IdleStrategy;

const WAIT: Duration = Duration::from_secs(20);
const CHANNEL: &str = "aeron:ipc";
const STREAM_ID: i32 = 1002;

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL; the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
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
        ..DriverContext::default()
    })
    .unwrap()
}

/// A C client, closed on drop (after everything it made).
struct Client {
    context: *mut aeron_context_t,
    client: *mut aeron_t,
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

fn connect(dir: &Path) -> Client {
    let (mut context, mut client) = (ptr::null_mut(), ptr::null_mut());
    let dir = CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: valid out-pointers and strings; the context outlives the client (Drop).
    unsafe {
        assert_eq!(aeron_context_init(&mut context), 0, "{}", errmsg());
        assert_eq!(aeron_context_set_dir(context, dir.as_ptr()), 0);
        assert_eq!(aeron_context_set_idle_sleep_duration_ns(context, 1_000_000), 0);
        assert_eq!(aeron_init(&mut client, context), 0, "{}", errmsg());
        assert_eq!(aeron_start(client), 0, "{}", errmsg());
    }
    Client { context, client }
}

fn poll(subscription: *mut aeron_subscription_t, batch: &mut [aeronrs_fragment_descriptor_t]) -> usize {
    // SAFETY: an open subscription polled by this thread; `batch` has room for its length.
    let count = unsafe { aeronrs_subscription_poll_batch(subscription, batch.as_mut_ptr(), batch.len()) };
    assert!(count >= 0, "{}", errmsg());
    count as usize
}

fn has_nothing(subscription: *mut aeron_subscription_t) -> bool {
    // SAFETY: NULL or an open subscription polled by this thread.
    unsafe { aeronrs_subscription_has_nothing_to_poll(subscription) }
}

#[test]
fn null_is_unsure_and_sets_no_error() {
    aeron_err_clear();
    assert!(!has_nothing(ptr::null_mut()));
    assert_eq!(aeron_errcode(), 0);
}

#[test]
fn nothing_only_when_no_fragment_waits() {
    let tmp = tempfile::tempdir().unwrap();
    let _driver = driver(tmp.path());
    let client = connect(tmp.path());
    let channel = CString::new(CHANNEL).unwrap();
    let (mut add, mut subscription) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: an open client, valid out-pointers, polled on this thread only; no handlers.
    unsafe {
        let rc = aeron_async_add_subscription(
            &mut add,
            client.client,
            channel.as_ptr(),
            STREAM_ID,
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
    let mut batch = [aeronrs_fragment_descriptor_t {
        buffer: ptr::null(),
        length: 0,
        image: ptr::null_mut(),
        image_correlation_id: 0,
        position: 0,
        reserved_value: 0,
        term_id: 0,
        term_offset: 0,
        session_id: 0,
        stream_id: 0,
        frame_length: 0,
        initial_term_id: 0,
        position_bits_to_shift: 0,
        version: 0,
        flags: 0,
        frame_type: 0,
    }; 8];

    let (mut add_publication, mut publication) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            aeron_async_add_exclusive_publication(
                &mut add_publication,
                client.client,
                channel.as_ptr(),
                STREAM_ID
            ),
            0
        );
        wait_for("publication", || {
            match aeron_async_add_exclusive_publication_poll(&mut publication, add_publication) {
                0 => false,
                1 => true,
                _ => panic!("{}", errmsg()),
            }
        });
        wait_for("connected", || {
            aeron_exclusive_publication_is_connected(publication)
                && aeron_subscription_image_count(subscription) == 1
        });
    }
    // A poll takes in the image list; with nothing published it finds nothing, and says so.
    wait_for("an empty poll that knows it", || {
        poll(subscription, &mut batch) == 0 && has_nothing(subscription)
    });

    let message = *b"one message";
    // SAFETY: an open publication and readable bytes.
    let position = unsafe {
        aeron_exclusive_publication_offer(publication, message.as_ptr(), message.len(), None, ptr::null_mut())
    };
    assert!(position > 0, "offer: {position}");
    assert!(!has_nothing(subscription), "a fragment waits");
    assert_eq!(poll(subscription, &mut batch), 1);
    assert!(!has_nothing(subscription), "described, not yet committed: still there");
    // SAFETY: the descriptor of the latest poll of this subscription.
    assert_eq!(unsafe { aeronrs_fragment_batch_commit(batch.as_ptr(), 1) }, 0, "{}", errmsg());
    assert!(has_nothing(subscription), "committed: nothing left");
}
