//! Keeps segment files' set-up and tear-down off the path of a writer or reader, on a
//! thread of its own (what Chronicle Queue's pretoucher does):
//!
//! - As soon as its owner enters segment `n`, the thread creates, sizes and maps segment
//!   `n + 1`, then maps its pages ahead of the owner in steps of [`STEP_BYTES`]
//!   (`MADV_POPULATE_WRITE` for a writer, `_READ` for a reader). Rolling over then costs
//!   the owner a hand-over instead of a file creation, an `mmap` and a page fault per page.
//!   A segment taken before its pages are all mapped is finished while the owner uses it.
//! - Segments the owner left behind are handed back here and unmapped in steps
//!   ([`crate::concurrent::mapped_file::release_pages`]) before the mapping is dropped, so
//!   no `munmap` of a fully mapped segment runs on the owner's thread or holds the
//!   process's mapping lock for long.
//!
//! The prepared segment is an ordinary segment file (`<name>.<n>`, `limit` initialised), so
//! every process sees the same file whoever created it. A segment prepared but not yet
//! reached is empty while its predecessor still has room; [`super::segment::current_index`]
//! treats such a segment as not yet current, so writers and live readers opening the bus
//! meanwhile start where records are still being appended.
//!
//! Failures in the background are dropped: the owner then opens the segment itself at
//! roll-over and gets the error there, or takes the page faults the prefault would have
//! saved it.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use super::layout::SegmentLayout;
use super::segment::Segment;
use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::{self, PageAccess};
use crate::util::error::{Error, Result};

/// Bytes of pages mapped or released per step: 32 pages of 4 KiB, a few tens of
/// microseconds of work, so a stop or a newer request waits at most that long.
pub(crate) const STEP_BYTES: usize = 128 * 1024;
/// Segments left behind that may wait for release at once; an owner that rolls over faster
/// than the thread releases drops the next one itself rather than queueing without bound.
const RETIRED_CAPACITY: usize = 2;

struct State {
    /// The segment asked for and not yet picked up by the thread.
    wanted: Option<u64>,
    /// The segment prepared, waiting to be taken.
    ready: Option<Segment>,
    /// Pages of the segment the owner starts in, to map first.
    start_pages: Option<Prefault>,
    /// Segments the owner left, to release; capacity [`RETIRED_CAPACITY`], reserved up
    /// front so handing one over never allocates.
    retired: Vec<Segment>,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent whatever a panicking holder did: every field is
        // replaced whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A background thread that prepares the next segment and releases left-behind ones.
pub(crate) struct SegmentPreparer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl SegmentPreparer {
    /// Starts the thread for the bus at `base`; `access` is how the owner uses pages.
    pub fn start(base: PathBuf, layout: SegmentLayout, access: PageAccess) -> Result<Self> {
        let state = State {
            wanted: None,
            ready: None,
            start_pages: None,
            retired: Vec::with_capacity(RETIRED_CAPACITY),
            stop: false,
        };
        let shared = Arc::new(Shared { state: Mutex::new(state), wake: Condvar::new() });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("bus-prepare".into())
            .spawn(move || run(&worker, &base, layout, access))
            .map_err(|e| Error::io(&e, "start the bus segment preparer thread"))?;
        Ok(Self { shared, thread: Some(thread) })
    }

    /// Asks for segment `index` to be prepared (a segment prepared earlier and not taken is
    /// released: the caller has moved on).
    pub fn prepare(&self, index: u64) {
        let mut state = self.shared.lock();
        let stale = match &state.ready {
            Some(segment) if segment.index() != index => state.ready.take(),
            _ => None,
        };
        if state.ready.is_none() {
            state.wanted = Some(index);
            self.shared.wake.notify_one();
        }
        drop(state);
        if let Some(stale) = stale {
            self.retire(stale);
        }
    }

    /// Maps the pages of `segment`, which the owner is in, from `from` on (ahead of the
    /// owner, before anything else), so opening a bus does not wait for them.
    pub fn prefault_current(&self, segment: &Segment, from: usize) {
        let page = crate::util::sys::page_size();
        let next = from.min(segment.buffer().capacity()) & !(page - 1);
        let pages = Prefault { index: segment.index(), buffer: segment.buffer().clone(), next };
        self.shared.lock().start_pages = Some(pages);
        self.shared.wake.notify_one();
    }

    /// Segment `index` if it is prepared; `None` when it is not (yet), and the caller opens
    /// it itself.
    pub fn take(&self, index: u64) -> Option<Segment> {
        let mut state = self.shared.lock();
        match &state.ready {
            Some(segment) if segment.index() == index => state.ready.take(),
            _ => None,
        }
    }

    /// Hands over a segment the caller has left for good, to be released in steps. When
    /// [`RETIRED_CAPACITY`] segments wait already, the caller's thread drops it at once.
    pub fn retire(&self, segment: Segment) {
        let mut state = self.shared.lock();
        if state.retired.len() < RETIRED_CAPACITY {
            state.retired.push(segment);
            self.shared.wake.notify_one();
            return;
        }
        drop(state);
        drop(segment);
    }
}

impl Drop for SegmentPreparer {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            // At most one step's work to wait for.
            let _ = thread.join();
        }
    }
}

/// Pages of a prepared segment still to map.
struct Prefault {
    index: u64,
    /// The same mapping as the prepared segment's (a second handle, not a second mapping),
    /// so the work goes on after the owner took the segment.
    buffer: AtomicBuffer,
    next: usize,
}

