//! What a challenge asks of the attention, as data (serde, so a teacher can write it as
//! JSON), and how far a trace is from it. [`Goal::check`] reads only the trace and never
//! panics: a word that is not in the sentence, a head out of range or a NaN row give an
//! unmet [`Progress`] whose words say why.

use serde::{Deserialize, Serialize};

use crate::engine::{StepName, Trace};

pub use super::digits::{decimals_apart, num, num_at, QuotedWeight};

/// The word that stands for "every real query" in [`Goal::WeightAtLeast`] and
/// [`Goal::WeightAtMost`].
pub const EVERY_QUERY: &str = "*";

/// One goal. Words are matched without case against the trace's tokens of `sentence`
/// (0-based); heads count from 0 in the JSON (the page numbers them from 1).
/// The fields are named as in the JSON and described on each variant.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Goal {
    /// `query` gives `key` more weight than any other key, in `head`.
    AttendMost {
        query: String,
        key: String,
        #[serde(default)]
        head: usize,
        #[serde(default)]
        sentence: usize,
    },
    /// `query` (or every real query, `"*"`) puts at least `at_least` on `key` (summed over
    /// every occurrence of the word among the keys).
    WeightAtLeast {
        query: String,
        key: String,
        at_least: f64,
        #[serde(default)]
        head: usize,
        #[serde(default)]
        sentence: usize,
    },
    /// As [`Goal::WeightAtLeast`], with at most `at_most`.
    WeightAtMost {
        query: String,
        key: String,
        at_most: f64,
        #[serde(default)]
        head: usize,
        #[serde(default)]
        sentence: usize,
    },
    /// Every weight of every real query, in every head, is 1/T within `tol`.
    UniformRows {
        #[serde(default = "default_tol")]
        tol: f64,
        #[serde(default)]
        sentence: usize,
    },
    /// Every query after the first puts at least `at_least` on the token just before it.
    PreviousToken {
        at_least: f64,
        #[serde(default)]
        head: usize,
        #[serde(default)]
        sentence: usize,
    },
    /// The output row of `token` equals its input embedding (`x`) within `tol`.
    OutputEquals {
        token: String,
        #[serde(default = "default_tol")]
        tol: f64,
        #[serde(default)]
        sentence: usize,
    },
    /// The keys that get the most of `query`'s weight in head `heads[0]` and in head
    /// `heads[1]` have none in common.
    HeadsDiffer {
        query: String,
        #[serde(default = "default_heads")]
        heads: [usize; 2],
        #[serde(default)]
        sentence: usize,
    },
}

fn default_tol() -> f64 {
    0.01
}

fn default_heads() -> [usize; 2] {
    [0, 1]
}

/// How far a trace is from a goal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// The goal is met.
    pub met: bool,
    /// The number measured on the trace (NaN when it could not be measured).
    pub measured: f64,
    /// The number the goal asks for.
    pub asked: f64,
    /// One line for the learner, e.g. "bat → baseball: 0.41 of the 0.60 asked".
    pub words: String,
    /// The weights the words quote, with the decimals they quote them at, so that the
    /// weights table prints them the same way (empty when the words quote no weight of it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quoted: Vec<QuotedWeight>,
}

impl Progress {
    fn unmet(words: impl Into<String>) -> Self {
        Self { met: false, measured: f64::NAN, asked: f64::NAN, words: words.into(), quoted: Vec::new() }
    }

    /// How the words print the weight of `head`, `query` → `key`: with the decimals they
    /// quote it at, or two when they do not quote it.
    pub fn weight_text(&self, head: usize, query: usize, key: usize, w: f64) -> String {
        let d = self.quoted.iter().find(|q| (q.head, q.query, q.key) == (head, query, key));
        num_at(w, d.map_or(2, |q| q.decimals))
    }
}

/// The positions of `word` (without case) among `tokens`.
fn positions(tokens: &[String], word: &str) -> Vec<usize> {
    let w = word.to_lowercase();
    tokens.iter().enumerate().filter(|(_, t)| t.to_lowercase() == w).map(|(i, _)| i).collect()
}

/// The weights row of query `i`, head `head`, sentence `b`, as a vector.
fn weights_row(trace: &Trace, b: usize, head: usize, i: usize) -> Option<Vec<f64>> {
    let m = trace.step(StepName::Weights)?.matrix(b, head)?;
    (i < m.nrows()).then(|| m.row(i).to_vec())
}

