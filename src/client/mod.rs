//! Layer module; see DESIGN.md.
#![forbid(unsafe_code)]
