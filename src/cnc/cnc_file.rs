//! A mapped `cnc.dat`: created and laid out by the driver (`spec/cnc.md` §4), mapped and
//! validated by clients and tools (§5), with the driver heartbeat (§6).

use std::path::Path;

use super::descriptor::{
    CLIENT_LIVENESS_TIMEOUT_OFFSET, CNC_VERSION, CNC_VERSION_OFFSET, COUNTERS_METADATA_BUFFER_LENGTH_OFFSET,
    COUNTERS_VALUES_BUFFER_LENGTH_OFFSET, CncLayout, DEFAULT_CLIENT_LIVENESS_TIMEOUT_NS,
    DEFAULT_COUNTERS_VALUES_BUFFER_LENGTH, DEFAULT_ERROR_BUFFER_LENGTH, DEFAULT_FILE_PAGE_SIZE,
    DEFAULT_TO_CLIENTS_BUFFER_LENGTH, DEFAULT_TO_DRIVER_BUFFER_LENGTH, END_OF_METADATA_OFFSET,
    ERROR_LOG_BUFFER_LENGTH_OFFSET, PID_OFFSET, START_TIMESTAMP_OFFSET, TO_CLIENTS_BUFFER_LENGTH_OFFSET,
    TO_DRIVER_BUFFER_LENGTH_OFFSET, semantic_version_major, semantic_version_minor, semantic_version_patch,
};
use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::CountersReader;
use crate::concurrent::mapped_file::{self, Allocation};
use crate::util::error::{Error, Result};

/// What a driver writes into a new `cnc.dat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CncConfig {
    /// Includes the 768-byte ring buffer trailer.
    pub to_driver_buffer_length: usize,
    /// Includes the 128-byte broadcast trailer.
    pub to_clients_buffer_length: usize,
    /// The metadata buffer is 4x this.
    pub counters_values_buffer_length: usize,
    pub error_buffer_length: usize,
    pub client_liveness_timeout_ns: i64,
    pub start_timestamp_ms: i64,
    pub pid: i64,
    /// Only rounds the file length; not stored.
    pub file_page_size: usize,
}

impl Default for CncConfig {
    /// Aeron's default sizes, started now by this process.
    fn default() -> Self {
        Self {
            to_driver_buffer_length: DEFAULT_TO_DRIVER_BUFFER_LENGTH,
            to_clients_buffer_length: DEFAULT_TO_CLIENTS_BUFFER_LENGTH,
            counters_values_buffer_length: DEFAULT_COUNTERS_VALUES_BUFFER_LENGTH,
            error_buffer_length: DEFAULT_ERROR_BUFFER_LENGTH,
            client_liveness_timeout_ns: DEFAULT_CLIENT_LIVENESS_TIMEOUT_NS,
            start_timestamp_ms: crate::util::clock::epoch_ms(),
            pid: i64::from(crate::util::sys::pid()),
            file_page_size: DEFAULT_FILE_PAGE_SIZE,
        }
    }
}

impl CncConfig {
    pub fn layout(&self) -> Result<CncLayout> {
        CncLayout::for_driver(
            self.to_driver_buffer_length,
            self.to_clients_buffer_length,
            self.counters_values_buffer_length,
            self.error_buffer_length,
        )
    }

    /// Length of the file this configuration produces.
    pub fn file_length(&self) -> Result<usize> {
        self.layout()?.file_length(self.file_page_size)
    }
}

/// `true` for the errors a connecting client retries until its driver timeout: no file
/// yet (`ENOENT`), or a file not yet complete (`EAGAIN`: too short, version 0).
pub fn is_retryable(error: &Error) -> bool {
    error.code() == libc::ENOENT || error.code() == libc::EAGAIN
}

fn not_ready(message: String) -> Error {
    Error::with_code(libc::EAGAIN, message)
}

/// `EINVAL` unless a file of CnC `version` is one this library reads (same major version).
fn check_version(version: i32) -> Result<()> {
    if semantic_version_major(version) != semantic_version_major(CNC_VERSION) {
        return Err(Error::invalid_argument(format!(
            "CnC version not compatible: app={}.{}.{} file={}.{}.{}",
            semantic_version_major(CNC_VERSION),
            semantic_version_minor(CNC_VERSION),
            semantic_version_patch(CNC_VERSION),
            semantic_version_major(version),
            semantic_version_minor(version),
            semantic_version_patch(version)
        )));
    }
    Ok(())
}

