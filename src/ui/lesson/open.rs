//! Opening a lesson, as plain Rust: the lesson and step a link names (or the notice that
//! it names none), and what opening a step sets: the step's scenario as the page's text
//! and settings, with the learner's edits to the vectors carried within a lesson, its
//! focus step and sentence. Tested natively; [`crate::ui::App`] sets the signals.

use crate::engine::StepName;
use crate::lessons::{self, Lesson};

use crate::ui::state::settings::{self, Settings};

/// The lesson whose id a link names, with the step kept in range, or the notice shown
/// instead (the id cut to 40 characters). The notice says what the page shows in its
/// place: the first lesson in presenter mode, which always shows a lesson, else the
/// explorer.
///
/// # Errors
/// The notice, when no lesson has that id.
pub fn find_lesson(
    lessons: &[Lesson],
    id: &str,
    step: usize,
    present: bool,
) -> Result<(usize, usize), String> {
    match lessons.iter().position(|l| l.id == id) {
        Some(l) => {
            let last = lessons.get(l).map_or(0, |x| x.steps.len().saturating_sub(1));
            Ok((l, step.min(last)))
        }
        None => Err(format!(
            "The link's lesson \"{}\" does not exist; showing {}.",
            id.chars().take(40).collect::<String>(),
            if present { "the first lesson" } else { "the explorer" }
        )),
    }
}

/// What opening a lesson step sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// The sentences, one per line.
    pub text: String,
    /// The controls' settings.
    pub settings: Settings,
    /// The step the lesson looks at.
    pub focus: StepName,
    /// The sentence shown.
    pub batch: usize,
}

/// Opens step `s` of lesson `l`, `now` being the open lesson step and `settings` the
/// page's: within a lesson, the learner's edits to its vectors go along (Back and Next keep
/// them); `fresh` drops them ("Reset this lesson"). `None` when there is no such step.
pub fn open_step(
    lessons: &[Lesson],
    now: Option<(usize, usize)>,
    settings: &Settings,
    (l, s): (usize, usize),
    fresh: bool,
) -> Option<Opened> {
    let ls = lessons.get(l).and_then(|x| x.steps.get(s))?;
    let edits = now
        .filter(|(now, _)| *now == l && !fresh)
        .and_then(|(_, now)| lessons.get(l)?.steps.get(now))
        .map(|now| lessons::edited_vectors(&now.scenario, &settings.embeddings))
        .unwrap_or_default();
    let (text, settings) = settings::from_scenario(&lessons::carry_edits(&ls.scenario, &edits));
    Some(Opened { text, settings, focus: ls.focus, batch: ls.batch })
}

/// True while step `(l, s)`'s vectors in `settings` differ from the lesson's own ("Reset
/// this lesson" is offered).
pub fn is_edited(lessons: &[Lesson], (l, s): (usize, usize), settings: &Settings) -> bool {
    let Some(step) = lessons.get(l).and_then(|x| x.steps.get(s)) else { return false };
    !lessons::edited_vectors(&step.scenario, &settings.embeddings).is_empty()
}

/// True while the page's sentences or settings differ from step `(l, s)`'s own in any way
/// (its vectors, sentences, sizes or masks): a copied link, which names only the step,
/// opens the step without them.
pub fn is_changed(lessons: &[Lesson], (l, s): (usize, usize), text: &str, settings: &Settings) -> bool {
    let Some(step) = lessons.get(l).and_then(|x| x.steps.get(s)) else { return false };
    let (own_text, own_settings) = settings::from_scenario(&step.scenario);
    own_text != text || own_settings != *settings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The step's own sentences and settings are unchanged; another sentence, a setting
    /// or a vector each count as a change a copied link does not keep.
    #[test]
    fn a_change_is_any_sentence_setting_or_vector_the_step_did_not_set() {
        let all = lessons::lessons();
        let masks = all.iter().position(|l| l.id == "masks").unwrap();
        let own = open_step(&all, None, &Settings::default(), (masks, 2), true).unwrap();
        assert!(!is_changed(&all, (masks, 2), &own.text, &own.settings));
        assert!(is_changed(&all, (masks, 2), "this is a sample", &own.settings));
        let mut causal = own.settings.clone();
        causal.mask.causal = !causal.mask.causal;
        assert!(is_changed(&all, (masks, 2), &own.text, &causal));
        let mut moved = own.settings.clone();
        moved.embeddings.insert("this".into(), vec![1.0; 8]);
        assert!(is_changed(&all, (masks, 2), &own.text, &moved));
        // another step's own settings are a change for this one
        let next = open_step(&all, None, &Settings::default(), (masks, 3), true).unwrap();
        assert!(is_changed(&all, (masks, 2), &next.text, &next.settings));
    }

    #[test]
    fn a_link_names_a_lesson_and_a_step_in_range() {
        let all = lessons::lessons();
        let first = &all[0];
        assert_eq!(find_lesson(&all, first.id, 1, false), Ok((0, 1)));
        assert_eq!(find_lesson(&all, first.id, 10_000, true), Ok((0, first.steps.len() - 1)));
        let last = all.len() - 1;
        assert_eq!(find_lesson(&all, all[last].id, 0, false), Ok((last, 0)));
        assert_eq!(
            find_lesson(&all, "nope", 0, false),
            Err("The link's lesson \"nope\" does not exist; showing the explorer.".to_owned())
        );
        // presenter mode opens the first lesson instead, and says so
        assert_eq!(
            find_lesson(&all, "nope", 0, true),
            Err("The link's lesson \"nope\" does not exist; showing the first lesson.".to_owned())
        );
        let long = "x".repeat(100);
        assert!(find_lesson(&all, &long, 0, false).unwrap_err().contains(&format!("\"{}\"", "x".repeat(40))));
    }

    #[test]
    fn opening_a_step_sets_its_scenario_and_carries_edits_within_the_lesson() {
        let all = lessons::lessons();
        let step = |l: usize, s: usize| &all[l].steps[s];
        let opened = open_step(&all, None, &Settings::default(), (0, 1), false).unwrap();
        let (text, settings) = settings::from_scenario(&step(0, 1).scenario);
        assert_eq!(opened, Opened { text, settings, focus: step(0, 1).focus, batch: step(0, 1).batch });
        assert!(!is_edited(&all, (0, 1), &opened.settings));

        // the learner edits a vector of step 0; Next keeps it, Reset and another lesson do not
        let mut edited = open_step(&all, None, &Settings::default(), (0, 0), false).unwrap().settings;
        edited.embeddings.insert("zebra".into(), vec![0.5; step(0, 1).scenario.d_model]);
        assert!(is_edited(&all, (0, 0), &edited));
        let next = open_step(&all, Some((0, 0)), &edited, (0, 1), false).unwrap();
        assert_eq!(next.settings.embeddings.get("zebra"), edited.embeddings.get("zebra"));
        let fresh = open_step(&all, Some((0, 0)), &edited, (0, 1), true).unwrap();
        assert!(!fresh.settings.embeddings.contains_key("zebra"));
        let other = open_step(&all, Some((1, 0)), &edited, (0, 1), false).unwrap();
        assert!(!other.settings.embeddings.contains_key("zebra"));

        assert_eq!(open_step(&all, None, &Settings::default(), (0, 10_000), false), None);
        assert_eq!(open_step(&all, None, &Settings::default(), (10_000, 0), false), None);
        assert!(!is_edited(&all, (10_000, 0), &edited));
    }
}
