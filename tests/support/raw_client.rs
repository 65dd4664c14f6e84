//! A bare-bones Aeron client for driver tests: it speaks the control protocol directly
//! through the to-driver ring buffer and the to-clients broadcast buffer of a `cnc.dat`,
//! and reads counters by their raw layout, so the tests check the driver's exact bytes.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aeronrs::command::{
    Command, CorrelatedMessage, CounterMessage, DestinationByIdMessage, DestinationMessage,
    PublicationMessage, RemoveMessage, Response, StaticCounterMessage, SubscriptionMessage,
    TerminateDriverMessage,
};
use aeronrs::concurrent::AtomicBuffer;
use aeronrs::concurrent::broadcast::{BroadcastReceiver, CopyBroadcastReceiver};
use aeronrs::concurrent::mapped_file::map_existing;
use aeronrs::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use aeronrs::driver::{DriverContext, ThreadingMode};
use aeronrs::util::clock::epoch_ms;
use aeronrs::util::idle_strategy::IdleStrategy;

pub const CNC_VERSION: i32 = 512;
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A driver context for tests: its own directory, small IPC terms, a quick timer, and an
/// idle strategy that sleeps (the machine has few cores).
pub fn test_context(dir: &Path) -> DriverContext {
    DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::Shared,
        shared_idle_strategy: IdleStrategy::Sleep(Duration::from_millis(1)),
        conductor_idle_strategy: IdleStrategy::Sleep(Duration::from_millis(1)),
        ipc_term_buffer_length: 64 * 1024,
        term_buffer_length: 64 * 1024,
        timer_interval_ns: 50_000_000,
        ..DriverContext::default()
    }
}

/// One decoded-later response record.
#[derive(Debug, Clone)]
pub struct Record {
    pub type_id: i32,
    pub body: Vec<u8>,
}

impl Record {
    pub fn response(&self) -> Response<'_> {
        Response::decode(self.type_id, &self.body).expect("driver response decodes")
    }
}

/// Views of a mapped `cnc.dat`.
pub struct Cnc {
    pub file: AtomicBuffer,
    pub to_driver: AtomicBuffer,
    pub to_clients: AtomicBuffer,
    pub counters_metadata: AtomicBuffer,
    pub counters_values: AtomicBuffer,
    pub error_log: AtomicBuffer,
}

