//! What a heatmap card shows, as plain Rust: which matrix ([`CardId`]), its numbers and
//! labels ([`CardData`], [`axis_labels`]), its layout for the space it has
//! ([`fit_layout`]), its table's corner and its CSV. No web dependency: tested natively.

use crate::draw::{Heatmap, Layout, Scale};
use crate::engine::{Role, StepName, Trace};
use crate::format::exact;
use crate::ui::state::card_id::CardId;

/// Everything a card draws, read from the trace for one [`CardId`]. Compared number by
/// number (bitwise, so NaN equals NaN) to decide whether the card must be redrawn: a
/// head whose numbers did not change is not drawn again.
#[derive(Debug, Clone)]
pub struct CardData {
    /// The matrix.
    pub values: ndarray::Array2<f64>,
    /// The rows' and columns' labels (tokens or features), and which are `<pad>`.
    pub labels: AxisLabels,
    /// Row-major: blocked by the mask (masked and weights only).
    pub blocked: Vec<bool>,
    /// Row-major: drawn hatched ([`hatched`]): a masked score the mask replaced, a weight
    /// the mask made exactly 0 (or NaN). A blocked weight the `-1e9` fill leaves above 0
    /// (a leak, a fully masked row's 1/T) is drawn as its number.
    pub hatched: Vec<bool>,
    /// Columns per head band (q, k, v, concat with several heads).
    pub col_group: Option<usize>,
    /// Columns are key tokens.
    pub square: bool,
    /// The step has a head axis.
    pub has_heads: bool,
    /// Row sums, for the query-by-key steps.
    pub row_sums: Vec<f64>,
    /// The weights of a run with attention sinks, whose rows sum to less than 1.
    pub sink: bool,
}

impl PartialEq for CardData {
    fn eq(&self, other: &Self) -> bool {
        self.values.dim() == other.values.dim()
            && self.values.iter().zip(other.values.iter()).all(|(a, b)| a.to_bits() == b.to_bits())
            && self.labels == other.labels
            && self.blocked == other.blocked
            && self.hatched == other.hatched
            && self.col_group == other.col_group
    }
}

impl CardData {
    /// The card's numbers and labels, or `None` if the trace has no such matrix (a step
    /// it does not have, a sentence or head out of range): never an index out of bounds.
    pub fn build(trace: &Trace, id: CardId) -> Option<Self> {
        Self::with_labels(trace, id, axis_labels(trace, id.step, id.batch))
    }

    /// [`CardData::build`] with the given labels: `None` unless there is one label (and
    /// one `<pad>` flag) per row and per column of the matrix.
    pub fn with_labels(trace: &Trace, id: CardId, labels: AxisLabels) -> Option<Self> {
        let step = trace.step(id.step)?;
        let values = step.matrix(id.batch, id.head)?.to_owned();
        let (n_rows, n_cols) = values.dim();
        let AxisLabels { rows, cols, row_pad, col_pad } = &labels;
        if rows.len() != n_rows || cols.len() != n_cols || row_pad.len() != n_rows || col_pad.len() != n_cols
        {
            return None;
        }
        let blocked = if matches!(id.step, StepName::Masked | StepName::Weights) {
            blocked_cells(trace, id.batch, n_rows, n_cols)
        } else {
            Vec::new()
        };
        let hatched = hatched(id.step, values.view(), &blocked);
        let col_group = (matches!(id.step, StepName::Q | StepName::K | StepName::V | StepName::Concat)
            && trace.sizes.n_heads > 1)
            .then_some(band_width(trace, id.step));
        let square = step.cols_are_keys();
        let row_sums = if square {
            (0..n_rows).filter_map(|r| step.row_sum(id.batch, id.head, r)).collect()
        } else {
            vec![]
        };
        Some(Self {
            values,
            labels,
            blocked,
            hatched,
            col_group,
            square,
            has_heads: step.has_heads(),
            row_sums,
            sink: id.step == StepName::Weights && !trace.sinks.is_empty(),
        })
    }