/// How far a `cnc.dat` is from usable, in the steps Aeron C's
/// `aeron_cnc_map_file_and_load_metadata` reports (each but `Loaded` means "try again").
#[derive(Debug)]
pub enum CncLoad {
    /// No file yet, not yet longer than its header, or not accessible yet.
    AwaitFile,
    /// The mapping is no longer than the header.
    AwaitMmap,
    /// The driver has not stored the version yet.
    AwaitVersion,
    /// The file is shorter than the buffers its header declares.
    AwaitCncData,
    /// The whole file, mapped, version compatible and long enough for clients.
    Loaded(AtomicBuffer),
}

/// Maps `path` if it is a ready `cnc.dat`, else says which step it waits for. Errors: an
/// incompatible version, an inconsistent header, a file that cannot be mapped.
pub fn load(path: &Path) -> Result<CncLoad> {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.len() > END_OF_METADATA_OFFSET as u64 => {}
        _ => return Ok(CncLoad::AwaitFile),
    }
    let buffer = match mapped_file::map_existing(path) {
        Ok(buffer) => buffer,
        Err(e) if e.code() == libc::ENOENT || e.code() == libc::EACCES => return Ok(CncLoad::AwaitFile),
        Err(e) => {
            return Err(e.context(format_args!("CnC file could not be memory mapped: {}", path.display())));
        }
    };
    if buffer.capacity() <= END_OF_METADATA_OFFSET {
        return Ok(CncLoad::AwaitMmap);
    }
    // Acquire: pairs with the driver's release in signal_ready.
    let version = buffer.get_i32_acquire(CNC_VERSION_OFFSET);
    if version == 0 {
        return Ok(CncLoad::AwaitVersion);
    }
    check_version(version)?;
    let required = CncLayout::from_header(&buffer)?.required_length_for_clients();
    if required.is_none_or(|required| required > buffer.capacity()) {
        return Ok(CncLoad::AwaitCncData);
    }
    Ok(CncLoad::Loaded(buffer))
}

/// A validated `cnc.dat` mapping with views of its sections.
#[derive(Debug, Clone)]
pub struct CncFile {
    buffer: AtomicBuffer,
    layout: CncLayout,
    to_driver: AtomicBuffer,
    to_clients: AtomicBuffer,
    counters_metadata: AtomicBuffer,
    counters_values: AtomicBuffer,
    /// `None` when the file is too short for its error log (clients do not need it).
    error_log: Option<AtomicBuffer>,
    /// Whether `buffer` maps a file (so `flush` has something to flush).
    file_backed: bool,
}

impl CncFile {
    /// Driver side: creates `path` (replacing any old file) at the configured length,
    /// writes every header field except the version and leaves the sections zeroed, which
    /// is a valid empty state for all of them. Clients ignore the file until
    /// [`signal_ready`](Self::signal_ready) stores the version.
    pub fn create(path: &Path, config: &CncConfig) -> Result<Self> {
        let length = config.file_length()?;
        let buffer = mapped_file::create_mapped(path, length, Allocation::Reserved)?;
        let mut cnc = Self::create_in_buffer(buffer, config)?;
        cnc.file_backed = true;
        Ok(cnc)
    }

    /// As [`create`](Self::create), laid out in a zeroed buffer of at least the file length.
    pub fn create_in_buffer(buffer: AtomicBuffer, config: &CncConfig) -> Result<Self> {
        let layout = config.layout()?;
        let length = layout.file_length(config.file_page_size)?;
        buffer.check_bounds(0, length).map_err(|e| e.context("CnC buffer shorter than the file length"))?;
        // Relaxed: nobody trusts these until the version is stored with release.
        buffer.put_i32(TO_DRIVER_BUFFER_LENGTH_OFFSET, layout.to_driver_buffer_length as i32);
        buffer.put_i32(TO_CLIENTS_BUFFER_LENGTH_OFFSET, layout.to_clients_buffer_length as i32);
        buffer.put_i32(COUNTERS_METADATA_BUFFER_LENGTH_OFFSET, layout.counters_metadata_buffer_length as i32);
        buffer.put_i32(COUNTERS_VALUES_BUFFER_LENGTH_OFFSET, layout.counters_values_buffer_length as i32);
        buffer.put_i32(ERROR_LOG_BUFFER_LENGTH_OFFSET, layout.error_log_buffer_length as i32);
        buffer.put_i64(CLIENT_LIVENESS_TIMEOUT_OFFSET, config.client_liveness_timeout_ns);
        buffer.put_i64(START_TIMESTAMP_OFFSET, config.start_timestamp_ms);
        buffer.put_i64(PID_OFFSET, config.pid);
        Self::with_layout(buffer, layout)
    }

