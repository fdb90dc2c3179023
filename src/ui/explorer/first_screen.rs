//! The first screen's story under the header, in the explorer: a caption saying what to
//! look at in the weights (from [`crate::lessons::first_screen::caption`] on the live
//! trace, shown only while the weights step is selected) and the button that starts the
//! first lesson.

use leptos::prelude::*;

use crate::draw::Theme;
use crate::engine::StepName;
use crate::lessons;
use crate::lessons::glossary::{first_used_in, segments};

use crate::ui::explain::explained::Explained;
use crate::ui::heatmap::pictures::{cards_picture, StepPicture};
use crate::ui::platform::first_paint;
use crate::ui::state::app_state::AppState;
use crate::ui::state::settings::{scenario, Settings, DEFAULT_TEXT};
use crate::ui::state::url;

/// The caption a page opened without a link shows first: the default sentences and
/// settings, through the engine. index.html paints it before the WebAssembly arrives
/// (between its `first-screen caption` markers; a native test holds the two equal and,
/// run with `UPDATE_FIRST_SCREEN=1`, writes it there).
pub fn default_caption() -> Option<String> {
    let (s, _) = scenario(DEFAULT_TEXT, &Settings::default());
    let t = crate::engine::run(&s).ok()?;
    lessons::first_screen::caption(&t, 0)
}

/// What index.html paints for a lesson link (`?lesson=ID&ls=N`) before the WebAssembly
/// arrives: the lessons in order (the tabs), and for each step its meta line, title,
/// words, question and table beside the words (`aside`), as the app writes them for the lesson's own vectors (and an
/// embed's words, `embed_text`, where they differ). Where the
/// step is the first of its lesson to use glossary terms, `parts` is the words cut at
/// them (even places plain words, odd places a term, as the app's term buttons), so the
/// painted paragraph is the app's to the pixel. It is `assets/lesson-words.json`, which
/// index.html fetches from its head for a lesson link; a native test holds the file equal
/// to this.
pub fn lesson_words_json() -> String {
    use serde_json::{json, Value};
    let lessons: Vec<Value> = lessons::lessons()
        .iter()
        .map(|lesson| {
            let steps: Vec<Value> = lesson
                .steps
                .iter()
                .enumerate()
                .map(|(s, step)| {
                    let trace = crate::engine::run(&step.scenario).ok();
                    let said = |f: fn(&crate::engine::Trace) -> String| trace.as_ref().map(f);
                    let text = said(step.narrate);
                    let mut out = json!({
                        "meta": lessons::meta_line(lesson, s),
                        "title": step.title,
                        "text": text,
                    });
                    if let Some(q) = step.quiz.and_then(|q| said(q.question)) {
                        out["question"] = json!(q);
                    }
                    // an embed's words, where they differ (a question step's without how
                    // to answer on the page, a step's written for the embed's picture)
                    if let Some(embedded) =
                        trace.as_ref().map(|t| step.embed_text(t)).filter(|e| Some(e) != text.as_ref())
                    {
                        out["embed_text"] = json!(embedded);
                    }
                    // the step's picture (assets/lesson-pictures), with its size so that
                    // the first paint reserves its place
                    if let Some(p) = crate::ui::heatmap::pictures::step_picture(lesson, s) {
                        out["picture"] = json!({
                            "src": format!("{}/{}", crate::ui::heatmap::pictures::DIR,
                                crate::ui::heatmap::pictures::file_name(lesson.id, s)),
                            "dark": format!("{}/{}", crate::ui::heatmap::pictures::DIR,
                                crate::ui::heatmap::pictures::dark_file_name(lesson.id, s)),
                            "width": p.width,
                            "height": p.height,
                        });
                    }
                    // the table beside the words, which comes before the picture on a
                    // phone: painted first, the picture does not move when the app arrives
                    if let Some(a) = trace.as_ref().and_then(|t| (step.aside)(t)) {
                        out["aside"] = json!({ "caption": a.caption, "head": a.head, "rows": a.rows });
                    }
                    let terms = first_used_in(lesson, s);
                    if let (Some(text), false) = (&text, terms.is_empty()) {
                        out["parts"] = json!(alternating(&segments(text, &terms)));
                    }
                    out
                })
                .collect();
            json!({ "id": lesson.id, "title": lesson.title, "steps": steps })
        })
        .collect();
    format!("{}\n", json!({ "lessons": lessons }))
}

