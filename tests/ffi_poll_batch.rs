//! `aeronrs_subscription_poll_batch` and `aeronrs_fragment_batch_commit` through the C API
//! against an in-process driver: the poll describes fragments without consuming them (the
//! same fragments again until committed, the publisher held back meanwhile), a commit
//! consumes exactly up to the fragment it names, every message arrives once and in order
//! across term ends (padding), descriptors carry the header's fields, images take turns,
//! and NULL arguments are EINVAL.

use std::ffi::{CStr, CString, c_int, c_void};
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
use aeronrs::ffi::error::{aeron_errcode, aeron_errmsg};
use aeronrs::ffi::exclusive_publication::{
    aeron_exclusive_publication_close, aeron_exclusive_publication_constants,
    aeron_exclusive_publication_is_connected, aeron_exclusive_publication_offer,
    aeron_exclusive_publication_t,
};
use aeronrs::ffi::extras::poll_batch::{
    aeronrs_fragment_batch_commit, aeronrs_fragment_descriptor_t, aeronrs_subscription_poll_batch,
};
use aeronrs::ffi::image::aeron_image_position;
use aeronrs::ffi::publication::aeron_publication_constants_t;
use aeronrs::ffi::subscription::{
    aeron_subscription_close, aeron_subscription_image_count, aeron_subscription_t,
};
use aeronrs::util::idle_strategy::IdleStrategy;

const WAIT: Duration = Duration::from_secs(20);
const STREAM_ID: i32 = 1001;
/// 64 KiB terms: 100-byte messages (160-byte frames) leave padding at every term's end.
const CHANNEL: &str = "aeron:ipc?term-length=64k";
const BACK_PRESSURED: i64 = -2;
const EINVAL: c_int = 22;

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
        timer_interval_ns: 10_000_000,
        ..DriverContext::default()
    })
    .unwrap()
}