impl Cnc {
    /// Maps `<dir>/cnc.dat` once the driver has published version 512.
    pub fn map(dir: &Path) -> Cnc {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Ok(file) = map_existing(&dir.join("cnc.dat")) {
                if file.capacity() > 128 && file.get_i32_acquire(0) == CNC_VERSION {
                    return Self::from_buffer(file);
                }
            }
            assert!(Instant::now() < deadline, "cnc.dat never became ready in {}", dir.display());
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    pub fn from_buffer(file: AtomicBuffer) -> Cnc {
        let a = file.get_i32(4) as usize;
        let b = file.get_i32(8) as usize;
        let c = file.get_i32(12) as usize;
        let d = file.get_i32(16) as usize;
        let e = file.get_i32(20) as usize;
        Cnc {
            to_driver: file.view(128, a).unwrap(),
            to_clients: file.view(128 + a, b).unwrap(),
            counters_metadata: file.view(128 + a + b, c).unwrap(),
            counters_values: file.view(128 + a + b + c, d).unwrap(),
            error_log: file.view(128 + a + b + c + d, e).unwrap(),
            file,
        }
    }

    /// The driver heartbeat: the to-driver buffer's consumer heartbeat slot.
    pub fn driver_heartbeat(&self) -> i64 {
        let capacity = self.to_driver.capacity() - 768;
        self.to_driver.get_i64_acquire(capacity + 640)
    }

    pub fn counter_state(&self, id: i32) -> i32 {
        self.counters_metadata.get_i32_acquire(id as usize * 512)
    }

    pub fn counter_type_id(&self, id: i32) -> i32 {
        self.counters_metadata.get_i32(id as usize * 512 + 4)
    }

    pub fn counter_key(&self, id: i32) -> Vec<u8> {
        let mut key = vec![0u8; 112];
        self.counters_metadata.load_bytes(id as usize * 512 + 16, &mut key);
        key
    }

    pub fn counter_label(&self, id: i32) -> String {
        let base = id as usize * 512;
        let length = self.counters_metadata.get_i32_acquire(base + 128) as usize;
        let mut label = vec![0u8; length];
        self.counters_metadata.load_bytes(base + 132, &mut label);
        String::from_utf8(label).unwrap()
    }

    pub fn counter_value(&self, id: i32) -> i64 {
        self.counters_values.get_i64_acquire(id as usize * 128)
    }

    pub fn set_counter_value(&self, id: i32, value: i64) {
        self.counters_values.put_i64_release(id as usize * 128, value)
    }

    pub fn counter_registration_id(&self, id: i32) -> i64 {
        self.counters_values.get_i64_acquire(id as usize * 128 + 8)
    }

    pub fn counter_owner_id(&self, id: i32) -> i64 {
        self.counters_values.get_i64(id as usize * 128 + 16)
    }

    pub fn counter_reference_id(&self, id: i32) -> i64 {
        self.counters_values.get_i64(id as usize * 128 + 24)
    }

    /// Value of system counter `id` (system counters are ids 0..40 on a fresh CnC).
    pub fn system_counter(&self, id: i32) -> i64 {
        self.counter_value(id)
    }

    /// Texts of the distinct error log's records.
    pub fn errors(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut offset = 0;
        while offset + 24 <= self.error_log.capacity() {
            let length = self.error_log.get_i32_acquire(offset) as usize;
            if length == 0 {
                break;
            }
            let mut text = vec![0u8; length - 24];
            self.error_log.load_bytes(offset + 24, &mut text);
            out.push(String::from_utf8_lossy(&text).into_owned());
            offset += (length + 7) & !7;
        }
        out
    }
}

/// A client identity on a driver: sends commands, collects responses.
pub struct RawClient {
    pub cnc: Cnc,
    pub dir: PathBuf,
    pub to_driver: ManyToOneRingBuffer,
    receiver: CopyBroadcastReceiver,
    pub client_id: i64,
    pub received: Vec<Record>,
}

impl RawClient {
    pub fn connect(dir: &Path) -> RawClient {
        let cnc = Cnc::map(dir);
        let to_driver = ManyToOneRingBuffer::new(cnc.to_driver.clone()).unwrap();
        let receiver = CopyBroadcastReceiver::new(BroadcastReceiver::new(cnc.to_clients.clone()).unwrap());
        let client_id = to_driver.next_correlation_id();
        RawClient { cnc, dir: dir.to_path_buf(), to_driver, receiver, client_id, received: Vec::new() }
    }

    pub fn next_id(&self) -> i64 {
        self.to_driver.next_correlation_id()
    }

    /// Writes a raw record (any type id, any body) to the driver.
    pub fn send_raw(&self, type_id: i32, body: &[u8]) {
        let deadline = Instant::now() + TIMEOUT;
        while !self.to_driver.write(type_id, body).unwrap() {
            assert!(Instant::now() < deadline, "to-driver buffer full");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    pub fn send(&self, command: Command<'_>) {
        let mut body = vec![0u8; command.encoded_length()];
        command.encode(&mut body).unwrap();
        self.send_raw(command.type_id(), &body);
    }

    fn correlated(&self) -> (CorrelatedMessage, i64) {
        let correlation_id = self.next_id();
        (CorrelatedMessage::new(self.client_id, correlation_id), correlation_id)
    }

    pub fn add_publication(&self, channel: &str, stream_id: i32, exclusive: bool) -> i64 {
        let (correlated, id) = self.correlated();
        let m = PublicationMessage { correlated, stream_id, channel: channel.as_bytes() };
        self.send(if exclusive { Command::AddExclusivePublication(m) } else { Command::AddPublication(m) });
        id
    }

    pub fn add_subscription(&self, channel: &str, stream_id: i32) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::AddSubscription(SubscriptionMessage {
            correlated,
            registration_correlation_id: -1,
            stream_id,
            channel: channel.as_bytes(),
        }));
        id
    }