/// The real query positions of sentence `b`: `word`'s first occurrence, or every real
/// token for `"*"`. Never empty, so callers may take the first.
fn queries(trace: &Trace, b: usize, word: &str) -> Result<Vec<usize>, String> {
    let len = trace.query_length(b).min(trace.query_tokens(b).len());
    if word == EVERY_QUERY {
        return if len == 0 {
            Err(format!("sentence {} has no real query", b + 1))
        } else {
            Ok((0..len).collect())
        };
    }
    positions(&trace.query_tokens(b)[..len], word)
        .first()
        .map(|&i| vec![i])
        .ok_or_else(|| format!("\"{word}\" is not in sentence {}", b + 1))
}

fn heads_ok(trace: &Trace, head: usize) -> Result<(), String> {
    if head < trace.sizes.n_heads {
        Ok(())
    } else {
        Err(format!("there is no head {} (h = {})", head + 1, trace.sizes.n_heads))
    }
}

/// The smallest (`least = true`) or largest weight that the goal's queries put on `key`,
/// with that query's word and row, and the key's columns.
fn weight_on(
    trace: &Trace,
    query: &str,
    key: &str,
    head: usize,
    b: usize,
    least: bool,
) -> Result<(f64, String, usize, Vec<usize>), String> {
    heads_ok(trace, head)?;
    let keys = positions(trace.key_tokens(b), key);
    if keys.is_empty() {
        return Err(format!("\"{key}\" is not among the keys of sentence {}", b + 1));
    }
    let mut worst: Option<(f64, String, usize)> = None;
    for i in queries(trace, b, query)? {
        let row = weights_row(trace, b, head, i).ok_or("no weights for this query")?;
        let w: f64 = keys.iter().filter_map(|&j| row.get(j)).sum();
        let name = trace.query_tokens(b).get(i).cloned().unwrap_or_default();
        let replace = match &worst {
            None => true,
            Some((v, _, _)) => w.is_nan() || (if least { w < *v } else { w > *v }),
        };
        if replace {
            worst = Some((w, name, i));
        }
    }
    let (w, name, i) = worst.ok_or_else(|| format!("sentence {} has no real query", b + 1))?;
    Ok((w, name, i, keys))
}

impl Goal {
    /// The goal in words, e.g. "\"bat\" puts at least 0.60 of its weight on \"baseball\"".
    pub fn describe(&self) -> String {
        let text = self.describe_in_sentence();
        match self.sentence() {
            0 => text,
            b => format!("{text}, in sentence {}", b + 1),
        }
    }

    /// The sentence (from 0) the goal reads.
    pub fn sentence(&self) -> usize {
        match self {
            Goal::AttendMost { sentence, .. }
            | Goal::WeightAtLeast { sentence, .. }
            | Goal::WeightAtMost { sentence, .. }
            | Goal::UniformRows { sentence, .. }
            | Goal::PreviousToken { sentence, .. }
            | Goal::OutputEquals { sentence, .. }
            | Goal::HeadsDiffer { sentence, .. } => *sentence,
        }
    }

    /// [`Goal::describe`] without the sentence.
    fn describe_in_sentence(&self) -> String {
        let h = |head: &usize| format!(" (head {})", head + 1);
        let who = |q: &str| if q == EVERY_QUERY { "every query".to_string() } else { format!("\"{q}\"") };
        match self {
            Goal::AttendMost { query, key, head, .. } => {
                format!("\"{query}\" attends most to \"{key}\"{}", h(head))
            }
            Goal::WeightAtLeast { query, key, at_least, head, .. } => {
                format!(
                    "{} puts at least {} of its weight on \"{key}\"{}",
                    who(query),
                    num(*at_least),
                    h(head)
                )
            }
            Goal::WeightAtMost { query, key, at_most, head, .. } => {
                format!("{} puts at most {} of its weight on \"{key}\"{}", who(query), num(*at_most), h(head))
            }
            Goal::UniformRows { tol, .. } => {
                format!("every weight equals 1/T, in every head (within {tol})")
            }
            Goal::PreviousToken { at_least, head, .. } => {
                format!(
                    "every query after the first (the first has no token before it) puts at least {} on the token just before it{}",
                    num(*at_least),
                    h(head)
                )
            }
            Goal::OutputEquals { token, tol, .. } => {
                format!("the output row of \"{token}\" equals its input embedding (within {tol})")
            }
            Goal::HeadsDiffer { query, heads, .. } => format!(
                "\"{query}\" attends most to different keys in head {} and head {}",
                heads[0] + 1,
                heads[1] + 1
            ),
        }
    }

