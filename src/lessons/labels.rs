//! Labels the page writes around a heatmap, as pure functions: the positional
//! encoding's rows and columns (the axis titles are `ui::heatmap::card_data`'s).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_from_0_and_columns_name_sin_and_cos() {
        let words: Vec<String> = ["the", "cat"].iter().map(|s| s.to_string()).collect();
        assert_eq!(pe_rows(&words, 3), ["0 (the)", "1 (cat)", "2"]);
        assert_eq!(pe_cols(5), ["sin 0", "cos 0", "sin 1", "cos 1", "sin 2"]);
    }
}
