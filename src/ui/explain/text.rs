//! The explanation panel's texts and rectangles, as plain Rust: where a card's cell is
//! in its step's tensor ([`trace_index`]), the cells an explanation reads
//! ([`outlines`]), the operands' numbers ([`strips`]), the terms as listed
//! ([`term_list`]), the formula with its numbers, and the verdicts on a learner's
//! guesses. No web dependency: tested natively. The view is [`crate::ui::explain::panel`].
//!
//! Nothing here computes attention: the terms, the result and the cells read are the
//! engine's [`crate::engine::explain::explain`]; the strip reads the trace's numbers; the
//! only arithmetic is how far a learner's guess is from the value.

use crate::engine::explain::{top_terms, Explanation, Kind, Operand, Tensor, Term, TermKind};
use crate::engine::{Axis, Trace};
use crate::format::{exact, short};

use crate::ui::state::card_id::CardId;

/// Sums with more terms than this list the largest contributions and the rest summed.
pub const MAX_TERMS: usize = 16;

/// Operand vectors longer than this are cut in the strip (the rest is in the tables).
const MAX_STRIP: usize = 64;

/// The index into the step's tensor of cell `(r, c)` of card `id`, clamped into the
/// card's matrix (the trace may have shrunk under an open panel); `None` if the trace
/// has no such matrix.
pub fn trace_index(trace: &Trace, id: CardId, r: usize, c: usize) -> Option<Vec<usize>> {
    let step = trace.step(id.step)?;
    let (n_rows, n_cols) = step.matrix(id.batch, id.head)?.dim();
    if n_rows == 0 || n_cols == 0 {
        return None;
    }
    let (r, c) = (r.min(n_rows - 1), c.min(n_cols - 1));
    // `pe` has a batch axis of 1, shared by every sentence
    let b = if step.dims.first() == Some(&Axis::One) { 0 } else { id.batch };
    let index = if step.has_heads() { vec![b, id.head, r, c] } else { vec![b, r, c] };
    (index.len() == step.shape.len()).then_some(index)
}

/// Cells of one card that an operand covers: rows `rows.0..rows.1`, columns
/// `cols.0..cols.1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outline {
    /// First row and one past the last.
    pub rows: (usize, usize),
    /// First column and one past the last.
    pub cols: (usize, usize),
    /// True when the operand is a step of the same shape read at the same positions
    /// (the masked row of a weight), not the card's own step.
    pub same_positions: bool,
}

/// The rectangles of card `id` that the explanation reads: its operands in that card's
/// step; and, for the query-by-key steps, an operand of another query-by-key step (the
/// `masked` row of a weight) at the same positions.
pub fn outlines(trace: &Trace, ex: &Explanation, id: CardId) -> Vec<Outline> {
    let Some(card_step) = trace.step(id.step) else { return vec![] };
    let Some((n_rows, n_cols)) = card_step.matrix(id.batch, id.head).map(|m| m.dim()) else { return vec![] };
    ex.operands
        .iter()
        .filter_map(|op| {
            let Tensor::Step(s) = op.tensor else { return None };
            let step = trace.step(s)?;
            let same_positions = s != id.step;
            if same_positions
                && !(step.cols_are_keys() && card_step.cols_are_keys() && step.dims == card_step.dims)
            {
                return None;
            }
            if op.index.len() != card_step.shape.len() {
                return None;
            }
            let at = |k: usize| op.index.get(k).copied().flatten();
            let batch_ok = card_step.dims.first() == Some(&Axis::One) || at(0).is_none_or(|b| b == id.batch);
            let (head_ok, r_axis) =
                if card_step.has_heads() { (at(1).is_none_or(|h| h == id.head), 2) } else { (true, 1) };
            if !batch_ok || !head_ok {
                return None;
            }
            let span = |axis: usize, n: usize| match op.index.get(axis).copied().flatten() {
                Some(i) if i < n => Some((i, i + 1)),
                Some(_) => None,
                None => Some((0, n)),
            };
            Some(Outline { rows: span(r_axis, n_rows)?, cols: span(r_axis + 1, n_cols)?, same_positions })
        })
        .collect()
}

