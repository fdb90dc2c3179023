//! The built-in challenges, easy to hard. Each test below runs the engine on the start
//! (goal not met) and on the worked solution (goal met).

use std::collections::BTreeMap;

use super::{Challenge, Edit, Editable, Goal, Matrix};
use crate::engine::{Fill, MaskConfig, Padding, Positional, Scenario};

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| w.to_string()).collect()
}

fn emb(pairs: &[(&str, &[f64])]) -> BTreeMap<String, Vec<f64>> {
    pairs.iter().map(|(w, v)| (w.to_string(), v.to_vec())).collect()
}

fn e(word: &str, v: &[f64]) -> Edit {
    Edit::Embedding { word: word.into(), vector: v.to_vec() }
}

fn m(matrix: Matrix, rows: &[&[f64]]) -> Edit {
    Edit::Matrix { matrix, rows: rows.iter().map(|r| r.to_vec()).collect() }
}

fn hints(list: &[&str]) -> Vec<String> {
    words(list)
}

/// Every built-in challenge, easy to hard.
pub fn all() -> Vec<Challenge> {
    vec![
        cat_mat(),
        bat_baseball(),
        uniform(),
        output_equals(),
        ignore_pad(),
        two_heads(),
        previous_token(),
        fill_leak(),
        gqa_heads(),
    ]
}

/// The built-in challenge with this id.
pub fn by_id(id: &str) -> Option<Challenge> {
    all().into_iter().find(|c| c.id == id)
}

fn cat_mat() -> Challenge {
    let mut s = Scenario::identity(&["the cat sat on the mat"], 3, 1);
    s.mask = MaskConfig::default();
    Challenge {
        id: "cat-mat".into(),
        title: "1. Make the cat look at the mat".into(),
        story: "The embeddings live in a sports / animal / other space. Right now \"cat\" attends most to itself. Change only the embedding of \"mat\" so that \"cat\" attends most to \"mat\".".into(),
        scenario: s,
        editable: Editable { embeddings: words(&["mat"]), ..Editable::default() },
        goal: Goal::AttendMost { query: "cat".into(), key: "mat".into(), head: 0, sentence: 0 },
        hints: hints(&[
            "With identity projections the score of cat → mat is the dot product cat · mat, divided by √3.",
            "cat = [0, 2, 0]: only the animal number of \"mat\" counts. cat · cat = 4.",
            "Give \"mat\" an animal number above 2, e.g. [0, 3, 0].",
        ]),
        solution: vec![e("mat", &[0.0, 3.0, 0.0])],
        why: "cat · mat = 2 × 3 = 6 beats cat · cat = 4, so mat's score is the largest and softmax gives it the most weight.".into(),
    }
}

fn bat_baseball() -> Challenge {
    let mut s = Scenario::identity(&["I bought a baseball bat"], 3, 1);
    s.embeddings = emb(&[("baseball", &[0.0, 0.0, 1.0])]);
    Challenge {
        id: "bat-baseball".into(),
        title: "2. bat → baseball".into(),
        story: "Someone gave \"baseball\" the vector of a function word, [0, 0, 1]. Edit the embeddings of \"baseball\" and \"bat\" so that \"bat\" puts at least 0.60 of its weight on \"baseball\".".into(),
        scenario: s,
        editable: Editable { embeddings: words(&["baseball", "bat"]), ..Editable::default() },
        goal: Goal::WeightAtLeast { query: "bat".into(), key: "baseball".into(), at_least: 0.6, head: 0, sentence: 0 },
        hints: hints(&[
            "The score bat → baseball is bat · baseball / √3: the two vectors must point the same way.",
            "bat = [1, 1, 0] has a sports number: give baseball a sports number too.",
            "Making a score larger than the others is not enough for 0.60; make it much larger, e.g. baseball = [5, 0, 0].",
        ]),
        solution: vec![e("baseball", &[5.0, 0.0, 0.0])],
        why: "bat · baseball = 5 against bat · bat = 2 and 0 for the other words; after √3 and softmax, 0.74 of the weight goes to baseball.".into(),
    }
}

fn uniform() -> Challenge {
    Challenge {
        id: "uniform".into(),
        title: "3. Everyone looks everywhere".into(),
        story: "Make every weight equal to 1/T (here 1/6), by editing one matrix, W_Q. What does attention average then?".into(),
        scenario: Scenario::identity(&["the cat sat on the mat"], 3, 1),
        editable: Editable { matrices: vec![Matrix::WQ], ..Editable::default() },
        goal: Goal::UniformRows { tol: 1e-6, sentence: 0 },
        hints: hints(&[
            "Softmax gives equal weights when all the scores of a row are equal.",
            "The score is q · k, and q = x @ W_Q. What q is the same dot product with every key?",
            "Set every entry of W_Q to 0.",
        ]),
        solution: vec![m(Matrix::WQ, &[&[0.0; 3], &[0.0; 3], &[0.0; 3]])],
        why: "With W_Q = 0 every query is the zero vector, every score q · k is 0, and softmax of equal scores is 1/T: each output is the plain average of the values.".into(),
    }
}

