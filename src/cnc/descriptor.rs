//! `cnc.dat` layout (`spec/cnc.md` §2–3): header fields, section order and lengths, the
//! CnC version, and the validation a client applies before trusting a file.

use crate::concurrent::broadcast::descriptor as broadcast;
use crate::concurrent::counters::descriptor as counters;
use crate::concurrent::error_log::descriptor as error_log;
use crate::util::bits::{align, is_power_of_two};
use crate::util::error::{Error, Result};

/// File name inside the Aeron directory.
pub const CNC_FILE: &str = "cnc.dat";

/// Semantic version `major << 16 | minor << 8 | patch`.
pub const fn semantic_version_compose(major: u8, minor: u8, patch: u8) -> i32 {
    ((major as i32) << 16) | ((minor as i32) << 8) | patch as i32
}
pub const fn semantic_version_major(version: i32) -> u8 {
    (version >> 16) as u8
}
pub const fn semantic_version_minor(version: i32) -> u8 {
    (version >> 8) as u8
}
pub const fn semantic_version_patch(version: i32) -> u8 {
    version as u8
}

/// Aeron 1.48's CnC version 0.2.0.
pub const CNC_VERSION: i32 = semantic_version_compose(0, 2, 0);

// Header fields.
pub const CNC_VERSION_OFFSET: usize = 0;
pub const TO_DRIVER_BUFFER_LENGTH_OFFSET: usize = 4;
pub const TO_CLIENTS_BUFFER_LENGTH_OFFSET: usize = 8;
pub const COUNTERS_METADATA_BUFFER_LENGTH_OFFSET: usize = 12;
pub const COUNTERS_VALUES_BUFFER_LENGTH_OFFSET: usize = 16;
pub const ERROR_LOG_BUFFER_LENGTH_OFFSET: usize = 20;
/// int64, nanoseconds.
pub const CLIENT_LIVENESS_TIMEOUT_OFFSET: usize = 24;
/// int64, epoch ms.
pub const START_TIMESTAMP_OFFSET: usize = 32;
pub const PID_OFFSET: usize = 40;
/// Bytes of the header that carry fields.
pub const META_DATA_USED_LENGTH: usize = 48;
/// The header is padded to 128 bytes; the first section starts here.
pub const END_OF_METADATA_OFFSET: usize =
    align(META_DATA_USED_LENGTH, 2 * crate::util::bits::CACHE_LINE_LENGTH);

// The to-driver ring buffer's trailer (`spec/ring-buffers.md` §1.1). The ring buffer module
// owns these; they are repeated here because the CnC readiness and driver liveness
// protocols read and write two trailer slots directly.
/// Ring buffer trailer length.
pub const RING_BUFFER_TRAILER_LENGTH: usize = 768;
/// Trailer offset of the correlation counter.
pub const RING_BUFFER_CORRELATION_COUNTER_OFFSET: usize = 512;
/// Trailer offset of the consumer heartbeat (the driver heartbeat for the to-driver buffer).
pub const RING_BUFFER_CONSUMER_HEARTBEAT_OFFSET: usize = 640;

// Driver defaults.
pub const DEFAULT_TO_DRIVER_BUFFER_LENGTH: usize = 1024 * 1024 + RING_BUFFER_TRAILER_LENGTH;
pub const DEFAULT_TO_CLIENTS_BUFFER_LENGTH: usize = broadcast::DEFAULT_TO_CLIENTS_BUFFER_LENGTH;
pub const DEFAULT_COUNTERS_VALUES_BUFFER_LENGTH: usize = counters::COUNTERS_VALUES_BUFFER_LENGTH_DEFAULT;
pub const DEFAULT_ERROR_BUFFER_LENGTH: usize = error_log::DEFAULT_ERROR_BUFFER_LENGTH;
pub const DEFAULT_CLIENT_LIVENESS_TIMEOUT_NS: i64 = 10_000_000_000;
pub const DEFAULT_FILE_PAGE_SIZE: usize = 4096;
/// Driver timeout clients and tools use for the driver heartbeat (10 s).
pub const DEFAULT_DRIVER_TIMEOUT_MS: i64 = 10_000;

static_assertions::const_assert_eq!(CNC_VERSION, 512);
static_assertions::const_assert_eq!(END_OF_METADATA_OFFSET, 128);
static_assertions::const_assert_eq!(PID_OFFSET + 8, META_DATA_USED_LENGTH);
static_assertions::const_assert_eq!(DEFAULT_TO_DRIVER_BUFFER_LENGTH, 1_049_344);
static_assertions::const_assert_eq!(RING_BUFFER_CONSUMER_HEARTBEAT_OFFSET + 128, RING_BUFFER_TRAILER_LENGTH);

/// The five section lengths from the header, validated against each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CncLayout {
    pub to_driver_buffer_length: usize,
    pub to_clients_buffer_length: usize,
    pub counters_metadata_buffer_length: usize,
    pub counters_values_buffer_length: usize,
    pub error_log_buffer_length: usize,
}