/// One operand vector of the strip: its name and the trace's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Strip {
    /// E.g. `q_heads[0,1,2,:]`.
    pub label: String,
    /// The numbers (at most [`MAX_STRIP`]).
    pub values: Vec<f64>,
    /// How many more there are.
    pub more: usize,
}

/// The operands' vectors, read from the trace (steps) and its parameters.
pub fn strips(trace: &Trace, ex: &Explanation) -> Vec<Strip> {
    ex.operands.iter().filter_map(|op| strip(trace, op)).collect()
}

fn strip(trace: &Trace, op: &Operand) -> Option<Strip> {
    let index_text = op.index.iter().map(|i| i.map_or(":".to_owned(), |i| i.to_string())).collect::<Vec<_>>();
    let free: Vec<usize> = op.index.iter().enumerate().filter(|(_, i)| i.is_none()).map(|(k, _)| k).collect();
    let values: Vec<f64> = match op.tensor {
        Tensor::Step(s) => {
            let step = trace.step(s)?;
            if op.index.len() != step.shape.len() || free.len() > 1 {
                return None;
            }
            let mut index: Vec<usize> = op.index.iter().map(|i| i.unwrap_or(0)).collect();
            match free.first() {
                None => vec![*step.data.get(ndarray::IxDyn(&index))?],
                Some(&axis) => {
                    let len = step.shape.get(axis).copied()?;
                    (0..len.min(MAX_STRIP + 1))
                        .map_while(|k| {
                            *index.get_mut(axis)? = k;
                            step.data.get(ndarray::IxDyn(&index)).copied()
                        })
                        .collect()
                }
            }
        }
        Tensor::Param(p) => {
            let layer = p.layer(trace)?;
            match (p, op.index.as_slice()) {
                (p, [Some(c)]) if p.is_bias() => vec![*layer.b().get(*c)?],
                (_, [None, Some(c)]) if *c < layer.w().ncols() => {
                    layer.w().column(*c).iter().copied().collect()
                }
                (_, [Some(r), None]) if *r < layer.w().nrows() => layer.w().row(*r).iter().copied().collect(),
                _ => return None,
            }
        }
    };
    let total = match (op.tensor, free.first()) {
        (Tensor::Step(s), Some(&axis)) => {
            trace.step(s).and_then(|st| st.shape.get(axis).copied()).unwrap_or(0)
        }
        _ => values.len(),
    };
    let name = match op.tensor {
        Tensor::Step(s) => s.as_str(),
        Tensor::Param(p) => p.as_str(),
    };
    let shown: Vec<f64> = values.into_iter().take(MAX_STRIP).collect();
    Some(Strip {
        label: format!("{name}[{}]", index_text.join(",")),
        more: total.saturating_sub(shown.len()),
        values: shown,
    })
}

/// The terms as the panel lists them: all of them, or (for more than [`MAX_TERMS`]
/// unless `show_all`) the largest and `Some((how many others, their sum))`.
pub fn listed_terms(ex: &Explanation, show_all: bool) -> (Vec<&Term>, Option<(usize, f64)>) {
    if show_all || ex.terms.len() <= MAX_TERMS {
        (ex.terms.iter().collect(), None)
    } else {
        let (top, rest) = top_terms(ex, MAX_TERMS);
        let others = ex.terms.len() - top.len();
        (top, Some((others, rest)))
    }
}

/// One listed term, as text: what the panel's row shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermRow {
    /// What it is, e.g. `q[0,0,1,2] · k[0,0,0,2]`.
    pub label: String,
    /// Its numbers, e.g. `0.5000 × (-1.2000)` (none for a term without operands).
    pub nums: Option<String>,
    /// Its exact value ([`exact`]): the row's `data-value` and tooltip.
    pub value: String,
    /// Its value as the panel writes it ([`num`], four decimals at most), so that a long
    /// decimal does not run out of the panel.
    pub shown: String,
}

