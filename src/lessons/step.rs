//! The step model: a [`LessonStep`] (built with [`LessonStep::new`] and the setters for
//! what most steps leave out), the [`Cell`]s it points at, and a [`Lesson`].

use crate::engine::{Scenario, StepName, Trace};

use super::aside::{no_aside, MakeAside};
pub use super::cell::{cell, row_cells, Cell};
use super::claims::{no_claims, Claim, STORY_CHANGED};
use super::extra::Extra;
use super::numbers::hide_numbers;
use super::quiz::Quiz;

/// One step of a lesson.
#[derive(Debug, Clone)]
pub struct LessonStep {
    /// Short title.
    pub title: &'static str,
    /// What the engine runs.
    pub scenario: Scenario,
    /// The trace step the page selects and highlights.
    pub focus: StepName,
    /// The sentence of the batch shown.
    pub batch: usize,
    /// A question asked before the answer is shown (predict, then reveal).
    pub quiz: Option<Quiz>,
    /// Writes the step's text from the live trace.
    pub narrate: fn(&Trace) -> String,
    /// What the picture shows besides the focus step's heatmaps and table.
    pub extra: Extra,
    /// The cells the step points at, from the live trace (outlined on the heatmaps and
    /// marked in the tables); [`no_highlight`] for most steps.
    pub highlight: fn(&Trace) -> Vec<Cell>,
    /// A small table beside the words for numbers they quote that the picture's heatmaps
    /// do not show (another step's row, another sentence's cell, more decimals);
    /// [`no_aside`] for most steps.
    pub aside: MakeAside,
    /// A small table beside the picture in the step's embed, for numbers the words quote
    /// that the embed's small maps cannot print (the page's larger maps may);
    /// [`LessonStep::embed_aside`]. `None` for most steps.
    pub embed_aside: Option<MakeAside>,
    /// The step's words in its embed where its embed draws another picture than the page
    /// (the induction heads' zoom on one row in place of the whole maps), written for that
    /// picture; `None` for most steps ([`LessonStep::embed_text`]).
    pub embed_narrate: Option<fn(&Trace) -> String>,
    /// The relations the words state for the live trace ("equal", "larger"…), which the
    /// tests evaluate under edits; [`no_claims`] for most steps.
    pub claims: fn(&Trace) -> Vec<Claim>,
    /// The words are written for each case the numbers can be in (equal or larger, up or
    /// down, found or not), so their claims hold for any vectors and the step never needs
    /// [`STORY_CHANGED`]; the tests hold it under edits.
    pub each_case: bool,
    /// The relations the words state about the step's decoded run (the KV-cache decode
    /// view's numbers, which the trace does not hold), for the decoding of the live
    /// scenario and its trace. The page's decode view checks its run against the full one
    /// itself, so these must hold for any vectors: the tests hold them under edits.
    pub decoded_claims: fn(&crate::engine::Decoded, &Trace) -> Vec<Claim>,
    /// Words written for any block of the step's tiles view, which the learner may set
    /// to another block than the step's ([`LessonStep::at_block`]). `None` for most steps.
    pub at_block: Option<AtBlock>,
    /// The steps whose maps share one colour range on this step, the range of all their
    /// numbers in the live trace ([`LessonStep::shared_range`]): a question's picture before
    /// and after its reveal, so that a score the reveal shrinks pales instead of keeping its
    /// colour. Empty for most steps: each map has its own range.
    pub shared_range: &'static [StepName],
}

impl LessonStep {
    /// A step on sentence 0 that shows the focus step's heatmaps and nothing else: no
    /// question, no aside, no highlighted cells. The setters below add what a step has
    /// besides.
    pub fn new(
        title: &'static str,
        scenario: Scenario,
        focus: StepName,
        narrate: fn(&Trace) -> String,
    ) -> Self {
        Self {
            title,
            scenario,
            focus,
            batch: 0,
            quiz: None,
            narrate,
            extra: Extra::None,
            highlight: no_highlight,
            aside: no_aside,
            embed_aside: None,
            embed_narrate: None,
            claims: no_claims,
            each_case: false,
            decoded_claims: |_, _| Vec::new(),
            at_block: None,
            shared_range: &[],
        }
    }

