//! TODO

use super::Rule;

pub(super) const RULES: &[&Rule] = &[];