    /// Driver side, once counters, error log, ring buffer and broadcast buffer are set up:
    /// takes correlation id 0 (so the first client gets 1), stores `now_ms` as the driver
    /// heartbeat, then the version (release) so clients see a complete file, and flushes.
    pub fn signal_ready(&self, now_ms: i64) -> Result<()> {
        // SeqCst add: the correlation counter is shared by every process.
        self.buffer.get_and_add_i64(self.layout.correlation_counter_offset(), 1);
        self.update_driver_heartbeat(now_ms);
        // Release: everything written to the file before is visible to a client that
        // reads the version with acquire.
        self.buffer.put_i32_release(CNC_VERSION_OFFSET, CNC_VERSION);
        self.flush()
    }

    /// Client side: maps an existing `cnc.dat` and validates it. Errors for which
    /// [`is_retryable`] holds mean "not ready yet".
    pub fn map_existing(path: &Path) -> Result<Self> {
        let length = std::fs::metadata(path)
            .map_err(|e| Error::io(&e, format_args!("CnC file not created: {}", path.display())))?
            .len();
        if length <= END_OF_METADATA_OFFSET as u64 {
            // The driver has created the file but not sized it yet (or it is not cnc.dat).
            return Err(not_ready(format!("CnC file too short: {} is {length} bytes", path.display())));
        }
        let buffer = mapped_file::map_existing(path)?;
        let mut cnc = Self::wrap(buffer).map_err(|e| e.context(path.display()))?;
        cnc.file_backed = true;
        Ok(cnc)
    }

    /// Validates a `cnc.dat` image (a mapping or a copy in memory): long enough for the
    /// header, version set and compatible, section lengths consistent and within it.
    pub fn wrap(buffer: AtomicBuffer) -> Result<Self> {
        if buffer.capacity() <= END_OF_METADATA_OFFSET {
            return Err(not_ready(format!("CnC file too short: {} bytes", buffer.capacity())));
        }
        if buffer.as_ptr() as usize % 8 != 0 {
            return Err(Error::invalid_argument("CnC buffer is not 8-byte aligned"));
        }
        // Acquire: pairs with the driver's release in signal_ready.
        let version = buffer.get_i32_acquire(CNC_VERSION_OFFSET);
        if version == 0 {
            return Err(not_ready("CnC file is created but not initialised".to_string()));
        }
        check_version(version)?;
        let layout = CncLayout::from_header(&buffer)?;
        let required = layout.required_length_for_clients();
        if required.is_none_or(|required| required > buffer.capacity()) {
            return Err(not_ready(format!(
                "CnC file length {} is less than its buffers need ({})",
                buffer.capacity(),
                required.map_or_else(|| "overflow".to_string(), |r| r.to_string())
            )));
        }
        Self::with_layout(buffer, layout)
    }

    fn with_layout(buffer: AtomicBuffer, layout: CncLayout) -> Result<Self> {
        let error_log = buffer.view(layout.error_log_buffer_offset(), layout.error_log_buffer_length).ok();
        Ok(Self {
            to_driver: buffer.view(layout.to_driver_buffer_offset(), layout.to_driver_buffer_length)?,
            to_clients: buffer.view(layout.to_clients_buffer_offset(), layout.to_clients_buffer_length)?,
            counters_metadata: buffer
                .view(layout.counters_metadata_buffer_offset(), layout.counters_metadata_buffer_length)?,
            counters_values: buffer
                .view(layout.counters_values_buffer_offset(), layout.counters_values_buffer_length)?,
            error_log,
            layout,
            buffer,
            file_backed: false,
        })
    }

    /// The whole file.
    pub fn buffer(&self) -> &AtomicBuffer {
        &self.buffer
    }

    pub fn layout(&self) -> &CncLayout {
        &self.layout
    }

    /// Current CnC version (0 until the driver signals readiness).
    pub fn cnc_version(&self) -> i32 {
        self.buffer.get_i32_acquire(CNC_VERSION_OFFSET)
    }

    /// The to-driver (many-to-one) ring buffer, trailer included.
    pub fn to_driver_buffer(&self) -> &AtomicBuffer {
        &self.to_driver
    }

