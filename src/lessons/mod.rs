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
pub mod glossary;
pub mod gqa;
pub mod heads;
pub mod kv_cache;
pub mod labels;
pub mod local;
pub mod masks;
pub mod online_softmax;
pub mod quiz;
pub mod rope;
pub mod shapes;
pub mod sources;
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
    /// What the picture shows besides the focus step's heatmaps and table.
    pub extra: Extra,
    /// The cells the step points at, from the live trace (outlined on the heatmaps and
    /// marked in the tables); [`no_highlight`] for most steps.
    pub highlight: fn(&Trace) -> Vec<Cell>,
    /// A small table beside the words for numbers they quote that the picture's heatmaps
    /// do not show (another step's row, another sentence's cell, more decimals);
    /// [`no_aside`] for most steps.
    pub aside: MakeAside,
}

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

/// What a lesson step's picture shows beside the focus step's heatmaps and table. The
/// page renders one view per variant; [`picture_numbers`] lists the numbers each shows,
/// so the tests can hold every number a step's words quote to its picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Extra {
    /// Nothing else.
    #[default]
    None,
    /// The embedding editor and the plot of `x` before and after attention (with its
    /// table of coordinates): the baseball-bat lesson.
    EmbeddingPlot,
    /// The same boolean mask in three conventions (no numbers, only T/F and 0/1).
    MaskConventions,
    /// Instead of the focus step's heatmaps: the positions' similarity, `PE · PEᵀ`, one row
    /// and one column per position (from 0), cell `(i, j)` = [`position_similarity`]`[i][j]`.
    PositionSimilarity,
    /// Instead of the focus step's heatmaps: the decode view (a key/value cache, one
    /// position at a time), opened at position `t`.
    Decode {
        /// The position shown first.
        t: usize,
    },
    /// Instead of the focus step's heatmaps: the tiles view (the online softmax), with
    /// blocks of `block` and the `tile`-th tile of sentence `batch`, head 1 shown first.
    Tiles {
        /// The block size.
        block: usize,
        /// The tile shown first, counted in the order folded in (query block, key block).
        tile: usize,
    },
    /// Beside the focus step: a causal mask anchored at the top left (`is_causal=True`)
    /// and at the lower right, for fewer queries than keys (no numbers, only ✓ and ✗).
    CausalCorners,
    /// Instead of the focus step's heatmaps: each head of `q` split with view + transpose
    /// (right) and with view alone (wrong), side by side ([`shapes::split_both_ways`]).
    SplitBothWays,
}

impl Extra {
    /// True for the pictures that replace the focus step's heatmaps (the decode and tiles
    /// views, the similarity table); the other extras sit beside them.
    pub fn replaces_heatmaps(self) -> bool {
        matches!(
            self,
            Self::Decode { .. } | Self::Tiles { .. } | Self::PositionSimilarity | Self::SplitBothWays
        )
    }
}

/// The numbers the decode view shows at position `t` of sentence `batch`: every head's
/// weights (four decimals), the output row and the cache rows (two).
fn decode_numbers(scenario: &Scenario, batch: usize, t: usize) -> Vec<String> {
    let Ok(d) = crate::engine::decode(scenario) else { return Vec::new() };
    let Some(p) = d.positions.get(t) else { return Vec::new() };
    let batch = batch.min(p.weights.shape()[0].saturating_sub(1));
    let mut out: Vec<String> = Vec::new();
    out.extend(p.weights.slice(ndarray::s![batch, .., .., ..]).iter().map(|w| crate::format::fixed(*w, 4)));
    out.extend(p.output.slice(ndarray::s![batch, .., ..]).iter().map(|x| num(*x)));
    for cache in [&p.k_cache, &p.v_cache] {
        out.extend(cache.slice(ndarray::s![batch, .., .., ..]).iter().map(|x| num(*x)));
    }
    out
}

/// The numbers the tiles view shows for tile `tile` of sentence `batch`, head 1, with
/// blocks of `block`: each row's running maximum, sum and correction (four decimals) and
/// the tile's scores (two).
fn tile_numbers(scenario: &Scenario, trace: &Trace, batch: usize, block: usize, tile: usize) -> Vec<String> {
    let Ok(tiled) = crate::engine::tiled(scenario, block) else { return Vec::new() };
    let Some(tile) = tiled.tiles.iter().filter(|t| t.b == batch && t.head == 0).nth(tile) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for v in [&tile.m, &tile.l, &tile.correction] {
        out.extend(v.iter().map(|x| crate::format::fixed(*x, 4)));
    }
    for i in tile.q[0]..tile.q[1] {
        for j in tile.k[0]..tile.k[1] {
            out.push(num(at(trace, StepName::Masked, batch, 0, i, j)));
        }
    }
    out
}

