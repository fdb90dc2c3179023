//! Claims as data: what a step's words state about the live trace ("equal", "larger",
//! "the largest", "falls", "rounds to 0.50"), as values a test can evaluate.
//!
//! A step's [`super::LessonStep::claims`] lists the claims its words make *for this trace*:
//! words written for each case (equal or larger) list the claim of the case they chose.
//! A claim that no longer holds after an edit (a sentence written for the lesson's own
//! vectors) makes the step say so plainly, with the way back: [`super::LessonStep::words`].

use crate::engine::{StepName as S, Trace};

use super::cell::Cell;
use super::num;
use crate::format::fixed;

/// A number of the trace a claim is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Quantity {
    /// One cell of one step.
    Cell(Cell),
    /// `PE(i) · PE(j)`, the dot product of two positions' encodings (the word-order
    /// lesson's table).
    PeDot(usize, usize),
    /// The sum of the row of a cell (its column ignored): 1 for weights, less with sinks.
    RowSum(Cell),
    /// A number the step computes from the trace besides its steps (the by-hand
    /// gradient, BLOOM's softmax), with the name a failure message gives it.
    Computed(&'static str, f64),
}

impl Quantity {
    /// Its value in `t` (NaN when the trace does not have it).
    pub fn value(&self, t: &Trace) -> f64 {
        match *self {
            Quantity::Cell(c) => super::at(t, c.step, c.batch, c.head, c.row, c.col),
            Quantity::PeDot(i, j) => pe_dot(t, i, j),
            Quantity::RowSum(c) => {
                t.step(c.step).and_then(|s| s.row_sum(c.batch, c.head, c.row)).unwrap_or(f64::NAN)
            }
            Quantity::Computed(_, v) => v,
        }
    }
}

impl From<Cell> for Quantity {
    fn from(c: Cell) -> Self {
        Quantity::Cell(c)
    }
}

