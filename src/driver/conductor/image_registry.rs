//! The conductor's halves of the publication images (`spec/driver.md` §4.3): each found by
//! its correlation id, tracked every duty cycle (rebuild progress, status messages, loss,
//! with the loss report they record gaps in), and taken out only at its end of life (done,
//! and released by the receiver).
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersManager;
use crate::driver::conductor::publication_image::ImageEntry;
use crate::driver::loss::LossReport;
use crate::driver::position_counters::free_counter;

pub(crate) struct ImageRegistry {
    images: Vec<ImageEntry>,
    loss_report: LossReport,
}

impl ImageRegistry {
    pub(crate) fn new(loss_report: LossReport) -> Self {
        Self { images: Vec::new(), loss_report }
    }

    pub(crate) fn len(&self) -> usize {
        self.images.len()
    }

    pub(crate) fn get(&self, index: usize) -> &ImageEntry {
        &self.images[index]
    }

    pub(crate) fn get_mut(&mut self, index: usize) -> &mut ImageEntry {
        &mut self.images[index]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &ImageEntry> {
        self.images.iter()
    }

    pub(crate) fn index_of(&self, correlation_id: i64) -> Option<usize> {
        self.images.iter().position(|i| i.correlation_id() == correlation_id)
    }

    pub(crate) fn find(&self, correlation_id: i64) -> Option<&ImageEntry> {
        self.images.iter().find(|i| i.correlation_id() == correlation_id)
    }

    /// Adds a new image; its index.
    pub(crate) fn add(&mut self, image: ImageEntry) -> usize {
        self.images.push(image);
        self.images.len() - 1
    }

    /// Duty cycle: every image's rebuild progress; how much work that was.
    pub(crate) fn track_rebuilds(&mut self, now_ns: i64, now_ms: i64) -> i32 {
        let mut work = 0;
        for image in &mut self.images {
            work += image.track_rebuild(now_ns, now_ms, &mut self.loss_report);
        }
        work
    }

    /// Subscription `registration_id` is gone: it reads no image any more.
    pub(crate) fn unlink_subscriber(
        &mut self,
        registration_id: i64,
        counters: &mut CountersManager,
        now_ms: i64,
    ) {
        for image in &mut self.images {
            if let Some(position) = image.subscribers.remove(registration_id) {
                free_counter(counters, position.counter_id(), now_ms);
            }
        }
    }

    /// The receiver removed its half of image `correlation_id`.
    pub(crate) fn on_receiver_released(&mut self, correlation_id: i64) {
        if let Some(image) = self.images.iter_mut().find(|i| i.correlation_id() == correlation_id) {
            image.receiver_released = true;
        }
    }

    /// Takes out image `index` if it reached its end of life.
    pub(crate) fn take_ended(&mut self, index: usize) -> Option<ImageEntry> {
        self.images[index].has_reached_end_of_life().then(|| self.images.swap_remove(index))
    }

    /// Takes out every image (the driver is closing).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = ImageEntry> + '_ {
        self.images.drain(..)
    }
}