    /// The step's words for `t`, as the page shows them: the narration, after
    /// [`STORY_CHANGED`] when a relation it states does not hold for `t` (the learner's
    /// edits changed what the words were written for).
    pub fn words(&self, t: &Trace) -> String {
        told_for(t, (self.claims)(t), || (self.narrate)(t))
    }

    /// The step's words for `t` when the learner has set the block of the step's tiles
    /// view to `block`: the words written for that block where the step has them
    /// ([`LessonStep::at_block`]), after [`STORY_CHANGED`] when a relation they state for
    /// that block does not hold; else (no block set, or words for one block only)
    /// [`LessonStep::words`].
    pub fn words_at(&self, t: &Trace, block: Option<usize>) -> String {
        let (Some(block), Some(at)) = (block, self.at_block) else { return self.words(t) };
        told_for(t, (at.claims)(t, block), || (at.narrate)(t, block))
    }

    /// The step's words while the learner guesses a cell's value ("Guess first" in the
    /// explanation panel): [`LessonStep::words`] with every number hidden, after a
    /// sentence that says why. The words quote the picture's numbers, so they could name
    /// the asked value, or the rest of its row, which sums to 1 with it.
    pub fn words_guessing(&self, t: &Trace) -> String {
        self.words_guessing_at(t, None)
    }

    /// [`LessonStep::words_guessing`] for the tiles view's block `block`
    /// ([`LessonStep::words_at`]).
    pub fn words_guessing_at(&self, t: &Trace, block: Option<usize>) -> String {
        format!("{WHILE_GUESSING} {}", hide_numbers(&self.words_at(t, block)))
    }

    /// `words` as an embed shows them: an embed has no answer buttons or field, so a
    /// question step's last sentence, which says how to answer on the page ("Choose an
    /// answer to see the weights.", "Type a number to see the row."), is left out; the
    /// embed asks the question and sends the learner to the full page to answer it. Other
    /// steps' words are as they are.
    pub fn for_embed(&self, words: String) -> String {
        if self.quiz.is_none() {
            return words;
        }
        let body = words.trim_end();
        let last = body.trim_end_matches('.').rfind(". ").map_or(0, |i| i + 2);
        let how_to_answer = ["Choose an answer", "Type "].iter().any(|w| body[last..].starts_with(w));
        if how_to_answer {
            body[..last].trim_end().to_string()
        } else {
            words
        }
    }

    /// The step's words in its embed, for `t`: the words written for the embed's own
    /// picture where it has them, else its [`LessonStep::words`] [`LessonStep::for_embed`].
    pub fn embed_text(&self, t: &Trace) -> String {
        self.embed_text_at(t, None)
    }

    /// [`LessonStep::embed_text`] when the learner has set the block of the embed's tiles
    /// view to `block` ([`LessonStep::words_at`]).
    pub fn embed_text_at(&self, t: &Trace, block: Option<usize>) -> String {
        match self.embed_narrate {
            // (its words are other than the page's: only the sentences' claims apply)
            Some(narrate) if self.fits(t) => narrate(t),
            Some(_) => told_for(t, (self.claims)(t), String::new),
            None => self.for_embed(self.words_at(t, block)),
        }
    }

    /// Whether the learner's sentences still have what the step's words are about (every
    /// [`Claim::sentence_need`] holds for `t`). When they do not, the words say what the
    /// step needs instead ([`super::claims::sentences_changed`]), and the page leaves out
    /// what quotes the old places as well: the table beside the words, the outlined cells
    /// and the question.
    pub fn fits(&self, t: &Trace) -> bool {
        (self.claims)(t).iter().all(|c| c.sentence_need().is_none() || c.holds(t))
    }