    /// The to-clients broadcast buffer, trailer included.
    pub fn to_clients_buffer(&self) -> &AtomicBuffer {
        &self.to_clients
    }

    pub fn counters_metadata_buffer(&self) -> &AtomicBuffer {
        &self.counters_metadata
    }

    pub fn counters_values_buffer(&self) -> &AtomicBuffer {
        &self.counters_values
    }

    /// A reader over the counters sections.
    pub fn counters_reader(&self) -> Result<CountersReader> {
        CountersReader::new(self.counters_metadata.clone(), self.counters_values.clone())
    }

    /// The error log section; an error when the file is too short to hold it.
    pub fn error_log_buffer(&self) -> Result<&AtomicBuffer> {
        self.error_log.as_ref().ok_or_else(|| {
            Error::out_of_bounds(format!(
                "CnC file of {} bytes is too short for its {}-byte error log at {}",
                self.buffer.capacity(),
                self.layout.error_log_buffer_length,
                self.layout.error_log_buffer_offset()
            ))
        })
    }

    /// Client liveness timeout in nanoseconds (clients use it as their conductor's
    /// service interval limit).
    pub fn client_liveness_timeout_ns(&self) -> i64 {
        self.buffer.get_i64(CLIENT_LIVENESS_TIMEOUT_OFFSET)
    }

    /// Driver start time, epoch ms.
    pub fn start_timestamp_ms(&self) -> i64 {
        self.buffer.get_i64(START_TIMESTAMP_OFFSET)
    }

    pub fn pid(&self) -> i64 {
        self.buffer.get_i64(PID_OFFSET)
    }

    /// The driver heartbeat: epoch ms of the driver conductor's last timer tick, −1 after
    /// a clean shutdown, 0 before the driver started.
    pub fn driver_heartbeat_ms(&self) -> i64 {
        // Acquire: pairs with the driver's release store.
        self.buffer.get_i64_acquire(self.layout.driver_heartbeat_offset())
    }

    /// Driver side: stores the heartbeat (release).
    pub fn update_driver_heartbeat(&self, now_ms: i64) {
        self.buffer.put_i64_release(self.layout.driver_heartbeat_offset(), now_ms);
    }

    /// Driver side, on clean shutdown: clients then see "driver has been shut down".
    pub fn signal_driver_shutdown(&self) {
        self.update_driver_heartbeat(-1);
    }

    /// Whether the driver heartbeat is at most `driver_timeout_ms` old at `now_ms`. A
    /// heartbeat of 0 (never started) or −1 (shut down) is never active.
    pub fn is_driver_active(&self, now_ms: i64, driver_timeout_ms: i64) -> bool {
        let heartbeat = self.driver_heartbeat_ms();
        heartbeat > 0 && now_ms.saturating_sub(heartbeat) <= driver_timeout_ms
    }

