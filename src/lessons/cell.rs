//! The cells a step points at and its claims are about: one cell of one step's matrix.

use crate::engine::{StepName, Trace};

/// One cell of one step's matrix: `trace[step][batch, head, row, col]` (`head` is 0 for
/// steps without heads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    /// The step.
    pub step: StepName,
    /// The sentence.
    pub batch: usize,
    /// The head.
    pub head: usize,
    /// Row (query).
    pub row: usize,
    /// Column (key or feature).
    pub col: usize,
}

impl Cell {
    /// Whether `t` has this cell: its step, sentence and head, and a row and column inside
    /// the matrix (a shorter sentence has fewer).
    pub fn is_in(&self, t: &Trace) -> bool {
        let m = t.step(self.step).and_then(|s| s.matrix(self.batch, self.head));
        m.is_some_and(|m| self.row < m.nrows() && self.col < m.ncols())
    }
}

/// One cell of a step, sentence 0, head 0 (most lessons' words name such cells).
pub fn cell(step: StepName, row: usize, col: usize) -> Cell {
    Cell { step, batch: 0, head: 0, row, col }
}

/// Every cell of row `row` of a step, for sentence `batch` and `head`, as wide as the trace
/// has it (nothing when the step or row is missing).
pub fn row_cells(t: &Trace, step: StepName, batch: usize, head: usize, row: usize) -> Vec<Cell> {
    let n =
        t.step(step).and_then(|s| s.matrix(batch, head)).filter(|m| row < m.nrows()).map_or(0, |m| m.ncols());
    (0..n).map(|col| Cell { step, batch, head, row, col }).collect()
}
