//! Loading templates that are YAML only after substitution.

use crate::yaml::YamlFile;

/// Re-parses a template whose raw text is not YAML with its `${…}` placeholders substituted.
pub fn reparse_with_placeholders(yaml: YamlFile) -> (YamlFile, bool) {
    (yaml, false)
}
