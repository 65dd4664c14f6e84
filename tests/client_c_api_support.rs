//! What the client gained for the C API, against each media driver (real Java Aeron, and
//! our `aeronmd`): init before start, static counters, handlers added at run time, image
//! handlers that query their subscription through its view, bounded polls and controlled
//! peeks, and the image a fragment came from.
mod client_support;

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, ControlledPollAction, Header, NOT_CONNECTED, Publication,
    Subscription,
};
use client_support::{ErrorLog, TestDriver, context, driver_tests, wait_until};

const WAIT: Duration = Duration::from_secs(20);

fn offer(publication: &Publication, message: &[u8]) -> i64 {
    loop {
        let result = publication.offer(message).expect("offer");
        if result > 0 {
            return result;
        }
        assert!(
            result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
            "offer: {result}"
        );
        std::thread::yield_now();
    }
}

fn connected_pair(aeron: &Aeron, stream_id: i32) -> (Publication, Subscription) {
    let channel = "aeron:ipc?term-length=64k";
    let subscription = aeron.add_subscription(channel, stream_id).expect("subscription");
    let publication = aeron.add_publication(channel, stream_id).expect("publication");
    wait_until(WAIT, "image", || publication.is_connected() && subscription.image_count() == 1);
    (publication, subscription)
}

fn commands_sent_before_start_complete_after_it(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let roles = Arc::new(Mutex::new(Vec::new()));
    let mut ctx = context(driver.aeron_dir(), &log);
    let seen = Arc::clone(&roles);
    ctx.set_agent_on_start(move |role| seen.lock().unwrap().push(role.to_string()));
    let aeron = Aeron::init(ctx).expect("init");
    let mut pending = aeron.async_add_publication("aeron:ipc", 1).expect("async add");
    assert!(roles.lock().unwrap().is_empty(), "not started yet");
    aeron.start().expect("start");
    aeron.start().expect("start again is harmless");
    let mut publication = None;
    wait_until(WAIT, "publication", || {
        publication = pending.poll().expect("poll");
        publication.is_some()
    });
    wait_until(WAIT, "start hook", || !roles.lock().unwrap().is_empty());
    assert_eq!(*roles.lock().unwrap(), vec!["aeron-client-conductor".to_string()]);
    aeron.close();
    assert!(aeron.start().is_err(), "a closed client does not start");
}