    /// What the `draw` module draws for this card, on colour scale `scale`.
    pub fn heatmap(&self, scale: Scale) -> Heatmap<'_> {
        Heatmap {
            values: self.values.view(),
            row_labels: &self.labels.rows,
            col_labels: &self.labels.cols,
            row_is_pad: &self.labels.row_pad,
            col_is_pad: &self.labels.col_pad,
            blocked: &self.hatched,
            scale,
            col_group: self.col_group,
        }
    }

    /// The read-out for cell `(r, c)`.
    /// Four decimals (`format::reading`): the exact value is one key away, in the table
    /// and the explanation panel (Enter).
    pub fn readout(&self, r: usize, c: usize) -> Option<String> {
        let v = *self.values.get((r, c))?;
        let shown = crate::format::reading(v);
        let mut text = if self.square {
            format!("query “{}” → key “{}”: {shown}", self.labels.rows.get(r)?, self.labels.cols.get(c)?)
        } else {
            format!("“{}”, {}: {shown}", self.labels.rows.get(r)?, self.labels.cols.get(c)?)
        };
        let k = r * self.values.ncols() + c;
        if self.blocked.get(k).copied().unwrap_or(false) {
            if self.hatched.get(k).copied().unwrap_or(false) {
                text.push_str(" (blocked by the mask)");
            } else {
                text.push_str(" (blocked by the mask, yet not 0: the -1e9 fill is a number, not -inf)");
            }
        }
        if let Some(sum) = self.row_sums.get(r) {
            text.push_str(&format!(" · row sum {}", crate::format::reading(*sum)));
            if self.sink {
                text.push_str(" (the head's sink takes the rest of 1)");
            }
        }
        Some(text)
    }
}

/// Row-major, which cells of sentence `batch`'s `n_rows × n_cols` scores or weights the
/// mask blocks.
pub fn blocked_cells(trace: &Trace, batch: usize, n_rows: usize, n_cols: usize) -> Vec<bool> {
    (0..n_rows * n_cols).map(|k| trace.mask.is_blocked(batch, k / n_cols, k % n_cols)).collect()
}

/// Which cells of `values` (row-major, as `blocked`) are drawn hatched, which means "the
/// mask decided this number": in the masked scores every blocked cell (the mask replaced
/// its score by the fill, the number it shows); in the weights a blocked cell whose weight
/// is exactly 0 (`-inf`, or a `-1e9` far below the real scores) or NaN (a fully masked row
/// under `-inf`). A blocked weight above 0 (the `-1e9` fill leaking, or a fully masked row
/// made uniform) is not masked in the numbers, so it is drawn as its number. NaN is
/// hatched wherever it is.
pub fn hatched(step: StepName, values: ndarray::ArrayView2<f64>, blocked: &[bool]) -> Vec<bool> {
    let n_cols = values.ncols();
    values
        .indexed_iter()
        .map(|((r, c), &v)| {
            let is_blocked = blocked.get(r * n_cols + c).copied().unwrap_or(false);
            v.is_nan() || (is_blocked && (step != StepName::Weights || v == 0.0))
        })
        .collect()
}

impl CardData {
    /// The largest number a query could see: the largest finite value outside the mask
    /// and outside `<pad>` rows and columns, as `(row, column, value)`; `None` when there
    /// is none (an empty or fully blocked matrix). The first such cell wins a tie.
    pub fn largest(&self) -> Option<(usize, usize, f64)> {
        let n_cols = self.values.ncols();
        let mut best: Option<(usize, usize, f64)> = None;
        for ((r, c), &v) in self.values.indexed_iter() {
            let hidden = self.blocked.get(r * n_cols + c).copied().unwrap_or(false)
                || self.labels.row_pad.get(r).copied().unwrap_or(false)
                || self.labels.col_pad.get(c).copied().unwrap_or(false);
            if hidden || !v.is_finite() {
                continue;
            }
            if best.is_none_or(|(_, _, b)| v > b) {
                best = Some((r, c, v));
            }
        }
        best
    }

    /// The picture's text alternative, which a screen reader reads for the canvas: what
    /// it shows (`what`, e.g. "weights, sentence 1, head 1"), its size, its largest
    /// number with its labels (four decimals, as the read-out), and where the numbers are.
    pub fn describe(&self, what: &str) -> String {
        let (n_rows, n_cols) = self.values.dim();
        let mut text = format!("{what}: {n_rows} by {n_cols}");
        if let Some((r, c, v)) = self.largest() {
            let (row, col) = (self.labels.rows.get(r), self.labels.cols.get(c));
            if let (Some(row), Some(col)) = (row, col) {
                let shown = crate::format::reading(v);
                if self.square {
                    text.push_str(&format!("; the largest is query “{row}” → key “{col}”, {shown}"));
                } else {
                    text.push_str(&format!("; the largest is “{row}”, {col}, {shown}"));
                }
            }
        }
        text.push_str(". Arrow keys read each cell; every number is in the table of numbers below.");
        text
    }

    /// [`CardData::describe`] without its numbers, while the learner guesses a cell.
    pub fn describe_hidden(&self, what: &str) -> String {
        let (n_rows, n_cols) = self.values.dim();
        format!("{what}: {n_rows} by {n_cols}. Its numbers are hidden while you guess a cell's value.")
    }
}

