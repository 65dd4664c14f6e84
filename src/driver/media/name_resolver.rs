//! Name resolution of the `endpoint` and `control` addresses of UDP channels and
//! destinations, as Aeron's `aeron_name_resolver_t` does it: a *lookup* maps the text of
//! the URI parameter (a name, or `host:port`) to a `host:port` text, then a host that is
//! not an address literal is *resolved* to an address. The default resolver's lookup keeps
//! the text as it is and its resolution asks the system (`getaddrinfo`); a resolver
//! supplied in code (`aeron_driver_context_set_name_resolver_supplier`) replaces both.
//!
//! The conductor owns the driver's resolver and wraps it in [`TimeTrackingNameResolver`]:
//! every lookup and resolution is timed by the name resolver's tracker (system counters 32
//! and 33, `AERON_DRIVER_NAME_RESOLVER_THRESHOLD`), as Aeron's conductor times them.
//! Resolution may block on DNS: only the conductor resolves.
#![forbid(unsafe_code)]

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use super::csv_table_name_resolver::CsvTableNameResolver;
use super::driver_name_resolver::{DriverNameResolver, DriverNameResolverParams};
use super::socket_address::{AddressText, parse_port, resolve_host, socket_address};
use super::udp_transport::SocketBuffers;
use crate::concurrent::counters::CountersManager;
use crate::concurrent::error_log::DistinctErrorLog;
use crate::driver::context::DriverContext;
use crate::driver::duty_cycle_tracker::DutyCycleTracker;
use crate::driver::system_counters::SystemCounters;
use crate::util::clock::nano_time;
use crate::util::error::{Error, Result};

/// `AERON_NAME_RESOLVER_SUPPLIER`'s value for the default resolver.
pub const DEFAULT_NAME_RESOLVER: &str = "default";
/// ... for the CSV table resolver (`csv_table_name_resolver.rs`).
pub const CSV_TABLE_NAME_RESOLVER: &str = "csv_table";
/// ... for the driver name resolver (`driver_name_resolver.rs`).
pub const DRIVER_NAME_RESOLVER: &str = "driver";

/// The resolvers built in, as `AERON_NAME_RESOLVER_SUPPLIER` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BuiltInNameResolver {
    #[default]
    Default,
    CsvTable,
    Driver,
}

impl BuiltInNameResolver {
    /// Parses a supplier name; an unknown one is an error naming the variable.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            DEFAULT_NAME_RESOLVER => Ok(Self::Default),
            CSV_TABLE_NAME_RESOLVER => Ok(Self::CsvTable),
            DRIVER_NAME_RESOLVER => Ok(Self::Driver),
            other => Err(Error::invalid_argument(format!(
                "AERON_NAME_RESOLVER_SUPPLIER={other:?}: unknown name resolver (built in: {DEFAULT_NAME_RESOLVER}, {CSV_TABLE_NAME_RESOLVER}, {DRIVER_NAME_RESOLVER}; supply others with aeron_driver_context_set_name_resolver_supplier)"
            ))),
        }
    }
}

impl crate::util::settings::ParseSetting for BuiltInNameResolver {
    fn parse_setting(_name: &str, value: &str) -> Result<Self> {
        Self::parse(value)
    }
}

/// A name resolver (Aeron's `lookup_func`, `resolve_func`, `do_work_func`, `close_func`).
pub trait NameResolver: Send {
    /// Maps `name`, the value of URI parameter `uri_param_name`, to a `host:port` text;
    /// `None` keeps `name` as it is.
    fn lookup(&mut self, name: &str, uri_param_name: &str, is_re_lookup: bool) -> Result<Option<String>>;

    /// Resolves `host`, which is not an address literal, to an address: IPv6 when the
    /// text was bracketed (`ipv6`), else IPv4. A resolver may answer with either family.
    fn resolve(
        &mut self,
        host: &str,
        uri_param_name: &str,
        is_re_resolution: bool,
        ipv6: bool,
    ) -> Result<IpAddr>;

    /// An answer already at hand for the whole `host:port` value of `uri_param_name`
    /// (the conductor's results from its executor thread); `None` resolves as usual.
    fn memoized(
        &mut self,
        _uri_param_name: &str,
        _value: &str,
        _is_re_resolution: bool,
    ) -> Option<Result<SocketAddr>> {
        None
    }

    /// The resolver's own periodic work (the conductor calls it every duty cycle).
    fn do_work(&mut self, _now_ms: i64) -> Result<i32> {
        Ok(0)
    }

    /// The driver is closing.
    fn close(&mut self) {}
}

/// Aeron's default resolver: the text as written, hosts resolved by the system.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultNameResolver;

