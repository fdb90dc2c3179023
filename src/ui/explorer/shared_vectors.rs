//! Different words with one input vector: in the toy vocabulary "I", "bought" and "a"
//! are all the same plain "other" vector, so their rows of x, and of every step computed
//! from x row by row, are identical. A note under the step's title says so, and why,
//! while the rows on screen are in fact identical. Plain Rust, tested natively.

use crate::engine::embedding::Source;
use crate::engine::{Role, StepName, Trace};
use crate::format::exact;

/// Positions of sentence `batch` (query tokens, or with `keys` the key/value tokens) whose
/// input vectors are equal while their words differ, as groups of positions (each group's
/// words name at least two different words), in the order of their first position.
pub fn shared_vector_groups(trace: &Trace, batch: usize, keys: bool) -> Vec<Vec<usize>> {
    let (x_step, tokens, len) = if keys && trace.kv_tokens.is_some() {
        (StepName::XKv, trace.key_tokens(batch), trace.key_length(batch))
    } else {
        (StepName::X, trace.query_tokens(batch), trace.query_length(batch))
    };
    let Some(x) = trace.step(x_step).and_then(|s| s.matrix(batch, 0)) else { return Vec::new() };
    let len = len.min(x.nrows()).min(tokens.len());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..len {
        match groups.iter_mut().find(|g| x.row(g[0]) == x.row(i)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups.retain(|g| {
        let first = tokens[g[0]].to_lowercase();
        g.iter().any(|&i| tokens[i].to_lowercase() != first)
    });
    groups
}

/// Whether the rows `rows` of step `step` (sentence `batch`) are the same numbers in
/// every head: what the note claims of the picture.
fn rows_identical(trace: &Trace, step: StepName, batch: usize, rows: &[usize]) -> bool {
    let Some(s) = trace.step(step) else { return false };
    let heads = if s.has_heads() { s.shape.get(1).copied().unwrap_or(1) } else { 1 };
    (0..heads).all(|h| {
        s.matrix(batch, h).is_some_and(|m| {
            rows.iter().all(|&r| r < m.nrows())
                && rows.iter().all(|&r| {
                    m.row(r).iter().zip(m.row(rows[0]).iter()).all(|(a, b)| a.to_bits() == b.to_bits())
                })
        })
    })
}

/// "“I”, “bought” and “a”": each different word once, in order.
fn word_list(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("“{w}”")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The note for step `step` of sentence `batch`: one sentence per group of different
/// words that share one input vector *and* whose rows of this step are identical (steps
/// after a positional encoding, or under a causal mask, may tell them apart again: no
/// note there). `None` when no such group is on screen.
pub fn shared_vector_note(trace: &Trace, step: StepName, batch: usize) -> Option<String> {
    if step == StepName::Pe {
        return None;
    }
    let keys = step.rows() == Role::Keys;
    let (tokens, sources) = if keys && trace.kv_tokens.is_some() {
        (trace.key_tokens(batch), trace.kv_sources.as_ref().and_then(|s| s.get(batch)))
    } else {
        (trace.query_tokens(batch), trace.sources.get(batch))
    };
    let x_step = if keys && trace.kv_tokens.is_some() { StepName::XKv } else { StepName::X };
    let x = trace.step(x_step).and_then(|s| s.matrix(batch, 0))?;
    let sentences: Vec<String> = shared_vector_groups(trace, batch, keys)
        .into_iter()
        .filter(|rows| rows_identical(trace, step, batch, rows))
        .map(|rows| {
            let mut words: Vec<String> = Vec::new();
            for &i in &rows {
                if !words.iter().any(|w| w.to_lowercase() == tokens[i].to_lowercase()) {
                    words.push(tokens[i].clone());
                }
            }
            let vector: Vec<f64> = x.row(rows[0]).to_vec();
            let shown = format!("[{}]", vector.iter().map(|v| exact(*v)).collect::<Vec<_>>().join(", "));
            let source_of = |i: usize| sources.and_then(|s| s.get(i)).copied();
            let all = |src: Source| rows.iter().all(|&i| source_of(i) == Some(src));
            let why = if all(Source::Lexicon) {
                let only = trace.feature_names.as_ref().filter(|n| n.len() == vector.len()).and_then(|names| {
                    let nonzero: Vec<usize> = (0..vector.len()).filter(|&j| vector[j] != 0.0).collect();
                    (nonzero.len() == 1).then(|| names[nonzero[0]].to_string())
                });
                let what = only.map_or(String::new(), |name| format!(", only “{name}”"));
                format!(
                    "the toy vocabulary gives them one vector, {shown}{what}. It is hand-made and tells these \
                     words apart no further; nothing here is trained"
                )
            } else if all(Source::Explicit) {
                format!("the embeddings given for them are the same vector, {shown}")
            } else {
                format!("their input vectors are the same, {shown}")
            };
            format!(
                "{} have identical rows here: {why}. A step computed from x row by row keeps equal rows equal.",
                word_list(&words)
            )
        })
        .collect();
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, Positional, Scenario, StepName as S};
    use crate::ui::state::settings::DEFAULT_TEXT;

    fn default_trace(causal: bool) -> Trace {
        let sentences: Vec<&str> = DEFAULT_TEXT.lines().collect();
        let mut s = Scenario::identity(&sentences, 3, 1);
        s.mask.causal = causal;
        s.mask.padding = crate::engine::Padding::Keys;
        run(&s).unwrap()
    }

    /// The explorer's first sentence: "I", "bought" and "a" are one toy vector, and the
    /// note names them, the vector and why, on x and on the steps that keep their rows equal.
    #[test]
    fn the_first_sentences_three_plain_words_are_named_with_their_vector() {
        let t = default_trace(false);
        assert_eq!(shared_vector_groups(&t, 0, false), vec![vec![0, 1, 2]]);
        let note = shared_vector_note(&t, S::X, 0).unwrap();
        assert!(note.starts_with("“I”, “bought” and “a” have identical rows here"), "{note}");
        assert!(note.contains("the toy vocabulary gives them one vector, [0, 0, 1], only “other”"), "{note}");
        for step in [S::Q, S::K, S::V, S::Scores, S::Weights, S::Output] {
            assert!(shared_vector_note(&t, step, 0).is_some(), "{step}");
        }
        // "the bat flew": no two different words share a vector
        assert_eq!(shared_vector_note(&t, S::X, 1), None);
    }

    /// Said only while it is true of the rows on screen: a causal mask gives the three
    /// rows different weights, positions give them different x + PE, an edited vector
    /// splits the group; a word repeated is not "different words".
    #[test]
    fn the_note_goes_when_the_rows_on_screen_differ() {
        let causal = default_trace(true);
        assert!(shared_vector_note(&causal, S::X, 0).is_some());
        assert_eq!(shared_vector_note(&causal, S::Weights, 0), None);
        let mut s = Scenario::identity(&["I bought a baseball bat"], 3, 1);
        s.positional = Positional::Sinusoidal;
        let t = run(&s).unwrap();
        assert!(shared_vector_note(&t, S::X, 0).is_some());
        assert_eq!(shared_vector_note(&t, S::XPe, 0), None);
        assert_eq!(shared_vector_note(&t, S::Q, 0), None);
        s.positional = Positional::None;
        s.embeddings.insert("bought".into(), vec![0.0, 0.5, 1.0]);
        let t = run(&s).unwrap();
        let note = shared_vector_note(&t, S::X, 0).unwrap();
        assert!(note.starts_with("“I” and “a” have identical rows here"), "{note}");
        s.embeddings.insert("i".into(), vec![0.0, 0.5, 1.0]);
        let t = run(&s).unwrap();
        let note = shared_vector_note(&t, S::X, 0).unwrap();
        assert!(note.contains("“I” and “bought” have identical rows here: the embeddings given"), "{note}");
        let t = run(&Scenario::identity(&["the bat the bat"], 3, 1)).unwrap();
        assert_eq!(shared_vector_note(&t, S::X, 0), None);
    }
}
