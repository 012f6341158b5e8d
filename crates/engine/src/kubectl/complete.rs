//! PLACEHOLDER: tab completion, filled in by the console work.
use crate::sim::Sim;

/// Completions of the last word of `line`: whole words that may replace it.
pub fn complete(_sim: &mut Sim, _line: &str) -> Vec<String> {
    Vec::new()
}
