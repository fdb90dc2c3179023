//! Random sentences for the property tests (included by `common` and by path beside it).

use proptest::prelude::*;

/// `b` sentences of 1 to `max_words` words drawn from `words`, and under cross-attention as
/// many key/value sentences drawn apart from them (else `None`).
pub fn arb_sentences(
    words: prop::sample::Select<&'static str>,
    b: usize,
    max_words: usize,
    cross: bool,
) -> impl Strategy<Value = (Vec<String>, Option<Vec<String>>)> {
    let sentence = prop::collection::vec(words, 1..=max_words).prop_map(|w| w.join(" "));
    (
        prop::collection::vec(sentence.clone(), b),
        if cross { prop::collection::vec(sentence, b).prop_map(Some).boxed() } else { Just(None).boxed() },
    )
}
