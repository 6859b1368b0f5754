//! Variable substitution (placeholder until the drone/envsubst port lands).

mod placeholders;

pub use placeholders::reparse_with_placeholders;
