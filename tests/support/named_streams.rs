//! Helpers of the name resolution tests: streams checked message by message, counters
//! found by type and written through the CnC file.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use aeronrs::client::{ADMIN_ACTION, Aeron, BACK_PRESSURED, NOT_CONNECTED, Publication, Subscription};

use super::client_support::{fill, verify};

pub const LENGTH: usize = 64;
pub const WAIT: Duration = Duration::from_secs(30);

pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A subscription and the messages it delivered: every one intact, consecutive from the
/// first it saw.
pub struct Reader {
    pub name: &'static str,
    pub subscription: Subscription,
    pub first: Option<u64>,
    pub next: u64,
}

impl Reader {
    pub fn new(name: &'static str, subscription: Subscription) -> Self {
        Self { name, subscription, first: None, next: 0 }
    }

    pub fn poll(&mut self) -> usize {
        let (name, first, next) = (self.name, &mut self.first, &mut self.next);
        self.subscription.poll(
            |message, _| {
                let i = u64::from_le_bytes(message[..8].try_into().unwrap());
                if first.is_none() {
                    *first = Some(i);
                    *next = i;
                }
                if let Err(e) = verify(message, *next, LENGTH) {
                    panic!("{name}: {e}");
                }
                *next += 1;
            },
            64,
        )
    }

    pub fn delivered(&self) -> u64 {
        self.first.map_or(0, |f| self.next - f)
    }
}

/// Offers messages from `*i` on while polling `readers`, until `done` holds.
pub fn stream_until(
    publication: &Publication,
    i: &mut u64,
    readers: &mut [&mut Reader],
    what: &str,
    mut done: impl FnMut(&[&mut Reader]) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    let mut message = vec![0u8; LENGTH];
    while !done(readers) {
        fill(&mut message, *i);
        let result = publication.offer(&message).expect("offer");
        if result > 0 {
            *i += 1;
        } else {
            assert!(
                result == BACK_PRESSURED || result == NOT_CONNECTED || result == ADMIN_ACTION,
                "offer {i}: {result}"
            );
        }
        for reader in readers.iter_mut() {
            reader.poll();
        }
        let progress: Vec<_> = readers.iter().map(|r| (r.name, r.first, r.next)).collect();
        assert!(Instant::now() < deadline, "{what}: offered up to {i}; delivered {progress:?}");
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The id of the first counter of `type_id`.
pub fn counter_of_type(aeron: &Aeron, type_id: i32) -> Option<i32> {
    aeron.counters_reader().counters().into_iter().find(|c| c.type_id == type_id).map(|c| c.id)
}

pub fn counter_value(aeron: &Aeron, id: i32) -> i64 {
    aeron.counters_reader().counter_value(id).unwrap()
}

/// Writes a counter's value through the mapped CnC file, as Aeron's tests flip the CSV
/// resolver's toggles.
pub fn set_counter_value(aeron: &Aeron, id: i32, value: i64) {
    aeron.counters_reader().values_buffer().put_i64_release(id as usize * 128, value);
}

/// Waits (polling `poll`) until `done`.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}
