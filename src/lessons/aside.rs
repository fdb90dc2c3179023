//! Asides: a small table beside a step's words for the numbers they quote that the
//! picture's heatmaps do not show.

use crate::engine::{StepName, Trace};

use super::{num, token};

/// How a step writes its [`Aside`] from the live trace.
pub type MakeAside = fn(&Trace) -> Option<Aside>;

/// A small table beside a step's words, every cell already written as the page shows it
/// (so that [`picture_numbers`] and the page agree): the numbers the words quote that the
/// heatmaps of the focus step cannot show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aside {
    /// What the table shows, in a sentence.
    pub caption: String,
    /// The column titles; the first is the corner above the row titles.
    pub head: Vec<String>,
    /// Each row: its title, then one cell per remaining column.
    pub rows: Vec<(String, Vec<String>)>,
}

impl Aside {
    /// The table while the learner guesses a cell's value: every number of its caption and
    /// cells hidden ([`super::hide_numbers`]), the titles kept.
    pub fn hidden(self) -> Self {
        let hide = |s: String| super::hide_numbers(&s);
        Self {
            caption: hide(self.caption),
            head: self.head,
            rows: self
                .rows
                .into_iter()
                .map(|(title, cells)| (title, cells.into_iter().map(hide).collect()))
                .collect(),
        }
    }
}

/// A step without an [`Aside`].
pub fn no_aside(_: &Trace) -> Option<Aside> {
    None
}

/// A whole step's matrix for sentence `b`, head `head`: one table row per query, the keys
/// as columns (e.g. `QKᵀ` beside the scaled scores' heatmap). `None` when the step is
/// missing or its columns are not the keys.
pub fn matrix_aside(
    t: &Trace,
    caption: String,
    title: &str,
    step: StepName,
    b: usize,
    head: usize,
) -> Option<Aside> {
    let keys = t.key_tokens(b);
    let m = t.step(step)?.matrix(b, head)?;
    if m.ncols() != keys.len() {
        return None;
    }
    let rows = m
        .rows()
        .into_iter()
        .enumerate()
        .map(|(i, r)| (format!("\"{}\"", token(t, b, i)), r.iter().map(|v| num(*v)).collect()))
        .collect();
    let mut head_row = vec![format!("{title}: query ↓ · key →")];
    head_row.extend(keys.iter().cloned());
    Some(Aside { caption, head: head_row, rows })
}

/// One query's row through several steps of sentence `b`, head `head`, one table row per
/// step (`(title, step)`), with the keys as columns: e.g. "baseball"'s `QKᵀ` and its
/// scaled row. `None` when a step or the row is missing.
pub fn row_aside(
    t: &Trace,
    caption: String,
    b: usize,
    head: usize,
    i: usize,
    steps: &[(&str, StepName)],
) -> Option<Aside> {
    let keys = t.key_tokens(b);
    let mut rows = Vec::new();
    for (title, step) in steps {
        let m = t.step(*step)?.matrix(b, head)?;
        if i >= m.nrows() || m.ncols() != keys.len() {
            return None;
        }
        rows.push((title.to_string(), m.row(i).iter().map(|v| num(*v)).collect()));
    }
    let mut head_row = vec![format!("\"{}\" →", token(t, b, i))];
    head_row.extend(keys.iter().cloned());
    Some(Aside { caption, head: head_row, rows })
}