impl NameResolver for DefaultNameResolver {
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
        resolve_host(uri_param_name, host, host, ipv6)
    }
}

/// Makes the driver's resolver from `AERON_NAME_RESOLVER_INIT_ARGS` (a context setting;
/// called once, when the driver is created).
pub type MakeNameResolver = dyn Fn(Option<&str>) -> Result<Box<dyn NameResolver>> + Send + Sync;

/// A resolver supplied in code, in place of the default one.
#[derive(Clone)]
pub struct NameResolverSupplier(pub Arc<MakeNameResolver>);

impl fmt::Debug for NameResolverSupplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NameResolverSupplier")
    }
}

/// What the built-in resolvers are made with, beyond the context.
pub struct NameResolverResources<'a> {
    pub counters: &'a mut CountersManager,
    pub system: &'a SystemCounters,
    pub error_log: &'a Arc<DistinctErrorLog>,
    pub now_ms: i64,
}

/// The driver's resolver (called once, when the driver is created): the one supplied in
/// code, else the one `AERON_NAME_RESOLVER_SUPPLIER` names. A driver given a resolver
/// interface but no supplier name runs the driver resolver, as Java's driver does
/// (Aeron C would leave the interface unused, and a setting is never accepted and
/// ignored here).
pub fn make_name_resolver(
    ctx: &DriverContext,
    r: NameResolverResources<'_>,
) -> Result<Box<dyn NameResolver>> {
    let init_args = ctx.network.name_resolver_init_args.as_deref();
    if let Some(supplier) = &ctx.name_resolver_supplier {
        return (supplier.0)(init_args).map_err(|e| e.context("failed to init name resolver"));
    }
    let network = &ctx.network;
    let builtin = match ctx.builtin_name_resolver {
        BuiltInNameResolver::Default if network.resolver_interface.is_some() => BuiltInNameResolver::Driver,
        other => other,
    };
    match builtin {
        BuiltInNameResolver::Default => Ok(Box::new(DefaultNameResolver)),
        BuiltInNameResolver::CsvTable => Ok(Box::new(
            CsvTableNameResolver::new(init_args, r.counters, r.now_ms)
                .map_err(|e| e.context("failed to init name resolver"))?,
        )),
        BuiltInNameResolver::Driver => {
            let interface = network.resolver_interface.as_deref().ok_or_else(|| {
                Error::invalid_argument(
                    "AERON_NAME_RESOLVER_SUPPLIER=driver needs AERON_DRIVER_RESOLVER_INTERFACE (host:port to bind)",
                )
            })?;
            let params = DriverNameResolverParams {
                name: network.resolver_name.as_deref().unwrap_or(""),
                interface,
                bootstrap_neighbor: network.resolver_bootstrap_neighbor.as_deref(),
                mtu_length: ctx.mtu_length,
                buffers: SocketBuffers { so_sndbuf: ctx.socket_so_sndbuf, so_rcvbuf: ctx.socket_so_rcvbuf },
            };
            let resolver = DriverNameResolver::new(
                &params,
                r.counters,
                r.system.clone(),
                Arc::clone(r.error_log),
                r.now_ms,
            )
            .map_err(|e| e.context("failed to init name resolver"))?;
            Ok(Box::new(resolver))
        }
    }
}

/// The conductor's resolver: every lookup and resolution timed by `tracker`.
pub struct TimeTrackingNameResolver {
    delegate: Box<dyn NameResolver>,
    tracker: DutyCycleTracker,
}

impl TimeTrackingNameResolver {
    pub fn new(delegate: Box<dyn NameResolver>, tracker: DutyCycleTracker) -> Self {
        Self { delegate, tracker }
    }

    fn timed<T>(&mut self, call: impl FnOnce(&mut dyn NameResolver) -> T) -> T {
        self.tracker.update(nano_time());
        let result = call(self.delegate.as_mut());
        self.tracker.measure_and_update(nano_time());
        result
    }
}

impl NameResolver for TimeTrackingNameResolver {
    fn lookup(&mut self, name: &str, uri_param_name: &str, is_re_lookup: bool) -> Result<Option<String>> {
        self.timed(|r| r.lookup(name, uri_param_name, is_re_lookup))
    }

    fn resolve(
        &mut self,
        host: &str,
        uri_param_name: &str,
        is_re_resolution: bool,
        ipv6: bool,
    ) -> Result<IpAddr> {
        self.timed(|r| r.resolve(host, uri_param_name, is_re_resolution, ipv6))
    }

    fn do_work(&mut self, now_ms: i64) -> Result<i32> {
        self.delegate.do_work(now_ms)
    }

    fn close(&mut self) {
        self.delegate.close();
    }
}

