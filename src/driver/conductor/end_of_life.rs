//! Logs of ended publications and images (`spec/driver.md` §4): an owner that reached its
//! end of life gives up its counters at once; its log waits here to be unmapped and deleted
//! a few at a time, so a duty cycle never stalls on the file system, and a delete that
//! fails is counted (system counter 17) and tried again later.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::path::PathBuf;

use crate::concurrent::counters::CountersManager;
use crate::driver::system_counters::{SystemCounterId, SystemCounters};
use crate::logbuffer::LogBuffers;

/// What owns a log file and counters (a publication or an image): both go at end of life.
pub(crate) trait LogOwner {
    /// Frees its counters and those of whatever reads it.
    fn free_counters(&mut self, counters: &mut CountersManager, now_ms: i64);
    /// Its log file's name and its mapping.
    fn into_log(self) -> (String, LogBuffers);
}

/// A log file whose owner has ended, waiting to be unmapped and deleted.
#[derive(Debug)]
struct EndOfLifeLog {
    path: PathBuf,
    log: Option<LogBuffers>,
    length: usize,
}

/// The logs waiting to be freed, oldest first.
#[derive(Debug, Default)]
pub(crate) struct EndOfLifeLogs {
    queue: VecDeque<EndOfLifeLog>,
}

impl EndOfLifeLogs {
    /// Frees `owner`'s counters and queues its log.
    pub(crate) fn retire(&mut self, mut owner: impl LogOwner, counters: &mut CountersManager, now_ms: i64) {
        owner.free_counters(counters, now_ms);
        let (log_file_name, log) = owner.into_log();
        let length = log.buffer().capacity();
        self.queue.push_back(EndOfLifeLog { path: log_file_name.into(), log: Some(log), length });
    }

    /// Unmaps and deletes up to `limit` logs (bytes-currently-mapped, counter 35, falls by
    /// each mapping); a failed delete counts in counter 17 and goes to the back. How many
    /// were freed.
    pub(crate) fn free(&mut self, limit: usize, system: &SystemCounters) -> i32 {
        let mut freed = 0;
        for _ in 0..limit.min(self.queue.len()) {
            let Some(mut entry) = self.queue.pop_front() else { break };
            if entry.log.take().is_some() {
                system.add(SystemCounterId::BytesCurrentlyMapped, -(entry.length as i64));
            }
            match std::fs::remove_file(&entry.path) {
                Ok(()) => freed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => freed += 1,
                Err(_) => {
                    system.increment(SystemCounterId::FreeFails);
                    self.queue.push_back(entry);
                }
            }
        }
        freed
    }

    /// Driver shutdown: as many rounds of [`Self::free`] as there are logs, so each one
    /// gets its tries even when some keep failing.
    pub(crate) fn free_all(&mut self, limit: usize, system: &SystemCounters) {
        let mut attempts = self.queue.len();
        while attempts > 0 && !self.queue.is_empty() {
            self.free(limit, system);
            attempts -= 1;
        }
    }
}