fn output_equals() -> Challenge {
    Challenge {
        id: "output-equals".into(),
        title: "4. Keep the cat".into(),
        story: "Make the output row of \"cat\" equal to its own embedding, [0, 2, 0], within 0.01, by editing W_Q or W_K.".into(),
        scenario: Scenario::identity(&["the cat sat"], 3, 1),
        editable: Editable { matrices: vec![Matrix::WQ, Matrix::WK], ..Editable::default() },
        goal: Goal::OutputEquals { token: "cat".into(), tol: 0.01, sentence: 0 },
        hints: hints(&[
            "With identity W_V and W_O, cat's output is the weighted average of the embeddings.",
            "The average is cat's own vector when cat puts (almost) all its weight on itself.",
            "Make the scores sharper: multiply W_Q by 10 (10 on its diagonal).",
        ]),
        solution: vec![m(Matrix::WQ, &[&[10.0, 0.0, 0.0], &[0.0, 10.0, 0.0], &[0.0, 0.0, 10.0]])],
        why: "W_Q = 10·I multiplies every score by 10: cat → cat becomes 40/√3 = 23 against 10/√3 = 5.8 for sat, so cat keeps almost all its weight and its output is its own vector.".into(),
    }
}

fn ignore_pad() -> Challenge {
    let mut s = Scenario::identity(&["the bat flew", "bat"], 3, 1);
    s.mask = MaskConfig { padding: Padding::None, ..MaskConfig::default() };
    Challenge {
        id: "ignore-pad".into(),
        title: "5. Ignore <pad> without a mask".into(),
        story: "Sentence 2, \"bat\", is padded with two <pad> tokens to the length of sentence 1, and there is no padding mask. Without turning the mask on, make \"bat\" in sentence 2 put at most 0.05 on the <pad> keys, by editing W_Q.".into(),
        scenario: s,
        editable: Editable { matrices: vec![Matrix::WQ], ..Editable::default() },
        goal: Goal::WeightAtMost { query: "*".into(), key: "<pad>".into(), at_most: 0.05, head: 0, sentence: 1 },
        hints: hints(&[
            "<pad> is the zero vector, so its score is always 0. bat → bat scores 2/√3 = 1.15.",
            "e^1.15 ≈ 3.2 against 1 + 1 for the two pads: 0.39 on <pad>. Make bat's own score much larger.",
            "Multiply W_Q by 5.",
        ]),
        solution: vec![m(Matrix::WQ, &[&[5.0, 0.0, 0.0], &[0.0, 5.0, 0.0], &[0.0, 0.0, 5.0]])],
        why: "W_Q = 5·I lifts bat → bat to 5.8 while <pad> stays at 0, so the pads get e^-5.8 each. But this only works for this query: a query whose scores are negative would still give <pad> its weight. The padding mask sets the pad scores to -inf, so they get exactly 0 whatever the numbers: it is the right tool.".into(),
    }
}

fn two_heads() -> Challenge {
    let mut s = Scenario::identity(&["the bat flew"], 4, 2);
    s.embeddings = emb(&[
        ("the", &[0.0, 1.0, 0.0, 1.0]),
        ("bat", &[1.0, 0.0, 1.0, 0.0]),
        ("flew", &[1.0, 0.0, 1.0, 0.0]),
    ]);
    Challenge {
        id: "two-heads".into(),
        title: "6. Two heads, two views".into(),
        story: "d_model = 4 and h = 2: head 1 reads numbers 1–2 of each embedding, head 2 reads numbers 3–4. Edit the embeddings so that \"bat\" attends most to different words in the two heads.".into(),
        scenario: s,
        editable: Editable { embeddings: words(&["the", "bat", "flew"]), ..Editable::default() },
        goal: Goal::HeadsDiffer { query: "bat".into(), heads: [0, 1], sentence: 0 },
        hints: hints(&[
            "With identity projections, head 1's score is the dot product of the first halves, head 2's of the second halves.",
            "bat = [1, 0, 1, 0]. Give one word a big first half and another word a big second half.",
            "flew = [2, 0, 0, 0] and the = [0, 0, 2, 0].",
        ]),
        solution: vec![e("flew", &[2.0, 0.0, 0.0, 0.0]), e("the", &[0.0, 0.0, 2.0, 0.0])],
        why: "Head 1 sees bat · flew = 2 > bat · bat = 1; head 2 sees bat · the = 2 > 1. Each head looks at its own slice of the vectors.".into(),
    }
}