/// The heatmap's axis titles, written beside the picture: what its rows and its columns
/// are, e.g. `("queries ↓ (who is looking)", "keys → (who is looked at)")` for the weights.
/// Only a map whose columns are keys has queries for rows: x, q, k, v, context and output
/// have one row per token (its query, key, value… for q, k, v), not a query looking.
pub fn axis_titles(step: StepName) -> (&'static str, &'static str) {
    use StepName as S;
    let rows = match step {
        S::Pe => "positions ↓ (from 0)",
        _ if step.cols() == Role::Keys => "queries ↓ (who is looking)",
        S::QA | S::QANorm => "tokens' query latents ↓",
        S::Q | S::QHeads | S::QNorm | S::QRot | S::QCat => "tokens' queries ↓",
        S::K | S::KHeads | S::KNorm | S::KRot | S::KRep | S::KCat | S::KNope | S::KPe => "tokens' keys ↓",
        S::V | S::VHeads | S::VRep => "tokens' values ↓",
        S::KvA | S::CKv => "tokens' latents ↓",
        S::KvB => "tokens' keys and values ↓",
        S::Context => "tokens ↓ (what each query gathered)",
        _ => "tokens ↓",
    };
    let cols = match step.cols() {
        Role::Keys => "keys → (who is looked at)",
        Role::Queries => "queries →",
        Role::Features => "features →",
        Role::HeadFeatures => "this head's d_k features →",
    };
    (rows, cols)
}

/// Cross-attention: rows of key/value tokens are the other sentence's tokens.
fn key_value_rows(rows: &'static str) -> &'static str {
    match rows {
        "tokens ↓" => "key/value tokens ↓",
        "tokens' keys ↓" => "key/value tokens' keys ↓",
        "tokens' values ↓" => "key/value tokens' values ↓",
        "tokens' latents ↓" => "key/value tokens' latents ↓",
        "tokens' keys and values ↓" => "key/value tokens' keys and values ↓",
        other => other,
    }
}

/// Whether `step` is multi-head latent attention's shared RoPE key (`k_pe`, `k_rot`): one
/// map for every head, `d_rope` columns wide, not a head's `d_k`.
pub fn is_shared_key(trace: &Trace, step: StepName) -> bool {
    trace.mla.is_some() && matches!(step, StepName::KPe | StepName::KRot)
}

/// [`axis_titles`] for a step of `trace`: the shared RoPE key's columns are its own
/// `d_rope` features, not a head's.
pub fn axis_titles_in(trace: Option<&Trace>, step: StepName) -> (&'static str, &'static str) {
    let (rows, cols) = axis_titles(step);
    if trace.is_some_and(|t| is_shared_key(t, step)) {
        // short: its card is two or three columns narrow
        ("tokens ↓", "d_rope →")
    } else if trace.is_some_and(|t| t.kv_tokens.is_some()) && step.rows() == Role::Keys {
        (key_value_rows(rows), cols)
    } else {
        (rows, cols)
    }
}

/// The width of one head's band of columns in `q`, `k`, `v` or `concat`: `d_k`, or under
/// multi-head latent attention `concat`'s value heads, `d_v`.
fn band_width(trace: &Trace, step: StepName) -> usize {
    match &trace.mla {
        Some(m) if step == StepName::Concat => m.v_head_dim,
        _ => trace.sizes.d_k,
    }
}

/// The labels of a matrix's rows and columns, and which of them are `<pad>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AxisLabels {
    /// One label per row (tokens).
    pub rows: Vec<String>,
    /// One label per column (tokens or features).
    pub cols: Vec<String>,
    /// Which rows are `<pad>`.
    pub row_pad: Vec<bool>,
    /// Which columns are `<pad>`.
    pub col_pad: Vec<bool>,
}

