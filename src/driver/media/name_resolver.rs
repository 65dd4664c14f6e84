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

use super::socket_address::{AddressText, parse_port, resolve_host, socket_address};
use crate::driver::duty_cycle_tracker::DutyCycleTracker;
use crate::util::clock::nano_time;
use crate::util::error::{Error, Result};

/// `AERON_NAME_RESOLVER_SUPPLIER`'s value for the default resolver, the only built-in one.
pub const DEFAULT_NAME_RESOLVER: &str = "default";

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