/// A C client, closed on drop (after everything it made).
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
            assert_eq!(aeron_init(&mut client, context), 0, "{}", errmsg());
            assert_eq!(aeron_start(client), 0, "{}", errmsg());
        }
        Self { context, client }
    }

    fn publication(&self) -> *mut aeron_exclusive_publication_t {
        let (mut add, mut publication) = (ptr::null_mut(), ptr::null_mut());
        let channel = CString::new(CHANNEL).unwrap();
        // SAFETY: an open client, valid out-pointers, polled on this thread only.
        unsafe {
            assert_eq!(
                aeron_async_add_exclusive_publication(&mut add, self.client, channel.as_ptr(), STREAM_ID),
                0
            );
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

    fn subscription(&self) -> *mut aeron_subscription_t {
        let (mut add, mut subscription) = (ptr::null_mut(), ptr::null_mut());
        let channel = CString::new(CHANNEL).unwrap();
        // SAFETY: as in `publication`; no image handlers.
        unsafe {
            let rc = aeron_async_add_subscription(
                &mut add,
                self.client,
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

/// Message `i` of `publication`'s stream: 100 bytes, its index then a pattern.
fn message(tag: u8, i: u32) -> [u8; 100] {
    let mut bytes = [tag; 100];
    bytes[..4].copy_from_slice(&i.to_le_bytes());
    for (k, b) in bytes[4..].iter_mut().enumerate() {
        *b = tag ^ (i as u8).wrapping_add(k as u8);
    }
    bytes
}

/// The reserved value each frame carries: the message's index.
unsafe extern "C" fn index_as_reserved_value(_: *mut c_void, buffer: *mut u8, _: usize) -> i64 {
    // SAFETY: the supplier gets the whole frame, header (32 bytes) first, then the payload
    // whose first 4 bytes are the index.
    let index = unsafe { std::slice::from_raw_parts(buffer.add(32), 4) };
    i64::from(u32::from_le_bytes(index.try_into().unwrap()))
}

/// Offers message `i`; the result (a position, or a negative code).
fn offer(publication: *mut aeron_exclusive_publication_t, tag: u8, i: u32) -> i64 {
    let bytes = message(tag, i);
    // SAFETY: an open publication, 100 readable bytes, a supplier that reads only the frame.
    unsafe {
        aeron_exclusive_publication_offer(
            publication,
            bytes.as_ptr(),
            bytes.len(),
            Some(index_as_reserved_value),
            ptr::null_mut(),
        )
    }
}

fn offer_until_accepted(publication: *mut aeron_exclusive_publication_t, tag: u8, i: u32) {
    wait_for("offer accepted", || match offer(publication, tag, i) {
        position if position > 0 => true,
        BACK_PRESSURED | -3 => false,
        other => panic!("offer {i}: {other}"),
    });
}

fn poll(subscription: *mut aeron_subscription_t, batch: &mut [aeronrs_fragment_descriptor_t]) -> usize {
    // SAFETY: an open subscription polled by this thread; `batch` has room for its length.
    let count = unsafe { aeronrs_subscription_poll_batch(subscription, batch.as_mut_ptr(), batch.len()) };
    assert!(count >= 0, "{}", errmsg());
    count as usize
}

fn commit(descriptors: &[aeronrs_fragment_descriptor_t]) {
    // SAFETY: descriptors of the latest poll of a subscription this thread polls.
    let result = unsafe { aeronrs_fragment_batch_commit(descriptors.as_ptr(), descriptors.len()) };
    assert_eq!(result, 0, "{}", errmsg());
}

fn payload(descriptor: &aeronrs_fragment_descriptor_t) -> &[u8] {
    // SAFETY: an uncommitted descriptor of the latest poll: `length` bytes in the mapped log.
    unsafe { std::slice::from_raw_parts(descriptor.buffer, descriptor.length) }
}

fn empty_batch(n: usize) -> Vec<aeronrs_fragment_descriptor_t> {
    vec![
        aeronrs_fragment_descriptor_t {
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
        };
        n
    ]
}

fn session_id(publication: *mut aeron_exclusive_publication_t) -> i32 {
    let mut constants = std::mem::MaybeUninit::<aeron_publication_constants_t>::uninit();
    // SAFETY: an open publication and a writable struct, initialised on 0.
    unsafe {
        assert_eq!(aeron_exclusive_publication_constants(publication, constants.as_mut_ptr()), 0);
        constants.assume_init().session_id
    }
}

#[test]
fn null_arguments_are_einval() {
    let mut batch = empty_batch(1);
    // SAFETY: NULL handles are what is tested; `batch` has room for one entry.
    unsafe {
        assert_eq!(aeronrs_subscription_poll_batch(ptr::null_mut(), batch.as_mut_ptr(), 1), -1);
        assert_eq!(aeron_errcode(), EINVAL);
        assert!(errmsg().contains("subscription must not be NULL"), "{}", errmsg());
        assert_eq!(aeronrs_fragment_batch_commit(ptr::null(), 1), -1);
        assert_eq!(aeron_errcode(), EINVAL);
        assert!(errmsg().contains("descriptors must not be NULL"), "{}", errmsg());
        assert_eq!(aeronrs_fragment_batch_commit(ptr::null(), 0), 0, "nothing to commit");
    }

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = driver(&dir);
    let client = Client::connect(&dir);
    let subscription = client.subscription();
    // SAFETY: an open subscription; NULL descriptors are what is tested.
    unsafe {
        assert_eq!(aeronrs_subscription_poll_batch(subscription, ptr::null_mut(), 4), -1);
        assert_eq!(aeron_errcode(), EINVAL);
        assert!(errmsg().contains("descriptors must not be NULL"), "{}", errmsg());
        assert_eq!(aeronrs_subscription_poll_batch(subscription, ptr::null_mut(), 0), 0, "an empty poll");
        aeron_subscription_close(subscription, None, ptr::null_mut());
    }
}

#[test]
fn describes_without_consuming_until_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = driver(&dir);
    let client = Client::connect(&dir);
    let subscription = client.subscription();
    let publication = client.publication();
    // SAFETY: an open publication.
    wait_for("connected", || unsafe { aeron_exclusive_publication_is_connected(publication) });
    let session = session_id(publication);
    for i in 0..10 {
        offer_until_accepted(publication, 7, i);
    }
    let mut batch = empty_batch(16);
    wait_for("10 fragments", || poll(subscription, &mut batch) == 10);

    for (i, d) in batch[..10].iter().enumerate() {
        assert_eq!(payload(d), message(7, i as u32), "fragment {i}");
        assert_eq!(d.reserved_value, i as i64);
        assert_eq!((d.session_id, d.stream_id), (session, STREAM_ID));
        assert_eq!(d.frame_length, 132);
        assert_eq!(d.term_offset, i as i32 * 160);
        assert_eq!(d.term_id, d.initial_term_id, "first term");
        assert_eq!(d.position, (i as i64 + 1) * 160);
        assert_eq!(d.position_bits_to_shift, 16);
        assert_eq!((d.flags, d.frame_type, d.version), (0xC0, 1, 0));
        assert_eq!(d.image, batch[0].image);
        assert_eq!(d.image_correlation_id, batch[0].image_correlation_id);
    }

    // Not consumed: the same ten again, the image still at 0.
    // SAFETY: the image of the latest poll.
    assert_eq!(unsafe { aeron_image_position(batch[0].image) }, 0);
    assert_eq!(poll(subscription, &mut batch), 10);
    assert_eq!(batch[0].term_offset, 0);

    // A limit smaller than what is there.
    assert_eq!(poll(subscription, &mut batch[..4]), 4);
    assert_eq!(batch[3].position, 4 * 160);

    // Commit the first three (as a controlled poll whose handler breaks on the third).
    assert_eq!(poll(subscription, &mut batch), 10);
    commit(&batch[2..3]);
    // SAFETY: as above.
    assert_eq!(unsafe { aeron_image_position(batch[0].image) }, 3 * 160);
    assert_eq!(poll(subscription, &mut batch), 7);
    assert_eq!(payload(&batch[0]), message(7, 3));
    // Committing an older position does not move it back.
    let mut older = batch[0];
    older.position = 160;
    commit(&[older]);
    // SAFETY: as above.
    assert_eq!(unsafe { aeron_image_position(batch[0].image) }, 3 * 160);
    commit(&batch[..7]);
    assert_eq!(poll(subscription, &mut batch), 0);
    // SAFETY: opened above, closed once, nothing used after.
    unsafe {
        aeron_exclusive_publication_close(publication, None, ptr::null_mut());
        aeron_subscription_close(subscription, None, ptr::null_mut());
    }
}

#[test]
fn an_uncommitted_batch_holds_the_publisher_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = driver(&dir);
    let client = Client::connect(&dir);
    let subscription = client.subscription();
    let publication = client.publication();
    // SAFETY: an open publication.
    wait_for("connected", || unsafe { aeron_exclusive_publication_is_connected(publication) });
    // Fill the publication window (half a term for IPC).
    let mut sent = 0u32;
    loop {
        match offer(publication, 3, sent) {
            position if position > 0 => sent += 1,
            BACK_PRESSURED => break,
            other => panic!("offer {sent}: {other}"),
        }
    }
    assert!(sent > 100, "{sent} messages fill the window");
    let mut batch = empty_batch(sent as usize + 8);
    let described = poll(subscription, &mut batch);
    assert!(described > 0);
    // The driver's conductor had many cycles to see a consumer move, and none did.
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(offer(publication, 3, sent), BACK_PRESSURED, "nothing was consumed");
    }
    for (i, d) in batch[..described].iter().enumerate() {
        assert_eq!(payload(d), message(3, i as u32), "described fragment {i} is intact");
    }
    commit(&batch[..described]);
    offer_until_accepted(publication, 3, sent);
    // SAFETY: opened above, closed once.
    unsafe {
        aeron_exclusive_publication_close(publication, None, ptr::null_mut());
        aeron_subscription_close(subscription, None, ptr::null_mut());
    }
}

#[test]
fn two_images_every_message_once_and_in_order_across_terms() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let _driver = driver(&dir);
    let client = Client::connect(&dir);
    let subscription = client.subscription();
    let publications = [client.publication(), client.publication()];
    // SAFETY: open publication and subscription handles.
    wait_for("two images", || unsafe { aeron_subscription_image_count(subscription) } == 2);
    let sessions = publications.map(session_id);
    // 5,000 messages of 160-byte frames each: 12 terms, each ending in padding.
    const COUNT: u32 = 5000;
    let mut next_sent = [0u32; 2];
    let mut next_seen = [0u32; 2];
    let mut first_images = Vec::new();
    let mut batch = empty_batch(64);
    let deadline = Instant::now() + WAIT;
    while next_seen != [COUNT; 2] {
        assert!(Instant::now() < deadline, "received {next_seen:?} of {COUNT} each");
        for (p, publication) in publications.iter().enumerate() {
            while next_sent[p] < COUNT && offer(*publication, p as u8, next_sent[p]) > 0 {
                next_sent[p] += 1;
            }
        }
        let count = poll(subscription, &mut batch);
        if count == 0 {
            std::thread::yield_now();
            continue;
        }
        first_images.push(batch[0].session_id);
        // A controlled handler that stops each image at its 5th fragment: commit per image
        // run up to there.
        let mut start = 0;
        while start < count {
            let run = batch[start..count].iter().take_while(|d| d.image == batch[start].image).count();
            let taken = run.min(5);
            for d in &batch[start..start + taken] {
                let p = sessions.iter().position(|s| *s == d.session_id).expect("a known session");
                let index = u32::from_le_bytes(payload(d)[..4].try_into().unwrap());
                assert_eq!(index, next_seen[p], "session {p}: each message once, in order");
                assert_eq!(payload(d), message(p as u8, index));
                assert_eq!(d.reserved_value, i64::from(index));
                next_seen[p] += 1;
            }
            commit(&batch[start + taken - 1..start + taken]);
            start += run;
        }
    }
    assert!(
        first_images.iter().any(|s| *s == sessions[0]) && first_images.iter().any(|s| *s == sessions[1]),
        "polls start at each image in turn"
    );
    // SAFETY: opened above, closed once.
    unsafe {
        for publication in publications {
            aeron_exclusive_publication_close(publication, None, ptr::null_mut());
        }
        aeron_subscription_close(subscription, None, ptr::null_mut());
    }
}