    /// How far `trace` is from the goal. Reads only the trace; never panics.
    pub fn check(&self, trace: &Trace) -> Progress {
        self.try_check(trace).unwrap_or_else(Progress::unmet)
    }

    /// The goal's own check: one function per kind. An `Err` is the reason the goal could
    /// not be measured on this trace, which [`Goal::check`] turns into an unmet [`Progress`].
    fn try_check(&self, trace: &Trace) -> Result<Progress, String> {
        match self {
            Goal::AttendMost { query, key, head, sentence } => {
                attend_most(trace, query, key, *head, *sentence)
            }
            Goal::WeightAtLeast { query, key, at_least, head, sentence } => {
                weight_bound(trace, query, key, *at_least, true, *head, *sentence)
            }
            Goal::WeightAtMost { query, key, at_most, head, sentence } => {
                weight_bound(trace, query, key, *at_most, false, *head, *sentence)
            }
            Goal::UniformRows { tol, sentence } => uniform_rows(trace, *tol, *sentence),
            Goal::PreviousToken { at_least, head, sentence } => {
                previous_token(trace, *at_least, *head, *sentence)
            }
            Goal::OutputEquals { token, tol, sentence } => output_equals(trace, token, *tol, *sentence),
            Goal::HeadsDiffer { query, heads, sentence } => heads_differ(trace, query, *heads, *sentence),
        }
    }
}

/// [`Goal::AttendMost`]: every key that ties for `query`'s largest weight (the one answer
/// of [`Trace::top_keys`]) is an occurrence of `key`, so a tie with another word is not
/// met. Measures the weight on `key` (its largest occurrence) and reports, as `asked`, the
/// largest weight on any other key: the number the learner has to beat.
fn attend_most(trace: &Trace, query: &str, key: &str, head: usize, b: usize) -> Result<Progress, String> {
    heads_ok(trace, head)?;
    let i = queries(trace, b, query)?[0];
    let row = weights_row(trace, b, head, i).ok_or("no weights for this query")?;
    let keys = trace.key_tokens(b);
    let lk = key.to_lowercase();
    let is_key = |j: usize| keys.get(j).is_some_and(|t| t.to_lowercase() == lk);
    if !keys.iter().any(|t| t.to_lowercase() == lk) {
        return Err(format!("\"{key}\" is not among the keys of sentence {}", b + 1));
    }
    // the largest weight of each side and its column (the first of equal ones; NaN loses)
    let best = |mine: bool| {
        (0..row.len()).filter(|&j| is_key(j) == mine).fold(None, |acc: Option<usize>, j| match acc {
            Some(a) if !row[a].is_nan() && (row[j].is_nan() || row[j] <= row[a]) => Some(a),
            _ => Some(j),
        })
    };
    let (j_key, j_other) = (best(true), best(false));
    let on_key = j_key.map_or(f64::NAN, |j| row[j]);
    let best_other = j_other.map_or(f64::NAN, |j| row[j]);
    let other = j_other.and_then(|j| keys.get(j).cloned()).unwrap_or_default();
    let top = trace.top_keys(b, head, i);
    let met = !top.is_empty() && top.iter().all(|&j| is_key(j));
    // a tie (within the 1e-12 of `top_keys`) prints at two decimals and says so; other
    // numbers print with the decimals that tell them apart
    let tie = !met && (on_key - best_other).abs() <= 1e-12;
    let d = if tie { 2 } else { decimals_apart(on_key, best_other) };
    let words = match j_other {
        None => format!("query {query} → key {key}: {}", num_at(on_key, d)),
        Some(_) => format!(
            "query {query} → key {key}: {}; the most on another key is {} (on \"{other}\"){}",
            num_at(on_key, d),
            num_at(best_other, d),
            if tie { ", a tie" } else { "" }
        ),
    };
    let quoted = [j_key, j_other]
        .into_iter()
        .flatten()
        .map(|j| QuotedWeight { head, query: i, key: j, decimals: d })
        .collect();
    Ok(Progress { met, measured: on_key, asked: best_other, words, quoted })
}