/// Resolves the `host:port` value of URI parameter `key` through `resolver` (Aeron's
/// `aeron_name_resolver_resolve_host_and_port`): the lookup first, then the host unless it
/// is an address literal (IPv6 when bracketed). The port is required.
pub fn resolve_host_and_port_with(
    resolver: &mut dyn NameResolver,
    key: &str,
    value: &str,
    is_re_resolution: bool,
) -> Result<SocketAddr> {
    if let Some(answer) = resolver.memoized(key, value, is_re_resolution) {
        return answer;
    }
    let looked_up = resolver.lookup(value, key, is_re_resolution)?;
    let text = looked_up.as_deref().unwrap_or(value);
    let unresolved = |e: Error| match looked_up.as_deref() {
        Some(name_and_port) => e.context(format_args!("{key}={value} looked up as {name_and_port}")),
        None => e,
    };
    let parts = AddressText::split(key, text, text).map_err(unresolved)?;
    let port = parts
        .port
        .ok_or_else(|| Error::invalid_argument(format!("{key}={text}: missing port (expected host:port)")))
        .map_err(unresolved)?;
    let port = parse_port(key, text, port).map_err(unresolved)?;
    let literal = if parts.ipv6 {
        parts.host.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::from)
    } else {
        parts.host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::from)
    };
    let ip = match literal {
        Some(ip) => ip,
        None => resolver.resolve(parts.host, key, is_re_resolution, parts.ipv6).map_err(unresolved)?,
    };
    socket_address(key, text, ip, port, parts.scope).map_err(unresolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::driver::position_counters::Position;

    /// Knows one name; records what it was asked.
    #[derive(Default)]
    struct TableResolver {
        asked: Vec<String>,
    }

    impl NameResolver for TableResolver {
        fn lookup(&mut self, name: &str, key: &str, _: bool) -> Result<Option<String>> {
            self.asked.push(format!("lookup {key} {name}"));
            Ok((name == "service-a").then(|| "host-a:4000".to_string()))
        }

        fn resolve(&mut self, host: &str, key: &str, _: bool, ipv6: bool) -> Result<IpAddr> {
            self.asked.push(format!("resolve {key} {host} {ipv6}"));
            match host {
                "host-a" => Ok(IpAddr::from([10, 0, 0, 7])),
                _ => Err(Error::invalid_argument(format!("unknown {host}"))),
            }
        }
    }

    #[test]
    fn lookup_then_resolution_of_hosts_that_are_not_literals() {
        let mut r = TableResolver::default();
        let a = resolve_host_and_port_with(&mut r, "endpoint", "service-a", false).unwrap();
        assert_eq!(a, "10.0.0.7:4000".parse().unwrap());
        let literal = resolve_host_and_port_with(&mut r, "control", "127.0.0.1:5", false).unwrap();
        assert_eq!(literal, "127.0.0.1:5".parse().unwrap());
        let v6 = resolve_host_and_port_with(&mut r, "endpoint", "[::1]:6", false).unwrap();
        assert_eq!(v6, "[::1]:6".parse().unwrap());
        assert_eq!(
            r.asked,
            [
                "lookup endpoint service-a",
                "resolve endpoint host-a false",
                "lookup control 127.0.0.1:5",
                "lookup endpoint [::1]:6"
            ]
        );
        let err = resolve_host_and_port_with(&mut r, "endpoint", "nowhere:1", false).unwrap_err();
        assert!(err.message().contains("unknown nowhere"), "{err}");
        let err = resolve_host_and_port_with(&mut r, "endpoint", "nowhere", false).unwrap_err();
        assert!(err.message().contains("missing port"), "{err}");
    }

    #[test]
    fn the_default_resolver_resolves_localhost() {
        let a =
            resolve_host_and_port_with(&mut DefaultNameResolver, "endpoint", "localhost:7", false).unwrap();
        assert_eq!(a, "127.0.0.1:7".parse().unwrap());
    }

    #[test]
    fn every_lookup_and_resolution_is_timed() {
        let values = AtomicBuffer::alloc(256);
        let tracker = DutyCycleTracker::new(Position::new(&values, 0), Position::new(&values, 1), 0, None);
        let mut r = TimeTrackingNameResolver::new(Box::new(TableResolver::default()), tracker);
        resolve_host_and_port_with(&mut r, "endpoint", "service-a", false).unwrap();
        assert!(values.get_i64(0) > 0, "max time of the lookup or the resolution");
        assert_eq!(values.get_i64(128), 2, "a 0 ns threshold counts the lookup and the resolution");
        resolve_host_and_port_with(&mut r, "endpoint", "127.0.0.1:1", false).unwrap();
        assert_eq!(values.get_i64(128), 3, "a literal is looked up, not resolved");
    }
}