/// The terms section of the panel as text: built once per explanation (and fold), so
/// that the view only patches the texts that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermList {
    /// E.g. `65 terms, added (the bias is the last term) (largest first)`.
    pub heading: String,
    /// The listed terms ([`listed_terms`]).
    pub rows: Vec<TermRow>,
    /// The folded rest: its label, exact sum and sum as written ([`num`]).
    pub rest: Option<(String, String, String)>,
    /// How many terms there are in all.
    pub n_terms: usize,
    /// The exact result.
    pub result: String,
    /// The result as written ([`num`]).
    pub result_shown: String,
}

/// The terms section's texts for `ex`: all terms, or the largest [`MAX_TERMS`] and the
/// rest unless `show_all`.
pub fn term_list(ex: &Explanation, show_all: bool) -> TermList {
    let (listed, rest) = listed_terms(ex, show_all);
    let n_terms = ex.terms.len();
    let heading = match &ex.kind {
        Kind::Sum if ex.terms.iter().any(|t| t.kind == TermKind::Bias) => {
            format!("{n_terms} terms, added (the bias is the last term)")
        }
        // a scale or a cap is one product: nothing is added
        Kind::Sum if n_terms == 1 => "one term".to_owned(),
        Kind::Sum => format!("{n_terms} terms, added"),
        Kind::Softmax { .. } => format!("{n_terms} exps of the row (the denominator is their sum)"),
        Kind::Quotient { .. } => "numerator and denominator".to_owned(),
        _ => "what it is".to_owned(),
    };
    let ordered = if rest.is_some() { " (largest first)" } else { "" };
    TermList {
        heading: format!("{heading}{ordered}"),
        rows: listed
            .into_iter()
            .map(|t| TermRow {
                label: t.label.clone(),
                nums: (!t.operands.is_empty()).then(|| term_numbers(t)),
                value: exact(t.value),
                shown: num(t.value),
            })
            .collect(),
        rest: rest.map(|(n, sum)| (format!("the other {n} terms, summed"), exact(sum), num(sum))),
        n_terms,
        result: exact(ex.result),
        result_shown: num(ex.result),
    }
}

/// A number for reading: the one formatter's [`crate::format::reading`], as the
/// engine's own notes in the same panel write it.
pub fn num(v: f64) -> String {
    crate::format::reading(v)
}