/// `segments` as plain words and terms alternating, from plain words (an empty string
/// where a term comes first or two terms meet).
fn alternating(segments: &[(&str, Option<&'static lessons::glossary::Term>)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (words, term) in segments {
        if term.is_some() == out.len().is_multiple_of(2) {
            out.push(String::new());
        }
        out.push((*words).to_string());
    }
    out
}

/// `text` for an HTML text node: `&`, `<` and `>` escaped.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `html` with the text between the caption markers (`<!-- first-screen caption: begin -->`
/// and its `end`) replaced by `caption`, or `None` when the markers are missing.
pub fn with_caption(html: &str, caption: &str) -> Option<String> {
    with_marked(html, "caption", caption)
}

/// `html` with the text between the markers `<!-- first-screen NAME: begin -->` and
/// `<!-- first-screen NAME: end -->` replaced by `text`, or `None` when they are missing.
fn with_marked(html: &str, name: &str, text: &str) -> Option<String> {
    let (begin, end) =
        (format!("<!-- first-screen {name}: begin -->"), format!("<!-- first-screen {name}: end -->"));
    let start = html.find(&begin)? + begin.len();
    let stop = start + html[start..].find(&end)?;
    Some(format!("{}{}{}", &html[..start], html_text(text), &html[stop..]))
}

/// The words of the button that starts the first lesson, titled `first_lesson_title`.
fn start_words(first_lesson_title: &str) -> String {
    format!("Start the lesson: {first_lesson_title}")
}

/// The caption while the learner guesses a weight of the shown sentence.
const GUESSING: &str = "Which key does each token look at most? Guess the value in the explanation first; this line tells after Reveal.";

/// What the first screen's caption says with trace step `step` and sentence `batch`
/// selected and `trace` shown: what to look at in the weights
/// ([`lessons::first_screen::caption`]), nothing on another step, and [`GUESSING`] while
/// the learner guesses a weight of the sentence (`guessing(batch)`).
pub fn shown_caption(
    step: StepName,
    batch: usize,
    trace: &crate::engine::Trace,
    guessing: impl Fn(usize) -> bool,
) -> Option<String> {
    if step != StepName::Weights {
        return None;
    }
    let batch = batch.min(trace.sizes.b.saturating_sub(1));
    if guessing(batch) {
        return Some(GUESSING.to_string());
    }
    lessons::first_screen::caption(trace, batch)
}

/// What index.html paints first for an explorer link, before the app's WebAssembly
/// arrives (computed by the first-paint worker, src/bin/first_paint.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkFirstPaint {
    /// The caption the explorer opens with ([`FirstScreen`]'s), or in embed mode the
    /// figure's ([`crate::ui::explorer::embed::step_caption`]).
    pub caption: String,
    /// In embed mode, the figure's heatmap cards as a phone draws them; none for a view
    /// drawn as lines.
    pub picture: Option<StepPicture>,
}

/// What an explorer link opens with, from its query pairs and fragment (with its `#`, or
/// empty): the caption [`FirstScreen`] writes once the app has run the engine on the
/// link's scenario, or in embed mode (`embed=1`) the figure's caption and its picture.
/// `None` when the link opens no explorer (a lesson, a challenge, the Learn view,
/// presenter mode), has a fragment that is not a scenario (a `#c=` challenge), or opens on
/// no caption (another step, one word, a scenario the engine refuses). The picture is drawn
/// in the page's light or dark `theme`, as the app draws its canvases.
pub fn link_first_paint(
    pairs: Vec<(String, String)>,
    fragment: &str,
    theme: &Theme,
) -> Option<LinkFirstPaint> {
    let (page, pairs) = url::PageParams::split(pairs);
    let other_page =
        page.lesson.is_some() || page.present || page.challenge.is_some() || page.learn.is_some();
    let other_fragment = fragment.len() > 1 && crate::link::from_fragment(fragment).is_none();
    if other_page || other_fragment {
        return None;
    }
    let (text, settings, view, _) = url::explorer_from(&pairs, fragment);
    let trace = crate::engine::run(&scenario(&text, &settings).0).ok()?;
    if page.embed {
        let caption = crate::ui::explorer::embed::step_caption(&trace, view.step)?;
        let step = crate::ui::state::page_layout::shown_step(&trace, view.step);
        let picture = (!view.lines)
            .then(|| cards_picture(&trace, step, view.batch, view.shared_scale, theme))
            .flatten();
        return Some(LinkFirstPaint { caption, picture });
    }
    let caption = shown_caption(view.step, view.batch, &trace, |_| false)?;
    Some(LinkFirstPaint { caption, picture: None })
}