fn previous_token() -> Challenge {
    let mut s = Scenario::identity(&["one two three four five"], 2, 1);
    s.embeddings =
        ["one", "two", "three", "four", "five"].iter().map(|w| (w.to_string(), vec![0.0, 0.0])).collect();
    Challenge {
        id: "previous-token".into(),
        title: "7. A previous-token head".into(),
        story: "Every word here has the embedding [0, 0], so only positions can tell the tokens apart. Turn the positions on and edit W_Q (and W_K) so that every query after the first puts at least 0.5 on the token just before it (the first token has none).".into(),
        scenario: s,
        editable: Editable { matrices: vec![Matrix::WQ, Matrix::WK], positions: true, ..Editable::default() },
        goal: Goal::PreviousToken { at_least: 0.5, head: 0, sentence: 0 },
        hints: hints(&[
            "Turn the positions on: with d_model = 2, position p adds [sin p, cos p].",
            "Rotating [sin p, cos p] back by one radian gives [sin(p−1), cos(p−1)]: a W_Q that rotates makes q at p point at the key at p−1.",
            "W_Q = [[5.4, 8.4], [−8.4, 5.4]] is that rotation times 10 (cos 1 ≈ 0.54, sin 1 ≈ 0.84).",
        ]),
        solution: vec![
            Edit::Positions { positional: Positional::Sinusoidal },
            m(Matrix::WQ, &[&[5.4, 8.4], &[-8.4, 5.4]]),
        ],
        why: "q at position p is 10·[sin(p−1), cos(p−1)]: its dot product with the key of position p−1 is 10, with its neighbours 10·cos 1 = 5.4. After √2 and softmax the previous token wins.".into(),
    }
}

fn fill_leak() -> Challenge {
    let mut s = Scenario::identity(&["first second"], 2, 1);
    s.embeddings = emb(&[("first", &[1.0, 0.0]), ("second", &[0.0, 1.0])]);
    s.mask = MaskConfig::new(true, Padding::None, Fill::LargeNegative);
    Challenge {
        id: "fill-leak".into(),
        title: "8. Through the -1e9 wall".into(),
        story: "A causal mask blocks \"first\" from seeing \"second\", with the fill -1e9 instead of -inf. Make \"first\" put at least 0.5 on the blocked key \"second\", by editing the embeddings and W_K.".into(),
        scenario: s,
        editable: Editable { embeddings: words(&["first", "second"]), matrices: vec![Matrix::WK], ..Editable::default() },
        goal: Goal::WeightAtLeast { query: "first".into(), key: "second".into(), at_least: 0.5, head: 0, sentence: 0 },
        hints: hints(&[
            "The blocked score becomes -1e9. The only other key of \"first\" is itself: its score must fall below -1e9.",
            "With W_K = −I, first → first scores −(first · first)/√2.",
            "first = [100000, 0] and W_K = [[−1, 0], [0, −1]].",
        ]),
        solution: vec![e("first", &[100000.0, 0.0]), m(Matrix::WK, &[&[-1.0, 0.0], &[0.0, -1.0]])],
        why: "first → first scores −1e10/√2 ≈ −7e9, below the fill −1e9, so softmax gives the blocked key all the weight. With -inf as the fill this cannot happen: that is why the mask should use -inf.".into(),
    }
}

