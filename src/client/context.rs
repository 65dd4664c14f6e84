//! `Context`: the settings and callbacks of one client (Aeron `aeron_context_t`,
//! `Aeron.Context`), with the C client's defaults and environment variables.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::client::image::Image;
use crate::client::publication_error_frame::{PublicationErrorFrame, PublicationErrorFrameHandler};
use crate::util::config::{env, parse_bool, parse_duration_ns};
use crate::util::error::{Error, Result};

pub use crate::cnc::aeron_dir::AERON_DIR_ENV_VAR;
pub use crate::cnc::default_aeron_dir;
pub const AERON_CLIENT_NAME_ENV_VAR: &str = "AERON_CLIENT_NAME";
pub const AERON_DRIVER_TIMEOUT_ENV_VAR: &str = "AERON_DRIVER_TIMEOUT";
pub const AERON_CLIENT_RESOURCE_LINGER_DURATION_ENV_VAR: &str = "AERON_CLIENT_RESOURCE_LINGER_DURATION";
pub const AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR: &str = "AERON_CLIENT_IDLE_SLEEP_DURATION";
pub const AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY_ENV_VAR: &str = "AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY";
/// Every variable the client context reads (`Context::from_env`).
pub const ENV_VARIABLES: &[&str] = &[
    AERON_DIR_ENV_VAR,
    AERON_CLIENT_NAME_ENV_VAR,
    AERON_DRIVER_TIMEOUT_ENV_VAR,
    AERON_CLIENT_RESOURCE_LINGER_DURATION_ENV_VAR,
    AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR,
    AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY_ENV_VAR,
];

pub const DRIVER_TIMEOUT_MS_DEFAULT: u64 = 10_000;
pub const KEEPALIVE_INTERVAL_NS_DEFAULT: u64 = 500_000_000;
pub const RESOURCE_LINGER_DURATION_NS_DEFAULT: u64 = 3_000_000_000;
pub const IDLE_SLEEP_DURATION_NS_DEFAULT: u64 = 16_000_000;
/// Longest client name the driver's heartbeat label takes (`counters.md` §3.2).
pub use crate::concurrent::counters::descriptor::MAX_CLIENT_NAME_LENGTH;

/// Receives every error the client reports asynchronously (conductor errors, driver and
/// client timeouts, errors of asynchronous commands nobody polls for).
pub type ErrorHandler = Arc<dyn Fn(&Error) + Send + Sync>;
/// Called when an image joins (available) or leaves (unavailable) a subscription. Runs on
/// the conductor's thread (or the `do_work` caller's), never while the client is locked.
pub type ImageHandler = Arc<dyn Fn(&Arc<Image>) + Send + Sync>;
/// Called with `(registration id, counter id)` when any counter becomes available or
/// unavailable (Aeron `aeron_on_available_counter_t`).
pub type CounterHandler = Arc<dyn Fn(i64, i32) + Send + Sync>;
/// Called with `(channel, stream id, session id, correlation id)` when a publication the
/// client asked for is ready.
pub type NewPublicationHandler = Arc<dyn Fn(&str, i32, i32, i64) + Send + Sync>;
/// Called with `(channel, stream id, correlation id)` when a subscription is ready.
pub type NewSubscriptionHandler = Arc<dyn Fn(&str, i32, i64) + Send + Sync>;
/// Called once when the client closes.
pub type CloseClientHandler = Arc<dyn Fn() + Send + Sync>;
/// Called with the agent's role name on the conductor's thread as it starts (in invoker
/// mode: by `Aeron::start`), e.g. to pin the thread to a core.
pub type AgentOnStart = Arc<dyn Fn(&str) + Send + Sync>;

