//! Guided lessons: each step is a scenario for the engine, the trace step to look at,
//! and words written from the trace's own numbers (so an edit updates the words too).
//!
//! Pure Rust, no web dependency: the page renders these, the tests check that every
//! number a lesson states is one the engine computed.

//! One file per lesson, each with its own constants and tests:
//! [`baseball_bat`] (seed 003), [`heads`] (seed 002), [`masks`] (seeds 000–002),
//! [`shapes`] (seeds 000, 002), [`cross`] (seeds 001, 003), [`word_order`] (seed 000's
//! positional encoding), and the later ones after them in [`lessons`].
//!
//! Beside them: the step model (`step.rs`: [`LessonStep`] and its builder, [`Cell`],
//! [`Lesson`]; `extra.rs`: [`Extra`]), the asides (`aside.rs`), the numbers a picture shows and the
//! words quote (`numbers.rs`), the edits carried from step to step (`edits.rs`); this file
//! has the registry ([`lessons`]) and the helpers the lesson files share.

use crate::engine::trace::shape_text;
use crate::engine::{ProjectionKind, Projections, Scenario, StepName, Trace};

mod aside;
mod cell;
pub mod claims;
#[cfg(test)]
mod counting;
mod edits;
mod extra;
mod numbers;
mod step;

pub mod baseball_bat;
pub mod check;
pub mod cross;
pub mod first_screen;
pub mod glossary;
pub mod gqa;
pub mod heads;
pub mod induction;
pub mod kv_cache;
pub mod labels;
pub mod learn;
pub mod local;
pub mod masks;
pub mod mla;
mod mla_cache;
pub mod online_softmax;
pub mod quiz;
pub mod range;
mod reorder;
pub mod rope;
pub mod shapes;
pub mod sinks;
pub mod sources;
pub mod word_order;

pub use aside::{matrix_aside, no_aside, row_aside, Aside, MakeAside};
pub use claims::{compare, Claim, Quantity};
pub use edits::{carry_edits, edited_vectors};
pub use extra::Extra;
pub use numbers::{
    hide_numbers, picture_numbers, position_similarity, quoted_numbers, same_place_tile, tile_index,
    unbreakable, HIDDEN_NUMBER,
};
pub use quiz::{Quiz, QuizKind, Verdict};
pub use step::{cell, meta_line, no_highlight, row_cells, AtBlock, Cell, Lesson, LessonStep, WHILE_GUESSING};

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

/// `s` with its first letter in upper case.
pub(crate) fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

pub(crate) fn token(trace: &Trace, b: usize, i: usize) -> String {
    trace.tokens.get(b).and_then(|r| r.get(i)).cloned().unwrap_or_default()
}

/// Tokens `i` and `j` of sentence `b` have the same input vector (row of x): the toy
/// lexicons give some words one vector ("the" and "on"), which makes their rows alike.
pub fn same_input(trace: &Trace, b: usize, i: usize, j: usize) -> bool {
    trace
        .step(StepName::X)
        .and_then(|x| x.matrix(b, 0))
        .is_some_and(|x| i != j && i < x.nrows() && j < x.nrows() && x.row(i) == x.row(j))
}

/// The key that gets the most of row `i`'s weight in head `head` (the first of keys that
/// tie): [`Trace::top_keys`].
pub fn argmax(trace: &Trace, b: usize, head: usize, i: usize) -> Option<usize> {
    trace.top_keys(b, head, i).first().copied()
}

pub(crate) fn base(sentences: &[&str], d_model: usize, n_heads: usize) -> Scenario {
    Scenario::identity(sentences, d_model, n_heads)
}