fn gqa_heads() -> Challenge {
    let mut s = Scenario::identity(&["the bat flew"], 4, 2);
    s.n_kv_heads = Some(1);
    s.embeddings = emb(&[
        ("the", &[0.0, 1.0, 0.0, 1.0]),
        ("bat", &[1.0, 0.0, 1.0, 0.0]),
        ("flew", &[0.5, -1.0, 0.5, -1.0]),
    ]);
    Challenge {
        id: "gqa-heads".into(),
        title: "9. One key head, two query heads".into(),
        story: "Grouped-query attention with h_kv = 1: both query heads share one key head (W_K is 4 × 2). Edit W_Q so that \"bat\" attends most to different words in head 1 and head 2.".into(),
        scenario: s,
        editable: Editable { matrices: vec![Matrix::WQ], ..Editable::default() },
        goal: Goal::HeadsDiffer { query: "bat".into(), heads: [0, 1], sentence: 0 },
        hints: hints(&[
            "The keys are the first two numbers of each embedding, for both heads: the = [0, 1], bat = [1, 0], flew = [0.5, −1].",
            "Head 1's query is columns 1–2 of x @ W_Q, head 2's is columns 3–4. bat's is [1, 0] in both.",
            "Swap two entries so that head 2's query of bat becomes [0, 1]: rows 3 and 4 of W_Q become [0, 0, 0, 1] and [0, 0, 1, 0].",
        ]),
        solution: vec![m(
            Matrix::WQ,
            &[&[1.0, 0.0, 0.0, 0.0], &[0.0, 1.0, 0.0, 0.0], &[0.0, 0.0, 0.0, 1.0], &[0.0, 0.0, 1.0, 0.0]],
        )],
        why: "Head 2's query of bat is now [0, 1]: its dot product with the's key [0, 1] is 1, with bat's [1, 0] is 0, so head 2 looks at \"the\" while head 1 still looks at \"bat\". Shared keys, different questions.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn every_start_fails_and_every_solution_meets_its_goal() {
        let all = all();
        assert!(all.len() >= 8);
        for c in &all {
            c.validate().unwrap_or_else(|e| panic!("{}: {e}", c.id));
            let start = c.goal.check(&run(&c.scenario).unwrap());
            assert!(!start.met, "{}: the start already meets the goal: {}", c.id, start.words);
            let solved = c.goal.check(&run(&c.solved_scenario()).unwrap());
            assert!(solved.met, "{}: the solution does not meet the goal: {}", c.id, solved.words);
            assert!(!solved.words.is_empty() && c.hints.len() <= 3 && !c.why.is_empty());
        }
    }

    #[test]
    fn solutions_edit_only_what_is_editable() {
        for c in all() {
            for edit in &c.solution {
                let ok = match edit {
                    Edit::Embedding { word, .. } => c.editable.embeddings.contains(word),
                    Edit::Matrix { matrix, .. } => c.editable.matrices.contains(matrix),
                    Edit::Positions { .. } => c.editable.positions,
                    Edit::Mask { .. } => c.editable.mask,
                };
                assert!(ok, "{}: {edit:?} is not editable", c.id);
            }
        }
    }

    #[test]
    fn each_goal_says_what_its_check_reads() {
        for c in all() {
            let said = c.goal.describe();
            // a goal on another sentence than the first names it
            let b = c.goal.sentence();
            assert_eq!(said.contains(&format!("in sentence {}", b + 1)), b > 0, "{}: {said}", c.id);
            assert!(
                c.story.contains(&said_query(&c.goal)),
                "{}: the story and the goal name other queries",
                c.id
            );
        }
        // the previous-token check skips the first query (it has no token before it), and
        // the words say so: the start's first row may put nothing on a previous token
        let c = by_id("previous-token").unwrap();
        assert!(c.goal.describe().starts_with("every query after the first"), "{}", c.goal.describe());
        assert!(c.story.contains("every query after the first"), "{}", c.story);
    }

    /// The query a goal reads as the story would write it.
    fn said_query(goal: &Goal) -> String {
        match goal {
            Goal::AttendMost { query, .. } | Goal::HeadsDiffer { query, .. } => format!("\"{query}\""),
            Goal::WeightAtLeast { query, .. } | Goal::WeightAtMost { query, .. } if query != "*" => {
                format!("\"{query}\"")
            }
            _ => String::new(),
        }
    }

    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<_> = all().into_iter().map(|c| c.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all().len());
    }

    #[test]
    fn progress_words_read_like_the_issue() {
        let c = by_id("bat-baseball").unwrap();
        let p = c.goal.check(&run(&c.scenario).unwrap());
        assert!(p.words.starts_with("query bat → key baseball: 0."), "{}", p.words);
        assert!(p.words.ends_with("of the 0.60 asked"), "{}", p.words);
        assert_eq!(p.asked, 0.6);
    }

    #[test]
    fn check_never_panics_on_odd_goals() {
        let t = run(&Scenario::identity(&["a b", "c"], 2, 1)).unwrap();
        let goals = [
            Goal::AttendMost { query: "zzz".into(), key: "a".into(), head: 0, sentence: 0 },
            Goal::AttendMost { query: "a".into(), key: "b".into(), head: 7, sentence: 0 },
            Goal::WeightAtLeast { query: "*".into(), key: "a".into(), at_least: 0.5, head: 0, sentence: 9 },
            Goal::UniformRows { tol: 0.1, sentence: 9 },
            Goal::PreviousToken { at_least: 0.5, head: 0, sentence: 1 },
            Goal::OutputEquals { token: "q".into(), tol: 0.1, sentence: 0 },
            Goal::HeadsDiffer { query: "a".into(), heads: [0, 3], sentence: 0 },
            Goal::AttendMost { query: "*".into(), key: "a".into(), head: 0, sentence: 9 },
            Goal::OutputEquals { token: "*".into(), tol: 0.1, sentence: 9 },
            Goal::HeadsDiffer { query: "*".into(), heads: [0, 0], sentence: 9 },
        ];
        for g in goals {
            let p = g.check(&t);
            assert!(!p.met && !p.words.is_empty(), "{g:?}: {p:?}");
        }
    }
}
