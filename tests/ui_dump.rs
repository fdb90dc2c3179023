//! Everything the app crate computes natively, written to one text file: every lesson's
//! every step (words, question, choices, verdicts, highlights, asides, the numbers its
//! picture shows, glossary terms), the lesson words index.html paints, the first screen's
//! caption, the challenges (goal progress, solutions in words, "which numbers made it
//! work"), and for every step of every lesson trace the cards' labels, readouts, CSV and
//! explanation texts, the decode and tiles views' data, the link round trip.
//!
//! A restructuring of the code must leave this file byte-identical. Ignored by default
//! (it takes a while); run it with
//! `cargo test --test ui_dump -- --ignored` and compare the sha256 of the file it writes
//! (`target/ui-dump.txt`, or the path in `UI_DUMP`).

use std::fmt::Write as _;

use attention_lens::challenges;
use attention_lens::engine::{self, Trace};
use attention_lens::lessons::{self, glossary, quiz::QuizKind, Extra};
use attention_lens::ui::{
    challenge::text as challenge_text, decode::data as decode_data, explain::text as explain_text,
    explorer::first_screen, heatmap::card_data, state::settings, state::url, tiles::data as tiles_data,
    tiles::words as tiles_words,
};

fn lesson_steps(out: &mut String) {
    let all = lessons::lessons();
    // every lesson's words are also written for the first trace of every other lesson
    // (a learner can import any scenario while a lesson is open)
    let others: Vec<Trace> = all.iter().filter_map(|l| engine::run(&l.steps[0].scenario).ok()).collect();
    for lesson in &all {
        writeln!(out, "# lesson {} | {} | {}", lesson.id, lesson.title, lesson.seeds).unwrap();
        for (s, step) in lesson.steps.iter().enumerate() {
            writeln!(out, "## step {s}: {}", lessons::meta_line(lesson, s)).unwrap();
            writeln!(out, "title: {}", step.title).unwrap();
            writeln!(out, "focus: {:?} batch: {} extra: {:?}", step.focus, step.batch, step.extra).unwrap();
            writeln!(out, "scenario: {}", serde_json::to_string(&step.scenario).unwrap()).unwrap();
            let trace = engine::run(&step.scenario).expect("a lesson step runs");
            writeln!(out, "words: {}", (step.narrate)(&trace)).unwrap();
            writeln!(out, "highlight: {:?}", (step.highlight)(&trace)).unwrap();
            writeln!(out, "aside: {:?}", (step.aside)(&trace)).unwrap();
            writeln!(out, "picture: {:?}", lessons::picture_numbers(step, step.focus, &trace)).unwrap();
            let terms: Vec<&str> = glossary::first_used_in(lesson, s).iter().map(|t| t.term).collect();
            writeln!(out, "terms: {terms:?}").unwrap();
            writeln!(out, "caption: {:?}", lessons::first_screen::caption(&trace, step.batch)).unwrap();
            if let Some(quiz) = step.quiz {
                writeln!(out, "question: {}", (quiz.question)(&trace)).unwrap();
                writeln!(out, "reveal: {:?} {:?}", quiz.reveal, quiz.reveal_extra).unwrap();
                match quiz.kind {
                    QuizKind::Choice { choices, answer } => {
                        let cs = choices(&trace);
                        writeln!(out, "choices: {cs:?} answer: {:?}", answer(&trace)).unwrap();
                        for c in 0..cs.len() + 1 {
                            writeln!(out, "judge {c}: {:?}", quiz.judge_choice(&trace, c)).unwrap();
                        }
                    }
                    QuizKind::Number { answer, tolerance } => {
                        let a = answer(&trace);
                        writeln!(out, "answer: {a:?} tolerance: {tolerance:?}").unwrap();
                        let v = a.map_or(0.0, |(v, _)| v);
                        for guess in [v, v + tolerance * 2.0, -1.0, f64::NAN] {
                            writeln!(out, "judge {guess:?}: {:?}", quiz.judge_number(&trace, guess)).unwrap();
                        }
                    }
                }
                let revealed =
                    lessons::LessonStep { extra: quiz.reveal_extra.unwrap_or(step.extra), ..step.clone() };
                let shown = quiz.reveal.unwrap_or(step.focus);
                writeln!(out, "revealed picture: {:?}", lessons::picture_numbers(&revealed, shown, &trace))
                    .unwrap();
            }
            for (o, other) in others.iter().enumerate() {
                writeln!(out, "on lesson {o}'s trace: {}", (step.narrate)(other)).unwrap();
                if let Some(quiz) = step.quiz {
                    writeln!(out, "  question: {}", (quiz.question)(other)).unwrap();
                }
            }
        }
    }
}

