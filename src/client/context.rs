//! `Context`: the settings and callbacks of one client (Aeron `aeron_context_t`,
//! `Aeron.Context`), with the C client's defaults and environment variables.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::client::image::Image;
use crate::client::publication_error_frame::{PublicationErrorFrame, PublicationErrorFrameHandler};
use crate::cnc::default_aeron_dir;
use crate::util::config::env;
use crate::util::error::{Error, Result};
use crate::util::settings::ParseSetting;

/// Longest client name the driver's heartbeat label takes (`counters.md` §3.2).
pub use crate::concurrent::counters::descriptor::MAX_CLIENT_NAME_LENGTH;

const MS_NS: u64 = 1_000_000;

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

/// A client name the driver's heartbeat label can take: at most
/// [`MAX_CLIENT_NAME_LENGTH`] bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ClientName(String);

impl ClientName {
    fn new(name: &str) -> Result<Self> {
        if name.len() > MAX_CLIENT_NAME_LENGTH {
            return Err(Error::invalid_argument(format!(
                "client name length {} > {MAX_CLIENT_NAME_LENGTH}",
                name.len()
            )));
        }
        Ok(Self(name.to_string()))
    }
}

impl ParseSetting for ClientName {
    fn parse_setting(name: &str, value: &str) -> Result<Self> {
        Self::new(value).map_err(|e| e.context(name))
    }
}

