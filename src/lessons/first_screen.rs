//! The first screen's one-line caption: what to look at in the weights, written from the
//! live trace (so it follows every edit, and disappears when there is nothing to say).

use super::{num, token};
use crate::engine::embedding::Source;
use crate::engine::{StepName, Trace};

/// The strongest attention from one word to another word in sentence `batch`, head 1:
/// e.g. `"bat" attends to "baseball" as much as to itself: 0.34`. `None` when no query
/// has a real, unblocked, finite weight on another real key (one word, a NaN row, …).
pub fn caption(trace: &Trace, batch: usize) -> Option<String> {
    let w = trace.step(StepName::Weights)?.matrix(batch, 0)?;
    let (n_q, n_k) = (trace.query_length(batch).min(w.nrows()), trace.key_length(batch).min(w.ncols()));
    let cross = trace.is_cross();
    let mut best: Option<(usize, usize, f64)> = None;
    // a row the mask leaves one key has that key's weight forced: it is no preference
    let open = |i: usize| (0..n_k).filter(|&j| !trace.mask.is_blocked(batch, i, j)).count();
    let forced = (0..n_q).filter(|&i| open(i) == 1).count();
    for i in (0..n_q).filter(|&i| open(i) > 1) {
        for j in 0..n_k {
            let v = w[(i, j)];
            let other = cross || i != j;
            if other && v.is_finite() && !trace.mask.is_blocked(batch, i, j) && best.is_none_or(|b| v > b.2) {
                best = Some((i, j, v));
            }
        }
    }
    let Some((i, j, v)) = best else {
        return (n_k > 1 && forced > 0 && forced == n_q).then(|| {
            "The mask leaves each query one key, so each row's weight is forced onto it: no weight here says \
             which key a query prefers."
                .to_owned()
        });
    };
    let (q, k) = (token(trace, batch, i), trace.key_tokens(batch).get(j).cloned().unwrap_or_default());
    // with several layers the number is one layer's: name it, as the head
    let heads = match (trace.n_layers > 1, trace.sizes.n_heads > 1) {
        (true, true) => format!(" (layer {} of {}, head 1)", trace.layer, trace.n_layers),
        (true, false) => format!(" (layer {} of {})", trace.layer, trace.n_layers),
        (false, true) => " (head 1)".to_owned(),
        (false, false) => String::new(),
    };
    let own = (!cross).then(|| w[(i, i)]).filter(|x| x.is_finite());
    // the conclusion is drawn from toy vectors; a word without one has a random vector
    let hashed = |sources: Option<&Vec<Vec<Source>>>, b: usize, at: usize| {
        sources.and_then(|s| s.get(b)).and_then(|row| row.get(at)) == Some(&Source::Hashed)
    };
    let key_sources = if cross { trace.kv_sources.as_ref() } else { Some(&trace.sources) };
    let random: Vec<&str> =
        [(hashed(Some(&trace.sources), batch, i), q.as_str()), (hashed(key_sources, batch, j), k.as_str())]
            .into_iter()
            .filter_map(|(h, word)| h.then_some(word))
            .collect();
    let caveat = match random.as_slice() {
        [] => " (Toy vectors, untrained.)".to_owned(),
        [one] => {
            format!(" But “{one}” has no toy vector: its vector is random, so this says nothing about it.")
        }
        _ => format!(
            " But “{q}” and “{k}” have no toy vectors: theirs are random, so this says nothing about them."
        ),
    };
    // the other keys that read the same weight, in the row's order: named with it, so that
    // no one of several equal keys is singled out
    let keys = trace.key_tokens(batch);
    // a word the sentence has twice is named by which of them it is ("the second “cat”"),
    // so that a caption about one "cat" and another never reads "“cat” attends to “cat”"
    let twice = |word: &str| keys.iter().take(n_k).filter(|k| k.as_str() == word).count() > 1;
    // ("The" spelled out rather than upper-cased: the first-paint worker computes this
    // caption too, and `to_uppercase` would bring Unicode's case tables into it)
    let nth = |x: usize, word: &str, the: &str| {
        let n = keys.iter().take(x).filter(|k| k.as_str() == word).count();
        let ordinal = ordinal(n + 1);
        format!("{the} {ordinal} “{word}”")
    };
    let q_named = if !cross && twice(&q) { nth(i, &q, "The") } else { format!("“{q}”") };
    let key_named = |x: usize| {
        let word = keys.get(x).cloned().unwrap_or_default();
        if twice(&word) {
            nth(x, &word, "the")
        } else {
            format!("“{word}”")
        }
    };
    let tied: Vec<String> = (0..n_k)
        .filter(|&x| {
            (cross || x != i)
                && !trace.mask.is_blocked(batch, i, x)
                && w[(i, x)].is_finite()
                && num(w[(i, x)]) == num(v)
        })
        .map(key_named)
        .collect();
    let named = match tied.as_slice() {
        [] | [_] => key_named(j),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let each = if tied.len() > 1 { " each" } else { "" };
    // why: a word the sentence has twice, at places with one input vector and one score,
    // is the same query and key twice over
    let same_word = q == k && same_input(trace, batch, i, j);
    let sentence = match own {
        Some(s) if num(s) == num(v) && same_word => format!(
            "{q_named} attends to {named} as much as to itself{heads}: {} each. They are one word with \
             one input vector, so each gives the other the same score as itself.",
            num(v)
        ),
        Some(s) if num(s) == num(v) => {
            format!("{q_named} attends to {named} as much as to itself{heads}: {} each.", num(v))
        }
        Some(s) if s > v => {
            format!(
                "{q_named} attends most to {named} after itself{heads}: {}{each} (itself {}).",
                num(v),
                num(s)
            )
        }
        _ => format!("{q_named} attends most to {named}{heads}: {}{each}.", num(v)),
    };
    // with an attention sink the row sums to less than 1: say where the rest went, so that
    // "most" is not read as most of the whole row
    let sink = if trace.sinks.is_empty() {
        String::new()
    } else {
        let rest = 1.0 - w.row(i).iter().filter(|x| x.is_finite()).sum::<f64>();
        format!(" The head's sink takes {} of this row.", num(rest))
    };
    Some(sentence + &sink + &caveat)
}

/// True when query `i` and key `j` of sentence `batch`, head 1, have the same input vector
/// (row of x, positions added) and the same scaled score as `i` with itself: with RoPE or
/// ALiBi the same vector at two places scores differently.
fn same_input(trace: &Trace, batch: usize, i: usize, j: usize) -> bool {
    let rows_equal = |step: StepName, a: (usize, usize), b: (usize, usize)| {
        trace.step(step).and_then(|s| s.matrix(batch, 0)).is_some_and(|m| {
            a.0.max(b.0) < m.nrows() && a.1.max(b.1) < m.ncols() && m[a].to_bits() == m[b].to_bits()
        })
    };
    let x = trace.step(StepName::X).and_then(|s| s.matrix(batch, 0));
    let same_x = x.is_some_and(|m| i.max(j) < m.nrows() && m.row(i) == m.row(j));
    same_x && rows_equal(StepName::Scaled, (i, j), (i, i))
}

/// "first" … "tenth", then "11th", "21st", "22nd", "23rd": the `k`-th, from 1.
fn ordinal(k: usize) -> String {
    const WORDS: [&str; 10] =
        ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
    if let Some(w) = k.checked_sub(1).and_then(|i| WORDS.get(i)) {
        return (*w).to_owned();
    }
    let suffix = match (k % 100, k % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    format!("{k}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;
    use crate::ui::state::settings::{scenario, Settings, DEFAULT_TEXT};

    fn default_trace() -> Trace {
        run(&scenario(DEFAULT_TEXT, &Settings::default()).0).unwrap()
    }

    /// With several layers the caption's number is one layer's, and it says which.
    #[test]
    fn with_several_layers_the_caption_names_its_layer() {
        let (mut s, _) = scenario(DEFAULT_TEXT, &Settings::default());
        assert!(!caption(&run(&s).unwrap(), 0).unwrap().contains("layer"));
        s.n_layers = Some(3);
        s.layer = Some(2);
        let t = run(&s).unwrap();
        let c = caption(&t, 0).unwrap();
        assert!(
            c.contains(&format!("(layer 2 of 3{}", if t.sizes.n_heads > 1 { ", head 1)" } else { ")" })),
            "{c}"
        );
    }

    #[test]
    fn with_a_sink_the_caption_says_what_the_sink_takes() {
        let (mut s, _) = scenario(DEFAULT_TEXT, &Settings::default());
        s.sinks = Some(vec![2.0]);
        let t = run(&s).unwrap();
        let w = t.step(StepName::Weights).unwrap().matrix(0, 0).unwrap();
        let text = caption(&t, 0).unwrap();
        // the row the caption is about: its query is the caption's first word
        let q =
            (0..t.query_length(0)).find(|&i| text.starts_with(&format!("“{}”", token(&t, 0, i)))).unwrap();
        let rest = 1.0 - w.row(q).sum();
        assert!(rest > 0.1, "{rest}");
        assert!(text.contains(&format!("The head's sink takes {} of this row.", num(rest))), "{text}");
        assert!(!caption(&default_trace(), 0).unwrap().contains("sink"));
    }

    #[test]
    fn the_default_story_bat_looks_at_baseball_then_at_flew() {
        let t = default_trace();
        let w = |b, i, j| num(super::super::at(&t, StepName::Weights, b, 0, i, j));
        // "bat" (4) → "baseball" (3) in sentence 1, "bat" (1) → "flew" (2) in sentence 2
        assert_eq!(
            caption(&t, 0).unwrap(),
            format!(
                "“bat” attends to “baseball” as much as to itself: {} each. (Toy vectors, untrained.)",
                w(0, 4, 3)
            )
        );
        assert_eq!(w(0, 4, 3), "0.34");
        let second = caption(&t, 1).unwrap();
        assert!(second.starts_with("“bat” attends most to “flew” after itself: "), "{second}");
        assert!(second.contains(&w(1, 1, 2)), "{second}");
    }

    #[test]
    fn keys_of_equal_weight_are_named_together() {
        // the explorer link `?s=the cat sat on the mat&d=8&h=2&causal=1`: causal, "sat"
        // sees "the", "cat" and itself, all 0.33 in head 1
        let mut st = Settings { d_model: 8, n_heads: 2, ..Settings::default() };
        st.mask.causal = true;
        let t = run(&scenario("the cat sat on the mat", &st).0).unwrap();
        let text = caption(&t, 0).unwrap();
        let w = t.step(StepName::Weights).unwrap().matrix(0, 0).unwrap();
        // "the" is there twice: the one "sat" sees is named with its place
        assert_eq!(
            text,
            "“sat” attends to the first “the” and “cat” as much as to itself (head 1): 0.33 each. \
             (Toy vectors, untrained.)"
        );
        // the three keys "sat" sees read that weight (the causal mask blocks the rest)
        let sat: Vec<String> = w.row(2).iter().take(3).map(|x| num(*x)).collect();
        assert_eq!(sat, ["0.33", "0.33", "0.33"]);
    }

    /// A word the sentence has twice is named by which of them it is, the query too: the
    /// look read "“cat” attends to “cat” as much as to itself" as nonsense, and a position
    /// counted from 0 as the wrong word.
    #[test]
    fn a_repeated_word_is_named_by_which_it_is() {
        let t = run(&scenario("the cat saw the cat", &Settings::default()).0).unwrap();
        let text = caption(&t, 0).unwrap();
        for word in ["the", "cat"] {
            let bare = text.matches(&format!("“{word}”")).count();
            let named = ["the first", "the second", "The first", "The second"]
                .iter()
                .map(|o| text.matches(&format!("{o} “{word}”")).count())
                .sum::<usize>();
            assert_eq!(bare, named, "{text}");
        }
        assert!(text.contains("second “"), "{text}");
        // why the two match, said only while their input vectors and scores are one
        assert!(
            text.contains(
                "They are one word with one input vector, so each gives the other the same score as itself."
            ),
            "{text}"
        );
        let placed = Settings { positional: crate::engine::Positional::Sinusoidal, ..Settings::default() };
        let moved = run(&scenario("the cat saw the cat", &placed).0).unwrap();
        assert!(!caption(&moved, 0).unwrap().contains("one input vector"), "{}", caption(&moved, 0).unwrap());
        let once = run(&scenario("the cat sat", &Settings::default()).0).unwrap();
        assert!(!caption(&once, 0).unwrap().contains(" first "));
    }

    #[test]
    fn ordinals_are_words_to_ten_then_numbers_with_their_suffix() {
        let got: Vec<String> =
            [1, 2, 10, 11, 12, 13, 21, 22, 23, 24, 111, 112].into_iter().map(ordinal).collect();
        assert_eq!(
            got,
            [
                "first", "second", "tenth", "11th", "12th", "13th", "21st", "22nd", "23rd", "24th", "111th",
                "112th"
            ]
        );
    }

    #[test]
    fn a_word_without_a_toy_vector_is_named_as_random() {
        // "tired" is not in the toy lexicon: its vector comes from its spelling
        let t = run(&scenario("the cat sat because it was tired", &Settings::default()).0).unwrap();
        let text = caption(&t, 0).unwrap();
        let random = ["because", "was", "tired", "sat", "it"]
            .iter()
            .filter(|w| text.contains(&format!("“{w}”")) && text.contains("no toy vector"))
            .count();
        assert!(text.contains("no toy vector") && random >= 1, "{text}");
        assert!(!text.contains("untrained"), "{text}");
    }

    /// Cross-attention with causal and a window of 2: query "I" (row 0) sees one key, so
    /// its 1.00 is the mask's, not a preference; the caption is about a row with a choice.
    /// A window of 1 leaves every row one key: the caption says so.
    #[test]
    fn a_weight_the_mask_forces_is_not_the_caption() {
        let settings = |window| {
            let mut s = Settings { kv_text: Some(DEFAULT_TEXT.to_owned()), ..Settings::default() };
            s.mask.causal = true;
            s.mask.window = Some(window);
            s
        };
        let t = run(&scenario(DEFAULT_TEXT, &settings(2)).0).unwrap();
        assert!(t.is_cross());
        let text = caption(&t, 0).unwrap();
        assert!(!text.starts_with("“I” attends most to “I”"), "{text}");
        let q =
            (0..t.query_length(0)).find(|&i| text.starts_with(&format!("“{}”", token(&t, 0, i)))).unwrap();
        let open = (0..t.key_length(0)).filter(|&j| !t.mask.is_blocked(0, q, j)).count();
        assert!(open > 1, "{text}");
        let t = run(&scenario(DEFAULT_TEXT, &settings(1)).0).unwrap();
        let text = caption(&t, 0).unwrap();
        assert!(text.starts_with("The mask leaves each query one key"), "{text}");
    }

    #[test]
    fn no_caption_without_another_word() {
        let t = run(&scenario("hello", &Settings::default()).0).unwrap();
        assert_eq!(caption(&t, 0), None);
        assert_eq!(caption(&default_trace(), 9), None, "a sentence out of range is no caption, not a panic");
    }
}