    /// Flushes the whole mapping to its file (`msync`); nothing to do for an in-memory image.
    pub fn flush(&self) -> Result<()> {
        if !self.file_backed {
            return Ok(());
        }
        mapped_file::flush(&self.buffer, 0, self.buffer.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cnc::descriptor::CNC_FILE;
    use crate::concurrent::broadcast::{BroadcastReceiver, BroadcastTransmitter, CopyBroadcastReceiver};
    use crate::concurrent::counters::CountersManager;
    use crate::concurrent::error_log::{self, DistinctErrorLog};
    use proptest::prelude::*;

    /// A small but valid configuration: ring 1 KiB, broadcast 1 KiB, 8 counters, 1 KiB errors.
    fn small_config() -> CncConfig {
        CncConfig {
            to_driver_buffer_length: 1024 + 768,
            to_clients_buffer_length: 1024 + 128,
            counters_values_buffer_length: 1024,
            error_buffer_length: 1024,
            client_liveness_timeout_ns: 5_000_000_000,
            start_timestamp_ms: 1_795_962_602_375,
            pid: 24_528,
            file_page_size: 4096,
        }
    }

    #[test]
    fn create_writes_header_but_not_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        let cnc = CncFile::create(&path, &small_config()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 12_288);
        let b = cnc.buffer();
        let mut header = [0u8; 128];
        b.load_bytes(0, &mut header);
        let mut expected = [0u8; 128];
        expected[4..8].copy_from_slice(&1792i32.to_le_bytes());
        expected[8..12].copy_from_slice(&1152i32.to_le_bytes());
        expected[12..16].copy_from_slice(&4096i32.to_le_bytes());
        expected[16..20].copy_from_slice(&1024i32.to_le_bytes());
        expected[20..24].copy_from_slice(&1024i32.to_le_bytes());
        expected[24..32].copy_from_slice(&5_000_000_000i64.to_le_bytes());
        expected[32..40].copy_from_slice(&1_795_962_602_375i64.to_le_bytes());
        expected[40..48].copy_from_slice(&24_528i64.to_le_bytes());
        assert_eq!(header, expected);

        let err = CncFile::map_existing(&path).unwrap_err();
        assert!(is_retryable(&err), "{err}");
        assert!(err.message().contains("not initialised"), "{err}");

        cnc.signal_ready(1_795_962_602_400).unwrap();
        assert_eq!(b.get_i32(0), 512);
        assert_eq!(b.get_i64(128 + 1024 + 512), 1, "driver took correlation id 0");
        assert_eq!(b.get_i64(1792), 1_795_962_602_400, "heartbeat at offset A");

        let client = CncFile::map_existing(&path).unwrap();
        assert_eq!(client.cnc_version(), CNC_VERSION);
        assert_eq!(client.client_liveness_timeout_ns(), 5_000_000_000);
        assert_eq!(client.start_timestamp_ms(), 1_795_962_602_375);
        assert_eq!(client.pid(), 24_528);
        assert_eq!(client.to_driver_buffer().capacity(), 1792);
        assert_eq!(client.to_clients_buffer().capacity(), 1152);
        assert_eq!(client.counters_metadata_buffer().capacity(), 4096);
        assert_eq!(client.counters_values_buffer().capacity(), 1024);
        assert_eq!(client.error_log_buffer().unwrap().capacity(), 1024);
        assert_eq!(client.counters_reader().unwrap().max_counter_id(), 7);
        assert_eq!(client.driver_heartbeat_ms(), 1_795_962_602_400);
    }

    #[test]
    fn load_reports_each_step_a_client_waits_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        assert!(matches!(load(&path).unwrap(), CncLoad::AwaitFile), "no file");
        std::fs::write(&path, [0u8; 128]).unwrap();
        assert!(matches!(load(&path).unwrap(), CncLoad::AwaitFile), "header only");
        std::fs::remove_file(&path).unwrap();
        let cnc = CncFile::create(&path, &small_config()).unwrap();
        assert!(matches!(load(&path).unwrap(), CncLoad::AwaitVersion));
        cnc.signal_ready(1).unwrap();
        let CncLoad::Loaded(mapped) = load(&path).unwrap() else { panic!("ready file not loaded") };
        assert_eq!(mapped.capacity(), 12_288);

        // A header whose buffers reach past the end of the file.
        let short = dir.path().join("short.dat");
        std::fs::write(&short, &std::fs::read(&path).unwrap()[..4096]).unwrap();
        assert!(matches!(load(&short).unwrap(), CncLoad::AwaitCncData));

        cnc.buffer()
            .put_i32_release(CNC_VERSION_OFFSET, crate::cnc::descriptor::semantic_version_compose(1, 0, 0));
        assert_eq!(load(&path).unwrap_err().code(), libc::EINVAL, "another major version");
    }

    #[test]
    fn sections_written_by_the_driver_are_seen_by_a_client_mapping() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        let driver = CncFile::create(&path, &small_config()).unwrap();
        let mut counters = CountersManager::new(
            driver.counters_metadata_buffer().clone(),
            driver.counters_values_buffer().clone(),
            1000,
        )
        .unwrap();
        counters.allocate(0, &0i32.to_le_bytes(), "Bytes sent", 0).unwrap();
        let errors = DistinctErrorLog::new(driver.error_log_buffer().unwrap().clone()).unwrap();
        errors.record(5, 11, "boom").unwrap();
        let mut transmitter = BroadcastTransmitter::new(driver.to_clients_buffer().clone()).unwrap();
        driver.signal_ready(10).unwrap();

