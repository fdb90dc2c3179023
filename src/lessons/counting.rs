//! The counting policy, held by a test over every lesson's words: heads, sentences,
//! lessons and steps are names and count from 1 ("head 1", "step 2 of 8"); positions,
//! and the rows and columns of a matrix, are indices and count from 0, as PyTorch indexes
//! them (`weights[0, 0, 3, :]` is row 3). A lesson that numbers a position, row or column
//! says so once in its words ("positions count from 0").

use super::quiz::QuizKind;
use super::{lessons, token, Lesson};
use crate::engine::{run, Trace};

/// Every text a step shows on its own vectors: its words, its question and, if it has
/// one, the answer's reason (a choice question's and a number question's alike).
fn texts(t: &Trace, step: &super::LessonStep) -> Vec<String> {
    let mut out = vec![(step.narrate)(t)];
    if let Some(q) = step.quiz {
        out.push((q.question)(t));
        match q.kind {
            QuizKind::Choice { choices, answer } => {
                out.extend(choices(t));
                out.extend(answer(t).map(|(_, why)| why));
            }
            QuizKind::Number { answer, .. } => out.extend(answer(t).map(|(_, why)| why)),
        }
    }
    out
}

/// The numbered positions a text ties to a word: `"word" (position N` / `"word" (row N`
/// and `position N ("word")` / `row N ("word")` / `token N ("word")`, as (N, word).
fn numbered_words(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    // `"word" (position N` and `"word" (row N`
    for (i, _) in lower.match_indices("\" (") {
        let after = &lower[i + 3..];
        let Some(rest) = after.strip_prefix("position ").or_else(|| after.strip_prefix("row ")) else {
            continue;
        };
        let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Some(open) = lower[..i].rfind('"') else { continue };
        if let Ok(n) = n.parse() {
            out.push((n, text[open + 1..i].to_string()));
        }
    }
    // `position N ("word")`, `row N ("word")`, `token N ("word")`
    for word in ["position ", "row ", "token "] {
        for (i, _) in lower.match_indices(word) {
            let rest = &lower[i + word.len()..];
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let Some(tail) = rest[n.len()..].strip_prefix(" (\"") else { continue };
            let Some(close) = tail.find('"') else { continue };
            let start = i + word.len() + n.len() + 3;
            if let Ok(n) = n.parse() {
                out.push((n, text[start..start + close].to_string()));
            }
        }
    }
    out
}

/// Where a lesson says how it counts positions.
fn says_the_policy(lesson: &Lesson) -> bool {
    lesson.steps.iter().any(|step| {
        run(&step.scenario).is_ok_and(|t| {
            texts(&t, step).iter().any(|x| {
                let x = x.to_lowercase();
                ["count from 0", "counting from 0", "counted from 0"].iter().any(|p| x.contains(p))
            })
        })
    })
}

#[test]
fn positions_and_rows_count_from_0_heads_and_steps_from_1() {
    let mut wrong = Vec::new();
    for lesson in lessons() {
        let mut numbers_a_position = false;
        for (s, step) in lesson.steps.iter().enumerate() {
            let Ok(t) = run(&step.scenario) else { continue };
            for text in texts(&t, step) {
                for (n, word) in numbered_words(&text) {
                    numbers_a_position = true;
                    // token n of a sentence of the batch, a query's or (cross-attention) a key's
                    let query = token(&t, step.batch, n);
                    let is_there = (0..t.sizes.b).any(|b| {
                        token(&t, b, n) == word || t.key_tokens(b).get(n).is_some_and(|k| *k == word)
                    });
                    if !is_there {
                        wrong.push(format!(
                            "{} step {}: \"{word}\" numbered {n}, but position {n} is \"{query}\"",
                            lesson.id,
                            s + 1
                        ));
                    }
                }
                // a head is named from 1: "head 0" would count it from 0
                if text.contains("head 0") || text.contains("Head 0") {
                    wrong.push(format!("{} step {}: a head counted from 0", lesson.id, s + 1));
                }
            }
        }
        if numbers_a_position && !says_the_policy(&lesson) {
            wrong.push(format!("{}: numbers positions but never says they count from 0", lesson.id));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn numbered_words_are_found_both_ways() {
    let found = numbered_words("Row 2 (\"is\") of the weights; \"six\" (position 5, counting from 0); t = 3");
    assert_eq!(found, [(5, "six".to_string()), (2, "is".to_string())]);
}