impl Prefault {
    /// Maps the next step of pages; true when the segment is done (or cannot be mapped).
    fn step(&mut self, access: PageAccess, layout: SegmentLayout) -> bool {
        if access == PageAccess::Write {
            // Pages below the writers' `limit` are mapped already, by their writes.
            let limit = usize::try_from(self.buffer.get_i64_acquire(0)).unwrap_or(0);
            let page = crate::util::sys::page_size();
            self.next = self.next.max(limit.min(layout.file_length()) & !(page - 1));
        }
        let length = STEP_BYTES.min(self.buffer.capacity() - self.next);
        if length == 0 || mapped_file::prefault_pages(&self.buffer, self.next, length, access).is_err() {
            return true;
        }
        self.next += length;
        self.next == self.buffer.capacity()
    }
}

/// A left-behind segment being released.
struct Release {
    segment: Segment,
    next: usize,
}

impl Release {
    /// Releases the next step of pages; true when all are (the mapping is then dropped).
    fn step(&mut self) -> bool {
        let capacity = self.segment.buffer().capacity();
        let length = STEP_BYTES.min(capacity - self.next);
        if length == 0 || mapped_file::release_pages(self.segment.buffer(), self.next, length).is_err() {
            return true;
        }
        self.next += length;
        self.next == capacity
    }
}

fn run(shared: &Shared, base: &Path, layout: SegmentLayout, access: PageAccess) {
    let mut prefault: Option<Prefault> = None;
    let mut release: Option<Release> = None;
    let mut state = shared.lock();
    loop {
        if state.stop {
            return;
        }
        if let Some(pages) = state.start_pages.take() {
            prefault = Some(pages);
        }
        // A segment the owner has left already needs no more pages.
        if prefault.as_ref().is_some_and(|p| {
            state.retired.iter().any(|s| s.index() == p.index)
                || release.as_ref().is_some_and(|r| r.segment.index() == p.index)
        }) {
            prefault = None;
        }
        // Order of work: the pages of the segment the owner is in or enters next, then a
        // newly asked-for segment, then releases.
        if let Some(work) = prefault.as_mut() {
            drop(state);
            if work.step(access, layout) {
                prefault = None;
            }
            state = shared.lock();
            continue;
        }
        if let Some(index) = state.wanted.take() {
            drop(state);
            // The slow part, unlocked: create and size the file and map it.
            let prepared = Segment::open_or_create(base, index, layout).ok();
            state = shared.lock();
            // Kept only if nothing newer was asked for meanwhile.
            match prepared {
                Some(segment) if state.wanted.is_none() => {
                    prefault = Some(Prefault { index, buffer: segment.buffer().clone(), next: 0 });
                    state.ready = Some(segment);
                }
                // Its pages are not mapped yet, so dropping it here is cheap.
                Some(_) | None => {}
            }
            continue;
        }
        if release.is_none() {
            release = state.retired.pop().map(|segment| Release { segment, next: 0 });
        }
        if let Some(work) = release.as_mut() {
            drop(state);
            if work.step() {
                release = None; // drops the mapping, now without pages
            }
            state = shared.lock();
            continue;
        }
        state = shared.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mappedbus::layout::RecordMode;
    use std::time::{Duration, Instant};

    fn layout() -> SegmentLayout {
        SegmentLayout::new(64 * 1024, RecordMode::FixedSize { record_size: 12 }).unwrap()
    }

    fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn prepares_the_segment_asked_for_and_hands_it_over_once() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let preparer = SegmentPreparer::start(base.clone(), layout(), PageAccess::Write).unwrap();
        assert!(preparer.take(3).is_none(), "nothing asked for yet");
        preparer.prepare(3);
        let mut segment = None;
        wait_until("segment 3 never prepared", || {
            segment = preparer.take(3);
            segment.is_some()
        });
        let segment = segment.unwrap();
        assert_eq!((segment.index(), segment.limit().unwrap()), (3, 8));
        assert!(Segment::path_of(&base, 3).exists());
        assert!(preparer.take(3).is_none(), "handed over once");
    }

    #[test]
    fn a_prepared_segment_of_another_index_is_not_handed_over() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let preparer = SegmentPreparer::start(base.clone(), layout(), PageAccess::Read).unwrap();
        preparer.prepare(1);
        wait_until("segment 1 never prepared", || preparer.shared.lock().ready.is_some());
        assert!(preparer.take(2).is_none());
        preparer.prepare(2);
        assert!(preparer.take(1).is_none(), "released when the caller moved on");
        drop(preparer); // joins the thread
    }

    #[test]
    fn retired_segments_are_released_and_their_bytes_kept() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let preparer = SegmentPreparer::start(base.clone(), layout(), PageAccess::Write).unwrap();
        for index in 0..4 {
            let segment = Segment::open_or_create(&base, index, layout()).unwrap();
            segment.buffer().put_i32(20_000, 100 + index as i32);
            preparer.retire(segment); // the last two may be dropped here: capacity 2
        }
        wait_until("retired segments never released", || preparer.shared.lock().retired.is_empty());
        drop(preparer);
        for index in 0..4u64 {
            let bytes = std::fs::read(Segment::path_of(&base, index)).unwrap();
            assert_eq!(&bytes[20_000..20_004], &(100 + index as i32).to_le_bytes());
        }
    }
}