fn challenges_dump(out: &mut String) {
    for c in challenges::builtin::all() {
        writeln!(out, "# challenge {}", c.to_json()).unwrap();
        writeln!(out, "valid: {:?}", c.validate()).unwrap();
        writeln!(out, "goal: {}", c.goal.describe()).unwrap();
        writeln!(out, "weights shown: {:?}", challenge_text::weights_shown(&c.goal)).unwrap();
        writeln!(out, "link: {}", challenges::link_fragment(&c)).unwrap();
        for edit in &c.solution {
            writeln!(out, "edit: {}", challenge_text::edit_words(edit)).unwrap();
        }
        for (what, s) in [("start", c.scenario.clone()), ("solved", c.solved_scenario())] {
            let trace = engine::run(&s).expect("a challenge runs");
            writeln!(out, "{what}: {:?}", c.goal.check(&trace)).unwrap();
            writeln!(out, "{what} why: {:?}", challenge_text::why_it_works(&c.goal, &trace)).unwrap();
            for m in challenges::Matrix::ALL {
                writeln!(
                    out,
                    "{what} {}: {:?}",
                    challenge_text::matrix_name(m),
                    challenges::matrix_rows(&s, m)
                )
                .unwrap();
            }
            for word in &c.editable.embeddings {
                writeln!(out, "{what} vector {word}: {:?}", challenge_text::trace_vector(&trace, word))
                    .unwrap();
            }
        }
    }
}

/// The cards, the explanations of a few cells, the decode and tiles views' data for one
/// trace and its scenario.
fn views(out: &mut String, scenario: &engine::Scenario, trace: &Trace) {
    for step in &trace.steps {
        let name = step.name;
        let heads = if step.has_heads() { step.shape.get(1).copied().unwrap_or(1) } else { 1 };
        writeln!(out, "### {name:?} {:?} {}", card_data::axis_titles(name), card_data::corner(name)).unwrap();
        for b in 0..trace.sizes.b {
            let labels = card_data::axis_labels(trace, name, b);
            writeln!(out, "labels {b}: {labels:?}").unwrap();
            for head in 0..heads {
                let id = attention_lens::ui::state::card_id::CardId { step: name, batch: b, head };
                let Some(card) = card_data::CardData::build(trace, id) else { continue };
                writeln!(out, "card {b}/{head}: {} largest {:?}", card.describe("x"), card.largest())
                    .unwrap();
                writeln!(out, "readout: {:?}", card.readout(0, 0)).unwrap();
                let m = step.matrix(b, head).unwrap();
                writeln!(out, "csv:\n{}", card_data::csv(&labels.rows, &labels.cols, &m.to_owned())).unwrap();
                // the explanation of the first and last cell
                for (r, c) in [(0, 0), (m.nrows().saturating_sub(1), m.ncols().saturating_sub(1))] {
                    let Some(index) = explain_text::trace_index(trace, id, r, c) else { continue };
                    let Ok(ex) = engine::explain(trace, name, &index) else { continue };
                    writeln!(out, "explain {index:?}: {}", explain_text::with_numbers(&ex)).unwrap();
                    writeln!(out, "outlines: {:?}", explain_text::outlines(trace, &ex, id)).unwrap();
                    writeln!(out, "strips: {:?}", explain_text::strips(trace, &ex)).unwrap();
                    writeln!(out, "terms: {:?}", explain_text::term_list(&ex, false)).unwrap();
                    writeln!(out, "all terms: {:?}", explain_text::term_list(&ex, true)).unwrap();
                    writeln!(out, "top keys: {:?}", explain_text::top_keys(trace, &ex)).unwrap();
                }
            }
        }
    }
    if let Ok(d) = engine::decode(scenario) {
        writeln!(out, "### decode keys {}", decode_data::key_count(&d)).unwrap();
        let cross = scenario.kv_sentences.is_some();
        for (t, p) in d.positions.iter().enumerate() {
            for b in 0..trace.sizes.b {
                writeln!(
                    out,
                    "decode {t}/{b}: check {:?} row {:?} weights {:?} slots {:?}",
                    decode_data::output_check(p, trace, b).map(decode_data::format_difference),
                    decode_data::decoded_output_row(p, b),
                    decode_data::weight_row(p, b, 0),
                    decode_data::slots(p, decode_data::key_count(&d), cross),
                )
                .unwrap();
            }
        }
        writeln!(out, "footprint: {}", decode_data::format_bytes(decode_data::decode_footprint(scenario)))
            .unwrap();
    }
    for block in [1, 2, 3] {
        let Ok(tiled) = engine::tiled(scenario, block) else { continue };
        writeln!(out, "### tiles {block}: {}", tiles_words::peak_words(block, trace.sizes.t, trace.sizes.t))
            .unwrap();
        for b in 0..trace.sizes.b {
            let order = tiles_data::tiles_of(&tiled, b, 0);
            writeln!(out, "tiles {b}: {order:?} check {:?}", tiles_data::context_check(&tiled, trace, b, 0))
                .unwrap();
            for (n, &i) in order.iter().enumerate() {
                let tile = &tiled.tiles[i];
                writeln!(
                    out,
                    "tile {n}: {} | {} | {} | {:?}",
                    tiles_data::tile_words(tile),
                    tiles_words::position_words(Some(tile), n, order.len()),
                    tiles_words::outline_style(Some(tile), 12.0),
                    tiles_data::row_states(tile),
                )
                .unwrap();
            }
        }
    }
}

