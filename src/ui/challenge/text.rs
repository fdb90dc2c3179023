//! Challenges mode's pure parts, in plain Rust: a solution's edits in words, "which
//! numbers made it work" from the engine's explanation, which weights a goal reads, the
//! editors' names and starting vectors, a typed number, the solved ids kept in
//! `localStorage`. Tested natively; the components are [`crate::ui::challenge::panel`],
//! [`crate::ui::challenge::editors`] and [`crate::ui::challenge::weights`].

use crate::challenges::{Edit, Goal, Matrix, Progress};
use crate::engine::{explain, top_terms, StepName, Trace};
use crate::format::{exact, reading};

/// The challenge list's heading.
pub const LIST_TITLE: &str = "Challenges: build the head yourself";

/// The two-layer challenge's line in the list, numbered after the `built_in` ones (whose
/// titles carry their numbers).
pub fn by_hand_title(built_in: usize) -> String {
    format!("{}. {}", built_in + 1, crate::challenges::induction::TITLE)
}

/// A training challenge's line in the list (numbered after the `built_in` built-in ones)
/// and its link, which opens the Learn view.
pub fn training_item(
    built_in: usize,
    i: usize,
    c: &crate::challenges::training::TrainingChallenge,
) -> (String, String) {
    // after the built-in challenges and the two-layer one
    let title = format!("{}. {} (in the Learn view)", built_in + 2 + i, c.title);
    let href = format!("?learn={}&learn_challenge={}", c.start.task.name(), c.id);
    (title, href)
}

/// What index.html paints for a challenge link (`?challenge=ID`) before the WebAssembly
/// arrives: the list's heading, every built-in challenge's id, title and story, the
/// two-layer challenge's line and the training challenges' lines, as the app writes them. It is
/// `assets/challenge-words.json`, fetched from index.html's head for a challenge link; a
/// native test holds the file equal to this. The app takes the painted story paragraph
/// over in place (`platform::first_paint`), so the first paint's node is the one it keeps.
pub fn challenge_words_json() -> String {
    use serde_json::json;
    let built_in = crate::challenges::builtin::all();
    let training: Vec<_> = crate::challenges::training::all()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (title, href) = training_item(built_in.len(), i, c);
            json!({ "title": title, "href": href })
        })
        .collect();
    let challenges: Vec<_> =
        built_in.iter().map(|c| json!({ "id": c.id, "title": c.title, "story": c.story })).collect();
    let by_hand = json!({ "id": crate::challenges::induction::ID, "title": by_hand_title(built_in.len()) });
    format!(
        "{}\n",
        json!({ "list": LIST_TITLE, "challenges": challenges, "by_hand": by_hand, "training": training })
    )
}

/// The query word, key word, head and sentence a goal is about, for "which numbers made
/// it work".
fn pair(goal: &Goal) -> Option<(&str, &str, usize, usize)> {
    match goal {
        Goal::AttendMost { query, key, head, sentence }
        | Goal::WeightAtLeast { query, key, head, sentence, .. } => Some((query, key, *head, *sentence)),
        _ => None,
    }
}

/// One sentence naming the products that made the winning score, with the axes named
/// (the query's row, the key's column) and each product as its two numbers, or `None`
/// when the goal has no single winning pair.
pub fn why_it_works(goal: &Goal, trace: &Trace) -> Option<String> {
    let (q, k, head, b) = pair(goal)?;
    let toks = trace.query_tokens(b);
    let i = toks.iter().position(|t| t.eq_ignore_ascii_case(q))?;
    let j = trace.key_tokens(b).iter().position(|t| t.eq_ignore_ascii_case(k))?;
    if trace.mask.is_blocked(b, i, j) {
        return blocked_pair_works(trace, (q, k), head, b, i);
    }
    let e = explain(trace, StepName::Scores, &[b, head, i, j]).ok()?;
    let (terms, rest) = top_terms(&e, 3);
    let list: Vec<String> = terms
        .iter()
        .map(|t| {
            // the terms of a score are q[d] · k[d], one per number d of the head, in order
            let d = e.terms.iter().position(|x| std::ptr::eq(x, *t)).map_or(0, |d| d + 1);
            match t.operands.as_slice() {
                [a, c] => format!("number {d}: {} × {} = {}", exact(*a), exact(*c), exact(t.value)),
                _ => format!("{} = {}", t.label, exact(t.value)),
            }
        })
        .collect();
    let rest =
        if rest.abs() > 0.0 { format!(" (the other numbers add {})", exact(rest)) } else { String::new() };
    Some(format!(
        "Which numbers made it work: the score in query row \"{q}\", key column \"{k}\" is q · k = {} (before ÷ √d_k), the sum of {q}'s query times {k}'s key, number by number: {}{rest}.",
        exact(e.result),
        list.join("; ")
    ))
}

