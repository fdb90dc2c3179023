//! Edit carrying: the learner's vector edits survive Back and Next within a lesson.

use std::collections::BTreeMap;

use crate::engine::Scenario;

/// The learner's edits to a lesson's vectors: the embeddings of `now` that the step's own
/// scenario `step` does not have, or has with other numbers.
pub fn edited_vectors(step: &Scenario, now: &BTreeMap<String, Vec<f64>>) -> BTreeMap<String, Vec<f64>> {
    now.iter()
        .filter(|(word, v)| step.embeddings.get(*word).is_none_or(|own| own != *v))
        .map(|(w, v)| (w.clone(), v.clone()))
        .collect()
}

/// The scenario of `next`, a step of the same lesson, with the learner's vector edits
/// carried over (Back and Next keep them until "Reset this lesson"). Only vectors
/// as wide as the next step's `d_model` are carried; the others would not fit its space.
pub fn carry_edits(next: &Scenario, edits: &BTreeMap<String, Vec<f64>>) -> Scenario {
    let mut out = next.clone();
    for (word, v) in edits {
        if v.len() == next.d_model {
            out.embeddings.insert(word.clone(), v.clone());
        }
    }
    out
}