        let client = CncFile::map_existing(&path).unwrap();
        let mut receiver =
            CopyBroadcastReceiver::new(BroadcastReceiver::new(client.to_clients_buffer().clone()).unwrap());
        transmitter.transmit(0x0f08, &[1, 2, 3]).unwrap();
        let mut got = Vec::new();
        assert_eq!(receiver.receive(|t, p| got.push((t, p.to_vec()))).unwrap(), 1);
        assert_eq!(got, [(0x0f08, vec![1, 2, 3])]);
        assert_eq!(client.counters_reader().unwrap().counter_label(0).unwrap(), "Bytes sent");
        let mut texts = Vec::new();
        error_log::read(client.error_log_buffer().unwrap(), 0, |o| texts.push(o.text().into_owned()))
            .unwrap();
        assert_eq!(texts, ["boom"]);
    }

    #[test]
    fn driver_liveness_from_the_heartbeat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        let cnc = CncFile::create(&path, &small_config()).unwrap();
        assert!(!cnc.is_driver_active(1000, 10_000), "heartbeat 0: never started");
        cnc.signal_ready(50_000).unwrap();
        assert!(cnc.is_driver_active(60_000, 10_000));
        assert!(!cnc.is_driver_active(60_001, 10_000));
        cnc.signal_driver_shutdown();
        assert_eq!(cnc.driver_heartbeat_ms(), -1);
        assert!(!cnc.is_driver_active(50_000, 10_000));

        cnc.update_driver_heartbeat(crate::util::clock::epoch_ms());
        assert!(crate::cnc::is_driver_active(dir.path(), 10_000).unwrap());
        cnc.update_driver_heartbeat(crate::util::clock::epoch_ms() - 60_000);
        assert!(!crate::cnc::is_driver_active(dir.path(), 10_000).unwrap());
        let empty = tempfile::tempdir().unwrap();
        assert!(!crate::cnc::is_driver_active(empty.path(), 10_000).unwrap());
    }

    #[test]
    fn a_driver_that_never_signals_ready_is_not_active() {
        let dir = tempfile::tempdir().unwrap();
        let cnc = CncFile::create(&dir.path().join(CNC_FILE), &small_config()).unwrap();
        cnc.update_driver_heartbeat(crate::util::clock::epoch_ms());
        // Polls the version for up to 20 ms, then gives up.
        assert!(!crate::cnc::is_driver_active(dir.path(), 20).unwrap());
    }

    fn ready_image() -> AtomicBuffer {
        let config = small_config();
        let buffer = AtomicBuffer::alloc(config.file_length().unwrap());
        CncFile::create_in_buffer(buffer.clone(), &config).unwrap().signal_ready(1).unwrap();
        buffer
    }

    fn image_with(buffer: &AtomicBuffer, length: usize) -> AtomicBuffer {
        let copy = AtomicBuffer::alloc(length);
        copy.store_bytes(0, &buffer.load_vec(0, length.min(buffer.capacity())));
        copy
    }

    #[test]
    fn validation_errors_are_clear() {
        let good = ready_image();
        assert!(CncFile::wrap(good.clone()).is_ok());

        let err = CncFile::wrap(image_with(&good, 128)).unwrap_err();
        assert!(is_retryable(&err) && err.message().contains("too short"), "{err}");

        let zero_version = image_with(&good, good.capacity());
        zero_version.put_i32(0, 0);
        let err = CncFile::wrap(zero_version).unwrap_err();
        assert!(is_retryable(&err) && err.message().contains("not initialised"), "{err}");

        let newer = image_with(&good, good.capacity());
        newer.put_i32(0, 1 << 16);
        let err = CncFile::wrap(newer).unwrap_err();
        assert!(!is_retryable(&err), "{err}");
        assert!(err.message().contains("CnC version not compatible: app=0.2.0 file=1.0.0"), "{err}");

        let minor_bump = image_with(&good, good.capacity());
        minor_bump.put_i32(0, 3 << 8);
        assert!(CncFile::wrap(minor_bump).is_ok(), "only the major version must match");

        // Shorter than the counters sections: not ready (a client retries, then times out).
        let short = image_with(&good, 128 + 1792 + 1152 + 4096 + 1000);
        let err = CncFile::wrap(short).unwrap_err();
        assert!(is_retryable(&err) && err.message().contains("less than its buffers need"), "{err}");

        // Long enough for clients but not for the error log: usable, error log unavailable.
        let no_error_log = CncFile::wrap(image_with(&good, 128 + 1792 + 1152 + 4096 + 1024 + 8)).unwrap();
        assert!(no_error_log.error_log_buffer().is_err());

        let negative = image_with(&good, good.capacity());
        negative.put_i32(4, -1);
        assert!(CncFile::wrap(negative).unwrap_err().message().contains("negative"));

        let not_power_of_two = image_with(&good, good.capacity());
        not_power_of_two.put_i32(8, 1000 + 128);
        assert!(CncFile::wrap(not_power_of_two).unwrap_err().message().contains("to-clients"));
    }

    #[test]
    fn missing_and_empty_files_are_retryable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        let err = CncFile::map_existing(&path).unwrap_err();
        assert!(is_retryable(&err) && err.message().contains("not created"), "{err}");
        std::fs::write(&path, b"").unwrap();
        assert!(is_retryable(&CncFile::map_existing(&path).unwrap_err()));
        std::fs::write(&path, [0u8; 100]).unwrap();
        assert!(is_retryable(&CncFile::map_existing(&path).unwrap_err()));
    }

    #[test]
    fn bad_configs_are_rejected_before_creating_anything() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CNC_FILE);
        let config = CncConfig { to_driver_buffer_length: 1000, ..small_config() };
        assert!(CncFile::create(&path, &config).is_err());
        assert!(!path.exists());
        let config = CncConfig { file_page_size: 3000, ..small_config() };
        assert!(CncFile::create(&path, &config).is_err());
        assert!(CncFile::create_in_buffer(AtomicBuffer::alloc(4096), &small_config()).is_err());
    }

    #[test]
    fn default_directory_follows_aeron_c() {
        let dir = crate::cnc::default_aeron_dir();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("aeron-") && name.len() > "aeron-".len(), "{name}");
        if cfg!(target_os = "linux") {
            assert_eq!(dir.parent().unwrap(), Path::new("/dev/shm"));
        }
        if let Ok(user) = std::env::var("USER") {
            if !user.is_empty() {
                assert_eq!(name, format!("aeron-{user}"));
            }
        }
        assert_eq!(crate::cnc::cnc_path(Path::new("/x")), Path::new("/x/cnc.dat"));
    }

    /// Everything a client or tool does with a validated image; must not panic whatever
    /// the bytes are.
    fn exercise(cnc: &CncFile) {
        let _ = (cnc.cnc_version(), cnc.pid(), cnc.start_timestamp_ms(), cnc.client_liveness_timeout_ns());
        let _ = cnc.is_driver_active(i64::MAX, i64::MAX);
        if let Ok(reader) = cnc.counters_reader() {
            let _ = reader.counters();
            let _ = reader.find_by_type_id_and_registration_id(11, 1);
            let _ = reader.counter_label(reader.max_counter_id());
        }
        if let Ok(errors) = cnc.error_log_buffer() {
            let _ = error_log::read(errors, 0, |o| {
                let _ = o.text();
            });
        }
        for start in [None, Some(0)] {
            let buffer = cnc.to_clients_buffer().clone();
            let receiver = match start {
                None => BroadcastReceiver::new(buffer),
                Some(position) => BroadcastReceiver::with_start_position(buffer, position),
            };
            if let Ok(receiver) = receiver {
                let mut copy = CopyBroadcastReceiver::new(receiver);
                for _ in 0..4 {
                    let _ = copy.receive(|_, _| {});
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn truncated_images_are_rejected_or_usable_never_a_panic(length in 0usize..12_288) {
            let image = image_with(&ready_image(), length);
            if let Ok(cnc) = CncFile::wrap(image) {
                prop_assert!(length >= 128 + 1792 + 1152 + 4096 + 1024);
                exercise(&cnc);
            }
        }

        #[test]
        fn corrupted_images_are_rejected_or_usable_never_a_panic(
            header_edits in proptest::collection::vec((0usize..48, any::<u8>()), 0..8),
            body_edits in proptest::collection::vec((128usize..12_288, any::<u64>()), 0..64),
        ) {
            let image = ready_image();
            for (offset, byte) in header_edits {
                image.put_u8(offset, byte);
            }
            for (offset, word) in body_edits {
                let aligned = offset & !7;
                image.put_i64(aligned, word as i64);
            }
            if let Ok(cnc) = CncFile::wrap(image) {
                exercise(&cnc);
            }
        }

        #[test]
        fn random_headers_never_panic(words in proptest::collection::vec(any::<i32>(), 12)) {
            let image = ready_image();
            for (i, w) in words.iter().enumerate() {
                image.put_i32(i * 4, *w);
            }
            if let Ok(cnc) = CncFile::wrap(image) {
                exercise(&cnc);
            }
        }
    }
}