/// Which tile, counted as [`Extra::Tiles`] counts them, holds query `row` and key `key`
/// with blocks of `block` over `t_k` keys.
pub fn tile_index(block: usize, t_k: usize, row: usize, key: usize) -> usize {
    let block = block.max(1);
    (row / block) * t_k.div_ceil(block) + key / block
}

/// `PE · PEᵀ`, the dot product of every two positions' encodings (empty without
/// positions): what the word-order lesson's similarity heatmap shows.
pub fn position_similarity(trace: &Trace) -> Vec<Vec<f64>> {
    let Some(pe) = trace.step(StepName::Pe).and_then(|s| s.matrix(0, 0)) else { return Vec::new() };
    (0..pe.nrows()).map(|i| (0..pe.nrows()).map(|j| pe.row(i).dot(&pe.row(j))).collect()).collect()
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

/// The learner's edits to a lesson's vectors: the embeddings of `now` that the step's own
/// scenario `step` does not have, or has with other numbers.
pub fn edited_vectors(
    step: &Scenario,
    now: &std::collections::BTreeMap<String, Vec<f64>>,
) -> std::collections::BTreeMap<String, Vec<f64>> {
    now.iter()
        .filter(|(word, v)| step.embeddings.get(*word).is_none_or(|own| own != *v))
        .map(|(w, v)| (w.clone(), v.clone()))
        .collect()
}

/// The scenario of `next`, a step of the same lesson, with the learner's vector edits
/// carried over (Back and Next keep them until "Reset this lesson"). Only vectors
/// as wide as the next step's `d_model` are carried; the others would not fit its space.
pub fn carry_edits(next: &Scenario, edits: &std::collections::BTreeMap<String, Vec<f64>>) -> Scenario {
    let mut out = next.clone();
    for (word, v) in edits {
        if v.len() == next.d_model {
            out.embeddings.insert(word.clone(), v.clone());
        }
    }
    out
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

/// The line above a step's title: "The baseball bat · follows the baseball-bat tutorial ·
/// step 2 of 6" (`s` counted from 0).
pub fn meta_line(lesson: &Lesson, s: usize) -> String {
    format!("{} · follows {} · step {} of {}", lesson.title, lesson.seeds, s + 1, lesson.steps.len())
}

/// Two decimals, as the seeds print them: the one formatter's [`crate::format::short`].
pub use crate::format::short as num;

/// How a feature moved, as the page prints it: "more sports (1.00 → 1.50)", "less animal
/// (1.00 → 0.50)", or "the same other (0.00)" when the two numbers print the same (an
/// edit can make them equal; a comparison of equal numbers is never phrased as a change).
pub fn change(feature: &str, before: f64, after: f64) -> String {
    let (b, a) = (num(before), num(after));
    if b == a {
        format!("the same {feature} ({b})")
    } else if after > before {
        format!("more {feature} ({b} → {a})")
    } else {
        format!("less {feature} ({b} → {a})")
    }
}

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

/// Every number a step's picture shows for this trace, formatted as the page formats
/// it ([`num`]): every head of the focus step (or of `shown`, e.g. the step a question
/// reveals) for the step's sentence, and the numbers of its [`Extra`].
pub fn picture_numbers(
    step: &LessonStep,
    shown: StepName,
    trace: &Trace,
) -> std::collections::BTreeSet<String> {
    let batch = step.batch.min(trace.sizes.b.saturating_sub(1));
    let mut out = std::collections::BTreeSet::new();
    let mut add_step = |name: StepName| {
        if let Some(s) = trace.step(name) {
            let heads = if s.has_heads() { s.shape.get(1).copied().unwrap_or(1) } else { 1 };
            for h in 0..heads {
                if let Some(m) = s.matrix(batch, h) {
                    out.extend(m.iter().map(|v| num(*v)));
                }
            }
        }
    };
    // a picture that replaces the heatmaps shows only its own numbers
    if !step.extra.replaces_heatmaps() {
        add_step(shown);
    }
    match step.extra {
        Extra::None | Extra::MaskConventions | Extra::CausalCorners => {}
        Extra::EmbeddingPlot => {
            add_step(StepName::X);
            add_step(StepName::Output);
        }
        Extra::Decode { t } => out.extend(decode_numbers(&step.scenario, batch, t)),
        Extra::Tiles { block, tile } => out.extend(tile_numbers(&step.scenario, trace, batch, block, tile)),
        Extra::PositionSimilarity => out.extend(position_similarity(trace).iter().flatten().map(|v| num(*v))),
        Extra::SplitBothWays => {
            for h in shapes::split_both_ways(trace, batch) {
                out.extend(h.right.iter().chain(&h.wrong).flatten().map(|v| num(*v)));
            }
        }
    }
    // an aside's caption is part of the picture too (BLOOM's "+ m·i = 1.75 each")
    if let Some(aside) = (step.aside)(trace) {
        out.extend(quoted_numbers(&aside.caption));
        out.extend(aside.rows.into_iter().flat_map(|(_, cells)| cells));
    }
    out
}

/// The numbers a lesson's text quotes: every decimal written as [`num`] writes it
/// (`0.50`, `-1.23`, `1e9`…), in order. Whole numbers (`d_k = 4`, "step 3") are sizes and
/// counts, not cells.
pub fn quoted_numbers(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.' || chars[i - 1] == '_'));
        if !starts {
            i += 1;
            continue;
        }
        let neg = i > 0 && (chars[i - 1] == '-' || chars[i - 1] == '−');
        let mut j = i;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        let is_decimal = j + 1 < chars.len() && chars[j] == '.' && chars[j + 1].is_ascii_digit();
        // a library's version ("torch 2.15") is not a number of the picture
        let before: String = chars[i.saturating_sub(6)..i].iter().collect();
        let is_version = before.ends_with("torch ");
        if is_decimal && !is_version {
            j += 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let digits: String = chars[i..j].iter().collect();
            out.push(if neg { format!("-{digits}") } else { digits });
        }
        i = j.max(i + 1);
    }
    out
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
        kv_cache::lesson(),
        online_softmax::lesson(),
    ]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::run;
    use crate::lessons::quiz::QuizKind;

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

    /// The numbers a step's words quote that its picture lacks: `(lesson id, step number
    /// from 1, what, number)`. `what` is "words", or "reveal" for the text a question
    /// shows after the answer, held to the step the picture shows then.
    pub(crate) fn numbers_missing_from_pictures() -> Vec<(&'static str, usize, &'static str, String)> {
        let mut missing = Vec::new();
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = run(&step.scenario).unwrap();
                let shown = picture_numbers(step, step.focus, &trace);
                let mut said = quoted_numbers(&(step.narrate)(&trace));
                if let Some(quiz) = step.quiz {
                    said.extend(quoted_numbers(&(quiz.question)(&trace)));
                }
                for n in said.into_iter().filter(|n| !shown.contains(n)) {
                    missing.push((lesson.id, i + 1, "words", n));
                }
                let Some(quiz) = step.quiz else { continue };
                let why = match quiz.kind {
                    QuizKind::Choice { answer, .. } => answer(&trace).map(|(_, why)| why),
                    // the verdict as the page writes it ("Right: 21. …")
                    QuizKind::Number { answer, .. } => {
                        answer(&trace).and_then(|(v, _)| quiz.judge_number(&trace, v)).map(|v| v.text)
                    }
                };
                // after the answer the page shows the revealed step beside the focus
                let mut revealed = shown.clone();
                let after = LessonStep { extra: quiz.reveal_extra.unwrap_or(step.extra), ..step.clone() };
                revealed.extend(picture_numbers(&after, quiz.reveal.unwrap_or(step.focus), &trace));
                for n in
                    quoted_numbers(&why.unwrap_or_default()).into_iter().filter(|n| !revealed.contains(n))
                {
                    missing.push((lesson.id, i + 1, "reveal", n));
                }
            }
        }
        missing
    }

    /// Every decimal a step's words, question or revealed answer quote is a number its
    /// picture shows (the focus step's heatmaps, its extra, its aside).
    #[test]
    fn every_number_the_words_quote_is_in_the_picture() {
        let missing = numbers_missing_from_pictures();
        let list: Vec<String> =
            missing.iter().map(|(id, step, what, n)| format!("?lesson={id}&ls={step} {what}: {n}")).collect();
        // none is excused
        assert!(list.is_empty(), "numbers the words quote but the picture lacks:\n{list:#?}");
    }

    /// A question whose words promise a picture ("Choose an answer to see the weights")
    /// shows that picture once answered: the step it reveals, or the extra it reveals
    /// (not the scores the question was asked over).
    #[test]
    fn after_a_reveal_the_picture_shows_what_the_words_promised() {
        let mut checked = 0;
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let Some(quiz) = step.quiz else { continue };
                let text = (step.narrate)(&run(&step.scenario).unwrap());
                let shown = quiz.reveal.unwrap_or(step.focus);
                let extra = quiz.reveal_extra.unwrap_or(step.extra);
                let promised = [
                    ("see the weights", shown == StepName::Weights),
                    ("see the output", shown == StepName::Output),
                    ("see the scores", matches!(shown, StepName::Scores | StepName::Scaled)),
                    ("see the dot products", extra == Extra::PositionSimilarity),
                ];
                for (words, ok) in promised {
                    if text.contains(words) {
                        checked += 1;
                        assert!(
                            ok,
                            "{} step {}: \"{words}\" but the reveal shows {shown:?}, {extra:?}",
                            lesson.id,
                            i + 1
                        );
                    }
                }
            }
        }
        assert!(checked >= 6, "{checked}");
    }

    /// An edit to "bat" at step 5 of the baseball-bat lesson survives Next and Back (same
    /// width), is not carried into a step of another width, and an unedited step carries
    /// nothing.
    #[test]
    fn edits_survive_back_and_next() {
        let lesson = baseball_bat::lesson();
        let (s4, s5) = (&lesson.steps[4].scenario, &lesson.steps[5].scenario);
        assert!(edited_vectors(s4, &s4.embeddings).is_empty());
        let mut now = s4.embeddings.clone();
        now.insert("bat".into(), vec![0.5, 1.5, 0.0]);
        let edits = edited_vectors(s4, &now);
        assert_eq!(edits.len(), 1);
        let next = carry_edits(s5, &edits);
        assert_eq!(next.embeddings.get("bat"), Some(&vec![0.5, 1.5, 0.0]));
        let back = carry_edits(s4, &edited_vectors(s5, &next.embeddings));
        assert_eq!(back.embeddings.get("bat"), Some(&vec![0.5, 1.5, 0.0]));
        let wide = Scenario::identity(&["bat"], 8, 2);
        assert!(!carry_edits(&wide, &edits).embeddings.contains_key("bat"));
        // the words still read sensibly with the carried vector
        let trace = run(&next).unwrap();
        for step in &lesson.steps {
            assert!(!(step.narrate)(&trace).is_empty());
        }
    }

    #[test]
    fn a_change_of_equal_numbers_is_not_phrased_as_a_change() {
        assert_eq!(change("sports", 1.0, 1.5), "more sports (1.00 → 1.50)");
        assert_eq!(change("animal", 1.0, 0.5), "less animal (1.00 → 0.50)");
        assert_eq!(change("animal", 0.0, 0.001), "the same animal (0.00)");
        assert_eq!(change("animal", 0.0, -0.0), "the same animal (0.00)");
    }

    /// No step's words, for the lessons' own scenarios or any imported one, print an
    /// arrow between two equal numbers ("less animal (0.00 → 0.00)").
    #[test]
    fn no_words_print_a_change_between_equal_numbers() {
        let mut scenarios: Vec<(String, Scenario)> =
            odd_scenarios().into_iter().map(|(w, s)| (w.to_string(), s)).collect();
        let mut same = baseball_bat::lesson().steps[4].scenario.clone();
        if let Some(v) = same.embeddings.get("baseball").cloned() {
            same.embeddings.insert("bat".into(), v);
        }
        scenarios.push(("bat edited to equal baseball".into(), same));
        for (what, scenario) in scenarios {
            let trace = run(&scenario).unwrap();
            for lesson in lessons() {
                for (i, step) in lesson.steps.iter().enumerate() {
                    let text = (step.narrate)(&trace);
                    let n = quoted_numbers(&text);
                    for (k, pair) in n.windows(2).enumerate() {
                        let arrow = format!("{} → {}", pair[0], pair[1]);
                        assert!(
                            pair[0] != pair[1] || !text.contains(&arrow),
                            "{what}, {} step {}: {arrow} (#{k}) in {text}",
                            lesson.id,
                            i + 1
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn quoted_numbers_reads_decimals_as_the_page_writes_them() {
        assert_eq!(
            quoted_numbers("QKᵀ = [1.00, -0.50] and √3 = 1.73; step 4, d_k = 2"),
            ["1.00", "-0.50", "1.73"]
        );
        assert_eq!(quoted_numbers("h1·0 (1.00 → 1.50)"), ["1.00", "1.50"]);
        assert_eq!(quoted_numbers("checked with torch 2.15, then 0.50"), ["0.50"]);
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
        let mut alibi = Scenario::identity(&["a b c"], 4, 2);
        alibi.alibi = true;
        alibi.mask.causal = true;
        out.push(("ALiBi, 3 tokens", alibi));
        out
    }

    #[test]
    fn every_step_narrates_any_imported_scenario_without_panicking() {
        for (what, scenario) in odd_scenarios() {
            let trace = run(&scenario).unwrap_or_else(|e| panic!("{what}: {e}"));
            // the pictures' own data, as the page builds it from the shown trace
            assert!(trace.sizes.t >= 8 || local::bloom_comparison(&trace).is_none(), "{what}");
            for b in 0..trace.sizes.b + 1 {
                for h in shapes::split_both_ways(&trace, b) {
                    assert_eq!(h.right.len(), h.wrong.len(), "{what}");
                }
            }
            for lesson in lessons() {
                for step in &lesson.steps {
                    let text = (step.narrate)(&trace);
                    assert!(!text.is_empty(), "{what}, {}", lesson.id);
                }
            }
        }
    }
}