/// Client settings. `Context::from_env()` starts from the C client's defaults overridden by
/// its environment variables; setters override both.
#[derive(Clone)]
pub struct Context {
    aeron_dir: PathBuf,
    client_name: String,
    driver_timeout: Duration,
    keepalive_interval: Duration,
    resource_linger_duration: Duration,
    idle_sleep_duration: Duration,
    pre_touch_mapped_memory: bool,
    use_conductor_agent_invoker: bool,
    error_handler: ErrorHandler,
    on_available_image: Option<ImageHandler>,
    on_unavailable_image: Option<ImageHandler>,
    on_available_counter: Option<CounterHandler>,
    on_unavailable_counter: Option<CounterHandler>,
    on_new_publication: Option<NewPublicationHandler>,
    on_new_exclusive_publication: Option<NewPublicationHandler>,
    on_new_subscription: Option<NewSubscriptionHandler>,
    on_close_client: Option<CloseClientHandler>,
    agent_on_start: Option<AgentOnStart>,
    publication_error_frame_handler: Option<PublicationErrorFrameHandler>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("aeron_dir", &self.aeron_dir)
            .field("client_name", &self.client_name)
            .field("driver_timeout", &self.driver_timeout)
            .field("keepalive_interval", &self.keepalive_interval)
            .field("resource_linger_duration", &self.resource_linger_duration)
            .field("idle_sleep_duration", &self.idle_sleep_duration)
            .field("pre_touch_mapped_memory", &self.pre_touch_mapped_memory)
            .field("use_conductor_agent_invoker", &self.use_conductor_agent_invoker)
            .finish_non_exhaustive()
    }
}

/// Prints the error, as the C client's default handler does (without its `exit`: a library
/// must not end the process for an error the caller did not ask to handle).
fn default_error_handler() -> ErrorHandler {
    Arc::new(|e: &Error| eprintln!("ERROR: ({}): {}", e.code(), e.message()))
}

impl Default for Context {
    /// The C client's defaults, without reading the environment.
    fn default() -> Self {
        Self {
            aeron_dir: default_aeron_dir(),
            client_name: String::new(),
            driver_timeout: Duration::from_millis(DRIVER_TIMEOUT_MS_DEFAULT),
            keepalive_interval: Duration::from_nanos(KEEPALIVE_INTERVAL_NS_DEFAULT),
            resource_linger_duration: Duration::from_nanos(RESOURCE_LINGER_DURATION_NS_DEFAULT),
            idle_sleep_duration: Duration::from_nanos(IDLE_SLEEP_DURATION_NS_DEFAULT),
            pre_touch_mapped_memory: false,
            use_conductor_agent_invoker: false,
            error_handler: default_error_handler(),
            on_available_image: None,
            on_unavailable_image: None,
            on_available_counter: None,
            on_unavailable_counter: None,
            on_new_publication: None,
            on_new_exclusive_publication: None,
            on_new_subscription: None,
            on_close_client: None,
            agent_on_start: None,
            publication_error_frame_handler: None,
        }
    }
}

impl Context {
    /// Defaults overridden by the C client's environment variables (`AERON_DIR`,
    /// `AERON_CLIENT_NAME`, `AERON_DRIVER_TIMEOUT` in ms, `AERON_CLIENT_RESOURCE_LINGER_DURATION`,
    /// `AERON_CLIENT_IDLE_SLEEP_DURATION`, `AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY`).
    pub fn from_env() -> Result<Self> {
        Self::from_lookup(env)
    }