/// Row and column labels of a step's matrix, and which of them are `<pad>`.
///
/// The step says what its rows and columns are ([`StepName::rows`], [`StepName::cols`]):
/// query tokens, key tokens (cross-attention's `x_kv`, `k`, `v`, `k_heads`, `v_heads` rows
/// and the `(B, h, T_q, T_k)` columns) or features. The labels always number exactly the
/// matrix's rows and columns, whatever the trace holds.
pub fn axis_labels(trace: &Trace, step: StepName, batch: usize) -> AxisLabels {
    let Some(s) = trace.step(step) else { return AxisLabels::default() };
    let (n_rows, n_cols) = s.matrix(batch, 0).map_or((0, 0), |m| m.dim());
    // where the scores depend on positions (RoPE turns by them, ALiBi biases by their
    // distance) each token carries its position, counted from 0 as the words count it
    let numbered = trace.rope.is_some() || !trace.alibi_slopes.is_empty();
    let tokens = |role: Role, n: usize| {
        let (texts, len) = match role {
            Role::Keys => (trace.key_tokens(batch), trace.key_length(batch)),
            _ => (trace.query_tokens(batch), trace.query_length(batch)),
        };
        let labels = (0..n)
            .map(|i| match texts.get(i) {
                Some(text) if numbered => format!("{i} {text}"),
                Some(text) => text.clone(),
                None => format!("#{}", i + 1),
            })
            .collect();
        (labels, (0..n).map(|i| i >= len).collect::<Vec<bool>>())
    };
    let features = |n: usize| -> (Vec<String>, Vec<bool>) {
        let named = trace.feature_names.as_ref().filter(|f| f.len() == n);
        let labels = match (s.name.cols(), named) {
            // the toy space's names, where the columns are its dimensions
            (Role::Features, Some(names))
                if matches!(
                    step,
                    StepName::X
                        | StepName::XKv
                        | StepName::XPe
                        | StepName::XKvPe
                        | StepName::Output
                        | StepName::ResidIn
                        | StepName::ResidOut
                ) =>
            {
                names.iter().map(|s| s.to_string()).collect()
            }
            // a head's features by the axis the step names: d_k, or under multi-head latent
            // attention d_rope (the rotated parts, the shared RoPE key), d_nope or d_v
            (Role::HeadFeatures, _) => {
                let axis = s.dims.last().map_or("d_k", |a| a.as_str());
                (0..n).map(|j| format!("{axis} {j}")).collect()
            }
            // the positional encoding: a sine and a cosine per frequency i
            _ if step == StepName::Pe => crate::lessons::labels::pe_cols(n),
            // columns that the split cuts into heads: head · feature
            _ if matches!(step, StepName::Q | StepName::K | StepName::V | StepName::Concat) => {
                let d_k = band_width(trace, step).max(1);
                // grouped-query attention: k and v hold h_kv key/value heads
                let kv = trace.is_grouped() && matches!(step, StepName::K | StepName::V);
                let head = if kv { "kv" } else { "h" };
                (0..n).map(|j| format!("{head}{} · {}", j / d_k + 1, j % d_k)).collect()
            }
            // a token vector without heads: its features
            _ => (0..n).map(|j| format!("f{j}")).collect(),
        };
        (labels, vec![false; n])
    };
    let (rows, row_pad) = if step == StepName::Pe {
        // the encoding depends on the position only, counted from 0 as in the formula
        (crate::lessons::labels::pe_rows(trace.query_tokens(batch), n_rows), vec![false; n_rows])
    } else {
        tokens(step.rows(), n_rows)
    };
    let (cols, col_pad) = match step.cols() {
        Role::Keys | Role::Queries => tokens(step.cols(), n_cols),
        Role::Features | Role::HeadFeatures => features(n_cols),
    };
    AxisLabels { rows, cols, row_pad, col_pad }
}

/// The layout for at most `width` × `height` CSS pixels, labels of `font` CSS px: the
/// cells shrink (the labels keep their size) until the picture is no taller than `height`.
pub fn fit_layout(rows: &[String], cols: &[String], width: f64, height: Option<f64>, font: f64) -> Layout {
    let mut layout = Layout::with_font(rows, cols, width, font);
    let Some(height) = height else { return layout };
    for _ in 0..4 {
        if layout.height <= height {
            break;
        }
        let target = ((height - layout.top - 8.0) / layout.n_rows as f64).floor().max(4.0);
        if target >= layout.cell {
            break;
        }
        layout =
            Layout::with_font(rows, cols, layout.width - (layout.cell - target) * layout.n_cols as f64, font);
    }
    layout
}

