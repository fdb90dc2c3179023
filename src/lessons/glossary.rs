//! A small glossary, and where each term is first used in each lesson (the page links
//! that first use to the entry).

use super::Lesson;
use crate::engine::run;

/// One glossary entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// The term as the entry's title, e.g. "query".
    pub term: &'static str,
    /// The spellings that count as a use in lesson text, matched as whole words, case
    /// sensitive where the case means something (`Q`, `d_k`).
    pub forms: &'static [&'static str],
    /// One or two plain sentences.
    pub meaning: &'static str,
}

/// The glossary, in reading order.
pub const GLOSSARY: &[Term] = &[
    Term {
        term: "query",
        forms: &["query", "queries", "Q"],
        meaning: "What a word is looking for: a vector compared with every key. Row i of Q is word i's query.",
    },
    Term {
        term: "key",
        forms: &["key", "keys", "K"],
        meaning: "What a word offers to be found by: the vector each query is dotted with.",
    },
    Term {
        term: "value",
        forms: &["value", "values", "V"],
        meaning: "What a word passes on when it is attended to; the output is a weighted average of values.",
    },
    Term {
        term: "head",
        forms: &["head", "heads"],
        meaning: "One attention computation with its own slice of Q, K and V (d_k wide); h heads run side by side.",
    },
    Term {
        term: "d_model",
        forms: &["d_model"],
        meaning: "The width of every token's vector: the number of features per word.",
    },
    Term {
        term: "d_k",
        forms: &["d_k"],
        meaning: "The width of one head's queries and keys: d_model / h unless a model sets its own head size (d_head; MLA's keys are wider). Scores are divided by √d_k.",
    },
    Term {
        term: "score",
        forms: &["score", "scores"],
        meaning: "A query dotted with a key (QKᵀ, then / √d_k): how well the key answers the query, before softmax.",
    },
    Term {
        term: "logits",
        forms: &["logits"],
        meaning: "Numbers that softmax turns into probabilities: in attention, the scaled scores.",
    },
    Term {
        term: "softmax",
        forms: &["softmax"],
        meaning: "exp of each number divided by the row's sum of exps: positive weights that sum to 1.",
    },
    Term {
        term: "weights",
        forms: &["weights", "weight"],
        meaning: "The attention weights: softmax of each row of scores, how much each query takes from each key.",
    },
    Term {
        term: "mask",
        forms: &["mask", "masks", "masked"],
        meaning: "Which keys a query may not see (a later word, a <pad>): their scores are replaced before softmax.",
    },
    Term {
        term: "<pad>",
        forms: &["<pad>"],
        meaning: "A filler token that makes a batch's sentences equally long; a padding mask hides it.",
    },
    Term {
        term: "batch",
        forms: &["batch", "B"],
        meaning: "Several sentences computed together, B of them, padded to the same length T.",
    },
    Term {
        term: "causal",
        forms: &["causal"],
        meaning: "A mask that lets query i see keys 0 to i only, never a later word: what a model that writes \
                  left to right needs.",
    },
    Term {
        term: "W_O",
        forms: &["W_O"],
        meaning: "The output projection: a (d_model, d_model) matrix that mixes the heads' concatenated \
                  outputs into one vector per token.",
    },
    Term {
        term: "PE",
        forms: &["PE"],
        meaning: "Positional encoding: a vector per position added to each token's embedding, so attention \
                  can tell word order (sines and cosines in the original Transformer).",
    },
    Term {
        term: "RoPE",
        forms: &["RoPE"],
        meaning: "Rotary position embedding: each pair of a query's and a key's features is turned by an angle \
                  proportional to its position, so their dot product depends on the distance between them.",
    },
    Term {
        term: "h_kv",
        forms: &["h_kv"],
        meaning: "The number of key/value heads. With h_kv < h, several query heads share one K/V head.",
    },
    Term {
        term: "GQA / MQA",
        forms: &["GQA", "MQA"],
        meaning: "Grouped-query attention (a few K/V heads, each shared by a group of query heads) and \
                  multi-query attention (one K/V head for all): a smaller KV cache.",
    },
    Term {
        term: "KV cache",
        forms: &["KV cache", "K/V cache", "key/value cache"],
        meaning: "While generating, the keys and values of the tokens so far, kept so that each new token \
                  computes only its own: 2 · layers · h_kv · d_k numbers per token.",
    },
    Term {
        term: "tile",
        forms: &["tile", "tiles"],
        meaning: "A block of queries by a block of keys that FlashAttention computes at once in fast memory, \
                  folding each into a running maximum and sum (the online softmax).",
    },
    Term {
        term: "BOS",
        forms: &["BOS"],
        meaning: "Beginning of sequence: a token put before every text, so that every sequence starts with the \
                  same one. Trained heads often park the weight they have no use for on it (an attention sink).",
    },
];