/// One relation the words state. Equality and order are read as the page prints the
/// numbers ([`num`], two decimals): words that say "equal" beside 0.61 and 0.39, or
/// "larger" beside 0.50 and 0.50, are both false to the reader.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The two print the same.
    Equal(Quantity, Quantity),
    /// The first is larger, and prints larger.
    Greater(Quantity, Quantity),
    /// The first is larger than every other, and prints larger.
    Largest(Quantity, Vec<Quantity>),
    /// Each is smaller than the one before, and prints smaller.
    Falling(Vec<Quantity>),
    /// It prints as this text.
    Rounds(Quantity, &'static str),
    /// It prints above zero.
    Positive(Quantity),
    /// It prints below zero.
    Negative(Quantity),
    /// At least one of the pairs prints as two different numbers ("not token 1's first
    /// half": two rows that differ somewhere).
    Differ(Vec<(Quantity, Quantity)>),
    /// The two print the same with this many decimals (words that quote four, as the
    /// tiles view lists m, ℓ and the correction, are read at four).
    EqualAt(Quantity, Quantity, usize),
    /// The first is larger, and prints larger with this many decimals.
    GreaterAt(Quantity, Quantity, usize),
    /// Token `pos` of sentence `batch` is `word` (case aside): words written around a
    /// word's place in the lesson's sentence ("jump" is token 10, its row the one quoted)
    /// hold only while the learner's sentence keeps it there.
    Word {
        /// The sentence.
        batch: usize,
        /// The token's place, from 0.
        pos: usize,
        /// The word, as the lesson spells it.
        word: &'static str,
    },
    /// The learner's sentences have what the step is written for, in the words a page can
    /// say ("a first sentence shorter than the longest, so that it gets <pad> tokens"):
    /// whether they do is computed from the trace when the claim is made.
    Fits(&'static str, bool),
}

/// `a > b` as printed: larger, and not printed the same.
fn printed_greater(a: f64, b: f64) -> bool {
    a > b && num(a) != num(b)
}

impl Claim {
    /// Whether the claim holds for `t`. NaN (a number the trace lacks) never holds.
    pub fn holds(&self, t: &Trace) -> bool {
        let v = |q: &Quantity| q.value(t);
        match self {
            Claim::Equal(a, b) => v(a).is_finite() && v(b).is_finite() && num(v(a)) == num(v(b)),
            Claim::Greater(a, b) => printed_greater(v(a), v(b)),
            Claim::Largest(a, others) => others.iter().all(|o| printed_greater(v(a), v(o))),
            Claim::Falling(qs) => qs.windows(2).all(|w| printed_greater(v(&w[0]), v(&w[1]))),
            Claim::Rounds(a, text) => v(a).is_finite() && num(v(a)) == *text,
            Claim::Positive(a) => printed_greater(v(a), 0.0),
            Claim::Negative(a) => printed_greater(0.0, v(a)),
            Claim::Differ(pairs) => {
                pairs.iter().any(|(a, b)| v(a).is_finite() && v(b).is_finite() && num(v(a)) != num(v(b)))
            }
            Claim::EqualAt(a, b, d) => {
                v(a).is_finite() && v(b).is_finite() && fixed(v(a), *d) == fixed(v(b), *d)
            }
            Claim::GreaterAt(a, b, d) => v(a) > v(b) && fixed(v(a), *d) != fixed(v(b), *d),
            Claim::Word { batch, pos, word } => {
                t.tokens.get(*batch).and_then(|s| s.get(*pos)).is_some_and(|w| w.eq_ignore_ascii_case(word))
            }
            Claim::Fits(_, fits) => *fits,
        }
    }

    /// A [`Claim::Word`] for each `(place, word)` of the first sentence: the words a step's
    /// words name at their places.
    pub fn words_at(places: &[(usize, &'static str)]) -> Vec<Claim> {
        places.iter().map(|&(pos, word)| Claim::Word { batch: 0, pos, word }).collect()
    }

    /// What the step needs of the sentences, when this claim is about them rather than
    /// about numbers (a word at its place, a sentence's length): a learner's sentence that
    /// breaks it leaves the step's words about other words, so they are not shown at all.
    pub fn sentence_need(&self) -> Option<String> {
        match self {
            Claim::Word { batch: 0, pos, word } => Some(format!("“{word}” at position {pos}")),
            Claim::Word { batch, pos, word } => {
                Some(format!("“{word}” at position {pos} of sentence {}", batch + 1))
            }
            Claim::Fits(what, _) => Some((*what).to_owned()),
            _ => None,
        }
    }
}

/// What a step shows instead of its words when the learner's sentences no longer have what
/// its words are about (`needs`, from [`Claim::sentence_need`]): words quoting the numbers
/// of whatever word now stands at the old place would be read as true.
pub fn sentences_changed(needs: &[String]) -> String {
    // a word's place counts from 0, as everywhere in the lessons
    let counted =
        if needs.iter().any(|n| n.contains(" at position ")) { " (positions count from 0)" } else { "" };
    format!(
        "{SENTENCES_CHANGED} This step's words are written for {}{counted}. Going to another step \
         and back restores the lesson's sentences.",
        match needs {
            [] => "the lesson's own sentences".to_owned(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    )
}

/// The first words of [`sentences_changed`].
pub const SENTENCES_CHANGED: &str =
    "Your sentences no longer fit this step, so its words are not shown: the numbers they quote would belong to other words.";

/// `pe[i] · pe[j]`, from the trace's `pe` step.
pub fn pe_dot(t: &Trace, i: usize, j: usize) -> f64 {
    let Some(pe) = t.step(S::Pe).and_then(|s| s.matrix(0, 0)) else { return f64::NAN };
    if i >= pe.nrows() || j >= pe.nrows() {
        return f64::NAN;
    }
    pe.row(i).dot(&pe.row(j))
}

/// What a step says when a claim its words make for the lesson's own vectors no longer
/// holds for the learner's: that the story changed, and how to get it back.
pub const STORY_CHANGED: &str = "Your edits changed the story: some of these words were written for the \
                                 lesson's own numbers and settings and no longer hold for yours.";

/// A step that claims nothing.
pub fn no_claims(_: &Trace) -> Vec<Claim> {
    Vec::new()
}

/// `Equal` or `Greater`, whichever holds for `a` and `b` as printed (the larger first):
/// the claim of the words a step chooses for the case it finds.
pub fn compare(t: &Trace, a: Quantity, b: Quantity) -> Claim {
    let (x, y) = (a.value(t), b.value(t));
    if num(x) == num(y) {
        Claim::Equal(a, b)
    } else if x > y {
        Claim::Greater(a, b)
    } else {
        Claim::Greater(b, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, Scenario, StepName as S};
    use crate::lessons::cell;

    #[test]
    fn claims_are_read_as_the_page_prints_them() {
        let mut s = Scenario::identity(&["baseball bat"], 3, 1);
        s.embeddings =
            [("baseball".to_string(), vec![2.0, 0.0, 0.0]), ("bat".to_string(), vec![1.0, 1.0, 0.0])].into();
        let t = run(&s).unwrap();
        let w = |i, j| Quantity::Cell(cell(S::Weights, i, j));
        // bat's row is [0.50, 0.50]; baseball's [0.76, 0.24]
        assert!(Claim::Equal(w(1, 0), w(1, 1)).holds(&t));
        assert!(!Claim::Greater(w(1, 0), w(1, 1)).holds(&t));
        assert!(Claim::Greater(w(0, 0), w(0, 1)).holds(&t));
        assert!(!Claim::Equal(w(0, 0), w(0, 1)).holds(&t));
        assert!(Claim::Largest(w(0, 0), vec![w(0, 1)]).holds(&t));
        assert!(Claim::Rounds(w(0, 0), "0.76").holds(&t));
        assert!(!Claim::Rounds(w(0, 0), "0.75").holds(&t));
        assert!(Claim::Falling(vec![w(0, 0), w(1, 0), w(0, 1)]).holds(&t));
        assert!(!Claim::Falling(vec![w(0, 0), w(0, 1), w(1, 0)]).holds(&t));
        assert!(Claim::Positive(w(0, 1)).holds(&t));
        assert!(!Claim::Negative(w(0, 1)).holds(&t));
        assert!(Claim::Negative(Quantity::Computed("minus", -0.2)).holds(&t));
        assert!(!Claim::Negative(Quantity::Computed("rounds to zero", -0.001)).holds(&t));
        assert!(Claim::Differ(vec![(w(1, 0), w(1, 1)), (w(0, 0), w(0, 1))]).holds(&t));
        assert!(!Claim::Differ(vec![(w(1, 0), w(1, 1))]).holds(&t));
        // read at four decimals: 0.12344 and 0.12341 print the same, 0.1235 does not
        let c = |x: f64| Quantity::Computed("x", x);
        assert!(Claim::EqualAt(c(0.12344), c(0.12341), 4).holds(&t));
        assert!(!Claim::EqualAt(c(0.1235), c(0.1234), 4).holds(&t));
        assert!(Claim::Equal(c(0.1235), c(0.1234)).holds(&t), "the same at two decimals");
        assert!(Claim::GreaterAt(c(0.1235), c(0.1234), 4).holds(&t));
        assert!(!Claim::GreaterAt(c(0.12344), c(0.12341), 4).holds(&t));
        assert!(!Claim::GreaterAt(c(0.1234), c(0.1235), 4).holds(&t));
        assert!(!Claim::EqualAt(c(f64::NAN), c(f64::NAN), 4).holds(&t));
        assert_eq!(compare(&t, w(0, 1), w(0, 0)), Claim::Greater(w(0, 0), w(0, 1)));
        assert_eq!(compare(&t, w(1, 0), w(1, 1)), Claim::Equal(w(1, 0), w(1, 1)));
        // a cell the trace lacks holds nothing
        assert!(!Claim::Equal(w(5, 0), w(5, 0)).holds(&t));
        assert!(!Claim::Positive(w(5, 0)).holds(&t));
        assert!(!Claim::Differ(vec![(w(5, 0), w(0, 0))]).holds(&t));
    }
}
