//! Generates `include/aeronrs.h` from the `ffi` layer with cbindgen. The header is committed;
//! it is rewritten only when its content changes, so CI can check for drift with
//! `git diff --exit-code include/`.

use std::path::PathBuf;

#[path = "build/context_callback_exports.rs"]
mod context_callback_exports;
#[path = "build/export_table.rs"]
mod export_table;
#[path = "build/exports.rs"]
mod exports;
#[path = "build/handle_query_exports.rs"]
mod handle_query_exports;
#[path = "build/idle_strategy_exports.rs"]
mod idle_strategy_exports;
#[path = "build/publication_exports.rs"]
mod publication_exports;
// The export families of the driver, util and extras ffi files (tables of rows).
#[path = "build/agent_exports.rs"]
mod agent_exports;
#[path = "build/alloc_exports.rs"]
mod alloc_exports;
#[path = "build/driver_callbacks_exports.rs"]
mod driver_callbacks_exports;
#[path = "build/driver_context_exports.rs"]
mod driver_context_exports;
#[path = "build/driver_exports.rs"]
mod driver_exports;
#[path = "build/driver_settings_udp_exports.rs"]
mod driver_settings_udp_exports;
#[path = "build/duty_cycle_tracker_exports.rs"]
mod duty_cycle_tracker_exports;
#[path = "build/error_log_exports.rs"]
mod error_log_exports;
#[path = "build/fileutil_exports.rs"]
mod fileutil_exports;
#[path = "build/mapped_bus_exports.rs"]
mod mapped_bus_exports;
#[path = "build/media_settings_exports.rs"]
mod media_settings_exports;
#[path = "build/parse_exports.rs"]
mod parse_exports;
#[path = "build/port_manager_exports.rs"]
mod port_manager_exports;
#[path = "build/properties_exports.rs"]
mod properties_exports;
#[path = "build/ring_buffer_exports.rs"]
mod ring_buffer_exports;
#[path = "build/strutil_exports.rs"]
mod strutil_exports;
#[path = "build/util_idle_strategy_exports.rs"]
mod util_idle_strategy_exports;

