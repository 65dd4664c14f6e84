//! Settings declared once. A settings table (`settings_table!`) is a struct whose every
//! field is one row: its type and default, how it is read from its environment variable
//! (also the name a `-D` property or properties file maps to), its range, and the C
//! setter/getter pair that changes it. From the rows the macro makes the struct, its
//! `Default`, the loader from the environment, the range checks applied at start-up and
//! the list of [`Setting`]s that `aeronmd`'s unknown-variable warning and the walk of every
//! setting (`tests/settings_walk.rs`, `tests/client_settings_walk.rs`) read. `build.rs` reads
//! the same rows to generate the plain C exports (`src/ffi/driver/settings.rs` for the
//! driver's tables, `src/ffi/context.rs` for the client's), so the header sees
//! ordinary functions.
//!
//! `pub struct Name as object { .. }` names the C object of the table's functions
//! (`aeron_<object>_set_<c_name>`); without `as` it is `driver_context`. A row is one line:
//! `pub name: Type = default; kind env "AERON_X" in [min, max], c(aeron, c_name, CType);`
//! `env`, `in [..]` and `c(..)` are optional. Kinds: `flag`, `duration` (ns, with unit
//! suffixes), `int`, `strtoull` (unsigned, decimal, hex or octal as C's `strtoull(.., 0)`
//! reads it), `size` (with k/m/g suffixes), `min_size` (a size raised to its default
//! when smaller, as Aeron does for CnC buffers), `text`, `opt_text`, `path`, `parsed` (the
//! type's [`ParseSetting`]), `custom` (read by hand-written code next to the table, listed
//! here so the walk covers it), `code` (set in code only) and `nested` (a table of its own).
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::util::config::{parse_bool, parse_c_integer, parse_duration_ns, parse_i64, parse_size};
use crate::util::error::{Error, Result};

/// One row of a settings table, as the walk and the unknown-variable check see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The nested table's field holding this row (`network`, `agents`), or "".
    pub group: &'static str,
    pub field: &'static str,
    /// How the value is read: the row's kind (`duration`, `size`, `custom`, ...).
    pub kind: &'static str,
    /// The environment variable, when the setting has one.
    pub env: Option<&'static str>,
    /// The C setter and getter, when they are generated from the row.
    pub c_setter: Option<&'static str>,
    pub c_getter: Option<&'static str>,
    pub doc: &'static str,
}

impl Setting {
    /// The Java-style property name (`aeron.client.liveness.timeout`): what `aeronmd -D` and
    /// properties files map to this setting's variable (`util::properties::env_name`).
    pub fn property(&self) -> Option<String> {
        self.env.map(|e| e.to_ascii_lowercase().replace('_', "."))
    }

    /// `group.field`, or the field.
    pub fn path(&self) -> String {
        if self.group.is_empty() { self.field.to_string() } else { format!("{}.{}", self.group, self.field) }
    }
}

/// A settings table nested in another (`DriverContext::network`).
pub trait SettingsTable: Sized {
    fn from_env() -> Result<Self>;
    fn settings() -> Vec<Setting>;
    fn check_ranges(&self) -> Result<()>;
}

/// A type read from one variable by its own rules (`parsed` rows).
pub trait ParseSetting: Sized {
    fn parse_setting(name: &str, value: &str) -> Result<Self>;
}

/// The readers of the row kinds: each takes the variable, its value (`None` when unset)
/// and the default, and returns the default when the variable is unset.
pub mod load {
    use super::*;

    pub fn flag(name: &str, value: Option<String>, default: bool) -> Result<bool> {
        value.map_or(Ok(default), |v| parse_bool(name, &v))
    }

    pub fn duration(name: &str, value: Option<String>, default: u64) -> Result<u64> {
        value.map_or(Ok(default), |v| parse_duration_ns(name, &v))
    }

    pub fn int<T: TryFrom<i64> + Into<i128> + Copy>(
        name: &str,
        value: Option<String>,
        default: T,
    ) -> Result<T> {
        match value {
            None => Ok(default),
            Some(v) => {
                let wide = parse_i64(name, &v)?;
                T::try_from(wide)
                    .map_err(|_| Error::invalid_argument(format!("{name}={wide} is out of range")))
            }
        }
    }

    /// An unsigned integer as C's `strtoull(.., 0)` reads it (decimal, `0x` hex, `0` octal).
    pub fn strtoull(name: &str, value: Option<String>, default: u64) -> Result<u64> {
        value.map_or(Ok(default), |v| parse_c_integer(name, &v))
    }

    pub fn size<T: TryFrom<u64>>(name: &str, value: Option<String>, default: T) -> Result<T> {
        match value {
            None => Ok(default),
            Some(v) => {
                let bytes = parse_size(name, &v)?;
                T::try_from(bytes)
                    .map_err(|_| Error::invalid_argument(format!("{name}={bytes} does not fit in memory")))
            }
        }
    }

    /// Aeron raises a CnC buffer length below its default to the default.
    pub fn min_size(name: &str, value: Option<String>, default: usize) -> Result<usize> {
        Ok(size(name, value, default)?.max(default))
    }

    pub fn text(_name: &str, value: Option<String>, default: String) -> Result<String> {
        Ok(value.unwrap_or(default))
    }