/// [`why_it_works`] for a blocked pair: the mask writes its fill there whatever q · k is,
/// so what moved the weight is the rest of the row, compared with the fill by softmax.
fn blocked_pair_works(
    trace: &Trace,
    (q, k): (&str, &str),
    head: usize,
    b: usize,
    i: usize,
) -> Option<String> {
    let masked = trace.step(StepName::Masked)?.matrix(b, head)?;
    let fill = trace.mask.fill_value;
    let keys = trace.key_tokens(b);
    let open: Vec<(usize, f64)> =
        (0..keys.len()).filter(|&j| !trace.mask.is_blocked(b, i, j)).map(|j| (j, masked[[i, j]])).collect();
    let scores = open
        .iter()
        .map(|(j, v)| format!("\"{q}\" → \"{}\" is {}", keys[*j], reading(*v)))
        .collect::<Vec<_>>()
        .join("; ");
    let blocked = format!(
        "Which numbers made it work: the score in query row \"{q}\", key column \"{k}\" is blocked, so the mask \
         writes the fill {} there whatever q · k is.",
        reading(fill)
    );
    let rest = if open.is_empty() {
        "Every key of the row is blocked, so every key gets the fill and the same weight.".to_owned()
    } else if open.iter().all(|(_, v)| *v < fill) {
        format!(
            "What moved the weight is the rest of the row, as softmax reads it: {scores}, {}below the fill, so \
             softmax gives \"{k}\" more weight than any key the mask leaves open.",
            if open.len() > 1 { "all " } else { "" }
        )
    } else {
        format!(
            "What moved the weight is the rest of the row, as softmax reads it: {scores}, against the fill."
        )
    };
    Some(format!("{blocked} {rest}"))
}

/// A worked solution's edit in words: "mat = [1, 0, 0]", "W_Q = [[…], …]", "positions: on (sinusoidal)".
pub fn edit_words(edit: &Edit) -> String {
    let nums = |v: &[f64]| v.iter().map(|x| exact(*x)).collect::<Vec<_>>().join(", ");
    match edit {
        Edit::Embedding { word, vector } => format!("{word} = [{}]", nums(vector)),
        Edit::Matrix { matrix, rows } => format!(
            "{} = [{}]",
            matrix.label(),
            rows.iter().map(|r| format!("[{}]", nums(r))).collect::<Vec<_>>().join(", ")
        ),
        Edit::Positions { positional } => {
            format!("positions: {}", if positional.is_none() { "off" } else { "on (sinusoidal)" })
        }
        Edit::Mask { mask } => format!("mask: causal {}, padding {}", mask.causal, mask.padding.name()),
    }
}

/// The sentence and the heads whose weights the goal reads (head 0 for the goals that
/// read every head or the output).
pub fn weights_shown(goal: &Goal) -> (usize, Vec<usize>) {
    match goal {
        Goal::HeadsDiffer { heads, sentence, .. } => (*sentence, heads.to_vec()),
        Goal::AttendMost { head, sentence, .. }
        | Goal::WeightAtLeast { head, sentence, .. }
        | Goal::WeightAtMost { head, sentence, .. }
        | Goal::PreviousToken { head, sentence, .. } => (*sentence, vec![*head]),
        Goal::UniformRows { sentence, .. } | Goal::OutputEquals { sentence, .. } => (*sentence, vec![0]),
    }
}

/// A weight of the goal's table as printed: with the decimals the goal's words quote it
/// at (more than two where two would print the numbers the verdict compares alike), else
/// two, as everywhere in the challenges.
pub fn weight_text(progress: Option<&Progress>, head: usize, query: usize, key: usize, w: f64) -> String {
    progress.map_or_else(|| crate::challenges::goal::num(w), |p| p.weight_text(head, query, key, w))
}