use exports::doc_comment;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let version = std::env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION");
    let mut parts = version.split('.').map(|p| p.split('-').next().unwrap_or("0").to_string());
    let (major, minor, patch) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );

    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/ffi");
    // Hand-written parts of the header, appended after the includes in this order.
    let hand_written = [
        "include/aeronrs_packed.h.in",
        "include/aeronrs_driver_env.h.in",
        "include/aeronrs_client_env.h.in",
        "include/aeronrs_util.h.in",
        "include/aeronrs_media.h.in",
    ];
    for part in hand_written {
        println!("cargo:rerun-if-changed={part}");
    }

    let mut config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    config.after_includes = Some(format!(
        "{}\n#define AERONRS_VERSION \"{version}\"\n#define AERONRS_VERSION_MAJOR {major}\n#define AERONRS_VERSION_MINOR {minor}\n#define AERONRS_VERSION_PATCH {patch}\n{}",
        config.after_includes.clone().unwrap_or_default(),
        hand_written
            .iter()
            .map(|part| std::fs::read_to_string(crate_dir.join(part))
                .unwrap_or_else(|e| panic!("read {part}: {e}")))
            .collect::<Vec<_>>()
            .join("\n"),
    ));

    // The export families generated from tables, each written to OUT_DIR, included by the
    // `src/ffi` file its comment names and read by cbindgen as a source of its own.
    println!("cargo:rerun-if-changed=build");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let families = [
        // src/ffi/driver/settings.rs
        ("driver_settings_ffi.rs", generate_settings_ffi(&crate_dir)),
        // src/ffi/context.rs
        ("context_settings_ffi.rs", generate_context_settings_ffi(&crate_dir)),
        // src/ffi/driver/settings_idle.rs
        ("driver_idle_strategy_ffi.rs", idle_strategy_exports::generate()),
        // The client families (build/exports.rs rows):
        // src/ffi/context_callbacks.rs
        ("context_callback_ffi.rs", context_callback_exports::generate()),
        // src/ffi/publication.rs
        ("publication_ffi.rs", publication_exports::generate(false)),
        // src/ffi/exclusive_publication.rs
        ("exclusive_publication_ffi.rs", publication_exports::generate(true)),
        // src/ffi/{image,subscription,counter,header,counters_reader,async_add,client,cnc,
        // fragment_assembler}.rs
        ("image_ffi.rs", handle_query_exports::image()),
        ("subscription_ffi.rs", handle_query_exports::subscription()),
        ("counter_ffi.rs", handle_query_exports::counter()),
        ("header_ffi.rs", handle_query_exports::header()),
        ("counters_reader_ffi.rs", handle_query_exports::counters_reader()),
        ("async_add_ffi.rs", handle_query_exports::async_add()),
        ("client_ffi.rs", handle_query_exports::client()),
        ("cnc_ffi.rs", handle_query_exports::cnc()),
        ("fragment_assembler_ffi.rs", handle_query_exports::fragment_assembler()),
        // The driver, util and extras families (text tables, build/export_table.rs):
        // src/ffi/driver/mod.rs
        ("driver_ffi.rs", driver_exports::generate()),
        // src/ffi/driver/context.rs
        ("driver_context_ffi.rs", driver_context_exports::generate()),
        // src/ffi/driver/callbacks.rs
        ("driver_callbacks_ffi.rs", driver_callbacks_exports::generate()),
        // src/ffi/driver/settings_udp.rs
        ("driver_settings_udp_ffi.rs", driver_settings_udp_exports::generate()),
        // src/ffi/driver/duty_cycle_trackers.rs
        ("duty_cycle_tracker_ffi.rs", duty_cycle_tracker_exports::generate()),
        // src/ffi/driver/port_managers.rs
        ("port_manager_ffi.rs", port_manager_exports::generate()),
        // src/ffi/driver/media/settings.rs
        ("media_settings_ffi.rs", media_settings_exports::generate()),
        // src/ffi/util/agent.rs
        ("agent_ffi.rs", agent_exports::generate()),
        // src/ffi/util/alloc.rs
        ("alloc_ffi.rs", alloc_exports::generate()),
        // src/ffi/util/error_log.rs
        ("error_log_ffi.rs", error_log_exports::generate()),
        // src/ffi/util/fileutil.rs
        ("fileutil_ffi.rs", fileutil_exports::generate()),
        // src/ffi/util/idle_strategy.rs
        ("util_idle_strategy_ffi.rs", util_idle_strategy_exports::generate()),
        // src/ffi/util/parse.rs
        ("parse_ffi.rs", parse_exports::generate()),
        // src/ffi/util/properties.rs
        ("properties_ffi.rs", properties_exports::generate()),
        // src/ffi/util/strutil.rs
        ("strutil_ffi.rs", strutil_exports::generate()),
        // src/ffi/extras/mapped_bus.rs
        ("mapped_bus_ffi.rs", mapped_bus_exports::generate()),
        // src/ffi/extras/ring_buffer.rs
        ("ring_buffer_ffi.rs", ring_buffer_exports::generate()),
    ];

    let mut builder = cbindgen::Builder::new().with_config(config).with_src(crate_dir.join("src/ffi/mod.rs"));
    for (file, source) in &families {
        let path = out_dir.join(file);
        write_if_changed(&path, &exports::name_rows(source));
        builder = builder.with_src(path);
    }
    let bindings = builder.generate().expect("cbindgen could not generate include/aeronrs.h");

    let out = crate_dir.join("include/aeronrs.h");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let current = std::fs::read(&out).unwrap_or_default();
    if current != generated {
        std::fs::write(&out, generated).expect("write include/aeronrs.h");
    }
}

/// Writes `text` to `path` unless it already holds it (so cargo sees no change).
fn write_if_changed(path: &std::path::Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

/// The client's settings table: its rows with a `c(..)` part get generated C exports.
const CONTEXT_TABLE: &str = "src/client/context.rs";

/// The driver's settings tables whose rows with a `c(..)` part get generated C exports,
/// with the path of their struct in `DriverContext`.
const SETTINGS_TABLES: [(&str, &str); 3] = [
    ("src/driver/context.rs", ""),
    ("src/driver/network_config.rs", "network."),
    ("src/driver/agent_config.rs", "agents."),
];

/// One row of a settings table, as far as its C exports need it.
struct CRow {
    path: String,
    env: Option<String>,
    doc: String,
    prefix: String,
    c_name: String,
    set_type: String,
    get_type: String,
    set_returns: String,
    /// `Some((min, max))`: the setter refuses values outside the row's range at once.
    checked: Option<(String, String)>,
}

/// The text between `open` and the matching `close` after it, if any.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = start + text[start..].find(close)?;
    Some(&text[start..end])
}