/// Where `term` is first used in `text`: the byte range of its first form found as a
/// whole word (not inside a longer word or name), if any.
pub fn first_use(term: &Term, text: &str) -> Option<(usize, usize)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    term.forms
        .iter()
        .filter_map(|form| {
            text.match_indices(form).find(|(at, _)| {
                let before = text[..*at].chars().next_back();
                let after = text[at + form.len()..].chars().next();
                let edge = |c: Option<char>| c.is_none_or(|c| !is_word(c));
                // a lone capital (Q, K, V, B) counts only as itself, not as "K" in "QKᵀ"
                let lone = form.len() > 1 || (edge(before) && !matches!(after, Some('ᵀ')));
                edge(before) && edge(after) && lone
            })
        })
        .map(|(at, form)| (at, at + form.len()))
        .min()
}

/// A step's words cut at the first uses of `terms` (the glossary terms this step is the
/// first of its lesson to use): `(words, Some(term))` for a term's first use, `(words,
/// None)` for the text between. The pieces, joined, are `text`; a term whose first use
/// overlaps an earlier one's is not linked.
pub fn segments<'a>(text: &'a str, terms: &[&'static Term]) -> Vec<(&'a str, Option<&'static Term>)> {
    let mut found: Vec<((usize, usize), &'static Term)> =
        terms.iter().filter_map(|t| first_use(t, text).map(|r| (r, *t))).collect();
    found.sort_by_key(|((a, _), _)| *a);
    let mut out = Vec::new();
    let mut at = 0;
    for ((a, b), term) in found {
        if a < at {
            continue;
        }
        if a > at {
            out.push((&text[at..a], None));
        }
        out.push((&text[a..b], Some(term)));
        at = b;
    }
    if at < text.len() || out.is_empty() {
        out.push((&text[at..], None));
    }
    out
}

/// The glossary terms whose first use in `lesson` is in step `step` (from 0). The
/// lesson's [`first_uses`] (a run of each of its steps) are worked out once per lesson
/// id and kept: the page asks on every step it opens.
pub fn first_used_in(lesson: &Lesson, step: usize) -> Vec<&'static Term> {
    type Uses = Vec<(&'static Term, usize, (usize, usize))>;
    thread_local! {
        static USES: std::cell::RefCell<std::collections::HashMap<&'static str, Uses>> = Default::default();
    }
    USES.with_borrow_mut(|cache| {
        cache
            .entry(lesson.id)
            .or_insert_with(|| first_uses(lesson))
            .iter()
            .filter(|(_, s, _)| *s == step)
            .map(|(t, _, _)| *t)
            .collect()
    })
}

/// The first use of each glossary term in a lesson: `(term, step index from 0, byte
/// range in that step's words)`, reading the steps in order, for the lesson's own
/// scenarios.
pub fn first_uses(lesson: &Lesson) -> Vec<(&'static Term, usize, (usize, usize))> {
    let texts: Vec<String> =
        lesson.steps.iter().map(|s| run(&s.scenario).map(|t| (s.narrate)(&t)).unwrap_or_default()).collect();
    GLOSSARY
        .iter()
        .filter_map(|term| {
            texts.iter().enumerate().find_map(|(i, text)| first_use(term, text).map(|r| (term, i, r)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::lessons;

    #[test]
    fn every_entry_has_a_meaning_and_distinct_forms() {
        for t in GLOSSARY {
            assert!(!t.meaning.is_empty() && !t.forms.is_empty(), "{}", t.term);
        }
        for name in ["query", "key", "value", "head", "d_model", "d_k", "softmax", "mask", "<pad>", "logits"]
        {
            assert!(GLOSSARY.iter().any(|t| t.term == name), "{name}");
        }
    }

    #[test]
    fn first_use_finds_whole_words_only() {
        let key = GLOSSARY.iter().find(|t| t.term == "key").unwrap();
        assert_eq!(first_use(key, "QKᵀ: each keyboard, then the keys"), Some((31, 35)));
        let d_k = GLOSSARY.iter().find(|t| t.term == "d_k").unwrap();
        assert_eq!(first_use(d_k, "d_model = 4, d_k = 2"), Some((13, 16)));
        assert_eq!(first_use(d_k, "no such term"), None);
    }

    #[test]
    fn segments_link_each_first_use_once_and_join_back_to_the_text() {
        let find = |name: &str| GLOSSARY.iter().find(|t| t.term == name).unwrap();
        let terms = [find("query"), find("key"), find("softmax")];
        let text = "Each query meets every key; the keys answer the query. No softmax.";
        let parts = segments(text, &terms);
        assert_eq!(parts.iter().map(|(w, _)| *w).collect::<String>(), text);
        let linked: Vec<(&str, &str)> = parts.iter().filter_map(|(w, t)| t.map(|t| (*w, t.term))).collect();
        assert_eq!(linked, [("query", "query"), ("key", "key"), ("softmax", "softmax")]);
        // nothing to link: the whole text, once; an empty text is one empty piece
        assert_eq!(segments("plain words", &terms), [("plain words", None)]);
        assert_eq!(segments("", &terms), [("", None)]);
        // a term at the very end leaves no empty tail
        let end = segments("ends with softmax", &terms);
        assert_eq!(end.last().unwrap(), &("softmax", Some(find("softmax"))));
        // overlapping first uses: the earlier one wins
        static CAUSAL: Term = Term { term: "causal mask", forms: &["causal mask"], meaning: "x" };
        static MASK: Term = Term { term: "mask", forms: &["mask"], meaning: "y" };
        let parts = segments("a causal mask", &[&MASK, &CAUSAL]);
        assert_eq!(parts, [("a ", None), ("causal mask", Some(&CAUSAL))]);
    }

    #[test]
    fn every_step_links_only_the_terms_it_uses_first() {
        for lesson in lessons() {
            let mut seen = std::collections::BTreeSet::new();
            for (i, step) in lesson.steps.iter().enumerate() {
                let terms = first_used_in(&lesson, i);
                let text = (step.narrate)(&run(&step.scenario).unwrap());
                let linked: Vec<&str> =
                    segments(&text, &terms).iter().filter_map(|(_, t)| t.map(|t| t.term)).collect();
                assert_eq!(linked.len(), terms.len(), "{} step {}", lesson.id, i + 1);
                for term in linked {
                    assert!(seen.insert(term), "{} links {term} twice", lesson.id);
                }
            }
        }
    }

    /// The sinks lesson names "BOS" from its second step on: the glossary says what it is,
    /// and the step links it.
    #[test]
    fn bos_has_an_entry_linked_where_the_sinks_lesson_first_uses_it() {
        let sinks = lessons().into_iter().find(|l| l.id == "sinks").unwrap();
        let uses = first_uses(&sinks);
        let (term, step, (a, b)) = uses.iter().find(|(t, _, _)| t.term == "BOS").expect("a BOS entry");
        assert_eq!(*step, 1);
        assert!(term.meaning.starts_with("Beginning of sequence"));
        let text = (sinks.steps[1].narrate)(&sinks.trace(1));
        assert_eq!(&text[*a..*b], "BOS");
        let linked: Vec<&str> = segments(&text, &first_used_in(&sinks, 1))
            .iter()
            .filter_map(|(w, t)| t.filter(|t| t.term == "BOS").map(|_| *w))
            .collect();
        assert_eq!(linked, ["BOS"]);
    }

    /// "score" links to q·k (scaled): no lesson calls another number a score, neither the
    /// induction heads' mean weight on their key nor the learn lesson's outputs read as
    /// logits, so the linked first use of "score" in each lesson means q·k.
    #[test]
    fn every_score_the_words_link_is_a_query_dotted_with_a_key() {
        let score = GLOSSARY.iter().find(|t| t.term == "score").unwrap();
        let first = |id: &str| {
            let lesson = lessons().into_iter().find(|l| l.id == id).unwrap();
            first_uses(&lesson).into_iter().find(|(t, _, _)| t.term == score.term).map(|(_, s, _)| s)
        };
        // the induction lesson has no q·k to name; the learn lesson's first is step 3's
        assert_eq!(first("induction"), None);
        assert_eq!(first("learn"), Some(2));
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let text = (step.narrate)(&run(&step.scenario).unwrap()).to_lowercase();
                for other in ["induction score", "its score stays", "score per meaning", "scored every"] {
                    assert!(!text.contains(other), "{} step {}: \"{other}\" in {text}", lesson.id, i + 1);
                }
            }
            // the check-yourself questions and their answers' reasons too
            for q in crate::lessons::check::check_yourself(lesson.id) {
                let text = format!("{} {}", q.question, q.why).to_lowercase();
                assert!(!text.contains("induction score"), "{} check: {text}", lesson.id);
            }
        }
    }

    #[test]
    fn every_lesson_links_its_first_uses_and_the_first_lesson_names_query_key_value() {
        for lesson in lessons() {
            let uses = first_uses(&lesson);
            assert!(!uses.is_empty(), "{}", lesson.id);
            for (term, step, (a, b)) in uses {
                let t = lesson.trace(step);
                let text = (lesson.steps[step].narrate)(&t);
                assert!(term.forms.contains(&&text[a..b]), "{} {}: {}", lesson.id, term.term, &text[a..b]);
            }
        }
        let first = first_uses(&lessons()[0]);
        for name in ["query", "key", "value"] {
            assert!(first.iter().any(|(t, step, _)| t.term == name && *step == 0), "{name}");
        }
    }
}