/// A matrix's name in `data-matrix`: "w_q", "w_k", "w_v", "w_o".
pub fn matrix_name(m: Matrix) -> String {
    format!("{m:?}").to_lowercase().replace("w", "w_")
}

/// The name of coordinate `d` of a `d_model`-wide embedding: the lexicon's feature
/// ("sports", …) when there is one, else "d1", "d2", …
pub fn dim_name(d_model: usize, d: usize) -> String {
    crate::engine::embedding::lexicon(d_model)
        .and_then(|l| l.dims.get(d).map(|n| n.to_string()))
        .unwrap_or_else(|| format!("d{}", d + 1))
}

/// The embedding the trace gave `word` (its first occurrence, any case), for an editor
/// of a word the scenario has no explicit vector for.
pub fn trace_vector(t: &Trace, word: &str) -> Option<Vec<f64>> {
    let b = t.tokens.iter().position(|r| r.iter().any(|x| x.eq_ignore_ascii_case(word)))?;
    let i = t.tokens[b].iter().position(|x| x.eq_ignore_ascii_case(word))?;
    let x = t.step(StepName::X)?.matrix(b, 0)?;
    Some(x.row(i).to_vec())
}

/// One table of what goes into the head, for the challenge's tables: its caption, its
/// row labels (the sentence's tokens, or positions), its column labels (the embedding's
/// coordinates) and its numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct InputTable {
    /// What it shows, e.g. "x: each token's embedding".
    pub caption: String,
    /// One label a row.
    pub rows: Vec<String>,
    /// One label a column.
    pub cols: Vec<String>,
    /// Row by row.
    pub values: Vec<Vec<f64>>,
}