/// Reads the rows of one `settings_table!` (one line per row, `///` docs above it).
fn parse_table(source: &str, group: &str) -> Vec<CRow> {
    let body = source.split("settings_table! {").nth(1).expect("a settings_table! block");
    let body = body.split_once("pub struct").expect("pub struct").1;
    let mut rows = Vec::new();
    let mut doc = Vec::new();
    for line in body.lines().map(str::trim) {
        if line == "}" {
            break;
        }
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim().to_string());
            continue;
        }
        if !line.ends_with(';') {
            continue;
        }
        let row_doc = std::mem::take(&mut doc).join(" ");
        let Some(c) = line.rfind(", c(").map(|at| &line[at + 4..line.len() - 2]) else { continue };
        let declaration = line.split(':').next().expect("field");
        let field = declaration.split_whitespace().last().expect("field");
        let parts: Vec<&str> = c.split(", ").collect();
        if parts[2] == "custom" {
            continue;
        }
        let (set_type, get_type) = match parts[2].split_once(" -> ") {
            Some((s, g)) => (s.to_string(), g.to_string()),
            None => (parts[2].to_string(), parts[2].to_string()),
        };
        let option = |name: &str| parts[3..].iter().find_map(|p| p.strip_prefix(name)).map(str::trim);
        let checked = option("checked").map(|_| {
            let range = between(line, " in [", "]").expect("a checked row has a range");
            let (min, max) = range.split_once(", ").expect("[min, max]");
            (min.to_string(), max.to_string())
        });
        rows.push(CRow {
            path: format!("{group}{field}"),
            env: between(line, "env \"", "\"").map(str::to_string),
            doc: row_doc,
            prefix: parts[0].to_string(),
            c_name: parts[1].to_string(),
            set_type,
            get_type,
            set_returns: option("ret ").unwrap_or("c_int").to_string(),
            checked,
        });
    }
    rows
}

/// The `extern "C"` setter and getter of every row, for `src/ffi/driver/settings.rs` to
/// include and cbindgen to read.
fn generate_settings_ffi(crate_dir: &std::path::Path) -> String {
    let mut out = String::from(
        "// Generated by build.rs from the settings tables (src/driver/{context,network_config,agent_config}.rs).\n",
    );
    let (mut setters, mut getters) = (String::new(), String::new());
    for (file, group) in SETTINGS_TABLES {
        println!("cargo:rerun-if-changed={file}");
        let source =
            std::fs::read_to_string(crate_dir.join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"));
        for row in parse_table(&source, group) {
            let CRow { path, env, doc, prefix, c_name, set_type, get_type, set_returns, checked } = row;
            let env = env.expect("a driver C row has a variable");
            let setter = format!("{prefix}_driver_context_set_{c_name}");
            let getter = format!("{prefix}_driver_context_get_{c_name}");
            let (refusal, store) = match &checked {
                Some((min, max)) => (
                    format!(" or `value` is outside [{min}, {max}]"),
                    format!("set_row_in(context, \"{env}\", value, {min}, {max}, |c| &mut c.{path})"),
                ),
                None => (String::new(), format!("set_row(context, \"{env}\", value, |c| &mut c.{path})")),
            };
            let set_doc = doc_comment(&format!(
                "Sets {doc} (`{env}`). Returns 0, or -1 (EINVAL) if `context` is NULL{refusal}."
            ));
            let get_doc = doc_comment(&format!("Returns {doc}; Aeron's default for a NULL `context`."));
            setters.push_str(&setter_arm(&setter, &set_returns));
            getters.push_str(&getter_arm(&getter));
            let widen = if set_returns == "c_int" { "" } else { ".map(i64::from)" };
            out.push_str(&format!(
                r#"
{set_doc}
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn {setter}(context: *mut aeron_driver_context_t, value: {set_type}) -> {set_returns} {{
    ffi_boundary!("{setter}", {{
        // SAFETY: NULL or live (contract).
        unsafe {{ {store} }}{widen}
    }})
}}

{get_doc}
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn {getter}(context: *mut aeron_driver_context_t) -> {get_type} {{
    ffi_boundary!("{getter}", {{
        // SAFETY: NULL or live (contract).
        Ok(unsafe {{ get(context, |c| ToC::to_c(c.{path})) }})
    }})
}}
"#
            ));
        }
    }
    out.push_str(&dispatchers(
        "aeron_driver_context_t",
        "driver context",
        "settings_walk",
        &setters,
        &getters,
    ));
    out
}

/// The `extern "C"` setter and getter of every row of the client's table with a `c(..)`
/// part, for `src/ffi/context.rs` to include and cbindgen to read. As the
/// hand-written `aeron_context_*` functions: a setter returns 0, or -1 (EINVAL) for a NULL
/// context; a getter returns the value, or 0/false (and EINVAL) for a NULL context.
fn generate_context_settings_ffi(crate_dir: &std::path::Path) -> String {
    println!("cargo:rerun-if-changed={CONTEXT_TABLE}");
    let source = std::fs::read_to_string(crate_dir.join(CONTEXT_TABLE))
        .unwrap_or_else(|e| panic!("read {CONTEXT_TABLE}: {e}"));
    let mut out = format!("// Generated by build.rs from the settings table of {CONTEXT_TABLE}.\n");
    let (mut setters, mut getters) = (String::new(), String::new());
    for CRow { path, env, doc, prefix, c_name, set_type, get_type, set_returns, checked } in
        parse_table(&source, "")
    {
        assert!(
            set_type == get_type && set_returns == "c_int" && checked.is_none(),
            "{c_name}: client rows take and return their field's type"
        );
        let setter = format!("{prefix}_context_set_{c_name}");
        let getter = format!("{prefix}_context_get_{c_name}");
        // The variable joins the row's closing "(default ..)", or gets parentheses of its own.
        let described = match (env, doc.rfind("(default ")) {
            (Some(e), Some(at)) if doc.ends_with(')') => format!("{}(`{e}`, {}", &doc[..at], &doc[at + 1..]),
            (Some(e), _) => format!("{doc} (`{e}`)"),
            (None, _) => doc.clone(),
        };
        let null = if set_type == "bool" { "false" } else { "0" };
        let set_doc =
            doc_comment(&format!("Sets {described}. Returns 0, or -1 (EINVAL) for a NULL `context`."));
        let get_doc = doc_comment(&format!("Returns {doc}; {null} (and EINVAL) for a NULL `context`."));
        setters.push_str(&setter_arm(&setter, &set_returns));
        getters.push_str(&getter_arm(&getter));
        out.push_str(&format!(
            r#"
{set_doc}
///
/// # Safety
/// `context` NULL or live, configured by one thread at a time.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn {setter}(context: *mut aeron_context_t, value: {set_type}) -> c_int {{
    ffi_boundary!("{setter}", {{
        // SAFETY: NULL or live (contract).
        unsafe {{ set_row(context, value, |c| &mut c.{path}) }}
    }})
}}

{get_doc}
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn {getter}(context: *mut aeron_context_t) -> {get_type} {{
    ffi_boundary!("{getter}", {{
        // SAFETY: NULL or live (contract).
        unsafe {{ get_row(context, |c| c.{path}) }}
    }})
}}
"#
        ));
    }
    out.push_str(&dispatchers("aeron_context_t", "context", "client_settings_walk", &setters, &getters));
    out
}

