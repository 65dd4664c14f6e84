//! The CSV table resolver (`AERON_NAME_RESOLVER_SUPPLIER=csv_table`), Aeron's resolver
//! for tests of name changes: `AERON_NAME_RESOLVER_INIT_ARGS` holds rows separated by `|`,
//! each `name,initial host,re-resolution host`; rows without exactly three fields are
//! skipped, as Aeron skips them. A host named in a row is replaced by one of its two hosts
//! and then resolved by the system; any other host is resolved as it is.
//!
//! Which host is used is chosen by a counter per row (type 2001, key: the name's length as
//! an `i32` then the name; label `NameEntry{name='..', initialResolutionHost='..',
//! reResolutionHost='..'}`): 0 (the initial value) the initial host, 1 the re-resolution
//! host, -1 fails the resolution. A test flips the counter through the CnC file to move a
//! name to another address while a stream runs.
#![forbid(unsafe_code)]

use std::net::IpAddr;

use super::name_resolver::NameResolver;
use super::socket_address::resolve_host;
use crate::concurrent::counters::CountersManager;
use crate::driver::position_counters::{Position, free_counter};
use crate::util::error::{AeronErrorCode, Error, Result};

/// Counter type of a row's operation toggle.
pub const NAME_RESOLVER_CSV_ENTRY_COUNTER_TYPE_ID: i32 = 2001;
/// Toggle values.
pub const CSV_DISABLE_RESOLUTION: i64 = -1;
pub const CSV_USE_INITIAL_RESOLUTION_HOST: i64 = 0;
pub const CSV_USE_RE_RESOLUTION_HOST: i64 = 1;
/// Most rows a table may have (Aeron's limit).
pub const CSV_TABLE_MAX_ROWS: usize = 1024;
/// The key holds the name's length (4 bytes) and at most this many of its bytes.
const MAX_KEY_NAME_LENGTH: usize = 512 - 4;

struct Row {
    name: String,
    initial_host: String,
    re_resolution_host: String,
    toggle: Position,
}

pub struct CsvTableNameResolver {
    /// In Aeron's search order: the last row of the text first.
    rows: Vec<Row>,
}

impl CsvTableNameResolver {
    /// Parses the table and allocates each row's counter (last row first, as Aeron does).
    pub fn new(args: Option<&str>, counters: &mut CountersManager, now_ms: i64) -> Result<Self> {
        let args = args.ok_or_else(|| {
            Error::invalid_argument("No CSV configuration, please specify: AERON_NAME_RESOLVER_INIT_ARGS")
        })?;
        let texts: Vec<&str> = args.split('|').collect();
        if texts.len() > CSV_TABLE_MAX_ROWS {
            return Err(Error::invalid_argument(format!(
                "AERON_NAME_RESOLVER_INIT_ARGS: {} rows, at most {CSV_TABLE_MAX_ROWS}",
                texts.len()
            )));
        }
        let mut resolver = Self { rows: Vec::new() };
        for text in texts.iter().rev() {
            let fields: Vec<&str> = text.split(',').collect();
            let [name, initial_host, re_resolution_host] = fields[..] else { continue };
            let name_bytes = &name.as_bytes()[..name.len().min(MAX_KEY_NAME_LENGTH)];
            let mut key = (name_bytes.len() as i32).to_le_bytes().to_vec();
            key.extend_from_slice(name_bytes);
            let label = format!(
                "NameEntry{{name='{name}', initialResolutionHost='{initial_host}', reResolutionHost='{re_resolution_host}'}}"
            );
            let counter_id =
                match counters.allocate(NAME_RESOLVER_CSV_ENTRY_COUNTER_TYPE_ID, &key, &label, now_ms) {
                    Ok(id) => id,
                    Err(e) => {
                        resolver.free_counters(counters, now_ms);
                        return Err(e.context("Failed to allocate csv resolver counter"));
                    }
                };
            resolver.rows.push(Row {
                name: name.to_string(),
                initial_host: initial_host.to_string(),
                re_resolution_host: re_resolution_host.to_string(),
                toggle: Position::new(counters.reader().values_buffer(), counter_id),
            });
        }
        Ok(resolver)
    }

    /// The counter ids of the rows, in the order they were allocated.
    pub fn counter_ids(&self) -> Vec<i32> {
        self.rows.iter().map(|r| r.toggle.counter_id()).collect()
    }

