//! Every threading mode serves clients; INVOKER mode is driven by `do_work` from the
//! caller's thread, and an idle duty cycle allocates nothing.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aeronrs::command::Response;
use aeronrs::driver::{MediaDriver, ThreadingMode};
use raw_client::{RawClient, test_context};

/// Counts allocations made by threads that opted in.
struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: delegates to the system allocator unchanged; the bookkeeping touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn add_publication_and_subscription(client: &mut RawClient) {
    let publication = client.add_publication("aeron:ipc", 3, false);
    assert!(matches!(client.expect_correlated(publication).response(), Response::PublicationReady(_)));
    let subscription = client.add_subscription("aeron:ipc", 3);
    client.expect(
        "image",
        |r| matches!(r, Response::AvailableImage(i) if i.subscription_registration_id == subscription),
    );
}

#[test]
fn threaded_modes_serve_clients() {
    for mode in [ThreadingMode::Dedicated, ThreadingMode::SharedNetwork, ThreadingMode::Shared] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("aeron");
        let driver = MediaDriver::launch(aeronrs::driver::DriverContext {
            threading_mode: mode,
            ..test_context(&dir)
        })
        .unwrap();
        let mut client = RawClient::connect(&dir);
        add_publication_and_subscription(&mut client);
        drop(driver);
        assert!(!dir.exists(), "{mode:?}: directory deleted on close");
    }
}

#[test]
fn invoker_mode_runs_on_the_callers_thread_without_idle_allocation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let ctx = aeronrs::driver::DriverContext { threading_mode: ThreadingMode::Invoker, ..test_context(&dir) };
    let mut driver = MediaDriver::launch(ctx).unwrap();
    assert!(driver.do_work().unwrap() >= 0);

    let stop = Arc::new(AtomicBool::new(false));
    let stop_flag = Arc::clone(&stop);
    let invoker = std::thread::spawn(move || {
        while !stop_flag.load(Ordering::Acquire) {
            let work = driver.do_work().unwrap();
            driver.idle(work);
        }
        driver
    });
    let mut client = RawClient::connect(&dir);
    add_publication_and_subscription(&mut client);
    stop.store(true, Ordering::Release);
    let mut driver = invoker.join().unwrap();

    // Idle duty cycles, timer ticks included (50 ms interval), with a live publication and
    // subscriber: no allocation.
    for _ in 0..10 {
        driver.do_work().unwrap();
    }
    COUNTING.with(|c| c.set(true));
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(300) {
        driver.do_work().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.with(Cell::get), 0, "idle conductor duty cycles allocated");
    driver.close().unwrap();
    assert!(!dir.exists());
}