/// The `call_setter` match arm of a generated setter returning `returns`.
fn setter_arm(setter: &str, returns: &str) -> String {
    let call = format!("unsafe {{ {setter}(context, value) }}");
    let status = if returns == "c_int" { format!("i64::from({call})") } else { call };
    format!(
        "        \"{setter}\" => {{\n            let value = value.parse().ok()?;\n            // SAFETY: as this function's contract.\n            Some({status})\n        }}\n"
    )
}

/// The `call_getter` match arm of a generated getter.
fn getter_arm(getter: &str) -> String {
    format!(
        "        \"{getter}\" => {{\n            // SAFETY: as this function's contract.\n            Some(unsafe {{ {getter}(context) }}.to_string())\n        }}\n"
    )
}

/// `call_setter` and `call_getter` over the generated exports taking a `context_type`:
/// how `tests/{walk}.rs` reaches each export by the name its row lists.
fn dispatchers(context_type: &str, who: &str, walk: &str, setters: &str, getters: &str) -> String {
    format!(
        r#"
/// Calls the generated setter `name` with `value` parsed as its parameter type, returning
/// what it returned: how `tests/{walk}.rs` reaches each export by the name its row
/// lists. `None` for another name or a value that does not parse.
///
/// # Safety
/// `context` must be NULL or a live {who}.
#[doc(hidden)]
pub unsafe fn call_setter(context: *mut {context_type}, name: &str, value: &str) -> Option<i64> {{
    match name {{
{setters}        _ => None,
    }}
}}

/// Calls the generated getter `name`, returning its value as text.
///
/// # Safety
/// `context` must be NULL or a live {who}.
#[doc(hidden)]
pub unsafe fn call_getter(context: *mut {context_type}, name: &str) -> Option<String> {{
    match name {{
{getters}        _ => None,
    }}
}}
"#
    )
}