    pub fn remove_publication(&self, registration_id: i64) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::RemovePublication(RemoveMessage { correlated, registration_id }));
        id
    }

    pub fn remove_subscription(&self, registration_id: i64) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::RemoveSubscription(RemoveMessage { correlated, registration_id }));
        id
    }

    fn destination<'a>(&self, registration_id: i64, channel: &'a str) -> (DestinationMessage<'a>, i64) {
        let (correlated, id) = self.correlated();
        (DestinationMessage { correlated, registration_id, channel: channel.as_bytes() }, id)
    }

    /// ADD_DESTINATION to publication `registration_id`; the id is the destination's.
    pub fn add_destination(&self, registration_id: i64, channel: &str) -> i64 {
        let (m, id) = self.destination(registration_id, channel);
        self.send(Command::AddDestination(m));
        id
    }

    pub fn remove_destination(&self, registration_id: i64, channel: &str) -> i64 {
        let (m, id) = self.destination(registration_id, channel);
        self.send(Command::RemoveDestination(m));
        id
    }

    pub fn remove_destination_by_id(&self, registration_id: i64, destination_registration_id: i64) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::RemoveDestinationById(DestinationByIdMessage {
            correlated,
            resource_registration_id: registration_id,
            destination_registration_id,
        }));
        id
    }

    /// ADD_RCV_DESTINATION to subscription `registration_id`.
    pub fn add_rcv_destination(&self, registration_id: i64, channel: &str) -> i64 {
        let (m, id) = self.destination(registration_id, channel);
        self.send(Command::AddRcvDestination(m));
        id
    }

    pub fn remove_rcv_destination(&self, registration_id: i64, channel: &str) -> i64 {
        let (m, id) = self.destination(registration_id, channel);
        self.send(Command::RemoveRcvDestination(m));
        id
    }

    pub fn add_counter(&self, type_id: i32, key: &[u8], label: &str) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::AddCounter(CounterMessage { correlated, type_id, key, label: label.as_bytes() }));
        id
    }

    pub fn remove_counter(&self, registration_id: i64) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::RemoveCounter(RemoveMessage { correlated, registration_id }));
        id
    }

    pub fn add_static_counter(&self, registration_id: i64, type_id: i32, key: &[u8], label: &str) -> i64 {
        let (correlated, id) = self.correlated();
        self.send(Command::AddStaticCounter(StaticCounterMessage {
            correlated,
            registration_id,
            type_id,
            key,
            label: label.as_bytes(),
        }));
        id
    }

    pub fn close(&self) {
        self.send(Command::ClientClose(CorrelatedMessage::new(self.client_id, -1)));
    }

    pub fn terminate_driver(&self, token: &[u8]) {
        let (correlated, _) = self.correlated();
        self.send(Command::TerminateDriver(TerminateDriverMessage { correlated, token }));
    }

    /// Takes whatever responses arrived.
    pub fn poll(&mut self) -> usize {
        let mut n = 0;
        loop {
            let mut got = None;
            let count = self
                .receiver
                .receive(|type_id, body| got = Some(Record { type_id, body: body.to_vec() }))
                .expect("broadcast receive");
            match got {
                Some(record) if count > 0 => {
                    self.received.push(record);
                    n += 1;
                }
                _ => return n,
            }
        }
    }

    /// Waits for (and removes) the first response `matches` accepts.
    pub fn expect(&mut self, what: &str, matches: impl Fn(&Response<'_>) -> bool) -> Record {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            self.poll();
            if let Some(i) = self.received.iter().position(|r| matches(&r.response())) {
                return self.received.remove(i);
            }
            assert!(Instant::now() < deadline, "no {what} within {TIMEOUT:?}; got {:?}", self.received);
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The first response correlated with `correlation_id` (ready, success or error).
    pub fn expect_correlated(&mut self, correlation_id: i64) -> Record {
        self.expect(&format!("response to {correlation_id}"), |r| match r {
            Response::Error(e) => e.offending_command_correlation_id == correlation_id,
            Response::PublicationReady(p) | Response::ExclusivePublicationReady(p) => {
                p.correlation_id == correlation_id
            }
            Response::SubscriptionReady(s) => s.correlation_id == correlation_id,
            Response::OperationSuccess(s) => s.correlation_id == correlation_id,
            Response::CounterReady(c) | Response::StaticCounter(c) => c.correlation_id == correlation_id,
            _ => false,
        })
    }

    /// ON_ERROR for `correlation_id`: (code, message).
    pub fn expect_error(&mut self, correlation_id: i64) -> (i32, String) {
        let record = self.expect_correlated(correlation_id);
        match record.response() {
            Response::Error(e) => (e.error_code_value, String::from_utf8_lossy(e.error_message).into_owned()),
            other => panic!("expected ON_ERROR for {correlation_id}, got {other:?}"),
        }
    }

    /// Writes this client's heartbeat counter, as 1.48 clients do instead of keepalives.
    pub fn heartbeat(&self, counter_id: i32) {
        self.cnc.set_counter_value(counter_id, epoch_ms());
    }
}

/// Waits until `condition` holds.
pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