fn static_counters_are_found_again_and_outlive_close(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let first = aeron.add_static_counter(3003, b"key", "static", 4242).expect("static counter");
    let again = aeron.add_static_counter(3003, b"key", "static", 4242).expect("same static counter");
    assert_eq!(first.counter_id(), again.counter_id());
    assert_eq!(first.registration_id(), 4242);
    assert!(first.is_static());
    first.set(17);
    assert_eq!(again.get(), 17);
    let reader = aeron.counters_reader();
    assert_eq!(reader.counter_owner_id(first.counter_id()).unwrap(), -1, "owned by no client");
    let id = first.counter_id();
    first.close();
    again.close();
    assert!(first.is_closed());
    // Still allocated after the remove would have been processed.
    let probe = aeron.add_counter(3004, &[], "probe").expect("round trip");
    drop(probe);
    assert_eq!(reader.find_by_type_id_and_registration_id(3003, 4242), Some(id));
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn handlers_added_at_run_time_are_called_until_removed(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let available = Arc::new(AtomicI64::new(0));
    let unavailable = Arc::new(AtomicI64::new(0));
    let closes = Arc::new(AtomicUsize::new(0));
    let a = Arc::clone(&available);
    let u = Arc::clone(&unavailable);
    let c = Arc::clone(&closes);
    let available_id = aeron
        .add_available_counter_handler(move |registration_id, _| a.store(registration_id, Ordering::Release));
    let unavailable_id = aeron.add_unavailable_counter_handler(move |registration_id, _| {
        u.store(registration_id, Ordering::Release)
    });
    aeron.add_close_handler(move || {
        c.fetch_add(1, Ordering::AcqRel);
    });
    let counter = aeron.add_counter(3005, &[], "watched").expect("counter");
    let registration_id = counter.registration_id();
    wait_until(WAIT, "available", || available.load(Ordering::Acquire) == registration_id);
    counter.close();
    wait_until(WAIT, "unavailable", || unavailable.load(Ordering::Acquire) == registration_id);

    assert!(aeron.remove_available_counter_handler(available_id));
    assert!(!aeron.remove_available_counter_handler(available_id), "removed once");
    assert!(aeron.remove_unavailable_counter_handler(unavailable_id));
    let unwatched = aeron.add_counter(3005, &[], "unwatched").expect("counter");
    let _ = aeron.add_counter(3006, &[], "round trip").expect("round trip");
    assert_eq!(available.load(Ordering::Acquire), registration_id, "removed handlers are not called");
    drop(unwatched);
    aeron.close();
    assert_eq!(closes.load(Ordering::Acquire), 1);
}

fn image_handlers_query_their_subscription_through_the_view(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let mut pending = aeron
        .async_add_subscription_with_view("aeron:ipc", 7, move |view| {
            let on_available = Arc::clone(&record);
            let available_view = view.clone();
            let on_unavailable = Arc::clone(&record);
            let available: aeronrs::client::context::ImageHandler = Arc::new(move |image| {
                let count = available_view.image_count();
                let found = available_view.image_by_session_id(image.session_id()).is_some();
                on_available.lock().unwrap().push((
                    "available",
                    count,
                    found,
                    available_view.registration_id(),
                ));
            });
            let unavailable: aeronrs::client::context::ImageHandler = Arc::new(move |image| {
                let found = view.image_by_session_id(image.session_id()).is_some();
                on_unavailable.lock().unwrap().push((
                    "unavailable",
                    view.image_count(),
                    found,
                    view.registration_id(),
                ));
            });
            (Some(available), Some(unavailable))
        })
        .expect("async add subscription");
    let registration_id = pending.registration_id();
    let mut subscription = None;
    wait_until(WAIT, "subscription", || {
        subscription = pending.poll().expect("poll");
        subscription.is_some()
    });
    let subscription = subscription.unwrap();
    let view = subscription.view();
    let publication = aeron.add_publication("aeron:ipc", 7).expect("publication");
    wait_until(WAIT, "available", || !seen.lock().unwrap().is_empty());
    assert_eq!(seen.lock().unwrap()[0], ("available", 1, true, registration_id));
    assert!(view.is_connected());
    assert_eq!(view.channel_status(), 1);
    drop(publication);
    wait_until(WAIT, "unavailable", || seen.lock().unwrap().len() == 2);
    assert_eq!(seen.lock().unwrap()[1], ("unavailable", 0, false, registration_id));
    drop(subscription);
    assert!(view.is_closed(), "a view of a dropped subscription reports closed");
    assert_eq!(view.image_count(), 0);
    assert_eq!(view.registration_id(), -1);
}

fn bounded_polls_peeks_and_fragment_images(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let (publication, mut subscription) = connected_pair(&aeron, 8);
    for message in [b"m0", b"m1", b"m2", b"m3"] {
        offer(&publication, message);
    }
    let image = subscription.image_at_index(0).expect("image");
    let mut texts = Vec::new();
    // Frames at 0, 64, 128, 192: a limit of 65 still takes the frame that starts at 64.
    let n = image.bounded_poll(|payload: &[u8], _: &Header| texts.push(payload.to_vec()), 65, 10);
    assert_eq!(n, 2);
    assert_eq!(image.position(), 128);
    assert_eq!(image.bounded_poll(|_: &[u8], _: &Header| {}, 128, 10), 0, "nothing before the limit");

    // A peek delivers without consuming; ABORT stops before, BREAK after its fragment.
    let mut peeked = Vec::new();
    let end = image
        .controlled_peek(
            128,
            |payload: &[u8], _: &Header| {
                peeked.push(payload.to_vec());
                ControlledPollAction::Continue
            },
            1 << 20,
        )
        .expect("peek");
    assert_eq!((end, peeked.len()), (256, 2));
    assert_eq!(image.position(), 128, "peeking consumes nothing");
    let end =
        image.controlled_peek(128, |_: &[u8], _: &Header| ControlledPollAction::Abort, 1 << 20).unwrap();
    assert_eq!(end, 128);
    let end =
        image.controlled_peek(128, |_: &[u8], _: &Header| ControlledPollAction::Break, 1 << 20).unwrap();
    assert_eq!(end, 192);
    assert!(
        image.controlled_peek(64, |_: &[u8], _: &Header| ControlledPollAction::Continue, 1 << 20).is_err()
    );
    assert!(
        image.controlled_peek(130, |_: &[u8], _: &Header| ControlledPollAction::Continue, 1 << 20).is_err()
    );

    // Bounded controlled poll: COMMIT stores the position at once.
    let n = image.bounded_controlled_poll(|_: &[u8], _: &Header| ControlledPollAction::Commit, 193, 10);
    assert_eq!(n, 2);
    assert_eq!(image.position(), 256);

    // Subscription polls name the image of each fragment.
    offer(&publication, b"m4");
    let mut images = Vec::new();
    wait_until(WAIT, "m4", || {
        subscription.poll_with_image(
            |_: &[u8], header: &Header, from: &Arc<aeronrs::client::Image>| {
                images.push((from.session_id(), header.session_id(), header.next_term_offset()));
            },
            10,
        ) == 1
    });
    assert_eq!(images, vec![(image.session_id(), image.session_id(), 320)]);
    offer(&publication, b"m5");
    let mut controlled = 0;
    wait_until(WAIT, "m5", || {
        subscription.controlled_poll_with_image(
            |_: &[u8], _: &Header, from: &Arc<aeronrs::client::Image>| {
                assert_eq!(from.session_id(), image.session_id());
                controlled += 1;
                ControlledPollAction::Continue
            },
            10,
        ) == 1
    });
    assert_eq!(controlled, 1);
    assert_eq!(image.source_identity_c().to_str().unwrap(), image.source_identity());
}

driver_tests!(
    commands_sent_before_start_complete_after_it,
    static_counters_are_found_again_and_outlive_close,
    handlers_added_at_run_time_are_called_until_removed,
    image_handlers_query_their_subscription_through_the_view,
    bounded_polls_peeks_and_fragment_images,
);