/// [`base`] on seeded weights (Xavier uniform), drawn with `seed`.
pub(crate) fn seeded(sentences: &[&str], d_model: usize, n_heads: usize, seed: u64) -> Scenario {
    let mut s = base(sentences, d_model, n_heads);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.seed = seed;
    s
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
        kv_cache::lesson(),
        online_softmax::lesson(),
        sinks::lesson(),
        range::lesson(),
        mla::lesson(),
        learn::lesson(),
        induction::lesson(),
    ]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::run;
    use crate::lessons::quiz::QuizKind;
    use std::collections::BTreeMap;

    /// Step `i`'s words on its scenario after `edit` (a learner's change in "Change the
    /// numbers"), and the trace they were written for.
    pub(crate) fn words_after(
        lesson: &Lesson,
        i: usize,
        edit: &dyn Fn(&mut crate::engine::Scenario),
    ) -> (String, crate::engine::Trace) {
        let mut s = lesson.steps[i].scenario.clone();
        edit(&mut s);
        let t = run(&s).unwrap();
        (lesson.steps[i].words(&t), t)
    }

    #[test]
    fn every_step_runs_and_narrates_engine_numbers() {
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = run(&step.scenario).unwrap_or_else(|e| panic!("{} step {i}: {e}", lesson.id));
                assert!(trace.step(step.focus).is_some());
                let text = (step.narrate)(&trace);
                assert!(!text.is_empty() && !text.contains("[]"), "{}: {text}", lesson.id);
                for cell in (step.highlight)(&trace) {
                    assert!(
                        cell.is_in(&trace),
                        "{} step {i}: highlighted {cell:?} is not in the trace",
                        lesson.id
                    );
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
                missing.extend(
                    step_numbers_missing(step).into_iter().map(|(what, n)| (lesson.id, i + 1, what, n)),
                );
            }
        }
        missing
    }

    /// The numbers `step`'s words (as the page shows them, [`LessonStep::words`]) or its
    /// revealed answer quote that its picture lacks, for the step's own scenario.
    fn step_numbers_missing(step: &LessonStep) -> Vec<(&'static str, String)> {
        let mut missing = Vec::new();
        let trace = run(&step.scenario).unwrap();
        let shown = picture_numbers(step, step.focus, &trace);
        let mut said = quoted_numbers(&step.words(&trace));
        if let Some(quiz) = step.quiz {
            said.extend(quoted_numbers(&(quiz.question)(&trace)));
        }
        missing.extend(said.into_iter().filter(|n| !shown.contains(n)).map(|n| ("words", n)));
        let Some(quiz) = step.quiz else { return missing };
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
        missing.extend(
            quoted_numbers(&why.unwrap_or_default())
                .into_iter()
                .filter(|n| !revealed.contains(n))
                .map(|n| ("reveal", n)),
        );
        missing
    }

    /// Whether every number `step`'s words quote for `trace` is in its aside table, a cell
    /// or its caption (the steps whose maps are drawn too small to print the numbers their
    /// words quote).
    fn aside_holds_the_quoted(step: &LessonStep, trace: &Trace) -> bool {
        let Some(aside) = (step.aside)(trace) else { return false };
        let mut cells = quoted_numbers(&aside.caption);
        cells.extend(aside.rows.into_iter().flat_map(|r| r.1));
        quoted_numbers(&step.words(trace)).iter().all(|n| cells.contains(n))
    }

    /// A small seeded generator (xorshift64*), so the edits below are the same every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// The vectors a learner could edit at a step: every word of its sentences and key
    /// sentences, with the vector the engine gave it (the step's own, or the toy lexicon's,
    /// which an imported scenario or the explorer's editor turns into an explicit one).
    fn editable_vectors(scenario: &Scenario) -> BTreeMap<String, Vec<f64>> {
        let mut out = BTreeMap::new();
        let Ok(t) = run(scenario) else { return out };
        for (words, step) in
            [(&t.tokens, StepName::X), (t.kv_tokens.as_ref().unwrap_or(&Vec::new()), StepName::XKv)]
        {
            for (b, sentence) in words.iter().enumerate() {
                for (i, word) in sentence.iter().enumerate() {
                    let x = t.step(step).and_then(|s| s.matrix(b, 0));
                    if let Some(x) = x.filter(|x| i < x.nrows() && word != "<pad>") {
                        out.entry(word.to_lowercase()).or_insert_with(|| x.row(i).to_vec());
                    }
                }
            }
        }
        out
    }

    /// A learner's edit as the page makes one: at step `from` of `lesson`, one or two of the
    /// step's vectors (its own or a word's toy vector) get a new number (halves in [-2, 2],
    /// as the vector fields and the drag give them), read back with [`edited_vectors`] as
    /// the page reads them.
    fn random_edit(lesson: &Lesson, rng: &mut Rng) -> BTreeMap<String, Vec<f64>> {
        let from = &lesson.steps[rng.below(lesson.steps.len())].scenario;
        let editable = editable_vectors(from);
        let words: Vec<&String> = editable.keys().collect();
        let mut now = from.embeddings.clone();
        for _ in 0..1 + rng.below(2) {
            let Some(word) = words.get(rng.below(words.len())) else { break };
            let v = now.entry(word.to_string()).or_insert_with(|| editable[*word].clone());
            let k = rng.below(v.len());
            v[k] = (rng.below(9) as f64 - 4.0) / 2.0;
        }
        edited_vectors(from, &now)
    }

    /// Every lesson step, on its own vectors and on randomly edited ones (twelve seeds per
    /// lesson, the edits carried into each step as Back and Next carry them): every number
    /// the words quote is in the picture, and every relation the words state holds, or the
    /// words say first that the learner's vectors changed the story and how to get it back.
    /// A step whose words are written for each case ([`LessonStep::each_case`]) never
    /// needs that note. A step whose aside table holds every number its words quote on its
    /// own vectors still does on edited ones.
    #[test]
    fn words_stay_true_under_edits() {
        let mut problems = Vec::new();
        let (mut checked, mut told) = (0, 0);
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = run(&step.scenario).unwrap();
                let mut failed: Vec<Claim> =
                    (step.claims)(&trace).into_iter().filter(|c| !c.holds(&trace)).collect();
                if let Ok(d) = crate::engine::decode(&step.scenario) {
                    failed.extend((step.decoded_claims)(&d, &trace).into_iter().filter(|c| !c.holds(&trace)));
                }
                if !failed.is_empty() {
                    problems.push(format!("{} step {}, own vectors: {failed:?}", lesson.id, i + 1));
                }
            }
            for seed in 1..=12u64 {
                let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ lesson.id.len() as u64);
                let edits = random_edit(&lesson, &mut rng);
                for (i, step) in lesson.steps.iter().enumerate() {
                    let edited = LessonStep { scenario: carry_edits(&step.scenario, &edits), ..step.clone() };
                    let Ok(trace) = run(&edited.scenario) else { continue };
                    checked += 1;
                    let words = edited.words(&trace);
                    if !edited.claims_hold(&trace) {
                        told += 1;
                        if step.each_case {
                            problems.push(format!(
                                "{} step {}, {edits:?}: words written for each case state a false claim",
                                lesson.id,
                                i + 1
                            ));
                        }
                        if !words.starts_with(claims::STORY_CHANGED) {
                            problems.push(format!(
                                "{} step {}, {edits:?}: a false claim unsaid",
                                lesson.id,
                                i + 1
                            ));
                        }
                    }
                    if let Extra::Decode { .. } = step.extra {
                        let decoded = crate::engine::decode(&edited.scenario);
                        let failed: Vec<Claim> = decoded
                            .map(|d| (step.decoded_claims)(&d, &trace))
                            .unwrap_or_default()
                            .into_iter()
                            .filter(|c| !c.holds(&trace))
                            .collect();
                        if !failed.is_empty() {
                            problems.push(format!(
                                "{} step {}, {edits:?}: the decoded run's claims fail: {failed:?}",
                                lesson.id,
                                i + 1
                            ));
                        }
                    }
                    if aside_holds_the_quoted(step, &run(&step.scenario).unwrap())
                        && !aside_holds_the_quoted(&edited, &trace)
                    {
                        problems.push(format!(
                            "{} step {}, {edits:?}: a quoted number left the aside table",
                            lesson.id,
                            i + 1
                        ));
                    }
                    for (what, n) in step_numbers_missing(&edited) {
                        problems.push(format!("{} step {}, {edits:?}: {what} quote {n}", lesson.id, i + 1));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
        assert!(checked > 1000, "{checked}");
        // the note is for words written for the lesson's own vectors, not the usual case
        assert!(told * 4 < checked, "{told} of {checked}");
    }

    /// The phrases `words` quotes ("…" and “…”), as they are written.
    fn quoted_phrases(words: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (open, close) in [('"', '"'), ('“', '”')] {
            let mut rest = words;
            while let Some(a) = rest.find(open) {
                let after = &rest[a + open.len_utf8()..];
                let Some(b) = after.find(close) else { break };
                out.push(after[..b].to_string());
                rest = &after[b + close.len_utf8()..];
            }
        }
        out
    }

    /// The sentences of `t` (queries and keys) as the page writes them, lower case, pads
    /// left out.
    fn sentence_texts(t: &Trace) -> Vec<String> {
        let mut all: Vec<&Vec<String>> = t.tokens.iter().collect();
        all.extend(t.kv_tokens.iter().flatten());
        all.iter()
            .map(|s| {
                s.iter().filter(|w| *w != "<pad>").map(|w| w.to_lowercase()).collect::<Vec<_>>().join(" ")
            })
            .collect()
    }

    /// Whether `phrase` is in one of `sentences`, word for word.
    fn in_sentences(phrase: &str, sentences: &[String]) -> bool {
        let p = format!(" {} ", phrase.to_lowercase());
        sentences.iter().any(|s| format!(" {s} ").contains(&p))
    }

    /// The learner's sentence edits in "Change the numbers": the first sentence one word
    /// shorter, one word longer, the sentences in the other order, and the first sentence
    /// made the longest.
    fn sentence_edits(s: &Scenario) -> Vec<(&'static str, Scenario)> {
        let mut out = Vec::new();
        let first = s.sentences.first().cloned().unwrap_or_default();
        let words: Vec<&str> = first.split_whitespace().collect();
        if words.len() > 1 {
            let mut e = s.clone();
            e.sentences[0] = words[..words.len() - 1].join(" ");
            out.push(("the first sentence one word shorter", e));
        }
        let mut e = s.clone();
        if let Some(f) = e.sentences.first_mut() {
            f.push_str(" dog");
            out.push(("the first sentence one word longer", e));
        }
        if s.sentences.len() > 1 {
            let mut e = s.clone();
            e.sentences.swap(0, 1);
            out.push(("the sentences swapped", e));
            let longest = s.sentences.iter().map(|x| x.split_whitespace().count()).max().unwrap_or(0);
            let mut e = s.clone();
            e.sentences[0] = format!("{first}{}", " dog".repeat(longest + 1 - words.len()));
            out.push(("the first sentence made the longest", e));
        }
        out
    }

    /// Every lesson step after the sentence edits a learner makes in "Change the
    /// numbers": every relation the words state holds, or the words say first that the
    /// edits changed the story; and no sentence or word they quote is one the edit took
    /// away (words that quote "this is a sample sequence" after the learner changed it).
    #[test]
    fn words_stay_true_when_the_sentences_change() {
        let mut problems = Vec::new();
        let mut checked = 0;
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let Ok(own) = run(&step.scenario) else { continue };
                let own_sentences = sentence_texts(&own);
                let own_words = step.words(&own);
                for (edit, scenario) in sentence_edits(&step.scenario) {
                    let edited = LessonStep { scenario, ..step.clone() };
                    let Ok(trace) = run(&edited.scenario) else { continue };
                    checked += 1;
                    let words = edited.words(&trace);
                    if words.starts_with(claims::STORY_CHANGED)
                        || words.starts_with(claims::SENTENCES_CHANGED)
                    {
                        continue;
                    }
                    if !edited.claims_hold(&trace) {
                        problems.push(format!("{} step {}, {edit}: a false claim unsaid", lesson.id, i + 1));
                    }
                    for gap in ["NaN", "[]"] {
                        if words.contains(gap) && !own_words.contains(gap) {
                            problems.push(format!(
                                "{} step {}, {edit}: quotes {gap} for a word the edit moved: {words}",
                                lesson.id,
                                i + 1
                            ));
                        }
                    }
                    let now = sentence_texts(&trace);
                    for q in quoted_phrases(&words) {
                        if in_sentences(&q, &own_sentences) && !in_sentences(&q, &now) {
                            problems.push(format!(
                                "{} step {}, {edit}: quotes \"{q}\", which the edit took away: {words}",
                                lesson.id,
                                i + 1
                            ));
                        }
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{} problems: {problems:#?}", problems.len());
        assert!(checked > 100, "{checked}");
    }

    /// What the page shows beside a step's words after the learner's sentence edits: when
    /// the sentences no longer fit the step, no outlined cell, table or question quotes the
    /// old places; when they fit, the table and question quote no NaN, `[]` or sentence the
    /// step's own did not.
    #[test]
    fn the_table_outlines_and_question_follow_the_sentences_or_are_left_out() {
        let mut problems = Vec::new();
        let mut left_out = 0;
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let Ok(own) = run(&step.scenario) else { continue };
                let own_sentences = sentence_texts(&own);
                let shown = |s: &LessonStep, t: &Trace| {
                    let mut out: Vec<String> = s.quiz.map(|q| (q.question)(t)).into_iter().collect();
                    if let Some(a) = (s.aside)(t) {
                        out.push(a.caption);
                        out.extend(
                            a.rows.into_iter().flat_map(|(title, cells)| std::iter::once(title).chain(cells)),
                        );
                    }
                    out.join(" | ")
                };
                let own_shown = shown(step, &own);
                for (edit, scenario) in sentence_edits(&step.scenario) {
                    let edited = LessonStep { scenario, ..step.clone() };
                    let Ok(t) = run(&edited.scenario) else { continue };
                    let at = format!("{} step {}, {edit}", lesson.id, i + 1);
                    if !edited.fits(&t) {
                        left_out += 1;
                        if !edited.highlight_for(&t).is_empty()
                            || !edited.words(&t).starts_with(claims::SENTENCES_CHANGED)
                        {
                            problems.push(format!("{at}: unfit, but outlines cells or keeps its words"));
                        }
                        continue;
                    }
                    let now = shown(&edited, &t);
                    for gap in ["NaN", "[]"] {
                        if now.contains(gap) && !own_shown.contains(gap) {
                            problems.push(format!("{at}: its table or question shows {gap}: {now}"));
                        }
                    }
                    let sentences = sentence_texts(&t);
                    for q in quoted_phrases(&now) {
                        if in_sentences(&q, &own_sentences) && !in_sentences(&q, &sentences) {
                            problems.push(format!("{at}: its table or question quotes \"{q}\", gone: {now}"));
                        }
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{} problems: {problems:#?}", problems.len());
        assert!(left_out > 10, "{left_out}");
    }

    /// A shorter sentence has fewer rows: the outlines the step draws are those of its
    /// cells the trace still has (cross-attention's aligned pairs, "mat" gone).
    #[test]
    fn a_shorter_sentence_keeps_the_outlines_it_still_has() {
        let all = lessons();
        let cross = all.iter().find(|l| l.id == "cross").unwrap();
        let mut s = cross.steps[0].scenario.clone();
        let words: Vec<&str> = s.sentences[0].split_whitespace().collect();
        s.sentences[0] = words[..words.len() - 1].join(" ");
        let t = run(&s).unwrap();
        let (all_cells, kept) = ((cross.steps[0].highlight)(&t), cross.steps[0].highlight_for(&t));
        assert_eq!((all_cells.len(), kept.len()), (3, 2));
        assert!(kept.iter().all(|c| c.row < t.sizes.t));
    }

    /// The look's sentence edits: a word removed before the words a step quotes shows
    /// what the step needs instead of the numbers of the words now at those places; a
    /// sentence of the same length in another order keeps the tiles' words, true.
    #[test]
    fn a_moved_word_shows_what_the_step_needs_not_other_words_numbers() {
        let all = lessons();
        let find = |id: &str| all.iter().find(|l| l.id == id).unwrap();
        let cases: [(&str, usize, &str, &str); 3] = [
            (
                "why-heads",
                0,
                "The creek was cold and the dog wanted to jump over it",
                "“jump” at position 10",
            ),
            ("rope", 1, "bat ball and bat ball", "“ball” at position 5"),
            ("baseball-bat", 5, "I bought a new baseball bat", "a sentence of five words"),
        ];
        for (id, i, sentence, need) in cases {
            let (words, _) = words_after(find(id), i, &|s: &mut Scenario| s.sentences[0] = sentence.into());
            assert!(words.starts_with(claims::SENTENCES_CHANGED), "{id} {i}: {words}");
            assert!(words.contains(need), "{id} {i}: {words}");
            assert!(!words.contains("[]") && !words.contains("NaN"), "{id} {i}: {words}");
        }
        let swapped = |s: &mut Scenario| s.sentences[0] = "the mat sat on the cat".into();
        for i in 0..find("online-softmax").steps.len() {
            let (words, _) = words_after(find("online-softmax"), i, &swapped);
            assert!(!words.starts_with(claims::SENTENCES_CHANGED), "online-softmax {i}: {words}");
            assert!(
                !words.starts_with(claims::STORY_CHANGED) || i == 3 || i == 4,
                "online-softmax {i}: {words}"
            );
        }
    }

    /// The edit the look tried (bat's animal value set to 0.5): the words computed for
    /// each case say what is now true, with no note needed.
    #[test]
    fn the_baseball_words_follow_an_edit_to_bat() {
        let lesson = baseball_bat::lesson();
        let edits = BTreeMap::from([("bat".to_string(), vec![1.0, 0.5, 0.0])]);
        let say = |i: usize| {
            let step = LessonStep {
                scenario: carry_edits(&lesson.steps[i].scenario, &edits),
                ..lesson.steps[i].clone()
            };
            let t = run(&step.scenario).unwrap();
            assert!(step.claims_hold(&t), "step {}", i + 1);
            step.words(&t)
        };
        assert!(say(0).contains("\"bat\" is more sports than animal"), "{}", say(0));
        assert!(say(3).contains("its scaled score for \"baseball\" is the larger of its two"), "{}", say(3));
        assert!(!say(3).contains("equal"), "{}", say(3));
        // own vectors: the seed's story
        let own = |i: usize| lesson.narrated(i).1;
        assert!(own(0).contains("half sports, half animal"));
        assert!(own(3).contains("its two scaled scores are equal, so the weights are too"));
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

    /// The words point at what the picture shows by what it is, not where it is: presenter
    /// mode shows one head's map with the table beside it, the page every head with the
    /// table under the words, so "the first map" or "the table under the maps" is true in
    /// one of them only.
    #[test]
    fn the_words_do_not_depend_on_the_layout() {
        const WHERE: [&str; 8] = [
            "first map",
            "second map",
            "under the maps",
            "maps above",
            "map above",
            "tables below",
            "table below",
            "heads 1 and 2 above",
        ];
        let mut found = Vec::new();
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let text = (step.narrate)(&run(&step.scenario).unwrap());
                found.extend(
                    WHERE
                        .iter()
                        .filter(|w| text.contains(**w))
                        .map(|w| format!("{} step {}: {w}", lesson.id, i + 1)),
                );
            }
        }
        assert!(found.is_empty(), "{found:#?}");
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
                    ("see the dot products", matches!(extra, Extra::PositionSimilarity { .. })),
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

    #[test]
    fn hide_numbers_hides_every_number_quoted_numbers_reads() {
        assert_eq!(
            hide_numbers("QKᵀ = [1.00, -0.50] and √3 = 1.73, −0.25; step 4, d_k = 2, torch 2.15"),
            "QKᵀ = […, …] and √3 = …, …; step 4, d_k = 2, torch 2.15"
        );
        assert_eq!(hide_numbers("no numbers"), "no numbers");
    }

    /// While the learner guesses a cell's value, no step's words, aside or question quote a
    /// number: the words as shown quote the picture's numbers (the asked one among them, in
    /// many steps), so all of them are hidden, and the words say why.
    #[test]
    fn while_guessing_the_words_name_no_number() {
        let mut giving_away = 0;
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let t = run(&step.scenario).unwrap();
                let at = format!("{} step {}", lesson.id, i + 1);
                let shown = picture_numbers(step, step.focus, &t);
                // without the guard: the words name a number the focus step's cards show
                if quoted_numbers(&step.words(&t)).iter().any(|n| shown.contains(n)) {
                    giving_away += 1;
                }
                let words = step.words_guessing(&t);
                assert!(words.starts_with(WHILE_GUESSING), "{at}: {words}");
                assert_eq!(quoted_numbers(&words), Vec::<String>::new(), "{at}: {words}");
                if let Some(aside) = (step.aside)(&t) {
                    let hidden = aside.hidden();
                    assert!(quoted_numbers(&hidden.caption).is_empty(), "{at}: {}", hidden.caption);
                    for (title, cells) in &hidden.rows {
                        for c in cells {
                            assert!(quoted_numbers(c).is_empty(), "{at}, {title}: {c}");
                        }
                    }
                }
                if let Some(quiz) = step.quiz {
                    let question = hide_numbers(&(quiz.question)(&t));
                    assert!(quoted_numbers(&question).is_empty(), "{at}: {question}");
                }
            }
        }
        assert!(giving_away > 20, "{giving_away}");
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