/// What goes into the head for sentence `b`, read from the trace: every token's embedding
/// `x` (the ones the learner cannot edit too, e.g. cat's in "make the cat look at the
/// mat"), and when positions are on, the positional encoding `PE` and the sum `x + PE`
/// that the projections read.
pub fn input_tables(t: &Trace, b: usize) -> Vec<InputTable> {
    let tokens = t.query_tokens(b).to_vec();
    let table = |step: StepName, caption: &str, rows: Vec<String>| {
        let m = t.step(step)?.matrix(b, 0)?;
        let n = m.nrows().min(rows.len());
        Some(InputTable {
            caption: caption.to_string(),
            rows: rows[..n].to_vec(),
            cols: (0..m.ncols()).map(|d| dim_name(m.ncols(), d)).collect(),
            values: m.outer_iter().take(n).map(|r| r.to_vec()).collect(),
        })
    };
    let positions: Vec<String> = (0..tokens.len()).map(|p| format!("pos {p} ({})", tokens[p])).collect();
    [
        table(StepName::X, "x: each token's embedding", tokens.clone()),
        table(StepName::Pe, "PE: what each position adds (positions from 0)", positions),
        table(StepName::XPe, "x + PE: what W_Q, W_K and W_V read", tokens),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The solved ids stored as text, one a line (empty lines skipped).
pub fn solved_ids(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenges::builtin;
    use crate::challenges::Challenge;
    use crate::engine::{run, MaskConfig, Positional};

    /// A built-in challenge, its solved trace, and why the solution works there.
    fn solved(id: &str) -> (Challenge, Trace, String) {
        let c = builtin::by_id(id).unwrap();
        let t = run(&c.solved_scenario()).unwrap();
        let why = why_it_works(&c.goal, &t).unwrap();
        (c, t, why)
    }

    /// `assets/challenge-words.json` is the app's challenge list and stories
    /// (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes it).
    /// Every challenge's heading carries the number the list gives it: the built-in ones in
    /// their titles, the two-layer one and the training ones after them.
    #[test]
    fn every_challenge_heading_has_the_lists_number() {
        let built_in = builtin::all();
        for (i, c) in built_in.iter().enumerate() {
            assert!(c.title.starts_with(&format!("{}. ", i + 1)), "{}", c.title);
        }
        let n = built_in.len();
        assert!(by_hand_title(n).starts_with(&format!("{}. ", n + 1)));
        for (i, c) in crate::challenges::training::all().iter().enumerate() {
            let (item, _) = training_item(n, i, c);
            let number = item.split('.').next().unwrap();
            assert_eq!(crate::challenges::training::heading(c), format!("Challenge {number}: {}", c.title));
        }
    }

    #[test]
    fn first_screen_challenge_words_are_the_apps() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/challenge-words.json");
        let json = challenge_words_json();
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(path, &json).unwrap();
        }
        assert!(
            std::fs::read_to_string(path).is_ok_and(|have| have == json),
            "assets/challenge-words.json is not the app's: run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
        // every built-in challenge, its story as the panel writes it
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        let all = builtin::all();
        assert_eq!(parsed["challenges"].as_array().unwrap().len(), all.len());
        for (c, got) in all.iter().zip(parsed["challenges"].as_array().unwrap()) {
            assert_eq!(got["id"], c.id.as_str());
            assert_eq!(got["story"], c.story.as_str());
        }
        assert_eq!(parsed["training"].as_array().unwrap().len(), crate::challenges::training::all().len());
    }

    #[test]
    fn the_winning_pair_is_explained_by_its_products() {
        let (_, t, why) = solved("cat-mat");
        assert_eq!(
            why,
            "Which numbers made it work: the score in query row \"cat\", key column \"mat\" is q · k = 6 \
             (before ÷ √d_k), the sum of cat's query times mat's key, number by number: number 2: 2 × 3 = 6; \
             number 1: 0 × 0 = 0; number 3: 0 × 0 = 0."
        );
        assert!(why.contains("cat's query times mat's key") && why.ends_with('.'), "{why}");
        // a goal without one winning pair has no such sentence
        let uniform = builtin::by_id("uniform").unwrap();
        assert_eq!(why_it_works(&uniform.goal, &t), None);
        // a word the trace does not hold: none
        let other = Goal::AttendMost { query: "cat".into(), key: "dog".into(), head: 0, sentence: 0 };
        assert_eq!(why_it_works(&other, &t), None);
    }

    #[test]
    fn a_blocked_pair_is_explained_by_the_rest_of_its_row() {
        // fill-leak: "second" is blocked for "first"; its q · k is 0 and beside the point
        let (c, _, why) = solved("fill-leak");
        assert_eq!(
            why,
            "Which numbers made it work: the score in query row \"first\", key column \"second\" is blocked, so \
             the mask writes the fill -1e9 there whatever q · k is. What moved the weight is the rest of the row, \
             as softmax reads it: \"first\" → \"first\" is -7.0711e9, below the fill, so softmax gives \"second\" \
             more weight than any key the mask leaves open."
        );
        // the unsolved start: the open score is above the fill
        let t = run(&c.scenario).unwrap();
        let why = why_it_works(&c.goal, &t).unwrap();
        assert!(why.ends_with("\"first\" → \"first\" is 0.7071, against the fill."), "{why}");
    }

    /// Challenge 1 with "mat" given an animal number just above cat's 2: cat puts a hair
    /// more on "mat" than on itself, so the goal is met, though the two weights print
    /// alike at two decimals. The goal's words and the weights table quote the two with the decimals
    /// that tell them apart, the same digits in both.
    #[test]
    fn a_near_tie_is_quoted_with_the_digits_that_decide_it() {
        let c = builtin::by_id("cat-mat").unwrap();
        let s = crate::challenges::apply(
            &c.scenario,
            &Edit::Embedding { word: "mat".into(), vector: vec![0.0, 2.001, 0.0] },
        );
        let t = run(&s).unwrap();
        let p = c.goal.check(&t);
        assert!(p.met, "{}", p.words);
        let w = t.step(StepName::Weights).unwrap().matrix(0, 0).unwrap();
        let toks = t.query_tokens(0);
        let cat = toks.iter().position(|x| x == "cat").unwrap();
        let mat = toks.iter().position(|x| x == "mat").unwrap();
        let (on_mat, on_cat) = (w[[cat, mat]], w[[cat, cat]]);
        assert_eq!(crate::challenges::goal::num(on_mat), crate::challenges::goal::num(on_cat));
        let (_, heads) = weights_shown(&c.goal);
        let cell = |j: usize| weight_text(Some(&p), heads[0], cat, j, w[[cat, j]]);
        assert_ne!(cell(mat), cell(cat), "the table prints the two alike");
        assert_eq!(
            p.words,
            format!(
                "query cat → key mat: {}; the most on another key is {} (on \"cat\")",
                cell(mat),
                cell(cat)
            )
        );
        // the rest of the table keeps two decimals
        let sat = toks.iter().position(|x| x == "sat").unwrap();
        assert_eq!(cell(sat), crate::challenges::goal::num(w[[cat, sat]]));
    }

    #[test]
    fn edits_in_words() {
        let e = |edit: Edit| edit_words(&edit);
        assert_eq!(
            e(Edit::Embedding { word: "mat".into(), vector: vec![1.0, 0.5, -2.0] }),
            "mat = [1, 0.5, -2]"
        );
        assert_eq!(
            e(Edit::Matrix { matrix: Matrix::WK, rows: vec![vec![1.0, 0.0], vec![0.0, 1.0]] }),
            "W_K = [[1, 0], [0, 1]]"
        );
        assert_eq!(e(Edit::Positions { positional: Positional::None }), "positions: off");
        assert_eq!(e(Edit::Positions { positional: Positional::Sinusoidal }), "positions: on (sinusoidal)");
        let mask = MaskConfig::default();
        assert_eq!(
            e(Edit::Mask { mask }),
            format!("mask: causal {}, padding {}", mask.causal, mask.padding.name())
        );
        // every built-in solution can be said
        for c in builtin::all() {
            assert!(c.solution.iter().all(|s| !edit_words(s).is_empty()), "{}", c.id);
        }
    }

    #[test]
    fn the_weights_shown_are_the_goals_heads() {
        let g = Goal::HeadsDiffer { query: "a".into(), heads: [1, 3], sentence: 2 };
        assert_eq!(weights_shown(&g), (2, vec![1, 3]));
        let g = Goal::WeightAtMost { query: "a".into(), key: "b".into(), at_most: 0.1, head: 2, sentence: 1 };
        assert_eq!(weights_shown(&g), (1, vec![2]));
        assert_eq!(weights_shown(&Goal::UniformRows { tol: 0.01, sentence: 1 }), (1, vec![0]));
        assert_eq!(
            weights_shown(&Goal::OutputEquals { token: "a".into(), tol: 0.01, sentence: 0 }),
            (0, vec![0])
        );
    }

    #[test]
    fn editor_names() {
        let names: Vec<String> = Matrix::ALL.into_iter().map(matrix_name).collect();
        assert_eq!(names, ["w_q", "w_k", "w_v", "w_o"]);
        assert_eq!(dim_name(3, 1), "animal");
        assert_eq!(dim_name(3, 5), "d6");
        assert_eq!(dim_name(5, 0), "d1");
    }

    #[test]
    fn a_words_vector_comes_from_the_trace() {
        let c = builtin::by_id("cat-mat").unwrap();
        let t = run(&c.scenario).unwrap();
        let x = t.step(StepName::X).unwrap().matrix(0, 0).unwrap();
        let cat = t.tokens[0].iter().position(|w| w == "cat").unwrap();
        assert_eq!(trace_vector(&t, "CAT"), Some(x.row(cat).to_vec()));
        assert_eq!(trace_vector(&t, "dog"), None);
    }

    #[test]
    fn the_inputs_show_every_tokens_vector_and_the_positions() {
        // cat-mat: cat's vector is shown, though only mat's can be edited
        let c = builtin::by_id("cat-mat").unwrap();
        let t = run(&c.scenario).unwrap();
        let tables = input_tables(&t, 0);
        assert_eq!(tables.len(), 1, "no positions: x only");
        let x = &tables[0];
        assert_eq!(x.cols, ["sports", "animal", "other"]);
        let cat = x.rows.iter().position(|r| r == "cat").unwrap();
        assert_eq!(x.values[cat], [0.0, 2.0, 0.0]);
        // previous-token with the positions on: PE and x + PE, as the engine computed them
        let c = builtin::by_id("previous-token").unwrap();
        let t = run(&c.solved_scenario()).unwrap();
        let tables = input_tables(&t, 0);
        assert_eq!(tables.len(), 3);
        assert!(tables[1].caption.starts_with("PE") && tables[2].caption.starts_with("x + PE"));
        assert_eq!(tables[1].rows[1], "pos 1 (two)");
        assert_eq!(tables[1].values[1], [1f64.sin(), 1f64.cos()]);
        assert_eq!(tables[2].values, tables[1].values, "every word is [0, 0]: x + PE = PE");
    }

    #[test]
    fn stored_ids() {
        assert_eq!(solved_ids("cat-mat\n\nuniform\n"), ["cat-mat", "uniform"]);
        assert!(solved_ids("").is_empty());
    }
}
