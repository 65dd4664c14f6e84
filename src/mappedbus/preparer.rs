//! Opens the next segment of a bus ahead of time, on a thread of its own, so that a writer
//! or reader reaching the end of a segment finds the next one created, sized and its pages
//! mapped (what Chronicle Queue's pretoucher does): roll-over then costs it a hand-over
//! instead of a file creation and a `MAP_POPULATE` of the whole segment.
//!
//! The prepared segment is an ordinary segment file (`<name>.<n>`, `limit` initialised), so
//! every process sees the same file whoever created it. A segment prepared but not yet
//! reached is empty while its predecessor still has room; [`super::segment::current`]
//! treats such a segment as not yet current, so writers and live readers opening the bus
//! meanwhile start where records are still being appended.
//!
//! Failures in the background are dropped: the caller then opens the segment itself at
//! roll-over and gets the error there, on its own path.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use super::layout::SegmentLayout;
use super::segment::Segment;
use crate::util::error::{Error, Result};

#[derive(Default)]
struct State {
    /// The segment asked for and not yet picked up by the thread.
    wanted: Option<u64>,
    /// The segment prepared, waiting to be taken.
    ready: Option<Segment>,
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

/// A background thread that prepares one segment at a time, on request.
pub(crate) struct SegmentPreparer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl SegmentPreparer {
    /// Starts the thread for the bus at `base`.
    pub fn start(base: PathBuf, layout: SegmentLayout) -> Result<Self> {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), wake: Condvar::new() });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("bus-prepare".into())
            .spawn(move || run(&worker, &base, layout))
            .map_err(|e| Error::io(&e, "start the bus segment preparer thread"))?;
        Ok(Self { shared, thread: Some(thread) })
    }

    /// Asks for segment `index` to be prepared (a segment prepared earlier and not taken is
    /// released: the caller has moved on).
    pub fn prepare(&self, index: u64) {
        let mut state = self.shared.lock();
        if state.ready.as_ref().is_some_and(|s| s.index() != index) {
            state.ready = None;
        }
        if state.ready.is_none() {
            state.wanted = Some(index);
            self.shared.wake.notify_one();
        }
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
}

impl Drop for SegmentPreparer {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            // At most one segment's preparation to wait for.
            let _ = thread.join();
        }
    }
}

fn run(shared: &Shared, base: &std::path::Path, layout: SegmentLayout) {
    let mut state = shared.lock();
    loop {
        if state.stop {
            return;
        }
        let Some(index) = state.wanted.take() else {
            state = shared.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        drop(state);
        // The slow part, unlocked: create the file and map every page of it.
        let prepared = Segment::open_or_create(base, index, layout, true).ok();
        state = shared.lock();
        // Kept only if nothing newer was asked for meanwhile.
        if state.wanted.is_none() {
            state.ready = prepared;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mappedbus::layout::RecordMode;

    fn layout() -> SegmentLayout {
        SegmentLayout::new(64 * 1024, RecordMode::FixedSize { record_size: 12 }).unwrap()
    }

    #[test]
    fn prepares_the_segment_asked_for_and_hands_it_over_once() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let preparer = SegmentPreparer::start(base.clone(), layout()).unwrap();
        assert!(preparer.take(3).is_none(), "nothing asked for yet");
        preparer.prepare(3);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let segment = loop {
            if let Some(segment) = preparer.take(3) {
                break segment;
            }
            assert!(std::time::Instant::now() < deadline, "segment 3 never prepared");
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        assert_eq!((segment.index(), segment.limit().unwrap()), (3, 8));
        assert!(Segment::path_of(&base, 3).exists());
        assert!(preparer.take(3).is_none(), "handed over once");
    }

    #[test]
    fn a_prepared_segment_of_another_index_is_not_handed_over() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let preparer = SegmentPreparer::start(base.clone(), layout()).unwrap();
        preparer.prepare(1);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !Segment::path_of(&base, 1).exists() || preparer.shared.lock().ready.is_none() {
            assert!(std::time::Instant::now() < deadline, "segment 1 never prepared");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(preparer.take(2).is_none());
        preparer.prepare(2);
        assert!(preparer.take(1).is_none(), "released when the caller moved on");
        drop(preparer); // joins the thread
    }
}