/// [`Goal::WeightAtLeast`] (`least`) and [`Goal::WeightAtMost`]: the weakest (strongest) of
/// the goal's queries (the only one, or every real query for `"*"`) puts at least (at most)
/// `bound` on `key`, summed over the word's occurrences. That query is the one named in the
/// words, since it is the one still to fix.
fn weight_bound(
    trace: &Trace,
    query: &str,
    key: &str,
    bound: f64,
    least: bool,
    head: usize,
    b: usize,
) -> Result<Progress, String> {
    let (w, q, i, keys) = weight_on(trace, query, key, head, b, least)?;
    let d = decimals_apart(w, bound);
    let (met, against) = if least {
        (w >= bound, format!("{} of the {} asked", num_at(w, d), num_at(bound, d)))
    } else {
        (w <= bound, format!("{}, at most {} asked", num_at(w, d), num_at(bound, d)))
    };
    let quoted = keys.into_iter().map(|j| QuotedWeight { head, query: i, key: j, decimals: d }).collect();
    Ok(Progress {
        met,
        measured: w,
        asked: bound,
        words: format!("query {q} → key {key}: {against}"),
        quoted,
    })
}

/// [`Goal::UniformRows`]: every weight of every real query of sentence `b`, in every head,
/// is within `tol` of 1/T (T the row's length, so masked rows are judged by their own
/// width). Measures the largest distance; a NaN weight counts as infinitely far, so a
/// fully masked row never passes.
fn uniform_rows(trace: &Trace, tol: f64, b: usize) -> Result<Progress, String> {
    let len = trace.query_length(b);
    let mut worst = 0.0_f64;
    let mut any = false;
    for head in 0..trace.sizes.n_heads {
        for i in 0..len {
            let row = weights_row(trace, b, head, i).ok_or("no weights")?;
            let t = row.len() as f64;
            for w in row {
                any = true;
                let d = (w - 1.0 / t).abs();
                worst = if d.is_nan() { f64::INFINITY } else { worst.max(d) };
            }
        }
    }
    if !any {
        return Err(format!("sentence {} has no weights", b + 1));
    }
    let t = trace.key_tokens(b).len();
    Ok(Progress {
        met: worst <= tol,
        measured: worst,
        asked: tol,
        words: format!(
            "farthest weight from 1/{t}: {} away, {tol} allowed",
            num_at(worst, decimals_apart(worst, tol))
        ),
        quoted: Vec::new(),
    })
}

/// [`Goal::PreviousToken`]: every real query after the first puts at least `at_least` on
/// the key just before it, in `head`. Measures the weakest such weight (NaN counts as the
/// weakest) and names that pair, the one still to fix.
fn previous_token(trace: &Trace, at_least: f64, head: usize, b: usize) -> Result<Progress, String> {
    heads_ok(trace, head)?;
    let len = trace.query_length(b);
    let mut worst: Option<(f64, usize)> = None;
    for i in 1..len {
        let row = weights_row(trace, b, head, i).ok_or("no weights")?;
        let w = row.get(i - 1).copied().unwrap_or(f64::NAN);
        if worst.is_none_or(|(v, _)| w.is_nan() || w < v) {
            worst = Some((w, i));
        }
    }
    let (w, i) = worst.ok_or("the sentence needs at least two tokens")?;
    let toks = trace.query_tokens(b);
    let name = |k: usize| toks.get(k).cloned().unwrap_or_default();
    let d = decimals_apart(w, at_least);
    Ok(Progress {
        met: w >= at_least,
        measured: w,
        asked: at_least,
        words: format!(
            "weakest: query {} → key {} (the token before it): {} of the {} asked",
            name(i),
            name(i - 1),
            num_at(w, d),
            num_at(at_least, d)
        ),
        quoted: vec![QuotedWeight { head, query: i, key: i - 1, decimals: d }],
    })
}

/// [`Goal::OutputEquals`]: the output row of `token` (its first occurrence) equals its
/// input embedding `x` within `tol`, in the largest absolute difference of any entry (NaN
/// counts as infinite). This is what "the head keeps the token as it is" means on the page.
fn output_equals(trace: &Trace, token: &str, tol: f64, b: usize) -> Result<Progress, String> {
    let i = queries(trace, b, token)?[0];
    let x = trace.step(StepName::X).and_then(|s| s.matrix(b, 0)).ok_or("no x")?;
    let out = trace.step(StepName::Output).and_then(|s| s.matrix(b, 0)).ok_or("no output")?;
    if i >= x.nrows() || i >= out.nrows() || x.ncols() != out.ncols() {
        return Err("no output row for this token".into());
    }
    let d = x.row(i).iter().zip(out.row(i).iter()).map(|(a, o)| (a - o).abs()).fold(0.0, |m: f64, d| {
        if d.is_nan() {
            f64::INFINITY
        } else {
            m.max(d)
        }
    });
    Ok(Progress {
        met: d <= tol,
        measured: d,
        asked: tol,
        words: format!(
            "{token}: output differs from its embedding by {}, {tol} allowed",
            num_at(d, decimals_apart(d, tol))
        ),
        quoted: Vec::new(),
    })
}