fn factor(v: f64) -> String {
    let s = num(v);
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// One term with its numbers, e.g. `0.5000 × (-1.2000)`.
pub fn term_numbers(t: &Term) -> String {
    match t.operands.as_slice() {
        [a, b] if t.kind == TermKind::Exp => format!("exp({} − {})", factor(*a), factor(*b)),
        [w, x, rms] if t.kind == TermKind::Normed => {
            format!("{} × {} / {}", factor(*w), factor(*x), factor(*rms))
        }
        [a, b] => format!("{} × {}", factor(*a), factor(*b)),
        _ => factor(t.value),
    }
}

/// The cell's formula with the real numbers: `= a × b + c × d + … = result`.
pub fn with_numbers(ex: &Explanation) -> String {
    let lhs = format!("{}[{}]", ex.step, ex.index.iter().map(usize::to_string).collect::<Vec<_>>().join(","));
    let result = num(ex.result);
    let body = match &ex.kind {
        // only the terms shown are formatted (a 65-term sum shows 4)
        Kind::Sum if ex.terms.len() <= 6 => ex.terms.iter().map(term_numbers).collect::<Vec<_>>().join(" + "),
        Kind::Sum => {
            let head: Vec<String> = ex.terms.iter().take(3).map(term_numbers).collect();
            let tail = ex.terms.last().map(term_numbers).unwrap_or_default();
            format!("{} + … + {tail}  ({} terms)", head.join(" + "), ex.terms.len())
        }
        Kind::Quotient { numerator, denominator } => format!("{} / {}", num(*numerator), num(*denominator)),
        Kind::Softmax { numerator, sum, .. } => format!("{} / {}", num(*numerator), num(*sum)),
        Kind::Masked { blocked: true, fill, .. } => format!("fill {}", num(*fill)),
        _ => ex.terms.first().map(|t| t.label.clone()).unwrap_or_default(),
    };
    format!("{lhs} = {body} = {result}")
}

/// How close a guess is, in words.
pub fn closeness(guess: f64, actual: f64) -> String {
    if actual.is_nan() {
        return if guess.is_nan() {
            "Right: the value is NaN. Read the notes below for why.".into()
        } else {
            "The value is NaN: no number is close to it. Read the notes below for why.".into()
        };
    }
    if !actual.is_finite() || !guess.is_finite() {
        return if guess == actual {
            format!("Right: the value is {}.", short(actual))
        } else {
            format!("You guessed {}; the value is {}.", short(guess), short(actual))
        };
    }
    let off = (guess - actual).abs();
    let scale = actual.abs().max(1e-9);
    let rel = off / scale;
    let verdict = if off == 0.0 {
        "exactly right".to_owned()
    } else if rel <= 0.05 || off <= 0.005 {
        "very close".to_owned()
    } else if rel <= 0.25 {
        "close".to_owned()
    } else if (guess >= 0.0) == (actual >= 0.0) {
        "far off".to_owned()
    } else {
        "the wrong sign".to_owned()
    };
    format!("You guessed {}; the value is {}: off by {} — {verdict}.", num(guess), num(actual), num(off))
}

/// The keys a weights row gives the most weight ([`Trace::top_keys`]: one, or those that
/// tie); none for a NaN row.
pub fn top_keys(trace: &Trace, ex: &Explanation) -> Vec<usize> {
    let [b, h, i, _] = *ex.index.as_slice() else { return vec![] };
    trace.top_keys(b, h, i)
}

/// The key guess "several keys tie for the most weight".
pub const TIE: usize = usize::MAX;

/// What the panel says about the learner's "which key gets the most weight?" guess: a
/// key, or [`TIE`].
pub fn key_feedback(guess: Option<usize>, tops: &[usize], names: &[String]) -> String {
    // keys by their index j, counted from 0 as in the panel's brackets
    let name = |k: usize| format!("“{}” (j = {k})", names.get(k).cloned().unwrap_or_default());
    let tied = || tops.iter().map(|&t| name(t)).collect::<Vec<_>>().join(", ");
    let all = tops.len() == names.len() && tops.len() > 1;
    match (guess, tops) {
        (_, []) => "This row is NaN: no key gets the most weight.".to_owned(),
        (Some(TIE), [t]) => format!("Not a tie: the most weight goes to {}.", name(*t)),
        (Some(TIE), _) if all => format!("Right: all {} keys tie.", tops.len()),
        (Some(TIE), _) => format!("Right: {} tie for the most weight.", tied()),
        (Some(k), [_]) if tops.contains(&k) => "And you picked the key with the most weight.".to_owned(),
        (Some(_), _) if all => {
            format!("All {} keys tie: no one key gets the most weight (“Several tie”).", tops.len())
        }
        (Some(k), _) if tops.contains(&k) => {
            format!("{} tie for the most weight: “Several tie” was the answer.", capitalised(&tied()))
        }
        (Some(k), [t]) => format!("Not {}: the most weight goes to {}.", name(k), name(*t)),
        (_, [t]) => format!("The most weight goes to {}.", name(*t)),
        (_, _) => format!("{} tie for the most weight.", capitalised(&tied())),
    }
}

/// `text` with its first letter a capital.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::explain::explain;
    use crate::engine::{run, Scenario, StepName};

    fn trace() -> Trace {
        run(&Scenario::identity(&["baseball bat"], 3, 1)).unwrap()
    }

    /// "the cat sat" under multi-head latent attention, with seeded weights.
    fn mla_trace() -> Trace {
        let mut s = Scenario::identity(&["the cat sat"], 4, 2);
        s.projections = crate::engine::Projections::Named(crate::engine::ProjectionKind::Seeded);
        s.mla = Some(crate::engine::Mla::sized(3, 2, 2, 2));
        run(&s).unwrap()
    }

    fn card(step: StepName) -> CardId {
        CardId { step, batch: 0, head: 0 }
    }

    #[test]
    fn index_has_the_steps_rank_and_stays_inside() {
        let t = trace();
        assert_eq!(trace_index(&t, card(StepName::Scores), 1, 0), Some(vec![0, 0, 1, 0]));
        assert_eq!(trace_index(&t, card(StepName::Q), 1, 2), Some(vec![0, 1, 2]));
        // clamped into a (2, 2) matrix
        assert_eq!(trace_index(&t, card(StepName::Weights), 9, 9), Some(vec![0, 0, 1, 1]));
        assert_eq!(trace_index(&t, CardId { step: StepName::Scores, batch: 3, head: 0 }, 0, 0), None);
        assert_eq!(trace_index(&t, card(StepName::Pe), 0, 0), None);
    }

    #[test]
    fn a_weight_outlines_its_row_and_a_score_reads_two_vectors() {
        let t = trace();
        let w = explain(&t, StepName::Weights, &[0, 0, 1, 0]).unwrap();
        let o = outlines(&t, &w, card(StepName::Weights));
        assert_eq!(o, vec![Outline { rows: (1, 2), cols: (0, 2), same_positions: true }]);
        assert!(outlines(&t, &w, card(StepName::Q)).is_empty());
        let s = explain(&t, StepName::Scores, &[0, 0, 1, 0]).unwrap();
        let strips = strips(&t, &s);
        assert_eq!(strips.len(), 2);
        assert_eq!(strips[0].label, "q_heads[0,0,1,:]");
        assert_eq!(strips[0].values, vec![1.0, 1.0, 0.0]);
        assert_eq!(strips[1].values, vec![2.0, 0.0, 0.0]);
        assert_eq!(with_numbers(&s), "scores[0,0,1,0] = 1 × 2 + 1 × 0 + 0 × 0 = 2");
    }

    #[test]
    fn a_projection_strip_reads_the_weight_column_and_the_bias() {
        let t = trace();
        let q = explain(&t, StepName::Q, &[0, 1, 0]).unwrap();
        let s = strips(&t, &q);
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].label, "W_Q[:,0]");
        assert_eq!(s[1].values, vec![1.0, 0.0, 0.0]);
        assert_eq!(s[2].values, vec![0.0]);
    }

    /// Under multi-head latent attention a projection's strips read MLA's own weights:
    /// `kv_b_proj`'s column, and no bias strip for a layer without one.
    #[test]
    fn an_mla_strip_reads_its_own_weights() {
        let t = mla_trace();
        let kv_b = explain(&t, StepName::KvB, &[0, 1, 5]).unwrap();
        let s = strips(&t, &kv_b);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(s[0].label, "c_kv[0,1,:]");
        assert_eq!(s[1].label, "W_kv_b[:,5]");
        let want: Vec<f64> = t.mla_params.as_ref().unwrap().kv_b.w().column(5).to_vec();
        assert_eq!(s[1].values, want);
        let q = explain(&t, StepName::Q, &[0, 2, 3]).unwrap();
        assert_eq!(strips(&t, &q)[1].label, "W_Q[:,3]");
        assert_eq!(strips(&t, &q)[1].values.len(), 4);
    }

    #[test]
    fn long_sums_list_the_largest_and_the_rest() {
        let t = run(&Scenario::identity(&["a b c"], 20, 1)).unwrap();
        let q = explain(&t, StepName::Q, &[0, 0, 0]).unwrap();
        assert_eq!(q.terms.len(), 21);
        let (top, rest) = listed_terms(&q, false);
        assert_eq!(top.len(), MAX_TERMS);
        assert_eq!(rest.map(|r| r.0), Some(5));
        let (all, rest) = listed_terms(&q, true);
        assert_eq!((all.len(), rest), (21, None));
    }

    #[test]
    fn the_term_list_is_the_listed_terms_as_text() {
        let t = run(&Scenario::identity(&["a b c"], 20, 1)).unwrap();
        let q = explain(&t, StepName::Q, &[0, 0, 0]).unwrap();
        let folded = term_list(&q, false);
        assert_eq!(folded.n_terms, 21);
        assert_eq!(folded.rows.len(), MAX_TERMS);
        assert!(folded.heading.ends_with("(largest first)"), "{}", folded.heading);
        let (top, rest) = listed_terms(&q, false);
        for (row, term) in folded.rows.iter().zip(&top) {
            assert_eq!(row.value, exact(term.value));
            assert_eq!(row.shown, num(term.value));
            // written with four decimals at most: no 17-digit number runs out of the panel
            assert!(row.shown.split('.').nth(1).is_none_or(|d| d.len() <= 4), "{}", row.shown);
            assert_eq!(row.label, term.label);
        }
        let rest = rest.unwrap();
        assert_eq!(
            folded.rest,
            Some((format!("the other {} terms, summed", rest.0), exact(rest.1), num(rest.1)))
        );
        assert_eq!((folded.result, folded.result_shown), (exact(q.result), num(q.result)));
        // the summary formats the 4 terms it shows, not all 21
        let summary = with_numbers(&q);
        assert!(summary.starts_with("q[0,0,0] = "), "{summary}");
        assert!(summary.contains(" + … + ") && summary.contains("(21 terms)"), "{summary}");
        assert_eq!(summary.matches(" + ").count(), 4, "{summary}");
        let all = term_list(&q, true);
        assert_eq!((all.rows.len(), all.rest.clone()), (21, None));
        assert!(!all.heading.contains("largest"));
        // the bias has no operands: no numbers line
        assert_eq!(all.rows.last().map(|r| r.nums.clone()), Some(None));
        // a score: a short sum, unfolded whatever the switch says
        let s = explain(&trace(), StepName::Scores, &[0, 0, 1, 0]).unwrap();
        assert_eq!(term_list(&s, false), term_list(&s, true));
        assert_eq!(term_list(&s, false).heading, "3 terms, added");
        // d_k = 1: a score is one product, and nothing is added
        let one = crate::engine::run(&crate::engine::Scenario::identity(&["baseball bat"], 2, 2)).unwrap();
        let s = explain(&one, StepName::Scores, &[0, 0, 1, 0]).unwrap();
        assert_eq!(term_list(&s, false).heading, "one term");
    }

    #[test]
    fn the_key_guess_is_judged_against_every_tied_key() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(key_feedback(Some(1), &[1], &names), "And you picked the key with the most weight.");
        assert_eq!(
            key_feedback(Some(0), &[1], &names),
            "Not “a” (j = 0): the most weight goes to “b” (j = 1)."
        );
        assert_eq!(
            key_feedback(Some(2), &[0, 2], &names),
            "“a” (j = 0), “c” (j = 2) tie for the most weight: “Several tie” was the answer."
        );
        assert_eq!(
            key_feedback(Some(TIE), &[0, 2], &names),
            "Right: “a” (j = 0), “c” (j = 2) tie for the most weight."
        );
        assert_eq!(key_feedback(Some(TIE), &[1], &names), "Not a tie: the most weight goes to “b” (j = 1).");
        assert_eq!(key_feedback(Some(TIE), &[0, 1, 2], &names), "Right: all 3 keys tie.");
        assert!(key_feedback(Some(0), &[0, 1, 2], &names).starts_with("All 3 keys tie"));
        assert_eq!(key_feedback(None, &[0, 2], &names), "“a” (j = 0), “c” (j = 2) tie for the most weight.");
        assert!(key_feedback(Some(0), &[], &names).contains("NaN"));
    }

    #[test]
    fn term_kinds_choose_how_a_term_reads() {
        let t = trace();
        let w = explain(&t, StepName::Weights, &[0, 0, 1, 0]).unwrap();
        assert!(w.terms.iter().all(|t| t.kind == TermKind::Exp));
        assert!(term_numbers(&w.terms[0]).starts_with("exp("), "{}", term_numbers(&w.terms[0]));
        let q = explain(&t, StepName::Q, &[0, 1, 0]).unwrap();
        assert_eq!(q.terms.last().map(|t| t.kind), Some(TermKind::Bias));
        assert!(term_list(&q, true).heading.contains("the bias is the last term"));
        let s = explain(&t, StepName::Scores, &[0, 0, 1, 0]).unwrap();
        assert!(s.terms.iter().all(|t| t.kind == TermKind::Product));
        assert!(term_numbers(&s.terms[0]).contains(" × "));
    }

    /// An RMSNorm cell (MLA's c_kv, QK-norm's q_norm and k_norm) reads w × x / rms, the
    /// division the norm does, and its one term is still the cell's value.
    #[test]
    fn an_rms_norm_cell_shows_its_division() {
        let t = mla_trace();
        let e = explain(&t, StepName::CKv, &[0, 1, 2]).unwrap();
        let [w, x, rms] = e.terms[0].operands[..] else { panic!("{:?}", e.terms) };
        let shown = format!("{} × {} / {}", factor(w), factor(x), factor(rms));
        assert_eq!(term_numbers(&e.terms[0]), shown);
        assert_eq!(with_numbers(&e), format!("c_kv[0,1,2] = {shown} = {}", num(e.result)));
        assert_eq!(e.terms[0].value.to_bits(), e.result.to_bits());
        // QK-norm's cells read the same, per head (Qwen3) and over the whole projection (OLMo 2)
        for whole in [false, true] {
            let mut s = Scenario::identity(&["the cat sat"], 4, 2);
            s.qk_norm = Some(crate::engine::QkNorm {
                q_weight: if whole { vec![1.5, 0.5, 2.0, 1.0] } else { vec![1.5, 0.5] },
                whole_projection: whole,
                ..crate::engine::QkNorm::per_head()
            });
            let t = run(&s).unwrap();
            for step in [StepName::QNorm, StepName::KNorm] {
                let e = explain(&t, step, &[0, 1, 2, 0]).unwrap();
                let [w, x, rms] = e.terms[0].operands[..] else { panic!("{:?}", e.terms) };
                // w_2 of the whole projection's weight, w_0 of the head's; the keys' weight is ones
                let want = match (step, whole) {
                    (StepName::QNorm, true) => 2.0,
                    (StepName::QNorm, false) => 1.5,
                    _ => 1.0,
                };
                assert_eq!(w, want);
                let shown = format!("{} × {} / {}", factor(w), factor(x), factor(rms));
                assert_eq!(with_numbers(&e), format!("{step}[0,1,2,0] = {shown} = {}", num(e.result)));
                assert_eq!(e.terms[0].value.to_bits(), e.result.to_bits());
            }
        }
    }

    #[test]
    fn guesses_are_judged_in_words() {
        assert!(closeness(0.5, 0.5).contains("exactly right"));
        assert!(closeness(0.51, 0.5).contains("very close"));
        assert!(closeness(-0.5, 0.5).contains("wrong sign"));
        assert!(closeness(2.0, 0.5).contains("far off"));
        assert!(closeness(0.0, 0.5).contains("far off"), "0 is not a wrong sign for a weight");
        assert_eq!(closeness(f64::NEG_INFINITY, f64::NEG_INFINITY), "Right: the value is -inf.");
        assert!(closeness(f64::NAN, f64::NAN).starts_with("Right"));
        assert!(closeness(0.5, f64::NAN).contains("NaN"));
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
    }

    /// One panel, one way of writing a number: the panel's own texts and the engine's
    /// notes both write through `format::reading` (no `−∞` beside `-inf`).
    #[test]
    fn the_panel_and_the_engine_write_a_number_the_same_way() {
        let mut s = Scenario::identity(&["a b", "c"], 2, 1);
        s.mask.padding = crate::engine::Padding::KeysAndQueries;
        let t = run(&s).unwrap();
        let e = explain(&t, StepName::Weights, &[1, 0, 1, 0]).unwrap();
        let notes = e.notes.join(" ");
        assert!(notes.contains("-inf") && !notes.contains('∞'), "{notes}");
        for v in [0.25, -1e9, f64::NEG_INFINITY, 1.0 / 3.0] {
            assert_eq!(num(v), crate::format::reading(v));
        }
    }
}
