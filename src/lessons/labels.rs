//! Labels the page writes around a heatmap, as pure functions: the positional
//! encoding's rows and columns, and the axis titles of each step.

use crate::engine::StepName;

/// The positional encoding's row labels: `0, 1, …` (the axis title says they are
/// positions), counted as the formula counts (`PE(pos, 2i) = sin(pos / 10000^(2i/d_model))`,
/// pos from 0), with the word at that position in brackets when there is one: `0 (the)`,
/// short enough that a word of six letters is not cut.
pub fn pe_rows(words: &[String], n_positions: usize) -> Vec<String> {
    (0..n_positions)
        .map(|p| match words.get(p) {
            Some(w) if !w.is_empty() => format!("{p} ({w})"),
            _ => p.to_string(),
        })
        .collect()
}

/// The positional encoding's column labels: `sin 0, cos 0, sin 1, cos 1, …` (column 2i
/// is `sin` of frequency i, column 2i + 1 its `cos`).
pub fn pe_cols(d_model: usize) -> Vec<String> {
    (0..d_model).map(|c| format!("{} {}", if c % 2 == 0 { "sin" } else { "cos" }, c / 2)).collect()
}

/// A heatmap's two axis titles, rows first: `("queries ↓", "keys →")` for a step whose
/// columns are keys (scores, weights…), `("tokens ↓", "features →")` for a step of
/// vectors (x, q, context, output…), `("positions ↓", "features →")` for `PE`.
pub fn axis_titles(step: StepName) -> (&'static str, &'static str) {
    match step {
        StepName::Pe => ("positions ↓", "features →"),
        StepName::Scores | StepName::Scaled | StepName::Masked | StepName::Weights => ("queries ↓", "keys →"),
        StepName::XKv | StepName::XKvPe | StepName::K | StepName::V | StepName::KHeads | StepName::VHeads => {
            ("keys ↓", "features →")
        }
        StepName::Q | StepName::QHeads => ("queries ↓", "features →"),
        _ => ("tokens ↓", "features →"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_from_0_and_columns_name_sin_and_cos() {
        let words: Vec<String> = ["the", "cat"].iter().map(|s| s.to_string()).collect();
        assert_eq!(pe_rows(&words, 3), ["0 (the)", "1 (cat)", "2"]);
        assert_eq!(pe_cols(5), ["sin 0", "cos 0", "sin 1", "cos 1", "sin 2"]);
    }

    #[test]
    fn every_step_has_axis_titles_and_key_columns_say_keys() {
        for step in StepName::ALL {
            let (rows, cols) = axis_titles(step);
            assert!(rows.ends_with('↓') && cols.ends_with('→'), "{step:?}");
        }
        assert_eq!(axis_titles(StepName::Weights), ("queries ↓", "keys →"));
        assert_eq!(axis_titles(StepName::Pe), ("positions ↓", "features →"));
    }
}
