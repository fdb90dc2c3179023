//! Guided lessons: each step is a scenario for the engine, the trace step to look at,
//! and words written from the trace's own numbers (so an edit updates the words too).
//!
//! Pure Rust, no web dependency: the page renders these, the tests check that every
//! number a lesson states is one the engine computed.

//! One file per lesson, each with its own constants and tests:
//! [`baseball_bat`] (seed 003), [`heads`] (seed 002), [`masks`] (seeds 000–002),
//! [`shapes`] (seeds 000, 002), [`cross`] (seeds 001, 003), [`word_order`] (seed 000's
//! positional encoding).

use crate::engine::trace::shape_text;
use crate::engine::{Scenario, StepName, Trace};

pub mod baseball_bat;
pub mod cross;
pub mod first_screen;
pub mod gqa;
pub mod heads;
pub mod local;
pub mod masks;
pub mod quiz;
pub mod rope;
pub mod shapes;
pub mod word_order;

pub use quiz::{Quiz, QuizKind, Verdict};

/// One step of a lesson.
#[derive(Debug, Clone)]
pub struct LessonStep {
    /// Short title.
    pub title: &'static str,
    /// What the engine runs.
    pub scenario: Scenario,
    /// The trace step the page selects and highlights.
    pub focus: StepName,
    /// The sentence of the batch shown.
    pub batch: usize,
    /// A question asked before the answer is shown (predict, then reveal).
    pub quiz: Option<Quiz>,
    /// Writes the step's text from the live trace.
    pub narrate: fn(&Trace) -> String,
    /// The cells the step points at, from the live trace (outlined on the heatmaps and
    /// marked in the tables); [`no_highlight`] for most steps.
    pub highlight: fn(&Trace) -> Vec<Cell>,
}

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

/// A step that points at nothing in particular.
pub fn no_highlight(_: &Trace) -> Vec<Cell> {
    Vec::new()
}

/// A lesson: an id for its URL, a title, its steps.
#[derive(Debug, Clone)]
pub struct Lesson {
    /// URL id, e.g. `baseball-bat`.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// The seeds it follows.
    pub seeds: &'static str,
    /// The steps, in order.
    pub steps: Vec<LessonStep>,
}

/// Two decimals, as the seeds print them: the one formatter's [`crate::format::short`].
pub use crate::format::short as num;

/// `trace[step][b, head, i, j]` (or `[b, i, j]` for steps without heads), NaN if absent.
pub fn at(trace: &Trace, step: StepName, b: usize, head: usize, i: usize, j: usize) -> f64 {
    trace.step(step).and_then(|s| s.matrix(b, head)).and_then(|m| m.get((i, j)).copied()).unwrap_or(f64::NAN)
}

pub(crate) fn row(trace: &Trace, step: StepName, b: usize, head: usize, i: usize) -> String {
    let cells: Vec<String> = trace
        .step(step)
        .and_then(|s| s.matrix(b, head))
        .filter(|m| i < m.nrows())
        .map(|m| m.row(i).iter().map(|v| num(*v)).collect())
        .unwrap_or_default();
    format!("[{}]", cells.join(", "))
}

pub(crate) fn token(trace: &Trace, b: usize, i: usize) -> String {
    trace.tokens.get(b).and_then(|r| r.get(i)).cloned().unwrap_or_default()
}

/// The key that gets the most of row `i`'s weight in head `head` (the first of keys that
/// tie): [`Trace::top_keys`].
pub fn argmax(trace: &Trace, b: usize, head: usize, i: usize) -> Option<usize> {
    trace.top_keys(b, head, i).first().copied()
}

pub(crate) fn base(sentences: &[&str], d_model: usize, n_heads: usize) -> Scenario {
    Scenario::identity(sentences, d_model, n_heads)
}

/// A step's named and numeric shape, e.g. `(B, h, T, d_k) = (1, 2, 6, 4)`.
pub(crate) fn shape_of(trace: &Trace, step: StepName) -> String {
    trace.step(step).map(|s| shape_text(&s.dims, &s.shape)).unwrap_or_default()
}

/// A step's intermediate reshapes, e.g. `view → (1, 6, 2, 4), then transpose(1, 2) → (1, 2, 6, 4)`.
pub(crate) fn path_of(trace: &Trace, step: StepName) -> String {
    trace
        .step(step)
        .map(|s| {
            s.shape_path
                .iter()
                .map(|r| {
                    let sizes: Vec<String> = r.shape.iter().map(usize::to_string).collect();
                    format!("{} → ({})", r.op, sizes.join(", "))
                })
                .collect::<Vec<_>>()
                .join(", then ")
        })
        .unwrap_or_default()
}

/// All lessons, in order.
pub fn lessons() -> Vec<Lesson> {
    vec![
        baseball_bat::lesson(),
        heads::lesson(),
        masks::lesson(),
        shapes::lesson(),
        cross::lesson(),
        word_order::lesson(),
        rope::lesson(),
        gqa::lesson(),
        local::lesson(),
    ]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn every_step_runs_and_narrates_engine_numbers() {
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = run(&step.scenario).unwrap_or_else(|e| panic!("{} step {i}: {e}", lesson.id));
                assert!(trace.step(step.focus).is_some());
                let text = (step.narrate)(&trace);
                assert!(!text.is_empty() && !text.contains("[]"), "{}: {text}", lesson.id);
                for cell in (step.highlight)(&trace) {
                    let m = trace.step(cell.step).and_then(|s| s.matrix(cell.batch, cell.head));
                    let inside = m.is_some_and(|m| cell.row < m.nrows() && cell.col < m.ncols());
                    assert!(inside, "{} step {i}: highlighted {cell:?} is not in the trace", lesson.id);
                }
            }
        }
    }

    /// Scenarios a learner can import while a lesson is open: every lesson's words must
    /// still be written (a panic here would stop the page).
    pub(crate) fn odd_scenarios() -> Vec<(&'static str, Scenario)> {
        use crate::engine::{Fill, Padding};
        let mut out = Vec::new();
        let mut one = Scenario::identity(&["baseball bat"], 1, 1);
        one.embeddings = [("baseball".to_string(), vec![2.0]), ("bat".to_string(), vec![1.0])].into();
        out.push(("d_model 1", one));
        out.push(("d_model 2", Scenario::identity(&["baseball bat"], 2, 2)));
        let mut cross = Scenario::identity(&["bat"], 3, 1);
        cross.kv_sentences = Some(vec!["I bought a baseball".into()]);
        out.push(("cross-attention, one query", cross));
        let mut batch = Scenario::identity(&["a", "the baseball bat", "x y"], 4, 2);
        batch.mask.padding = Padding::KeysAndQueries;
        batch.mask.causal = true;
        out.push(("B = 3, padded, causal", batch.clone()));
        batch.mask.fill = Fill::LargeNegative;
        out.push(("B = 3, -1e9", batch));
        out.push(("one token", Scenario::identity(&["bat"], 3, 3)));
        out
    }

    #[test]
    fn every_step_narrates_any_imported_scenario_without_panicking() {
        for (what, scenario) in odd_scenarios() {
            let trace = run(&scenario).unwrap_or_else(|e| panic!("{what}: {e}"));
            for lesson in lessons() {
                for step in &lesson.steps {
                    let text = (step.narrate)(&trace);
                    assert!(!text.is_empty(), "{what}, {}", lesson.id);
                }
            }
        }
    }
}