crate::settings_table! {
    /// Client settings (Aeron `aeron_context_t`), one row each (`util::settings` has the row
    /// syntax). `Context::from_env()` starts from the C client's defaults overridden by its
    /// environment variables; setters override both. `build.rs` generates the plain
    /// `aeron_context_set_*`/`_get_*` functions from the rows (`ffi/context.rs`).
    #[derive(Clone)]
    pub struct Context as context {
        /// the Aeron directory the client finds the driver in (default `/dev/shm/aeron-<user>` where it exists)
        pub(crate) aeron_dir: PathBuf = default_aeron_dir(); path env "AERON_DIR", c(aeron, dir, custom);
        /// the name the driver's heartbeat counter label shows for the client, at most 100 bytes (default empty)
        pub(crate) client_name: ClientName = ClientName::default(); parsed env "AERON_CLIENT_NAME", c(aeron, client_name, custom);
        /// the driver timeout: how long the client waits for the driver at connect and for each response, and how stale the driver heartbeat may get, in ms (default 10 000)
        pub(crate) driver_timeout_ms: u64 = 10_000; strtoull env "AERON_DRIVER_TIMEOUT" in [1, u64::MAX], c(aeron, driver_timeout_ms, u64);
        /// how often the client heartbeats to the driver and checks the driver's heartbeat, in ns (default 500 ms; no variable, as in Aeron C)
        pub(crate) keepalive_interval_ns: u64 = 500 * MS_NS; code in [1, u64::MAX], c(aeron, keepalive_interval_ns, u64);
        /// how long closed resources stay mapped and their handles valid, so readers holding them finish safely, in ns (default 3 s)
        pub(crate) resource_linger_duration_ns: u64 = 3_000 * MS_NS; duration env "AERON_CLIENT_RESOURCE_LINGER_DURATION", c(aeron, resource_linger_duration_ns, u64);
        /// the conductor thread's sleep after a duty cycle without work, in ns (default 16 ms)
        pub(crate) idle_sleep_duration_ns: u64 = 16 * MS_NS; duration env "AERON_CLIENT_IDLE_SLEEP_DURATION", c(aeron, idle_sleep_duration_ns, u64);
        /// whether every page of a newly mapped log buffer is touched so the first messages do not fault (default false)
        pub(crate) pre_touch_mapped_memory: bool = false; flag env "AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY", c(aeron, pre_touch_mapped_memory, bool);
        /// whether the client runs without a conductor thread, its duty cycle driven by the application (invoker mode) (default false)
        pub(crate) use_conductor_agent_invoker: bool = false; code, c(aeron, use_conductor_agent_invoker, bool);
        /// The handlers, set in code (C callers' callbacks are kept by `ffi/context_callbacks.rs`
        /// and turned into these by `aeron_init`).
        error_handler: ErrorHandler = default_error_handler(); code;
        on_available_image: Option<ImageHandler> = None; code;
        on_unavailable_image: Option<ImageHandler> = None; code;
        on_available_counter: Option<CounterHandler> = None; code;
        on_unavailable_counter: Option<CounterHandler> = None; code;
        on_new_publication: Option<NewPublicationHandler> = None; code;
        on_new_exclusive_publication: Option<NewPublicationHandler> = None; code;
        on_new_subscription: Option<NewSubscriptionHandler> = None; code;
        on_close_client: Option<CloseClientHandler> = None; code;
        agent_on_start: Option<AgentOnStart> = None; code;
        publication_error_frame_handler: Option<PublicationErrorFrameHandler> = None; code;
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("aeron_dir", &self.aeron_dir)
            .field("client_name", &self.client_name.0)
            .field("driver_timeout_ms", &self.driver_timeout_ms)
            .field("keepalive_interval_ns", &self.keepalive_interval_ns)
            .field("resource_linger_duration_ns", &self.resource_linger_duration_ns)
            .field("idle_sleep_duration_ns", &self.idle_sleep_duration_ns)
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

/// `duration` in whole units of `unit_ns`, rounded up so a non-zero duration stays
/// non-zero, saturating.
fn whole_units(duration: Duration, unit_ns: u128) -> u64 {
    u64::try_from(duration.as_nanos().div_ceil(unit_ns)).unwrap_or(u64::MAX)
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
        Self::load_rows(lookup)
    }

    /// Checks the settings hang together (the rows' ranges, a directory); `Aeron::connect`
    /// calls it.
    pub fn validate(&self) -> Result<()> {
        self.check_row_ranges()?;
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
        &self.client_name.0
    }

    /// Sets the name appended to the client's heartbeat counter label (≤ 100 bytes).
    pub fn set_client_name(&mut self, name: &str) -> Result<&mut Self> {
        self.client_name = ClientName::new(name)?;
        Ok(self)
    }

    pub fn driver_timeout(&self) -> Duration {
        Duration::from_millis(self.driver_timeout_ms)
    }

    /// How long to wait for the driver at connect and for command responses, and how stale
    /// the driver heartbeat may get before the client declares the driver dead. Kept in
    /// whole milliseconds (as the C API and `AERON_DRIVER_TIMEOUT` give it), rounded up.
    pub fn set_driver_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.driver_timeout_ms = whole_units(timeout, u128::from(MS_NS));
        self
    }

    pub fn keepalive_interval(&self) -> Duration {
        Duration::from_nanos(self.keepalive_interval_ns)
    }

    /// How often the client writes its heartbeat and checks the driver's.
    pub fn set_keepalive_interval(&mut self, interval: Duration) -> &mut Self {
        self.keepalive_interval_ns = whole_units(interval, 1);
        self
    }

    pub fn resource_linger_duration(&self) -> Duration {
        Duration::from_nanos(self.resource_linger_duration_ns)
    }

    /// How long closed resources stay mapped, so readers holding them finish safely.
    pub fn set_resource_linger_duration(&mut self, duration: Duration) -> &mut Self {
        self.resource_linger_duration_ns = whole_units(duration, 1);
        self
    }

    pub fn idle_sleep_duration(&self) -> Duration {
        Duration::from_nanos(self.idle_sleep_duration_ns)
    }

    /// Sleep of the conductor thread when a duty cycle found no work.
    pub fn set_idle_sleep_duration(&mut self, duration: Duration) -> &mut Self {
        self.idle_sleep_duration_ns = whole_units(duration, 1);
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
    fn validation_rejects_zero_timeouts() {
        let mut ctx = Context::default();
        ctx.set_driver_timeout(Duration::ZERO);
        // The row's range names the variable, as the driver's ranges do.
        assert!(ctx.validate().unwrap_err().message().contains("AERON_DRIVER_TIMEOUT"));
        let mut ctx = Context::default();
        ctx.set_keepalive_interval(Duration::ZERO);
        assert!(ctx.validate().unwrap_err().message().contains("keepalive_interval_ns"));
    }

    #[test]
    fn durations_set_in_code_keep_their_units() {
        let mut ctx = Context::default();
        ctx.set_driver_timeout(Duration::from_micros(1500)).set_idle_sleep_duration(Duration::from_nanos(7));
        assert_eq!(ctx.driver_timeout(), Duration::from_millis(2), "whole ms, rounded up");
        assert_eq!(ctx.idle_sleep_duration(), Duration::from_nanos(7));
        ctx.set_resource_linger_duration(Duration::MAX);
        assert_eq!(ctx.resource_linger_duration(), Duration::from_nanos(u64::MAX));
        ctx.validate().unwrap();
    }

    #[test]
    fn the_table_lists_the_c_clients_variables_and_functions() {
        let rows = Context::settings();
        let env: Vec<&str> = rows.iter().filter_map(|r| r.env).collect();
        assert_eq!(
            env,
            [
                "AERON_DIR",
                "AERON_CLIENT_NAME",
                "AERON_DRIVER_TIMEOUT",
                "AERON_CLIENT_RESOURCE_LINGER_DURATION",
                "AERON_CLIENT_IDLE_SLEEP_DURATION",
                "AERON_CLIENT_PRE_TOUCH_MAPPED_MEMORY",
            ]
        );
        let c_setters: Vec<&str> = rows.iter().filter_map(|r| r.c_setter).collect();
        assert_eq!(c_setters.len(), 8);
        assert!(c_setters.iter().all(|s| s.starts_with("aeron_context_set_")), "{c_setters:?}");
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