    /// The cells the step outlines for `t` ([`LessonStep::highlight`]) that the trace has
    /// (a shorter sentence has fewer rows); none when the sentences do not fit the step:
    /// its cells would be other words'.
    pub fn highlight_for(&self, t: &Trace) -> Vec<Cell> {
        if !self.fits(t) {
            return Vec::new();
        }
        (self.highlight)(t).into_iter().filter(|c| c.is_in(t)).collect()
    }

    /// Whether every relation the words state holds for `t`.
    pub fn claims_hold(&self, t: &Trace) -> bool {
        (self.claims)(t).iter().all(|c| c.holds(t))
    }

    /// States `claims` (computed for the live trace) as the words' relations.
    pub fn claims(self, claims: fn(&Trace) -> Vec<Claim>) -> Self {
        Self { claims, ..self }
    }

    /// States `claims`, from words written for each case the numbers can be in: they hold
    /// for any vectors ([`LessonStep::each_case`]).
    pub fn claims_each_case(self, claims: fn(&Trace) -> Vec<Claim>) -> Self {
        Self { claims, each_case: true, ..self }
    }

    /// States `claims` about the step's decoded run ([`LessonStep::decoded_claims`]).
    pub fn decoded_claims(self, claims: fn(&crate::engine::Decoded, &Trace) -> Vec<Claim>) -> Self {
        Self { decoded_claims: claims, ..self }
    }

    /// Shows sentence `batch` of the batch.
    pub fn batch(self, batch: usize) -> Self {
        Self { batch, ..self }
    }

    /// Shows `extra` beside (or instead of) the focus step's heatmaps.
    pub fn extra(self, extra: Extra) -> Self {
        Self { extra, ..self }
    }

    /// Asks `quiz` before the answer is shown.
    pub fn quiz(self, quiz: Quiz) -> Self {
        Self { quiz: Some(quiz), ..self }
    }

    /// Writes a small table beside the words.
    pub fn aside(self, aside: MakeAside) -> Self {
        Self { aside, ..self }
    }

    /// Adds the small table `aside` beside the picture in the step's embed.
    pub fn embed_aside(self, aside: MakeAside) -> Self {
        Self { embed_aside: Some(aside), ..self }
    }

    /// Writes the step's embed words with `narrate`, for an embed that draws another
    /// picture than the page.
    pub fn embed_words(self, narrate: fn(&Trace) -> String) -> Self {
        Self { embed_narrate: Some(narrate), ..self }
    }

    /// Writes the step's words for any block of its tiles view with `narrate`, and states
    /// their relations with `claims`; the step's own words and claims are theirs at the
    /// step's block (a test holds them equal).
    pub fn at_block(
        self,
        narrate: fn(&Trace, usize) -> String,
        claims: fn(&Trace, usize) -> Vec<Claim>,
    ) -> Self {
        Self { at_block: Some(AtBlock { narrate, claims }), ..self }
    }

    /// Draws the maps of `steps` in one colour range, the range of all their numbers.
    pub fn shared_range(self, steps: &'static [StepName]) -> Self {
        Self { shared_range: steps, ..self }
    }

    /// Points at the cells `highlight` gives for the live trace.
    pub fn highlight(self, highlight: fn(&Trace) -> Vec<Cell>) -> Self {
        Self { highlight, ..self }
    }
}

/// A step's words and their relations for any block of its tiles view (the online
/// softmax's steps): the learner may set another block than the step's, and the words
/// then quote that block's tiles.
#[derive(Debug, Clone, Copy)]
pub struct AtBlock {
    /// The words for the live trace and a block.
    pub narrate: fn(&Trace, usize) -> String,
    /// The relations they state for that block.
    pub claims: fn(&Trace, usize) -> Vec<Claim>,
}

