//! See spec; filled by the foundation issue.