impl CncLayout {
    /// The layout a driver with these section lengths writes; the metadata buffer is
    /// 4x the values buffer.
    pub fn for_driver(
        to_driver_buffer_length: usize,
        to_clients_buffer_length: usize,
        counters_values_buffer_length: usize,
        error_log_buffer_length: usize,
    ) -> Result<Self> {
        let layout = Self {
            to_driver_buffer_length,
            to_clients_buffer_length,
            counters_metadata_buffer_length: counters_values_buffer_length
                .checked_mul(counters::METADATA_TO_VALUES_RATIO)
                .ok_or_else(|| Error::invalid_argument("counters values buffer length too large"))?,
            counters_values_buffer_length,
            error_log_buffer_length,
        };
        layout.check_structure()?;
        if counters_values_buffer_length % counters::COUNTER_LENGTH != 0
            || counters_values_buffer_length > counters::COUNTERS_VALUES_BUFFER_LENGTH_MAX
        {
            return Err(Error::invalid_argument(format!(
                "counters values buffer length {counters_values_buffer_length} must be a multiple of {} up to {}",
                counters::COUNTER_LENGTH,
                counters::COUNTERS_VALUES_BUFFER_LENGTH_MAX
            )));
        }
        Ok(layout)
    }

    /// Reads the lengths from a header (the first 48 bytes of `cnc.dat`).
    pub fn from_header(header: &crate::concurrent::AtomicBuffer) -> Result<Self> {
        header.check_bounds(0, META_DATA_USED_LENGTH)?;
        let length = |offset: usize, name: &str| {
            let value = header.get_i32(offset);
            usize::try_from(value).map_err(|_| {
                Error::invalid_argument(format!("CnC {name} buffer length is negative: {value}"))
            })
        };
        let layout = Self {
            to_driver_buffer_length: length(TO_DRIVER_BUFFER_LENGTH_OFFSET, "to-driver")?,
            to_clients_buffer_length: length(TO_CLIENTS_BUFFER_LENGTH_OFFSET, "to-clients")?,
            counters_metadata_buffer_length: length(
                COUNTERS_METADATA_BUFFER_LENGTH_OFFSET,
                "counters metadata",
            )?,
            counters_values_buffer_length: length(COUNTERS_VALUES_BUFFER_LENGTH_OFFSET, "counters values")?,
            error_log_buffer_length: length(ERROR_LOG_BUFFER_LENGTH_OFFSET, "error log")?,
        };
        layout.check_structure()?;
        Ok(layout)
    }

    /// The checks every section needs so its accessors stay aligned and in bounds.
    fn check_structure(&self) -> Result<()> {
        let ring_capacity = self.to_driver_buffer_length.checked_sub(RING_BUFFER_TRAILER_LENGTH);
        if !ring_capacity.is_some_and(|c| c >= 8 && is_power_of_two(c as u64)) {
            return Err(Error::invalid_argument(format!(
                "CnC to-driver buffer length {} is not a power of two >= 8 plus the {RING_BUFFER_TRAILER_LENGTH}-byte trailer",
                self.to_driver_buffer_length
            )));
        }
        broadcast::capacity_of(self.to_clients_buffer_length)
            .map_err(|e| e.context("CnC to-clients buffer"))?;
        let values = self.counters_values_buffer_length;
        if values < counters::COUNTER_LENGTH || values % 8 != 0 {
            return Err(Error::invalid_argument(format!(
                "CnC counters values buffer length {values} must be a multiple of 8 holding at least one counter"
            )));
        }
        let metadata = self.counters_metadata_buffer_length;
        if metadata % 8 != 0
            || values.checked_mul(counters::METADATA_TO_VALUES_RATIO).is_none_or(|min| metadata < min)
        {
            return Err(Error::invalid_argument(format!(
                "CnC counters metadata buffer length {metadata} must be a multiple of 8 and >= 4 x values length {values}"
            )));
        }
        if self.error_log_buffer_length % 8 != 0 {
            return Err(Error::invalid_argument(format!(
                "CnC error log buffer length {} is not a multiple of 8",
                self.error_log_buffer_length
            )));
        }
        Ok(())
    }

    pub fn to_driver_buffer_offset(&self) -> usize {
        END_OF_METADATA_OFFSET
    }

    pub fn to_clients_buffer_offset(&self) -> usize {
        self.to_driver_buffer_offset() + self.to_driver_buffer_length
    }

    pub fn counters_metadata_buffer_offset(&self) -> usize {
        self.to_clients_buffer_offset() + self.to_clients_buffer_length
    }

    pub fn counters_values_buffer_offset(&self) -> usize {
        self.counters_metadata_buffer_offset() + self.counters_metadata_buffer_length
    }

    pub fn error_log_buffer_offset(&self) -> usize {
        self.counters_values_buffer_offset() + self.counters_values_buffer_length
    }

