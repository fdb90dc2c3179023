//! Predict, then reveal: a lesson step may ask a question before it shows the answer.
//!
//! The right answer and its reason are computed from the live trace, like the lessons'
//! words, so a learner who edits the numbers gets the answer for *their* numbers.

use crate::engine::Trace;

use super::num;

/// A question, asked before the answer is shown.
#[derive(Debug, Clone, Copy)]
pub struct Quiz {
    /// The question, from the live trace (it may name tokens).
    pub question: fn(&Trace) -> String,
    /// How the learner answers.
    pub kind: QuizKind,
    /// The trace step the picture shows once the answer is revealed, when it is not the
    /// step's focus (a question about the weights, asked over the scores, reveals the
    /// weights). `None`: the picture stays on the focus.
    pub reveal: Option<crate::engine::StepName>,
    /// What the picture shows instead once the answer is revealed, when the answer is in a
    /// picture of its own (the word-order question reveals the positions' similarity
    /// table). `None`: the step's own [`super::Extra`].
    pub reveal_extra: Option<super::Extra>,
}

/// Buttons, or a number.
#[derive(Debug, Clone, Copy)]
pub enum QuizKind {
    /// Pick one of the choices.
    Choice {
        /// The choices, from the trace (the right one is always among them).
        choices: fn(&Trace) -> Vec<String>,
        /// The index of the right choice and why, from the trace; `None` if the trace
        /// has no answer (e.g. edited beyond what the question assumes).
        answer: fn(&Trace) -> Option<(usize, String)>,
    },
    /// Type a number.
    Number {
        /// The right number and why.
        answer: fn(&Trace) -> Option<(f64, String)>,
        /// How far a guess may be and still be right.
        tolerance: f64,
    },
}

/// What the page shows after an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The guess was right.
    pub right: bool,
    /// "Right: …" or "Not quite: …", with the reason.
    pub text: String,
}

impl Quiz {
    /// Judges choice `chosen` (for [`QuizKind::Choice`]).
    pub fn judge_choice(&self, trace: &Trace, chosen: usize) -> Option<Verdict> {
        let QuizKind::Choice { choices, answer } = self.kind else { return None };
        let (right, why) = answer(trace)?;
        let choices = choices(trace);
        let name = choices.get(right).cloned().unwrap_or_default();
        Some(if chosen == right {
            Verdict { right: true, text: format!("Right: {name}. {why}") }
        } else {
            Verdict { right: false, text: format!("Not quite: the answer is {name}. {why}") }
        })
    }

    /// Judges a typed number (for [`QuizKind::Number`]).
    pub fn judge_number(&self, trace: &Trace, guess: f64) -> Option<Verdict> {
        let QuizKind::Number { answer, tolerance } = self.kind else { return None };
        let (right, why) = answer(trace)?;
        let off = (guess - right).abs();
        // a count ("how many keys") is written as one: 21, not 21.00
        let whole = right.fract() == 0.0 && right.abs() < 1e15 && tolerance < 1.0;
        let (shown, off_shown) =
            if whole { (format!("{right:.0}"), format!("{off}")) } else { (num(right), num(off)) };
        Some(if off <= tolerance {
            Verdict { right: true, text: format!("Right: {shown}. {why}") }
        } else {
            Verdict {
                right: false,
                text: format!("Not quite: it is {shown} (you were {off_shown} away). {why}"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;
    use crate::lessons::lessons;

    /// Every lesson asks at least one question, and every question has an answer that
    /// is one of its choices, for the lesson's own scenario.
    #[test]
    fn every_lesson_asks_and_every_question_has_an_answer() {
        for lesson in lessons() {
            let quizzes: Vec<_> = lesson.steps.iter().filter(|s| s.quiz.is_some()).collect();
            assert!(!quizzes.is_empty(), "{} has no question step", lesson.id);
            for step in quizzes {
                let trace = run(&step.scenario).unwrap();
                let quiz = step.quiz.unwrap();
                assert!(!(quiz.question)(&trace).is_empty());
                match quiz.kind {
                    QuizKind::Choice { choices, answer } => {
                        let (i, why) = answer(&trace).unwrap_or_else(|| panic!("{}: no answer", lesson.id));
                        assert!(i < choices(&trace).len(), "{}: answer {i} not a choice", lesson.id);
                        assert!(!why.is_empty());
                        assert!(quiz.judge_choice(&trace, i).unwrap().right);
                        assert!(!quiz.judge_choice(&trace, i + 1).unwrap().right);
                    }
                    QuizKind::Number { answer, tolerance } => {
                        let (v, _) = answer(&trace).unwrap();
                        assert!(v.is_finite() && tolerance > 0.0);
                        assert!(quiz.judge_number(&trace, v).unwrap().right);
                        assert!(!quiz.judge_number(&trace, v + 1.0).unwrap().right);
                    }
                }
            }
        }
    }

    /// The right answer is not always the same button: over every choice question, on the
    /// lessons' own scenarios, no one position holds more than half of the answers, and
    /// each of the first three is right for some question.
    #[test]
    fn answer_positions_vary() {
        let mut at = [0usize; 8];
        let mut n = 0;
        for lesson in lessons() {
            for step in &lesson.steps {
                let Some(Quiz { kind: QuizKind::Choice { answer, .. }, .. }) = step.quiz else { continue };
                let (i, _) = answer(&run(&step.scenario).unwrap()).unwrap();
                at[i] += 1;
                n += 1;
            }
        }
        assert!(n >= 6, "{n}");
        assert!(at.iter().all(|&k| 2 * k <= n), "answers by position: {at:?} of {n}");
        // and each of the first three buttons is right somewhere
        assert!(at[..3].iter().all(|&k| k > 0), "answers by position: {at:?} of {n}");
    }

    /// No lesson's questions, its steps' and its check-yourself's, all put the right answer
    /// first, on the lesson's own scenarios: a learner who always picks the first button is
    /// not right throughout a lesson of two choice questions or more (a lesson's one
    /// question is right at some place; the spread over lessons is [`answer_positions_vary`]'s
    /// and `check::tests`').
    #[test]
    fn no_lesson_always_puts_the_answer_first() {
        use crate::lessons::check::{check_yourself, CheckAnswer};
        for lesson in lessons() {
            let mut at: Vec<usize> = lesson
                .steps
                .iter()
                .filter_map(|step| match step.quiz?.kind {
                    QuizKind::Choice { answer, .. } => answer(&run(&step.scenario).unwrap()).map(|a| a.0),
                    QuizKind::Number { .. } => None,
                })
                .collect();
            at.extend(check_yourself(lesson.id).into_iter().filter_map(|q| match q.answer {
                CheckAnswer::Choice { right, .. } => Some(right),
                CheckAnswer::Number { .. } => None,
            }));
            assert!(
                at.len() < 2 || at.iter().any(|&i| i != 0),
                "{}: every answer is the first choice",
                lesson.id
            );
        }
    }
}