/// The caption and the "Start the lesson" button.
#[component]
pub fn FirstScreen(
    /// The page's state.
    state: AppState,
    /// The first lesson's title.
    first_lesson_title: &'static str,
    /// Opens a lesson step (the button opens the first lesson's first step).
    on_go: Callback<(usize, usize)>,
) -> impl IntoView {
    let AppState { lesson, view: view_state, shown, .. } = state;
    let guessed = use_context::<Explained>();
    // The first screen's caption: what to look at in the weights, from the live trace.
    let caption = move || {
        if lesson.get().is_some() {
            return None;
        }
        let (step, batch) = view_state.with(|v| (v.step, v.batch));
        // the caption names the largest weights: not while the learner guesses one
        let guessing = |b| guessed.is_some_and(|e| e.hides_step(StepName::Weights, b));
        shown.with(|t| shown_caption(step, batch, t.as_ref()?, guessing))
    };
    // index.html's caption (the first screen's, or the one the first-paint worker computed
    // for an explorer link) is the node the page keeps while the caption is the same: the
    // browser counted it as the first screen's largest paint, and a new node of the same
    // words painted later would count again, after the WebAssembly. The closure below puts
    // the app's own node back (`give_back`) before it updates or removes it.
    let caption_ref = NodeRef::<leptos::html::P>::new();
    Effect::new(move |_| {
        if let Some(p) = caption_ref.get() {
            first_paint::adopt("caption", &p);
        }
    });
    view! {
        <div class="al-story">
            {move || {
                let caption = caption();
                first_paint::give_back("caption");
                caption
                    .map(|c| {
                        view! {
                            <p
                                class="al-caption"
                                data-testid="caption"
                                aria-live="polite"
                                node_ref=caption_ref
                            >
                                {c}
                            </p>
                        }
                    })
            }}
            <button
                type="button"
                class="al-start"
                data-testid="start-lesson"
                on:click=move |_| on_go.run((0, 0))
            >
                {start_words(first_lesson_title)}
            </button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the file at `path` (in the crate) holds `want`; with `UPDATE_FIRST_SCREEN`
    /// set, writes it there first.
    fn held_equal(path: &str, want: &str) -> bool {
        let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(&path, want).unwrap();
        }
        std::fs::read_to_string(&path).is_ok_and(|have| have == want)
    }

    /// The caption index.html paints first for a link.
    fn link_caption(pairs: Vec<(String, String)>, fragment: &str) -> Option<String> {
        link_first_paint(pairs, fragment, &Theme::LIGHT).map(|p| p.caption)
    }

    /// A link's query as decoded pairs (the tests' links use no escapes).
    fn pairs(query: &str) -> Vec<(String, String)> {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    /// The caption of `text` run with `settings`, sentence `batch`, as the first screen
    /// writes it for a trace built here, not from a link.
    fn caption_of(text: &str, settings: &Settings, batch: usize) -> Option<String> {
        let t = crate::engine::run(&scenario(text, settings).0).unwrap();
        lessons::first_screen::caption(&t, batch)
    }

    /// What the first-paint worker paints for an explorer link is the caption of the
    /// link's scenario, its selected sentence, heads and mask included.
    #[test]
    fn an_explorer_links_caption_is_its_scenarios() {
        let cat = "the cat sat on the mat";
        let mut s = Settings { d_model: 8, n_heads: 2, ..Settings::default() };
        s.mask.causal = true;
        let want = caption_of(cat, &s, 0).unwrap();
        let got = link_caption(pairs(&format!("s={cat}&d=8&h=2&causal=1&step=weights")), "");
        assert_eq!(got.as_deref(), Some(want.as_str()));
        assert!(want.contains("(head 1)"), "{want}");
        // without `step`, the weights; without settings, the defaults; not the default caption
        let plain = link_caption(pairs(&format!("s={cat}")), "").unwrap();
        assert_eq!(plain, caption_of(cat, &Settings::default(), 0).unwrap());
        assert_ne!(Some(plain), default_caption());
        // the second sentence, selected by `b`
        let two = "the cat sat on the mat\nthe dog ran to the park";
        let second = link_caption(pairs(&format!("s={two}&b=1")), "").unwrap();
        assert_eq!(second, caption_of(two, &Settings::default(), 1).unwrap());
        assert_ne!(Some(&second), link_caption(pairs(&format!("s={two}&b=0")), "").as_ref());
        // a sentence past the last: the last, as the app shows it
        assert_eq!(link_caption(pairs(&format!("s={two}&b=7")), "").unwrap(), second);
        // cross-attention
        let cross = link_caption(pairs(&format!("s={cat}&kv=the dog ran")), "").unwrap();
        let with_kv = Settings { kv_text: Some("the dog ran".to_owned()), ..Settings::default() };
        assert_eq!(cross, caption_of(cat, &with_kv, 0).unwrap());
    }

    /// The combinations, not only the defaults: for each scenario, written as the app
    /// writes its link ([`url::to_query`]), the first-paint worker's caption is the one the
    /// first screen writes for that scenario built here (or none for both), and an embed's
    /// caption and picture are its figure's: padding masks and fills, a window, `h_kv < h`,
    /// ALiBi with and without causal, RoPE, d_model 1 and 2, a batch and cross-attention.
    #[test]
    fn every_combination_paints_its_scenarios_caption_and_figure() {
        use crate::engine::{Fill, Padding};
        use crate::ui::state::settings::ViewState;
        let base = |d_model, n_heads| Settings { d_model, n_heads, ..Settings::default() };
        let with = |mut s: Settings, f: &dyn Fn(&mut Settings)| {
            f(&mut s);
            s
        };
        let two = "the cat sat on the mat\nthe dog ran";
        let cases: Vec<(&str, Settings, usize)> = vec![
            (two, with(base(4, 2), &|s| s.mask.padding = Padding::KeysAndQueries), 1),
            (two, with(base(4, 2), &|s| s.mask.padding = Padding::None), 1),
            (two, with(base(4, 2), &|s| s.mask.fill = Fill::LargeNegative), 1),
            (two, with(base(6, 3), &|s| s.mask.padding = Padding::KeysAndQueries), 0),
            ("the cat sat on the mat", with(base(8, 4), &|s| s.n_kv_heads = Some(2)), 0),
            ("the cat sat on the mat", with(base(8, 4), &|s| s.n_kv_heads = Some(1)), 0),
            ("the cat sat on the mat", with(base(4, 2), &|s| s.alibi = true), 0),
            (
                "the cat sat on the mat",
                with(base(4, 2), &|s| {
                    s.alibi = true;
                    s.mask.causal = true;
                }),
                0,
            ),
            (
                "the cat sat on the mat",
                with(base(4, 2), &|s| {
                    s.mask.causal = true;
                    s.mask.window = Some(2);
                }),
                0,
            ),
            ("the cat sat on the mat", with(base(4, 1), &|s| s.mask.window = Some(2)), 0),
            ("the cat sat", base(1, 1), 0),
            ("the cat sat", base(2, 1), 0),
            ("the cat sat", base(2, 2), 0),
            ("a b c d e", base(5, 1), 0),
            (two, with(base(4, 2), &|s| s.kv_text = Some("a dog ran by the park\nthe end".to_owned())), 1),
            (
                two,
                with(base(4, 2), &|s| {
                    s.kv_text = Some("a dog ran\nby".to_owned());
                    s.mask.window = Some(2);
                }),
                0,
            ),
        ];
        let mut captioned = 0;
        for (text, settings, batch) in cases {
            let view = ViewState { batch, ..ViewState::default() };
            let link: Vec<(String, String)> =
                url::to_query(text, &settings, &view).into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            let what = format!("{link:?}");
            let trace = crate::engine::run(&scenario(text, &settings).0).unwrap();
            let caption = link_caption(link.clone(), "");
            assert_eq!(caption, lessons::first_screen::caption(&trace, batch), "{what}");
            captioned += usize::from(caption.is_some());
            // its embed: the figure's caption and cards
            let mut embed = link.clone();
            embed.push(("embed".to_owned(), "1".to_owned()));
            let got = link_first_paint(embed, "", &Theme::LIGHT).unwrap();
            assert_eq!(
                Some(got.caption),
                crate::ui::explorer::embed::step_caption(&trace, StepName::Weights),
                "{what}"
            );
            assert_eq!(
                got.picture,
                cards_picture(&trace, StepName::Weights, batch, true, &Theme::LIGHT),
                "{what}"
            );
            assert!(got.picture.is_some(), "{what}: no picture");
        }
        // most of them open on a caption (one word per head is not enough for some)
        assert!(captioned >= 12, "{captioned} of 16 links have a caption");
    }

    /// A whole scenario in the fragment replaces the query's text and settings, as in the
    /// app; a fragment that is not a scenario (a challenge's `#c=`) paints nothing.
    #[test]
    fn an_explorer_links_fragment_is_its_scenario() {
        let s = Settings { d_model: 6, n_heads: 3, ..Settings::default() };
        let text = "a red fox jumps";
        let fragment =
            url::fragment(text, &Settings { sinks: Some(vec![1.0, 0.5, 0.0]), ..s.clone() }).unwrap();
        assert!(fragment.starts_with("#s="), "{fragment}");
        let got = link_caption(pairs("s=ignored words here&step=weights"), &fragment).unwrap();
        let want = caption_of(text, &Settings { sinks: Some(vec![1.0, 0.5, 0.0]), ..s }, 0).unwrap();
        assert_eq!(got, want);
        assert!(got.contains("sink takes"), "{got}");
        assert_eq!(link_caption(pairs("s=the cat sat"), "#c=abc"), None);
    }

    /// Links that open no explorer, or a step other than the weights, paint no caption; an
    /// embed paints its figure's.
    #[test]
    fn links_without_the_first_screen_have_no_caption() {
        for query in [
            "s=the cat sat&step=scores",
            "s=the cat sat&lesson=masks&ls=1",
            "s=the cat sat&present=1",
            "challenge=cat-mat",
            "learn=copy",
            "s=hello",
        ] {
            assert_eq!(link_caption(pairs(query), ""), None, "{query}");
        }
        assert!(link_caption(pairs("s=the cat sat&present=0&embed=0"), "").is_some());
        // an embed's picture is its figure's cards as a phone draws them, with the link's
        // colour scale (one per head with share=0); none for the lines view
        let two_heads = Settings { d_model: 4, n_heads: 2, ..Settings::default() };
        let t = crate::engine::run(&scenario("the cat sat", &two_heads).0).unwrap();
        let picture = |q: &str| link_first_paint(pairs(q), "", &Theme::LIGHT).unwrap().picture;
        let shared = picture("s=the cat sat&d=4&h=2&embed=1&step=scores").unwrap();
        assert_eq!(Some(&shared), cards_picture(&t, StepName::Scores, 0, true, &Theme::LIGHT).as_ref());
        let own = picture("s=the cat sat&d=4&h=2&embed=1&step=scores&share=0").unwrap();
        assert_eq!(Some(&own), cards_picture(&t, StepName::Scores, 0, false, &Theme::LIGHT).as_ref());
        assert_ne!(shared.svg, own.svg, "two heads, one scale or two");
        // in the dark theme, on the dark background the app's canvases use
        let dark = link_first_paint(pairs("s=the cat sat&d=4&h=2&embed=1&step=scores"), "", &Theme::DARK)
            .unwrap()
            .picture
            .unwrap();
        assert_eq!(Some(&dark), cards_picture(&t, StepName::Scores, 0, true, &Theme::DARK).as_ref());
        let fill = |c: plotters::style::RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        assert!(
            dark.svg.contains(&fill(Theme::DARK.background))
                && !shared.svg.contains(&fill(Theme::DARK.background))
        );
        assert!(dark.svg.contains(&fill(Theme::DARK.text)) && !dark.svg.contains(&fill(Theme::LIGHT.text)));
        assert!(shared.svg.starts_with("<svg") && shared.width > 0 && shared.height > 0);
        assert_eq!(picture("s=the cat sat&embed=1&view=lines"), None);
        assert_eq!(
            link_first_paint(pairs("s=the cat sat"), "", &Theme::LIGHT).unwrap().picture,
            None,
            "not outside an embed"
        );
        // an embed's caption is its figure's, on any step
        for step in ["weights", "scores", "output"] {
            let got = link_caption(pairs(&format!("s=the cat sat&embed=1&step={step}")), "").unwrap();
            let t = crate::engine::run(&scenario("the cat sat", &Settings::default()).0).unwrap();
            let name = StepName::from_name(step).unwrap();
            assert_eq!(Some(got), crate::ui::explorer::embed::step_caption(&t, name), "{step}");
        }
    }

    /// index.html paints the default first screen's caption before the WebAssembly
    /// arrives: the engine's words and numbers, none written by hand. When the engine or
    /// the caption changes, `UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes
    /// the new caption into index.html.
    #[test]
    fn index_html_paints_the_engines_first_caption() {
        let html = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/index.html")).unwrap();
        let caption = default_caption().expect("the default first screen has a caption");
        let want = with_caption(&html, &caption).expect("index.html has the caption markers");
        // and the button that starts the first lesson, shown (not yet pressable) beside it
        let start = start_words(lessons::lessons()[0].title);
        let want = with_marked(&want, "start", &start).expect("index.html has the start button's markers");
        assert!(
            held_equal("index.html", &want),
            "index.html's first-screen caption is not the engine's \"{caption}\": run \
             UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
    }

    /// `assets/lesson-words.json` is the engine's words for every lesson step
    /// (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes it).
    #[test]
    fn the_lesson_words_file_is_the_engines() {
        let json = lesson_words_json();
        assert!(
            held_equal("assets/lesson-words.json", &json),
            "assets/lesson-words.json is not the engine's: run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen"
        );
        // every lesson, in order, and every step of it has its words; parts join to them
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        let all = parsed["lessons"].as_array().unwrap();
        let lessons = lessons::lessons();
        assert_eq!(all.len(), lessons.len());
        let mut with_terms = 0;
        for (lesson, got) in lessons.iter().zip(all) {
            assert_eq!(got["id"], lesson.id);
            let steps = got["steps"].as_array().unwrap();
            assert_eq!(steps.len(), lesson.steps.len());
            for (s, step) in steps.iter().enumerate() {
                let text = step["text"].as_str().unwrap_or_default();
                assert!(!text.is_empty(), "{} {s}", lesson.id);
                if let Some(parts) = step["parts"].as_array() {
                    with_terms += 1;
                    let parts: Vec<&str> = parts.iter().map(|p| p.as_str().unwrap()).collect();
                    assert_eq!(parts.concat(), text, "{} {s}", lesson.id);
                    let terms: Vec<&str> = parts.iter().skip(1).step_by(2).copied().collect();
                    let want = first_used_in(lesson, s);
                    let a_form = |t: &&str| want.iter().any(|w| w.forms.contains(t));
                    assert!(!terms.is_empty() && terms.iter().all(a_form), "{} {s}: {terms:?}", lesson.id);
                }
            }
        }
        assert!(with_terms > 5, "the steps that link terms carry them ({with_terms})");
    }

    #[test]
    fn alternating_starts_with_plain_words() {
        let t = &lessons::glossary::GLOSSARY[0];
        assert_eq!(alternating(&[("a ", None), ("x", Some(t)), (" b", None)]), ["a ", "x", " b"]);
        assert_eq!(alternating(&[("x", Some(t)), (" b", None)]), ["", "x", " b"]);
        assert_eq!(alternating(&[("x", Some(t)), ("y", Some(t))]), ["", "x", "", "y"]);
        assert_eq!(alternating(&[("only", None)]), ["only"]);
    }

    #[test]
    fn the_caption_goes_between_the_markers_escaped() {
        let (begin, end) = ("<!-- first-screen caption: begin -->", "<!-- first-screen caption: end -->");
        let html = format!("<p>{begin}old{end}</p>");
        assert_eq!(
            with_caption(&html, "a <pad> & b").unwrap(),
            format!("<p>{begin}a &lt;pad&gt; &amp; b{end}</p>")
        );
        assert_eq!(with_caption("<p>no markers</p>", "x"), None);
    }
}