/// [`Goal::HeadsDiffer`]: the keys that tie for `query`'s largest weight in head
/// `heads[0]` and in head `heads[1]` have none in common (and neither set is empty), so
/// the two heads look at different words. Measures how many top keys they share.
fn heads_differ(trace: &Trace, query: &str, heads: [usize; 2], b: usize) -> Result<Progress, String> {
    heads_ok(trace, heads[0])?;
    heads_ok(trace, heads[1])?;
    let i = queries(trace, b, query)?[0];
    let a = trace.top_keys(b, heads[0], i);
    let c = trace.top_keys(b, heads[1], i);
    let keys = trace.key_tokens(b);
    // "\"flew\"", or "\"the\" and \"flew\" (a tie)"
    let names = |v: &[usize]| {
        let n: Vec<String> =
            v.iter().map(|&j| format!("\"{}\"", keys.get(j).cloned().unwrap_or_default())).collect();
        match n.as_slice() {
            [] => "no key".to_string(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last} (a tie)", init.join(", ")),
        }
    };
    let shared = a.iter().filter(|j| c.contains(j)).count();
    let met = !a.is_empty() && !c.is_empty() && shared == 0;
    Ok(Progress {
        met,
        measured: shared as f64,
        asked: 0.0,
        words: format!(
            "query {query} looks most at {} in head {}, at {} in head {}{}",
            names(&a),
            heads[0] + 1,
            names(&c),
            heads[1] + 1,
            if met { "" } else { " (not different yet)" }
        ),
        quoted: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    //! One passing and one failing configuration per goal kind. Every scenario uses
    //! identity projections, so query i's score for key j is `x_i · x_j / √d_k`, and in a
    //! two-key row the weight on the key with the larger score is `σ(Δ) = 1 / (1 + e^-Δ)`,
    //! Δ the difference of the two scores. The expected numbers below are worked out that
    //! way, not read back from the engine.

    use super::*;
    use crate::engine::{run, Scenario};

    /// The trace of `sentences` with identity projections, no positions, and these
    /// embeddings.
    fn trace(sentences: &[&str], d_model: usize, n_heads: usize, emb: &[(&str, &[f64])]) -> Trace {
        let mut s = Scenario::identity(sentences, d_model, n_heads);
        s.embeddings = emb.iter().map(|(w, v)| (w.to_string(), v.to_vec())).collect();
        run(&s).unwrap()
    }

    /// "a b" with a = [1, 0] and b = [2, 0], d_k = 2. Query a scores [1, 2]/√2, so it puts
    /// σ(1/√2) ≈ 0.670 on b; query b scores [2, 4]/√2, so it puts σ(√2) ≈ 0.804 on b.
    fn ab() -> Trace {
        trace(&["a b"], 2, 1, &[("a", &[1.0, 0.0]), ("b", &[2.0, 0.0])])
    }

    fn sigma(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
    }

    fn goal(json: &str) -> Goal {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn attend_most_needs_the_key_alone_on_top() {
        let a_on_b = sigma(1.0 / 2f64.sqrt());
        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "b"}"#).check(&ab());
        assert!(p.met);
        close(p.measured, a_on_b);
        close(p.asked, 1.0 - a_on_b);
        assert_eq!(p.words, "query a → key b: 0.67; the most on another key is 0.33 (on \"a\")");

        let p = goal(r#"{"kind": "attend_most", "query": "b", "key": "b"}"#).check(&ab());
        assert!(p.met);
        close(p.measured, sigma(2f64.sqrt()));
        assert_eq!(p.words, "query b → key b: 0.80; the most on another key is 0.20 (on \"a\")");

        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "a"}"#).check(&ab());
        assert!(!p.met);
        close(p.measured, 1.0 - a_on_b);
        close(p.asked, a_on_b);
        assert_eq!(p.words, "query a → key a: 0.33; the most on another key is 0.67 (on \"b\")");

        // Zero vectors: every score is 0, so a and b tie at 1/2 and b is not alone on top.
        let tie = trace(&["a b"], 2, 1, &[("a", &[0.0, 0.0]), ("b", &[0.0, 0.0])]);
        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "b"}"#).check(&tie);
        assert!(!p.met);
        assert_eq!((p.measured, p.asked), (0.5, 0.5));

        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "zzz"}"#).check(&ab());
        assert!(!p.met && p.measured.is_nan());
        assert_eq!(p.words, "\"zzz\" is not among the keys of sentence 1");
    }

    /// A near tie: a = [1, 0], b = [1.001, 0]. Query a scores [1, 1.001]/√2, so it puts
    /// σ(0.001/√2) ≈ 0.50018 on b and 0.49982 on a: both 0.50 at two decimals, 0.5002 and
    /// 0.4998 at four. The words and the table quote them at four, so that "met" never
    /// stands beside two equal numbers.
    #[test]
    fn numbers_that_decide_a_verdict_never_print_alike() {
        let near = trace(&["a b"], 2, 1, &[("a", &[1.0, 0.0]), ("b", &[1.001, 0.0])]);
        let on_b = sigma(0.001 / 2f64.sqrt());
        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "b"}"#).check(&near);
        assert!(p.met);
        close(p.measured, on_b);
        assert_eq!(p.words, "query a → key b: 0.5002; the most on another key is 0.4998 (on \"a\")");
        assert_eq!(p.weight_text(0, 0, 1, on_b), "0.5002");
        assert_eq!(p.weight_text(0, 0, 0, 1.0 - on_b), "0.4998");
        // a weight the words do not quote keeps two decimals
        assert_eq!(p.weight_text(0, 1, 1, 0.123456), "0.12");
        // the bound of a goal: 0.50018 against 0.5002 asked, missed by 0.00002
        let p =
            goal(r#"{"kind": "weight_at_least", "query": "a", "key": "b", "at_least": 0.5002}"#).check(&near);
        assert!(!p.met);
        assert_eq!(p.words, "query a → key b: 0.50018 of the 0.50020 asked");
        assert_eq!(p.weight_text(0, 0, 1, on_b), "0.50018");
        let p = goal(r#"{"kind": "weight_at_most", "query": "a", "key": "b", "at_most": 0.5}"#).check(&near);
        assert!(!p.met);
        assert_eq!(p.words, "query a → key b: 0.5002, at most 0.5000 asked");
        // the token before: b puts σ(-0.001·1.001/√2)… on a, just under one half
        let back = sigma((1.001 - 1.001 * 1.001) / 2f64.sqrt());
        let p = goal(r#"{"kind": "previous_token", "at_least": 0.5}"#).check(&near);
        assert!(!p.met);
        close(p.measured, back);
        assert_eq!(p.words, "weakest: query b → key a (the token before it): 0.4998 of the 0.5000 asked");
        assert_eq!(p.weight_text(0, 1, 0, back), "0.4998");
        // an exact tie stays at two decimals and says so
        let tie = trace(&["a b"], 2, 1, &[("a", &[1.0, 0.0]), ("b", &[1.0, 0.0])]);
        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "b"}"#).check(&tie);
        assert!(!p.met);
        assert_eq!(p.words, "query a → key b: 0.50; the most on another key is 0.50 (on \"a\"), a tie");
        // far apart: two decimals
        let p = goal(r#"{"kind": "attend_most", "query": "a", "key": "b"}"#).check(&ab());
        assert!(p.quoted.iter().all(|q| q.decimals == 2));
        assert_eq!(decimals_apart(0.4012, 0.3998), 3);
        assert_eq!(decimals_apart(0.5996, 0.6), 4);
        assert_eq!(decimals_apart(f64::NAN, 0.6), 2);
    }

    #[test]
    fn weight_at_least_takes_the_weakest_query_and_sums_repeated_keys() {
        let a_on_b = sigma(1.0 / 2f64.sqrt());
        let p =
            goal(r#"{"kind": "weight_at_least", "query": "a", "key": "b", "at_least": 0.6}"#).check(&ab());
        assert!(p.met);
        close(p.measured, a_on_b);
        assert_eq!(p.asked, 0.6);
        assert_eq!(p.words, "query a → key b: 0.67 of the 0.60 asked");

        // Every query: a (0.670 on b) is weaker than b (0.804 on b), so a is the one named.
        let p =
            goal(r#"{"kind": "weight_at_least", "query": "*", "key": "b", "at_least": 0.7}"#).check(&ab());
        assert!(!p.met);
        close(p.measured, a_on_b);
        assert_eq!(p.words, "query a → key b: 0.67 of the 0.70 asked");

        // "a b b": a's scores are [1, 2, 2]/√2, and the two b's together get
        // 2e^(2/√2) / (e^(1/√2) + 2e^(2/√2)) = 2 / (e^(-1/√2) + 2) ≈ 0.802.
        let abb = trace(&["a b b"], 2, 1, &[("a", &[1.0, 0.0]), ("b", &[2.0, 0.0])]);
        let p = goal(r#"{"kind": "weight_at_least", "query": "a", "key": "b", "at_least": 0.8}"#).check(&abb);
        assert!(p.met);
        close(p.measured, 2.0 / ((-1.0 / 2f64.sqrt()).exp() + 2.0));
    }

    #[test]
    fn weight_at_most_takes_the_strongest_query() {
        let b_on_b = sigma(2f64.sqrt());
        let p = goal(r#"{"kind": "weight_at_most", "query": "*", "key": "b", "at_most": 0.81}"#).check(&ab());
        assert!(p.met);
        close(p.measured, b_on_b);
        assert_eq!(p.asked, 0.81);
        assert_eq!(p.words, "query b → key b: 0.80, at most 0.81 asked");

        let p = goal(r#"{"kind": "weight_at_most", "query": "*", "key": "b", "at_most": 0.7}"#).check(&ab());
        assert!(!p.met);
        close(p.measured, b_on_b);
        assert_eq!(p.words, "query b → key b: 0.80, at most 0.70 asked");
    }

    #[test]
    fn uniform_rows_measures_the_farthest_weight_in_every_head() {
        let zero = trace(&["a b"], 2, 1, &[("a", &[0.0, 0.0]), ("b", &[0.0, 0.0])]);
        let p = goal(r#"{"kind": "uniform_rows", "tol": 1e-6}"#).check(&zero);
        assert!(p.met);
        assert_eq!((p.measured, p.asked), (0.0, 1e-6));
        // 0.00 would print as 0.000001 does at two decimals: six tell them apart
        assert_eq!(p.words, "farthest weight from 1/2: 0.000000 away, 0.000001 allowed");

        // The farthest weight is query b's σ(√2) on b, σ(√2) - 1/2 ≈ 0.304 from 1/2.
        let p = goal(r#"{"kind": "uniform_rows"}"#).check(&ab());
        assert!(!p.met);
        close(p.measured, sigma(2f64.sqrt()) - 0.5);
        assert_eq!(p.asked, 0.01);
        assert_eq!(p.words, "farthest weight from 1/2: 0.30 away, 0.01 allowed");

        // Two heads: head 1 reads the zero first halves (uniform), head 2 the second halves,
        // which are ab()'s vectors again: the second head alone fails the goal.
        let two = trace(&["a b"], 4, 2, &[("a", &[0.0, 0.0, 1.0, 0.0]), ("b", &[0.0, 0.0, 2.0, 0.0])]);
        let p = goal(r#"{"kind": "uniform_rows"}"#).check(&two);
        assert!(!p.met);
        close(p.measured, sigma(2f64.sqrt()) - 0.5);
    }

    #[test]
    fn previous_token_measures_the_weakest_pair() {
        // a = [3, 0], b = [1, 0]: b scores [3, 1]/√2, so it puts σ(√2) ≈ 0.804 on a.
        let back = trace(&["a b"], 2, 1, &[("a", &[3.0, 0.0]), ("b", &[1.0, 0.0])]);
        let p = goal(r#"{"kind": "previous_token", "at_least": 0.5}"#).check(&back);
        assert!(p.met);
        close(p.measured, sigma(2f64.sqrt()));
        assert_eq!(p.asked, 0.5);
        assert_eq!(p.words, "weakest: query b → key a (the token before it): 0.80 of the 0.50 asked");

        // Add c = [0, 0]: its scores are all 0, so it puts 1/3 on b, below b's
        // e^(3/√2) / (e^(3/√2) + e^(1/√2) + 1) ≈ 0.73 on a: c → b is the weakest.
        let abc = trace(&["a b c"], 2, 1, &[("a", &[3.0, 0.0]), ("b", &[1.0, 0.0]), ("c", &[0.0, 0.0])]);
        let p = goal(r#"{"kind": "previous_token", "at_least": 0.5}"#).check(&abc);
        assert!(!p.met);
        close(p.measured, 1.0 / 3.0);
        assert_eq!(p.words, "weakest: query c → key b (the token before it): 0.33 of the 0.50 asked");

        let one = trace(&["a"], 2, 1, &[("a", &[1.0, 0.0])]);
        let p = goal(r#"{"kind": "previous_token", "at_least": 0.5}"#).check(&one);
        assert!(!p.met);
        assert_eq!(p.words, "the sentence needs at least two tokens");
    }

    #[test]
    fn output_equals_measures_the_largest_difference_from_the_embedding() {
        // a = [10, 0], b = [0, 10]: a scores [100, 0]/√2, so it puts σ(-100/√2) ≈ 2e-31 on
        // b and its output differs from a by 10 times that.
        let apart = trace(&["a b"], 2, 1, &[("a", &[10.0, 0.0]), ("b", &[0.0, 10.0])]);
        let p = goal(r#"{"kind": "output_equals", "token": "a"}"#).check(&apart);
        assert!(p.met);
        assert!(p.measured < 1e-20, "{}", p.measured);
        assert_eq!(p.asked, 0.01);
        assert_eq!(p.words, "a: output differs from its embedding by 0.00, 0.01 allowed");

        // In ab() a's output is (1 - p)·[1, 0] + p·[2, 0] = [1 + p, 0], p = σ(1/√2).
        let p = goal(r#"{"kind": "output_equals", "token": "a"}"#).check(&ab());
        assert!(!p.met);
        close(p.measured, sigma(1.0 / 2f64.sqrt()));
        assert_eq!(p.words, "a: output differs from its embedding by 0.67, 0.01 allowed");

        // b's output is (1 - q)·[1, 0] + q·[2, 0], q = σ(√2): 1 - q ≈ 0.196 short of b = [2, 0].
        let p = goal(r#"{"kind": "output_equals", "token": "b", "tol": 0.2}"#).check(&ab());
        assert!(p.met);
        close(p.measured, 1.0 - sigma(2f64.sqrt()));
        // 0.196 met against 0.2: at two decimals it would print as the 0.20 allowed
        assert_eq!(p.words, "b: output differs from its embedding by 0.196, 0.2 allowed");
    }

    #[test]
    fn heads_differ_needs_disjoint_top_keys() {
        // d_k = 2: head 1 reads numbers 1–2, head 2 numbers 3–4. a = [1, 0, 1, 0].
        // Head 1: a · b = 2 beats a · a = 1; head 2: a · c = 2 beats a · a = 1.
        let split = trace(
            &["a b c"],
            4,
            2,
            &[("a", &[1.0, 0.0, 1.0, 0.0]), ("b", &[2.0, 0.0, 0.0, 0.0]), ("c", &[0.0, 0.0, 2.0, 0.0])],
        );
        let p = goal(r#"{"kind": "heads_differ", "query": "a"}"#).check(&split);
        assert!(p.met);
        assert_eq!((p.measured, p.asked), (0.0, 0.0));
        assert_eq!(p.words, "query a looks most at \"b\" in head 1, at \"c\" in head 2");

        // b = [2, 0, 2, 0] wins in both heads.
        let same = trace(
            &["a b c"],
            4,
            2,
            &[("a", &[1.0, 0.0, 1.0, 0.0]), ("b", &[2.0, 0.0, 2.0, 0.0]), ("c", &[0.0, 0.0, 0.0, 0.0])],
        );
        let p = goal(r#"{"kind": "heads_differ", "query": "a"}"#).check(&same);
        assert!(!p.met);
        assert_eq!(p.measured, 1.0);
        assert_eq!(p.words, "query a looks most at \"b\" in head 1, at \"b\" in head 2 (not different yet)");

        // All zero: every key ties in both heads, so all three are shared.
        let zero = trace(&["a b c"], 4, 2, &[("a", &[0.0; 4]), ("b", &[0.0; 4]), ("c", &[0.0; 4])]);
        let p = goal(r#"{"kind": "heads_differ", "query": "a"}"#).check(&zero);
        assert!(!p.met);
        assert_eq!(p.measured, 3.0);
        assert_eq!(p.words, "query a looks most at \"a\", \"b\" and \"c\" (a tie) in head 1, at \"a\", \"b\" and \"c\" (a tie) in head 2 (not different yet)");

        let p = goal(r#"{"kind": "heads_differ", "query": "a", "heads": [0, 2]}"#).check(&split);
        assert!(!p.met);
        assert_eq!(p.words, "there is no head 3 (h = 2)");
    }
}
