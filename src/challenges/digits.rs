//! How a challenge's words print the numbers its verdict compares: two decimals, or as
//! many more as it takes for two different numbers to print differently; and which
//! weights of the goal's table the words quote, so the table prints them the same way.

use serde::Serialize;

/// One weight of the goal's table that [`super::Progress::words`] quotes: head `head`, query row
/// `query`, key column `key` (of the goal's sentence), printed with `decimals` decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QuotedWeight {
    /// The head, from 0.
    pub head: usize,
    /// The query's row.
    pub query: usize,
    /// The key's column.
    pub key: usize,
    /// How many decimals the words print it with.
    pub decimals: usize,
}

/// Two decimals, or the string for a non-finite number.
pub fn num(x: f64) -> String {
    num_at(x, 2)
}

/// `decimals` decimals, or the string for a non-finite number.
pub fn num_at(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        format!("{x}")
    }
}

/// The decimals that print the two numbers a verdict compares: two, or as many more as
/// it takes for two different numbers to print differently (0.401 and 0.400, not 0.40
/// and 0.40), so that the words never show a goal met or missed on equal-looking numbers.
/// Equal or non-finite numbers: two.
pub fn decimals_apart(a: f64, b: f64) -> usize {
    if !(a.is_finite() && b.is_finite()) || a == b {
        return 2;
    }
    (2..=17).find(|&d| num_at(a, d) != num_at(b, d)).unwrap_or(17)
}