    /// As [`from_env`](Self::from_env), reading variables through `lookup` (tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let mut ctx = Self::default();
        if let Some(dir) = lookup(AERON_DIR_ENV_VAR) {
            ctx.aeron_dir = PathBuf::from(dir);
        }
        if let Some(name) = lookup(AERON_CLIENT_NAME_ENV_VAR) {
            ctx.set_client_name(&name).map_err(|e| e.context(AERON_CLIENT_NAME_ENV_VAR))?;
        }
        if let Some(v) = lookup(AERON_DRIVER_TIMEOUT_ENV_VAR) {
            ctx.driver_timeout = Duration::from_millis(parse_c_integer(AERON_DRIVER_TIMEOUT_ENV_VAR, &v)?);
        }
        if let Some(v) = lookup(AERON_CLIENT_RESOURCE_LINGER_DURATION_ENV_VAR) {
            ctx.resource_linger_duration =
                Duration::from_nanos(parse_duration_ns(AERON_CLIENT_RESOURCE_LINGER_DURATION_ENV_VAR, &v)?);
        }
        if let Some(v) = lookup(AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR) {
            ctx.idle_sleep_duration =
                Duration::from_nanos(parse_duration_ns(AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR, &v)?);
        }
        if let Some(v) = lookup(AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY_ENV_VAR) {
            ctx.pre_touch_mapped_memory = parse_bool(AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY_ENV_VAR, &v)?;
        }
        Ok(ctx)
    }

    /// Checks the settings hang together; `Aeron::connect` calls it.
    pub fn validate(&self) -> Result<()> {
        if self.driver_timeout.is_zero() {
            return Err(Error::invalid_argument("driver timeout must be > 0"));
        }
        if self.keepalive_interval.is_zero() {
            return Err(Error::invalid_argument("keepalive interval must be > 0"));
        }
        if self.aeron_dir.as_os_str().is_empty() {
            return Err(Error::invalid_argument("aeron dir is empty"));
        }
        Ok(())
    }

    pub fn aeron_dir(&self) -> &Path {
        &self.aeron_dir
    }

    pub fn set_aeron_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.aeron_dir = dir.into();
        self
    }

    /// `<aeron dir>/cnc.dat`.
    pub fn cnc_file(&self) -> PathBuf {
        crate::cnc::cnc_path(&self.aeron_dir)
    }

    pub fn client_name(&self) -> &str {
        &self.client_name
    }

    /// Sets the name appended to the client's heartbeat counter label (≤ 100 bytes).
    pub fn set_client_name(&mut self, name: &str) -> Result<&mut Self> {
        if name.len() > MAX_CLIENT_NAME_LENGTH {
            return Err(Error::invalid_argument(format!(
                "client name length {} > {MAX_CLIENT_NAME_LENGTH}",
                name.len()
            )));
        }
        self.client_name = name.to_string();
        Ok(self)
    }

    pub fn driver_timeout(&self) -> Duration {
        self.driver_timeout
    }

    /// How long to wait for the driver at connect and for command responses, and how stale
    /// the driver heartbeat may get before the client declares the driver dead.
    pub fn set_driver_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.driver_timeout = timeout;
        self
    }

    pub fn keepalive_interval(&self) -> Duration {
        self.keepalive_interval
    }

    /// How often the client writes its heartbeat and checks the driver's.
    pub fn set_keepalive_interval(&mut self, interval: Duration) -> &mut Self {
        self.keepalive_interval = interval;
        self
    }

    pub fn resource_linger_duration(&self) -> Duration {
        self.resource_linger_duration
    }

    /// How long closed resources stay mapped, so readers holding them finish safely.
    pub fn set_resource_linger_duration(&mut self, duration: Duration) -> &mut Self {
        self.resource_linger_duration = duration;
        self
    }

    pub fn idle_sleep_duration(&self) -> Duration {
        self.idle_sleep_duration
    }

    /// Sleep of the conductor thread when a duty cycle found no work.
    pub fn set_idle_sleep_duration(&mut self, duration: Duration) -> &mut Self {
        self.idle_sleep_duration = duration;
        self
    }

    pub fn pre_touch_mapped_memory(&self) -> bool {
        self.pre_touch_mapped_memory
    }

    /// Touch every page of newly mapped log buffers so the first messages do not fault.
    pub fn set_pre_touch_mapped_memory(&mut self, value: bool) -> &mut Self {
        self.pre_touch_mapped_memory = value;
        self
    }

    pub fn use_conductor_agent_invoker(&self) -> bool {
        self.use_conductor_agent_invoker
    }

    /// No conductor thread: the application drives the client with `Aeron::do_work`.
    pub fn set_use_conductor_agent_invoker(&mut self, value: bool) -> &mut Self {
        self.use_conductor_agent_invoker = value;
        self
    }

    pub fn error_handler(&self) -> &ErrorHandler {
        &self.error_handler
    }

    pub fn set_error_handler(&mut self, handler: impl Fn(&Error) + Send + Sync + 'static) -> &mut Self {
        self.error_handler = Arc::new(handler);
        self
    }

    pub fn publication_error_frame_handler(&self) -> Option<&PublicationErrorFrameHandler> {
        self.publication_error_frame_handler.as_ref()
    }

    /// Told of every ERR frame a receiver sends about one of this client's publications
    /// (Aeron `publicationErrorFrameHandler`), e.g. when a subscriber rejected its image.
    pub fn set_publication_error_frame_handler(
        &mut self,
        handler: impl Fn(&PublicationErrorFrame) + Send + Sync + 'static,
    ) -> &mut Self {
        self.publication_error_frame_handler = Some(Arc::new(handler));
        self
    }

    pub fn on_available_image(&self) -> Option<&ImageHandler> {
        self.on_available_image.as_ref()
    }

    /// Default available-image handler of subscriptions added without their own.
    pub fn set_on_available_image(
        &mut self,
        handler: impl Fn(&Arc<Image>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_available_image = Some(Arc::new(handler));
        self
    }

    pub fn on_unavailable_image(&self) -> Option<&ImageHandler> {
        self.on_unavailable_image.as_ref()
    }

    /// Default unavailable-image handler of subscriptions added without their own.
    pub fn set_on_unavailable_image(
        &mut self,
        handler: impl Fn(&Arc<Image>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_unavailable_image = Some(Arc::new(handler));
        self
    }

    pub fn on_available_counter(&self) -> Option<&CounterHandler> {
        self.on_available_counter.as_ref()
    }

    pub fn set_on_available_counter(
        &mut self,
        handler: impl Fn(i64, i32) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_available_counter = Some(Arc::new(handler));
        self
    }

    pub fn on_unavailable_counter(&self) -> Option<&CounterHandler> {
        self.on_unavailable_counter.as_ref()
    }

    pub fn set_on_unavailable_counter(
        &mut self,
        handler: impl Fn(i64, i32) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_unavailable_counter = Some(Arc::new(handler));
        self
    }

    pub fn on_new_publication(&self) -> Option<&NewPublicationHandler> {
        self.on_new_publication.as_ref()
    }

    pub fn set_on_new_publication(
        &mut self,
        handler: impl Fn(&str, i32, i32, i64) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_new_publication = Some(Arc::new(handler));
        self
    }

    pub fn on_new_exclusive_publication(&self) -> Option<&NewPublicationHandler> {
        self.on_new_exclusive_publication.as_ref()
    }

    pub fn set_on_new_exclusive_publication(
        &mut self,
        handler: impl Fn(&str, i32, i32, i64) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_new_exclusive_publication = Some(Arc::new(handler));
        self
    }

    pub fn on_new_subscription(&self) -> Option<&NewSubscriptionHandler> {
        self.on_new_subscription.as_ref()
    }

    pub fn set_on_new_subscription(
        &mut self,
        handler: impl Fn(&str, i32, i64) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_new_subscription = Some(Arc::new(handler));
        self
    }

    pub fn on_close_client(&self) -> Option<&CloseClientHandler> {
        self.on_close_client.as_ref()
    }

    pub fn set_on_close_client(&mut self, handler: impl Fn() + Send + Sync + 'static) -> &mut Self {
        self.on_close_client = Some(Arc::new(handler));
        self
    }

    pub fn agent_on_start(&self) -> Option<&AgentOnStart> {
        self.agent_on_start.as_ref()
    }

    pub fn set_agent_on_start(&mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> &mut Self {
        self.agent_on_start = Some(Arc::new(hook));
        self
    }
}

/// Parses an unsigned integer as C's `strtoull(value, &end, 0)` does: decimal, `0x` hex or
/// leading-`0` octal, the whole string.
fn parse_c_integer(name: &str, value: &str) -> Result<u64> {
    let v = value.trim();
    let parsed = if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if v.len() > 1 && v.starts_with('0') {
        u64::from_str_radix(&v[1..], 8)
    } else {
        v.parse()
    };
    parsed.map_err(|_| Error::invalid_argument(format!("could not parse {name}={value:?} as an integer")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn defaults_match_the_c_client() {
        let ctx = Context::default();
        assert_eq!(ctx.driver_timeout(), Duration::from_secs(10));
        assert_eq!(ctx.keepalive_interval(), Duration::from_millis(500));
        assert_eq!(ctx.resource_linger_duration(), Duration::from_secs(3));
        assert_eq!(ctx.idle_sleep_duration(), Duration::from_millis(16));
        assert!(!ctx.pre_touch_mapped_memory());
        assert!(!ctx.use_conductor_agent_invoker());
        assert_eq!(ctx.client_name(), "");
        assert!(ctx.aeron_dir().file_name().unwrap().to_str().unwrap().starts_with("aeron-"));
        if cfg!(target_os = "linux") {
            assert!(ctx.aeron_dir().starts_with("/dev/shm"));
        }
        assert_eq!(ctx.cnc_file(), ctx.aeron_dir().join("cnc.dat"));
        ctx.validate().unwrap();
    }

    #[test]
    fn environment_overrides_defaults() {
        let ctx = Context::from_lookup(lookup(&[
            ("AERON_DIR", "/tmp/x"),
            ("AERON_CLIENT_NAME", "me"),
            ("AERON_DRIVER_TIMEOUT", "2500"),
            ("AERON_CLIENT_RESOURCE_LINGER_DURATION", "5ms"),
            ("AERON_CLIENT_IDLE_SLEEP_DURATION", "1ms"),
            ("AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY", "true"),
        ]))
        .unwrap();
        assert_eq!(ctx.aeron_dir(), Path::new("/tmp/x"));
        assert_eq!(ctx.client_name(), "me");
        assert_eq!(ctx.driver_timeout(), Duration::from_millis(2500));
        assert_eq!(ctx.resource_linger_duration(), Duration::from_millis(5));
        assert_eq!(ctx.idle_sleep_duration(), Duration::from_millis(1));
        assert!(ctx.pre_touch_mapped_memory());
    }

    #[test]
    fn bad_environment_values_name_the_variable() {
        let err = Context::from_lookup(lookup(&[("AERON_DRIVER_TIMEOUT", "10s")])).unwrap_err();
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("AERON_DRIVER_TIMEOUT"), "{err}");
        let long = "n".repeat(101);
        let err = Context::from_lookup(lookup(&[("AERON_CLIENT_NAME", &long)])).unwrap_err();
        assert!(err.message().contains("100"), "{err}");
        let err = Context::from_lookup(lookup(&[("AERON_CLIENT_IDLE_SLEEP_DURATION", "soon")])).unwrap_err();
        assert!(err.message().contains("AERON_CLIENT_IDLE_SLEEP_DURATION"), "{err}");
    }

    #[test]
    fn driver_timeout_parses_like_strtoull_base_0() {
        assert_eq!(parse_c_integer("X", "0x10").unwrap(), 16);
        assert_eq!(parse_c_integer("X", "010").unwrap(), 8);
        assert_eq!(parse_c_integer("X", "0").unwrap(), 0);
        assert_eq!(parse_c_integer("X", "1000").unwrap(), 1000);
        assert!(parse_c_integer("X", "-1").is_err());
        assert!(parse_c_integer("X", "1000ms").is_err());
    }

    #[test]
    fn validation_rejects_zero_timeouts() {
        let mut ctx = Context::default();
        ctx.set_driver_timeout(Duration::ZERO);
        assert!(ctx.validate().unwrap_err().message().contains("driver timeout"));
        let mut ctx = Context::default();
        ctx.set_keepalive_interval(Duration::ZERO);
        assert!(ctx.validate().is_err());
    }

    #[test]
    fn handlers_are_stored() {
        let mut ctx = Context::default();
        assert!(ctx.on_available_counter().is_none());
        ctx.set_on_available_counter(|_, _| {}).set_on_close_client(|| {});
        assert!(ctx.on_available_counter().is_some());
        assert!(ctx.on_close_client().is_some());
    }
}