/// Words as the page writes them: `text`, after [`STORY_CHANGED`] when a relation it
/// states does not hold for the live trace.
fn told(text: String, claims_hold: bool) -> String {
    if claims_hold {
        text
    } else {
        format!("{STORY_CHANGED} {text}")
    }
}

/// The words `narrate` writes, under `claims`: when a claim about the sentences fails (a
/// word moved from its place, a sentence of another length) the words would quote other
/// words' numbers, and the step says what it needs instead
/// ([`super::claims::sentences_changed`]); else [`told`].
fn told_for(t: &Trace, claims: Vec<Claim>, narrate: impl FnOnce() -> String) -> String {
    // every need is named, not only those the edit broke: a learner who mends what the
    // message names must not meet another demand next
    if claims.iter().any(|c| c.sentence_need().is_some() && !c.holds(t)) {
        let mut needs: Vec<String> = Vec::new();
        for need in claims.iter().filter_map(Claim::sentence_need) {
            if !needs.contains(&need) {
                needs.push(need);
            }
        }
        return super::claims::sentences_changed(&needs);
    }
    told(narrate(), claims.iter().all(|c| c.holds(t)))
}

/// What the words say first while the learner guesses a cell's value.
pub const WHILE_GUESSING: &str =
    "(The numbers in these words are hidden while you guess; Reveal brings them back.)";

/// A step that points at nothing in particular.
pub fn no_highlight(_: &Trace) -> Vec<Cell> {
    Vec::new()
}

/// A lesson: an id for its URL, a title, its steps.
#[derive(Debug, Clone)]
pub struct Lesson {
    /// URL id, e.g. `baseball-bat`.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// The seeds it follows.
    pub seeds: &'static str,
    /// The steps, in order.
    pub steps: Vec<LessonStep>,
}

impl Lesson {
    /// True when some step's picture is drawn from its scenario, so that the explorer's
    /// folds under the lesson ("Change the numbers", the pipeline) show the model the
    /// lesson is about; false for a lesson whose every picture comes from a recorded run.
    pub fn shows_scenario(&self) -> bool {
        self.steps.iter().any(|s| !s.extra.from_recorded_run())
    }
}

#[cfg(test)]
impl Lesson {
    /// Step `n`'s trace, on the step's own vectors.
    pub fn trace(&self, n: usize) -> crate::engine::Trace {
        crate::engine::run(&self.steps[n].scenario).expect("a lesson step runs")
    }

    /// Step `n`'s trace and the words the step narrates for it.
    pub fn narrated(&self, n: usize) -> (crate::engine::Trace, String) {
        let t = self.trace(n);
        let words = (self.steps[n].narrate)(&t);
        (t, words)
    }
}

/// The line above a step's title: "The baseball bat · follows the baseball-bat tutorial ·
/// step 2 of 6" (`s` counted from 0).
pub fn meta_line(lesson: &Lesson, s: usize) -> String {
    format!("{} · follows {} · step {} of {}", lesson.title, lesson.seeds, s + 1, lesson.steps.len())
}

#[cfg(test)]
mod tests {
    use super::super::lessons;

    #[test]
    fn an_embed_leaves_out_how_to_answer_on_the_page_and_nothing_else() {
        let mut questions = 0;
        for lesson in lessons() {
            for (s, step) in lesson.steps.iter().enumerate() {
                let t = lesson.trace(s);
                let words = step.words(&t);
                let embedded = step.for_embed(words.clone());
                if step.quiz.is_none() {
                    assert_eq!(embedded, words, "{} step {}", lesson.id, s + 1);
                    continue;
                }
                questions += 1;
                assert!(words.starts_with(&embedded), "{} step {}: {embedded:?}", lesson.id, s + 1);
                for asks in ["Choose an answer", "Type a number", "Type your answer"] {
                    assert!(
                        !embedded.contains(asks),
                        "{} step {}: the embed says \"{asks}\": {embedded:?}",
                        lesson.id,
                        s + 1
                    );
                }
            }
        }
        assert!(questions >= 15, "{questions} question steps");
    }
}