    pub fn opt_text(_name: &str, value: Option<String>, default: Option<String>) -> Result<Option<String>> {
        Ok(value.or(default))
    }

    pub fn path(_name: &str, value: Option<String>, default: PathBuf) -> Result<PathBuf> {
        Ok(value.map(PathBuf::from).unwrap_or(default))
    }

    pub fn parsed<T: ParseSetting>(name: &str, value: Option<String>, default: T) -> Result<T> {
        value.map_or(Ok(default), |v| T::parse_setting(name, &v))
    }
}

impl ParseSetting for Option<i64> {
    fn parse_setting(name: &str, value: &str) -> Result<Self> {
        parse_i64(name, value).map(Some)
    }
}

/// Checks a value read or set against its row's range, naming the variable.
pub fn check_range<T: PartialOrd + std::fmt::Display>(name: &str, value: T, min: T, max: T) -> Result<T> {
    crate::util::config::check_range(name, value, min, max)
}

/// Declares a settings table; see the module docs for the row syntax.
#[macro_export]
macro_rules! settings_table {
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $cobj:ident {
            $(
                $(#[doc = $doc:literal])*
                $vis:vis $field:ident : $ty:ty = $default:expr ;
                    $kind:ident $(env $env:literal)? $(in [$min:expr, $max:expr])?
                    $(, c($cpre:ident, $cname:ident, $($cty:tt)*))? ;
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[doc = $doc])* $vis $field: $ty, )*
        }

        impl Default for $name {
            /// Aeron's defaults, ignoring the environment.
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl $name {
            /// Every row read from its variable as `lookup` gives it, defaults for the unset
            /// ones; `custom` rows keep their defaults for the hand-written reader, and nested
            /// tables read the environment.
            fn load_rows(lookup: impl Fn(&str) -> Option<String>) -> $crate::util::error::Result<Self> {
                let defaults = Self::default();
                Ok(Self {
                    $( $field: $crate::settings_table!(@load $kind, lookup, defaults.$field $(, $env)?)?, )*
                })
            }

            /// The rows' ranges, naming the variable (the field for rows without one).
            fn check_row_ranges(&self) -> $crate::util::error::Result<()> {
                $( $crate::settings_table!(@range self.$field, $field, $kind $(, $env)? $(, $min, $max)?); )*
                Ok(())
            }

            /// Every row of this table and of its nested tables.
            pub fn settings() -> Vec<$crate::util::settings::Setting> {
                let mut rows = Vec::new();
                $(
                    $crate::settings_table!(@list rows, $kind, $field, $ty $(, $env)?);
                    if let Some(row) = rows.last_mut().filter(|r| r.field == stringify!($field)) {
                        row.doc = concat!($($doc, "\n",)*);
                        $( row.c_setter = Some(concat!(
                               stringify!($cpre), "_", stringify!($cobj), "_set_", stringify!($cname)));
                           row.c_getter = Some(concat!(
                               stringify!($cpre), "_", stringify!($cobj), "_get_", stringify!($cname))); )?
                    }
                )*
                rows
            }
        }
    };
    // Without `as`, the table's C functions are the driver context's.
    ($(#[$meta:meta])* pub struct $name:ident { $($rows:tt)* }) => {
        $crate::settings_table! { $(#[$meta])* pub struct $name as driver_context { $($rows)* } }
    };
    (@load code, $lookup:ident, $default:expr) => { Ok::<_, $crate::util::error::Error>($default) };
    (@load nested, $lookup:ident, $default:expr) => { $crate::util::settings::SettingsTable::from_env() };
    (@load custom, $lookup:ident, $default:expr $(, $env:literal)?) => {
        Ok::<_, $crate::util::error::Error>($default)
    };
    (@load $kind:ident, $lookup:ident, $default:expr, $env:literal) => {
        $crate::util::settings::load::$kind($env, $lookup($env), $default)
    };
    (@range $value:expr, $field:ident, nested) => { $crate::util::settings::SettingsTable::check_ranges(&$value)? };
    (@range $value:expr, $field:ident, $kind:ident, $env:literal, $min:expr, $max:expr) => {
        $crate::util::settings::check_range($env, $value, $min, $max)?
    };
    (@range $value:expr, $field:ident, $kind:ident, $min:expr, $max:expr) => {
        $crate::util::settings::check_range(stringify!($field), $value, $min, $max)?
    };
    (@range $value:expr, $field:ident, $kind:ident $(, $env:literal)?) => { () };
    (@list $rows:ident, nested, $field:ident, $ty:ty) => {
        $rows.extend(<$ty as $crate::util::settings::SettingsTable>::settings().into_iter().map(|mut s| {
            s.group = stringify!($field);
            s
        }))
    };
    (@list $rows:ident, $kind:ident, $field:ident, $ty:ty $(, $env:literal)?) => {
        $rows.push($crate::util::settings::Setting {
            group: "",
            field: stringify!($field),
            kind: stringify!($kind),
            env: $crate::settings_table!(@env $($env)?),
            c_setter: None,
            c_getter: None,
            doc: "",
        })
    };
    (@env) => { None };
    (@env $env:literal) => { Some($env) };
}