/// The matrix as CSV: a header of column labels, then one labelled row per query.
pub fn csv(rows: &[String], cols: &[String], values: &ndarray::Array2<f64>) -> String {
    let mut out = String::from("query");
    for c in cols {
        out.push(',');
        out.push_str(&csv_field(c));
    }
    out.push('\n');
    for (label, row) in rows.iter().zip(values.rows()) {
        out.push_str(&csv_field(label));
        for v in row {
            out.push(',');
            out.push_str(&exact(*v));
        }
        out.push('\n');
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The table's corner: what its rows and columns are, from the step's roles
/// ("query ↓ key →", "key/value token ↓ feature →").
pub fn corner(step: StepName) -> &'static str {
    match (step.rows(), step.cols()) {
        (Role::Queries, Role::Keys) => "query ↓ key →",
        (Role::Keys, Role::HeadFeatures) => "key/value token ↓ d_k →",
        (Role::Keys, _) => "key/value token ↓ feature →",
        (_, Role::HeadFeatures) => "token ↓ d_k →",
        _ => "token ↓ feature →",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::LABEL_FONT;
    use crate::engine::{run, Scenario};

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn every_step_of_a_latent_attention_trace_has_its_card() {
        let mut s = Scenario::identity(&["the cat sat", "a dog"], 6, 2);
        s.projections = crate::engine::Projections::Named(crate::engine::ProjectionKind::Seeded);
        s.rope = Some(crate::engine::Rope::new(crate::engine::RopeStyle::Interleaved));
        s.mla = Some(crate::engine::Mla { q_lora_rank: Some(4), ..crate::engine::Mla::sized(3, 2, 2, 3) });
        let t = run(&s).unwrap();
        for step in &t.steps {
            let card = CardData::build(&t, CardId { step: step.name, batch: 1, head: 0 });
            assert!(card.is_some(), "{}", step.name);
        }
        // concat's bands are the value heads, d_v = 3 wide
        let concat = CardData::build(&t, CardId { step: StepName::Concat, batch: 0, head: 0 }).unwrap();
        assert_eq!(concat.col_group, Some(3));
        assert_eq!(concat.labels.cols[3], "h2 · 0");
    }

    #[test]
    fn the_text_alternative_names_the_largest_weight_a_query_can_see() {
        // the baseball-bat tutorial's sentence, as the first lesson runs it
        let s = Scenario::identity(&["the baseball bat"], 4, 1);
        let t = run(&s).unwrap();
        let id = CardId { step: StepName::Weights, batch: 0, head: 0 };
        let card = CardData::build(&t, id).unwrap();
        let (r, c, v) = card.largest().unwrap();
        // every other visible weight is no larger
        assert!(card.values.iter().all(|&x| x <= v));
        let text = card.describe("weights, sentence 1, head 1");
        let want = format!(
            "weights, sentence 1, head 1: 3 by 3; the largest is query “{}” → key “{}”, {}",
            card.labels.rows[r],
            card.labels.cols[c],
            crate::format::reading(v)
        );
        assert!(text.starts_with(&want), "{text}");
        assert!(text.contains("table of numbers"), "{text}");
    }

    /// Hatching means "the mask decided this number": under -inf every blocked weight is
    /// exactly 0 and hatched; under -1e9 the masks lesson's leak (a blocked weight above 0)
    /// and a fully masked row's uniform weights are drawn as their numbers, while a
    /// blocked weight the real scores push to exactly 0 stays hatched. The masked scores
    /// hatch every blocked cell, whatever the fill.
    #[test]
    fn only_a_weight_the_mask_made_zero_is_hatched() {
        use crate::engine::{Fill, Padding};
        use crate::lessons::masks::{leak, masks};
        let card = |s: &Scenario, step| {
            CardData::build(&run(s).unwrap(), CardId { step, batch: 0, head: 0 }).unwrap()
        };
        for fill in [Fill::NegInf, Fill::LargeNegative] {
            for s in [leak(fill), masks(true, Padding::KeysAndQueries, fill)] {
                let w = card(&s, StepName::Weights);
                for (k, &v) in w.values.iter().enumerate() {
                    let (blocked, hatched) = (w.blocked[k], w.hatched[k]);
                    assert_eq!(hatched, v.is_nan() || (blocked && v == 0.0), "{fill:?} cell {k}: {v}");
                    if fill == Fill::NegInf {
                        assert_eq!(hatched, blocked, "{fill:?} cell {k}: {v}");
                    }
                }
                let m = card(&s, StepName::Masked);
                assert_eq!(m.hatched, m.blocked, "{fill:?}: the masked scores hatch every blocked cell");
                assert!(m.blocked.iter().any(|&b| b));
            }
        }
        // the leak: the blocked future key gets the most weight, drawn as it is
        let w = card(&leak(Fill::LargeNegative), StepName::Weights);
        assert!(w.blocked[1] && !w.hatched[1] && w.values[[0, 1]] > 0.5, "{:?}", w.values);
        assert!(w.readout(0, 1).unwrap().contains("yet not 0"), "{:?}", w.readout(0, 1));
        // a fully masked row under -1e9 is uniform, not hatched; under -inf it is NaN, hatched
        let uniform = card(&masks(true, Padding::KeysAndQueries, Fill::LargeNegative), StepName::Weights);
        let row = uniform.values.nrows() - 1;
        let n = uniform.values.ncols();
        assert!((0..n).all(|c| uniform.blocked[row * n + c] && !uniform.hatched[row * n + c]));
        let nan = card(&masks(true, Padding::KeysAndQueries, Fill::NegInf), StepName::Weights);
        assert!((0..n).all(|c| nan.hatched[row * n + c] && nan.values[[row, c]].is_nan()));
    }

    #[test]
    fn the_largest_skips_blocked_pad_and_non_finite_cells() {
        let values =
            ndarray::Array2::from_shape_vec((2, 3), vec![0.1, 9.0, f64::INFINITY, 0.4, 0.2, 5.0]).unwrap();
        let card = CardData {
            values,
            labels: AxisLabels {
                rows: strings(&["a", "b"]),
                cols: strings(&["x", "y", "<pad>"]),
                row_pad: vec![false, false],
                col_pad: vec![false, false, true],
            },
            // (0, 1) blocked by the mask
            blocked: vec![false, true, false, false, false, false],
            hatched: vec![false, true, false, false, false, false],
            col_group: None,
            square: true,
            has_heads: true,
            row_sums: vec![],
            sink: false,
        };
        assert_eq!(card.largest(), Some((1, 0, 0.4)));
        // features, not keys: no arrow between a query and a key
        let features = CardData { square: false, ..card.clone() };
        assert!(features.describe("q").contains("the largest is “b”, x, 0.4."), "{}", features.describe("q"));
        // nothing visible: the size only
        let blocked = CardData { blocked: vec![true; 6], ..card };
        assert_eq!(blocked.largest(), None);
        assert!(blocked.describe("weights").starts_with("weights: 2 by 3. "));
    }

    #[test]
    fn axis_titles_say_who_looks_and_who_is_looked_at() {
        assert_eq!(
            axis_titles(StepName::Weights),
            ("queries ↓ (who is looking)", "keys → (who is looked at)")
        );
        assert_eq!(axis_titles(StepName::Scores).1, "keys → (who is looked at)");
        assert_eq!(axis_titles(StepName::X), ("tokens ↓", "features →"));
        assert_eq!(axis_titles(StepName::Pe).0, "positions ↓ (from 0)");
        assert_eq!(axis_titles(StepName::Q).0, "tokens' queries ↓");
        assert_eq!(axis_titles(StepName::V).0, "tokens' values ↓");
        assert_eq!(axis_titles(StepName::Context).0, "tokens ↓ (what each query gathered)");
        assert_eq!(axis_titles(StepName::KHeads), ("tokens' keys ↓", "this head's d_k features →"));
        // every step has both, and only a map whose columns are keys has queries for rows
        for step in StepName::ALL {
            let (r, c) = axis_titles(step);
            assert!(r.contains('↓') && c.contains('→'), "{step:?}");
            assert_eq!(r.starts_with("queries"), step.cols() == Role::Keys, "{step:?}: {r}");
        }
    }

    /// Cross-attention: the rows of x_kv, k and v are the other sentence's tokens; x's and
    /// q's are the sentence being written.
    #[test]
    fn cross_attention_names_the_key_value_sentences_rows() {
        let mut s = Scenario::identity(&["a b"], 4, 2);
        s.kv_sentences = Some(vec!["one two three".into()]);
        let t = run(&s).unwrap();
        assert_eq!(axis_titles_in(Some(&t), StepName::XKv).0, "key/value tokens ↓");
        assert_eq!(axis_titles_in(Some(&t), StepName::V).0, "key/value tokens' values ↓");
        assert_eq!(axis_titles_in(Some(&t), StepName::KHeads).0, "key/value tokens' keys ↓");
        assert_eq!(axis_titles_in(Some(&t), StepName::X).0, "tokens ↓");
        assert_eq!(axis_titles_in(Some(&t), StepName::Weights).0, "queries ↓ (who is looking)");
        let own = run(&Scenario::identity(&["a b"], 4, 2)).unwrap();
        assert_eq!(axis_titles_in(Some(&own), StepName::V).0, "tokens' values ↓");
    }

    /// Multi-head latent attention's one RoPE key is labelled as itself: d_rope columns,
    /// not a head's d_k; elsewhere k_rot is a head's.
    #[test]
    fn the_shared_rope_key_has_its_own_columns() {
        let t = crate::lessons::mla::lesson().trace(2);
        let m = t.mla.clone().unwrap();
        for step in [StepName::KPe, StepName::KRot] {
            assert!(is_shared_key(&t, step));
            let labels = axis_labels(&t, step, 0);
            let want: Vec<String> = (0..m.qk_rope_head_dim).map(|j| format!("d_rope {j}")).collect();
            assert_eq!(labels.cols, want, "{step}");
            assert_eq!(axis_titles_in(Some(&t), step).1, "d_rope →");
        }
        // a head's own parts are numbered by their own sizes, not d_k
        for (step, axis, n) in [
            (StepName::QRot, "d_rope", m.qk_rope_head_dim),
            (StepName::KNope, "d_nope", m.qk_nope_head_dim),
            (StepName::VHeads, "d_v", m.v_head_dim),
        ] {
            let want: Vec<String> = (0..n).map(|j| format!("{axis} {j}")).collect();
            assert_eq!(axis_labels(&t, step, 0).cols, want, "{step}");
        }
        let plain = run(&Scenario::identity(&["a b"], 4, 2)).unwrap();
        assert!(!is_shared_key(&plain, StepName::KRot));
        assert_eq!(axis_titles_in(Some(&plain), StepName::KHeads).1, "this head's d_k features →");
    }

    /// The residual stream's columns are x's: the toy space's feature names.
    #[test]
    fn the_residual_stream_names_its_features_as_x_does() {
        let mut s = crate::lessons::baseball_bat::lesson().steps[0].scenario.clone();
        s.n_layers = Some(2);
        let t = run(&s).unwrap();
        let x = axis_labels(&t, StepName::X, 0).cols;
        assert!(t.feature_names.is_some() && !x[0].starts_with('f'), "{x:?}");
        for step in [StepName::ResidIn, StepName::ResidOut] {
            assert_eq!(axis_labels(&t, step, 0).cols, x, "{step}");
        }
    }

    #[test]
    fn csv_quotes_commas_quotes_and_line_breaks_only() {
        let rows = strings(&["plain", "a,b", "say \"hi\"", "two\nlines"]);
        let cols = strings(&["k", "x,y"]);
        let values = ndarray::Array2::from_shape_vec(
            (4, 2),
            vec![1.0, -0.5, f64::NAN, f64::NEG_INFINITY, 0.0, -0.0, 2.5, 1e-7],
        )
        .unwrap();
        let text = csv(&rows, &cols, &values);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        assert_eq!(lines[0], "query,k,\"x,y\"\n");
        assert!(lines[1].starts_with("plain,"), "{}", lines[1]);
        assert!(lines[2].starts_with("\"a,b\","), "{}", lines[2]);
        assert!(lines[3].starts_with("\"say \"\"hi\"\"\","), "{}", lines[3]);
        // a label with a line break is one quoted field over two lines
        assert!(lines[4].starts_with("\"two\n") && lines[5].starts_with("lines\","), "{text}");
        // the numbers are the exact ones, as the table's data-value
        assert_eq!(lines[2], format!("\"a,b\",{},{}\n", exact(f64::NAN), exact(f64::NEG_INFINITY)));
        assert_eq!(text.matches('\n').count(), 6, "a header, four rows, one line break inside a label");
    }

    #[test]
    fn cross_attention_labels_key_rows_and_key_columns_with_key_tokens() {
        let mut s = Scenario::identity(&["a b"], 4, 2);
        s.kv_sentences = Some(vec!["one two three".into()]);
        let t = run(&s).unwrap();
        let queries = strings(&["a", "b"]);
        let keys = strings(&["one", "two", "three"]);
        // the weights: query rows, key columns
        let w = axis_labels(&t, StepName::Weights, 0);
        assert_eq!((w.rows, w.cols), (queries.clone(), keys.clone()));
        assert_eq!((w.row_pad, w.col_pad), (vec![false; 2], vec![false; 3]));
        // k and v_heads: key rows; features or d_k columns
        let k = axis_labels(&t, StepName::K, 0);
        assert_eq!(k.rows, keys);
        assert_eq!(k.cols, strings(&["h1 · 0", "h1 · 1", "h2 · 0", "h2 · 1"]));
        let v = axis_labels(&t, StepName::VHeads, 0);
        assert_eq!((v.rows, v.cols), (keys, strings(&["d_k 0", "d_k 1"])));
        // q: query rows
        assert_eq!(axis_labels(&t, StepName::Q, 0).rows, queries);
        assert_eq!(corner(StepName::K), "key/value token ↓ feature →");
        assert_eq!(corner(StepName::VHeads), "key/value token ↓ d_k →");
        assert_eq!(corner(StepName::Weights), "query ↓ key →");
        // the card reads the same labels, and its cell says query and key
        let card = CardData::build(&t, CardId { step: StepName::Weights, batch: 0, head: 1 }).unwrap();
        assert_eq!(card.values.dim(), (2, 3));
        assert!(card.readout(1, 2).unwrap().starts_with("query “b” → key “three”: "));
    }

    #[test]
    fn with_sinks_a_weights_row_sum_says_the_sink_takes_the_rest() {
        let mut s = Scenario::identity(&["a b"], 4, 2);
        let id = CardId { step: StepName::Weights, batch: 0, head: 1 };
        let plain = CardData::build(&run(&s).unwrap(), id).unwrap();
        assert!(plain.readout(0, 0).unwrap().ends_with("row sum 1"), "{:?}", plain.readout(0, 0));
        s.sinks = Some(vec![0.0, 0.0]);
        let t = run(&s).unwrap();
        let card = CardData::build(&t, id).unwrap();
        let text = card.readout(0, 0).unwrap();
        assert!(text.ends_with("(the head's sink takes the rest of 1)"), "{text}");
        assert!(card.row_sums[0] < 1.0);
        // the scores' rows are not weights: no such words
        let scores = CardData::build(&t, CardId { step: StepName::Scores, ..id }).unwrap();
        assert!(!scores.readout(0, 0).unwrap().contains("sink"));
    }

    #[test]
    fn feature_columns_are_named_by_feature_and_heads_only_where_the_split_makes_them() {
        // the toy space (d_model 3): x and output by sports, animal, other
        let t = run(&Scenario::identity(&["baseball bat"], 3, 1)).unwrap();
        let names = ["sports", "animal", "other"];
        for step in [StepName::X, StepName::Output] {
            assert_eq!(axis_labels(&t, step, 0).cols, strings(&names), "{step}");
        }
        // d_model 4, h 2, positions: x is f0…, q is h1 · 0…, pe is pos × sin/cos
        let mut s = Scenario::identity(&["a b c"], 4, 2);
        s.positional = crate::engine::Positional::Sinusoidal;
        let t = run(&s).unwrap();
        assert_eq!(axis_labels(&t, StepName::X, 0).cols, strings(&["f0", "f1", "f2", "f3"]));
        assert_eq!(axis_labels(&t, StepName::Output, 0).cols, strings(&["f0", "f1", "f2", "f3"]));
        assert_eq!(axis_labels(&t, StepName::Q, 0).cols, strings(&["h1 · 0", "h1 · 1", "h2 · 0", "h2 · 1"]));
        let pe = axis_labels(&t, StepName::Pe, 0);
        assert_eq!(pe.cols, strings(&["sin 0", "cos 0", "sin 1", "cos 1"]));
        assert_eq!(pe.rows, strings(&["0 (a)", "1 (b)", "2 (c)"]));
        // grouped-query attention: k holds key/value heads
        s.n_kv_heads = Some(1);
        let t = run(&s).unwrap();
        assert_eq!(axis_labels(&t, StepName::K, 0).cols, strings(&["kv1 · 0", "kv1 · 1"]));
    }

    /// Words that name a column name it as the step's map labels it: why-heads' "d_k 1" and
    /// "h2 · 2", shapes' "h2 · 0 to h2 · 3".
    #[test]
    fn the_columns_the_lessons_name_are_labelled_so() {
        for (id, i, names) in [
            ("why-heads", 5, &["d_k 1", "d_k 6"][..]),
            ("why-heads", 6, &["h1 · 1", "h2 · 2"]),
            ("shapes", 1, &["h2 · 0", "h2 · 3"]),
        ] {
            let lesson = crate::lessons::lessons().into_iter().find(|l| l.id == id).unwrap();
            let (t, words) = lesson.narrated(i);
            let shown = if id == "shapes" { StepName::Q } else { lesson.steps[i].focus };
            let cols = axis_labels(&t, shown, 0).cols;
            for name in names {
                assert!(words.contains(name), "{id} step {}: {name} in {words}", i + 1);
                assert!(cols.iter().any(|c| c == name), "{id} step {}: {name} in {cols:?}", i + 1);
            }
        }
    }

    #[test]
    fn a_card_refuses_labels_that_do_not_fit_its_matrix() {
        let t = run(&Scenario::identity(&["the cat sat", "a dog"], 3, 1)).unwrap();
        let id = CardId { step: StepName::Weights, batch: 1, head: 0 };
        let fits = axis_labels(&t, id.step, id.batch);
        // sentence 2 is padded to T = 3: its last query and key are <pad>
        assert_eq!(fits.row_pad, [false, false, true]);
        assert!(CardData::with_labels(&t, id, fits.clone()).is_some());
        let mut short_rows = fits.clone();
        short_rows.rows.pop();
        let mut long_cols = fits.clone();
        long_cols.cols.push("extra".into());
        let mut short_pad = fits.clone();
        short_pad.col_pad.pop();
        for (what, labels) in [("rows", short_rows), ("cols", long_cols), ("pad", short_pad)] {
            assert_eq!(CardData::with_labels(&t, id, labels), None, "{what}");
        }
        // no such sentence or head: no card, never an index out of bounds
        assert_eq!(CardData::build(&t, CardId { batch: 2, ..id }), None);
        assert_eq!(CardData::build(&t, CardId { head: 1, ..id }), None);
        assert!(axis_labels(&t, StepName::Pe, 0).rows.is_empty(), "a step the trace does not have");
    }

    #[test]
    fn a_tall_picture_shrinks_its_cells_to_the_height() {
        let labels = strings(&["a", "b", "c", "d", "e", "f", "g", "h"]);
        let free = fit_layout(&labels, &labels, 600.0, None, LABEL_FONT);
        let fitted = fit_layout(&labels, &labels, 600.0, Some(free.height / 2.0), LABEL_FONT);
        assert!(fitted.cell < free.cell && fitted.height <= free.height / 2.0 + 1.0, "{fitted:?}");
        assert_eq!(fit_layout(&labels, &labels, 600.0, Some(1e6), LABEL_FONT).cell, free.cell);
    }
}