fn links(out: &mut String) {
    let text = settings::DEFAULT_TEXT;
    let s = settings::Settings::default();
    let v = settings::ViewState::default();
    writeln!(out, "# link {:?}", url::to_query(text, &s, &v)).unwrap();
    writeln!(out, "fragment: {:?}", url::fragment(text, &s)).unwrap();
    let (scenario, notes) = settings::scenario(text, &s);
    writeln!(out, "scenario: {} {notes:?}", serde_json::to_string(&scenario).unwrap()).unwrap();
    for lesson in lessons::lessons() {
        for step in &lesson.steps {
            let (t, st) = settings::from_scenario(&step.scenario);
            let pairs: Vec<(String, String)> =
                url::to_query(&t, &st, &v).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            let (t2, _, v2, notes) = url::from_query(&pairs);
            writeln!(out, "{}: {pairs:?} -> {t2:?} {v2:?} {notes:?}", lesson.id).unwrap();
        }
    }
}

#[test]
#[ignore = "writes the behaviour dump; run by hand around a restructuring"]
fn dump() {
    let mut out = String::new();
    out.push_str(&first_screen::lesson_words_json());
    writeln!(out, "default caption: {:?}", first_screen::default_caption()).unwrap();
    lesson_steps(&mut out);
    challenges_dump(&mut out);
    for lesson in lessons::lessons() {
        let step = &lesson.steps[lesson.steps.len() - 1];
        let trace = engine::run(&step.scenario).unwrap();
        writeln!(out, "## views of {}", lesson.id).unwrap();
        views(&mut out, &step.scenario, &trace);
        if step.extra == Extra::EmbeddingPlot {
            writeln!(
                out,
                "plot: {:?}",
                attention_lens::ui::lesson::plot_data::plot_data(&trace, true).is_ok()
            )
            .unwrap();
        }
    }
    links(&mut out);
    let path = std::env::var("UI_DUMP").unwrap_or_else(|_| {
        format!("{}/ui-dump.txt", std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into()))
    });
    std::fs::write(&path, out).unwrap();
    eprintln!("wrote {path}");
}