    /// Bytes a client needs mapped before it uses the file: everything but the error log
    /// (Aeron C and Java leave the error log out of this check).
    pub fn required_length_for_clients(&self) -> Option<usize> {
        END_OF_METADATA_OFFSET
            .checked_add(self.to_driver_buffer_length)?
            .checked_add(self.to_clients_buffer_length)?
            .checked_add(self.counters_metadata_buffer_length)?
            .checked_add(self.counters_values_buffer_length)
    }

    /// Header and all five sections.
    pub fn total_length(&self) -> Option<usize> {
        self.required_length_for_clients()?.checked_add(self.error_log_buffer_length)
    }

    /// File length: the total rounded up to the file page size (a power of two); at most
    /// `i32::MAX`.
    pub fn file_length(&self, file_page_size: usize) -> Result<usize> {
        if !is_power_of_two(file_page_size as u64) {
            return Err(Error::invalid_argument(format!(
                "file page size {file_page_size} is not a power of two"
            )));
        }
        self.total_length()
            .and_then(|total| total.checked_add(file_page_size - 1))
            .map(|end| end & !(file_page_size - 1))
            .filter(|&length| length <= i32::MAX as usize)
            .ok_or_else(|| Error::invalid_argument("CnC file length exceeds i32::MAX"))
    }

    /// Absolute offset of the driver heartbeat (the to-driver ring buffer's consumer
    /// heartbeat): `128 + (A - 768) + 640`, which is `A`.
    pub fn driver_heartbeat_offset(&self) -> usize {
        self.to_driver_buffer_offset() + self.to_driver_buffer_length - RING_BUFFER_TRAILER_LENGTH
            + RING_BUFFER_CONSUMER_HEARTBEAT_OFFSET
    }

    /// Absolute offset of the to-driver ring buffer's correlation counter.
    pub fn correlation_counter_offset(&self) -> usize {
        self.to_driver_buffer_offset() + self.to_driver_buffer_length - RING_BUFFER_TRAILER_LENGTH
            + RING_BUFFER_CORRELATION_COUNTER_OFFSET
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_layout() -> CncLayout {
        CncLayout::for_driver(
            DEFAULT_TO_DRIVER_BUFFER_LENGTH,
            DEFAULT_TO_CLIENTS_BUFFER_LENGTH,
            DEFAULT_COUNTERS_VALUES_BUFFER_LENGTH,
            DEFAULT_ERROR_BUFFER_LENGTH,
        )
        .unwrap()
    }

    #[test]
    fn default_layout_matches_real_aeron() {
        let l = default_layout();
        assert_eq!(l.counters_metadata_buffer_length, 4_194_304);
        assert_eq!(l.to_driver_buffer_offset(), 128);
        assert_eq!(l.to_clients_buffer_offset(), 1_049_472);
        assert_eq!(l.counters_metadata_buffer_offset(), 2_098_176);
        assert_eq!(l.counters_values_buffer_offset(), 6_292_480);
        assert_eq!(l.error_log_buffer_offset(), 7_341_056);
        assert_eq!(l.file_length(4096).unwrap(), 8_392_704);
        assert_eq!(l.driver_heartbeat_offset(), 1_049_344);
        assert_eq!(l.correlation_counter_offset(), 128 + 1_048_576 + 512);
    }

    #[test]
    fn version_parts() {
        assert_eq!(semantic_version_major(CNC_VERSION), 0);
        assert_eq!(semantic_version_minor(CNC_VERSION), 2);
        assert_eq!(semantic_version_patch(CNC_VERSION), 0);
        assert_eq!(semantic_version_major(semantic_version_compose(1, 48, 0)), 1);
    }

    #[test]
    fn file_length_rounds_to_page_size() {
        let l = CncLayout::for_driver(768 + 1024, 128 + 1024, 1024, 1004).unwrap_err();
        assert!(l.message().contains("error log"));
        let l = CncLayout::for_driver(768 + 1024, 128 + 1024, 1024, 1024).unwrap();
        assert_eq!(l.total_length(), Some(128 + 1792 + 1152 + 4096 + 1024 + 1024));
        assert_eq!(l.file_length(4096).unwrap(), 12_288);
        assert_eq!(l.file_length(65536).unwrap(), 65_536);
        assert!(l.file_length(1000).is_err());
    }

    #[test]
    fn structure_checks() {
        assert!(CncLayout::for_driver(700, 128 + 1024, 1024, 1024).is_err(), "shorter than the ring trailer");
        assert!(CncLayout::for_driver(1024, 128 + 1024, 1024, 1024).is_ok(), "ring capacity 256");
        assert!(CncLayout::for_driver(768 + 1000, 128 + 1024, 1024, 1024).is_err());
        assert!(CncLayout::for_driver(768 + 1024, 128 + 1000, 1024, 1024).is_err());
        assert!(CncLayout::for_driver(768 + 1024, 128 + 1024, 1000, 1024).is_err());
        assert!(CncLayout::for_driver(768 + 1024, 128 + 1024, 64, 1024).is_err());
    }
}