    /// Frees the rows' counters (when the driver could not start after all).
    pub fn free_counters(&self, counters: &mut CountersManager, now_ms: i64) {
        for row in &self.rows {
            free_counter(counters, row.toggle.counter_id(), now_ms);
        }
    }

    /// The host to resolve for `host`: a row's host as its toggle says, or `host` itself.
    fn host_for<'a>(&'a self, host: &'a str) -> Result<&'a str> {
        let mut chosen = host;
        // As Aeron: every matching row is looked at, the last one in search order wins.
        for row in self.rows.iter().filter(|r| r.name == host) {
            // Acquire: a test's release store of the toggle is seen as written.
            match row.toggle.get_acquire() {
                CSV_DISABLE_RESOLUTION => {
                    return Err(Error::aeron(
                        AeronErrorCode::UnknownHost,
                        format!("Unable to resolve host=({host}): (forced)"),
                    ));
                }
                CSV_USE_INITIAL_RESOLUTION_HOST => chosen = &row.initial_host,
                CSV_USE_RE_RESOLUTION_HOST => chosen = &row.re_resolution_host,
                _ => {}
            }
        }
        Ok(chosen)
    }
}

impl NameResolver for CsvTableNameResolver {
    fn lookup(&mut self, _name: &str, _uri_param_name: &str, _is_re_lookup: bool) -> Result<Option<String>> {
        Ok(None)
    }

    fn resolve(
        &mut self,
        host: &str,
        uri_param_name: &str,
        _is_re_resolution: bool,
        ipv6: bool,
    ) -> Result<IpAddr> {
        let chosen = self.host_for(host)?;
        if let Ok(ip) = chosen.parse::<IpAddr>() {
            return Ok(ip);
        }
        resolve_host(uri_param_name, chosen, chosen, ipv6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::driver::media::name_resolver::resolve_host_and_port_with;

    fn counters() -> CountersManager {
        CountersManager::new(AtomicBuffer::alloc(64 * 512), AtomicBuffer::alloc(64 * 128), 0).unwrap()
    }

    #[test]
    fn rows_choose_their_host_by_toggle() {
        let mut counters = counters();
        let args = "server0,localhost,127.0.0.2|bad,row|server1,127.0.0.3,127.0.0.4";
        let mut r = CsvTableNameResolver::new(Some(args), &mut counters, 0).unwrap();
        let ids = r.counter_ids();
        assert_eq!(ids.len(), 2, "the two-field row is skipped");
        let reader = counters.reader();
        assert_eq!(reader.counter_type_id(ids[0]).unwrap(), NAME_RESOLVER_CSV_ENTRY_COUNTER_TYPE_ID);
        let label = reader.counter_label(ids[0]).unwrap();
        assert_eq!(
            label,
            "NameEntry{name='server1', initialResolutionHost='127.0.0.3', reResolutionHost='127.0.0.4'}",
            "the last row is allocated first"
        );
        let key = reader.counter_key(ids[1]).unwrap()[..11].to_vec();
        assert_eq!(key, [7, 0, 0, 0, b's', b'e', b'r', b'v', b'e', b'r', b'0']);

        let resolve =
            |r: &mut CsvTableNameResolver, v: &str| resolve_host_and_port_with(r, "endpoint", v, false);
        assert_eq!(resolve(&mut r, "server0:9").unwrap(), "127.0.0.1:9".parse().unwrap());
        assert_eq!(resolve(&mut r, "server1:9").unwrap(), "127.0.0.3:9".parse().unwrap());
        assert_eq!(resolve(&mut r, "localhost:8").unwrap(), "127.0.0.1:8".parse().unwrap());
        counters.set_counter_value(ids[1], CSV_USE_RE_RESOLUTION_HOST).unwrap();
        assert_eq!(resolve(&mut r, "server0:9").unwrap(), "127.0.0.2:9".parse().unwrap());
        counters.set_counter_value(ids[1], CSV_DISABLE_RESOLUTION).unwrap();
        let err = resolve(&mut r, "server0:9").unwrap_err();
        assert!(err.message().contains("Unable to resolve host=(server0): (forced)"), "{err}");
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::UnknownHost));
    }

    #[test]
    fn a_table_is_required() {
        let err = CsvTableNameResolver::new(None, &mut counters(), 0).err().unwrap();
        assert!(err.message().contains("No CSV configuration"), "{err}");
    }
}
