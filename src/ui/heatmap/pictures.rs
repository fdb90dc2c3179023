//! Every lesson step's picture drawn natively, as SVG: the focus step's heatmap cards as
//! the lesson stage draws them on a phone (the same [`CardData`], layout, colour scale and
//! [`draw::draw_heatmap`]), one card per head stacked as the phone stacks them. A lesson
//! link's first paint shows its step's file (`assets/lesson-pictures/<id>-<step>.svg`)
//! before the WebAssembly arrives; a native test holds the files equal to this, as
//! `assets/lesson-words.json` is held
//! (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes both).
//!
//! No web dependency: plain Rust over the engine's trace and the `draw` module.

use plotters::prelude::*;

use crate::draw::{self, Layout, Scale, Theme, LABEL_FONT};
use crate::engine::{StepName, Trace};
use crate::lessons::{self, Lesson};
use crate::ui::heatmap::card_data::{fit_layout, CardData};
use crate::ui::state::card_id::CardId;
use crate::ui::state::page_layout::lesson_column;
use crate::ui::state::page_layout::{card_width, shown_step};

/// The phone the pictures are drawn for: CSS px wide (Lighthouse's mobile viewport).
pub const PHONE_WIDTH: f64 = 412.0;

/// The space between two stacked cards, CSS px.
const GAP: f64 = 8.0;

/// The folder (in the crate and in the built site) that holds the pictures.
pub const DIR: &str = "lesson-pictures";

/// The file name of lesson `id`'s step `s` picture, inside [`DIR`].
pub fn file_name(id: &str, s: usize) -> String {
    format!("{id}-{s}.svg")
}

/// The file name of the same picture in the dark theme (what a page in dark mode shows).
pub fn dark_file_name(id: &str, s: usize) -> String {
    format!("{id}-{s}-dark.svg")
}

/// The colour scale of card `id`, as the lesson stage colours it (its view keeps one scale
/// shared by every head): viridis for the weights; otherwise blue–white–red over every
/// head's numbers of the step when it has heads, or over the card's own.
pub fn card_scale(trace: &Trace, id: CardId) -> Scale {
    let Some(s) = trace.step(id.step) else { return Scale::weights() };
    if id.step == StepName::Weights {
        return Scale::weights();
    }
    if s.has_heads() {
        let heads = s.shape.get(1).copied().unwrap_or(1);
        Scale::diverging((0..heads).filter_map(|h| s.matrix(id.batch, h)).flat_map(|m| m.into_iter()))
    } else {
        Scale::diverging(s.matrix(id.batch, id.head).into_iter().flat_map(|m| m.into_iter()))
    }
}

/// A step's picture: the SVG and its size, CSS px.
#[derive(Debug, Clone, PartialEq)]
pub struct StepPicture {
    /// The SVG document.
    pub svg: String,
    /// Its width, CSS px.
    pub width: u32,
    /// Its height, CSS px.
    pub height: u32,
}

/// Lesson `lesson`'s step `s` as an SVG, or `None` when the step shows no heatmaps (its
/// picture is the decode, tiles, position-similarity or reshape view instead) or its
/// scenario does not run.
pub fn step_picture(lesson: &Lesson, s: usize) -> Option<StepPicture> {
    step_picture_in(lesson, s, &Theme::LIGHT)
}

/// [`step_picture`] in `theme`'s colours.
pub fn step_picture_in(lesson: &Lesson, s: usize, theme: &Theme) -> Option<StepPicture> {
    let step = lesson.steps.get(s)?;
    if step.extra.replaces_heatmaps() {
        return None;
    }
    let trace = crate::engine::run(&step.scenario).ok()?;
    cards_picture(&trace, shown_step(&trace, step.focus), step.batch, true, theme)
}

/// Step `name`'s heatmap cards for sentence `batch` (the last, past it) as a phone draws
/// them, one card per head stacked, as an SVG; each head's own colour scale unless
/// `shared` (one over every head, as [`card_scale`]), on `theme`'s background and labels.
/// `None` when the trace has no such step or a card cannot be drawn.
pub fn cards_picture(
    trace: &Trace,
    name: StepName,
    batch: usize,
    shared: bool,
    theme: &Theme,
) -> Option<StepPicture> {
    let batch = batch.min(trace.sizes.b.saturating_sub(1));
    let st = trace.step(name)?;
    let heads = if st.has_heads() { st.shape.get(1).copied().unwrap_or(1) } else { 1 };
    let n_cols = st.shape.last().copied().unwrap_or(0);
    let width = card_width(lesson_column(PHONE_WIDTH, || false), heads, n_cols);
    let scale = |id: CardId| {
        if shared || id.step == StepName::Weights {
            card_scale(trace, id)
        } else {
            Scale::diverging(st.matrix(id.batch, id.head).into_iter().flat_map(|m| m.into_iter()))
        }
    };
    let cards: Vec<(CardData, Scale)> = (0..heads)
        .map(|head| CardId { step: name, batch, head })
        .map(|id| CardData::build(trace, id).map(|d| (d, scale(id))))
        .collect::<Option<_>>()?;
    let layouts: Vec<Layout> = cards
        .iter()
        .map(|(d, _)| fit_layout(&d.labels.rows, &d.labels.cols, width, None, LABEL_FONT))
        .collect();
    let w = layouts.iter().map(|l| l.width).fold(0.0, f64::max).ceil();
    let h = (layouts.iter().map(|l| l.height).sum::<f64>() + GAP * (heads - 1) as f64).ceil();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w as u32, h as u32)).into_drawing_area();
        root.fill(&theme.background).ok()?;
        let mut top = 0.0;
        for ((d, scale), layout) in cards.iter().zip(&layouts) {
            let area = root
                .clone()
                .shrink((0, top as u32), (layout.width.ceil() as u32, layout.height.ceil() as u32));
            let map = d.heatmap(*scale);
            draw::draw_heatmap(draw::Canvas { area: &area, theme, dpr: 1.0 }, &map, layout).ok()?;
            top += layout.height.ceil() + GAP;
        }
        root.present().ok()?;
    }
    Some(StepPicture { svg, width: w as u32, height: h as u32 })
}

/// Every lesson step's picture: `(file name, SVG)`, in lesson and step order, each step's
/// light picture followed by its dark one.
pub fn all_step_svgs() -> Vec<(String, String)> {
    lessons::lessons()
        .iter()
        .flat_map(|lesson| {
            (0..lesson.steps.len()).flat_map(move |s| {
                let light = step_picture(lesson, s).map(|p| (file_name(lesson.id, s), p.svg));
                let dark =
                    step_picture_in(lesson, s, &Theme::DARK).map(|p| (dark_file_name(lesson.id, s), p.svg));
                light.into_iter().chain(dark)
            })
        })
        .collect()
}

/// The steps that have a picture, as index.html's head lists them to request a lesson
/// link's picture beside its words: `id:steps` per lesson, space-separated, each step a
/// base-36 digit (`baseball-bat:012345 cross:0123 …`). A lesson with no picture is left out.
pub fn picture_index() -> String {
    lessons::lessons()
        .iter()
        .filter_map(|lesson| {
            let steps: String = (0..lesson.steps.len())
                .filter(|&s| step_picture(lesson, s).is_some())
                .map(|s| char::from_digit(s as u32, 36).expect("a lesson has at most 36 steps"))
                .collect();
            (!steps.is_empty()).then(|| format!("{}:{steps}", lesson.id))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The markers around the picture list in index.html's head script.
const INDEX_BEGIN: &str = "/* lesson pictures: begin */'";
const INDEX_END: &str = "'/* lesson pictures: end */";

/// `html` with the text between the picture-list markers replaced by `index`, or `None`
/// when the markers are missing.
pub fn with_picture_index(html: &str, index: &str) -> Option<String> {
    let start = html.find(INDEX_BEGIN)? + INDEX_BEGIN.len();
    let end = start + html[start..].find(INDEX_END)?;
    Some(format!("{}{index}{}", &html[..start], &html[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::Extra;

    /// The pictures in `assets/lesson-pictures/` are the ones drawn here, one per step
    /// that shows heatmaps, and no other file (a step removed leaves none behind). With
    /// `UPDATE_FIRST_SCREEN` set, writes them first:
    /// `UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen`.
    #[test]
    fn first_screen_lesson_pictures_are_the_engines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(DIR);
        let want = all_step_svgs();
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            for (name, svg) in &want {
                std::fs::write(dir.join(name), svg).unwrap();
            }
        }
        let stale = "run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen";
        let mut have: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|_| panic!("no {DIR} folder: {stale}"))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        have.sort();
        let mut names: Vec<String> = want.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        assert_eq!(have, names, "assets/{DIR} holds other pictures than the lessons': {stale}");
        for (name, svg) in &want {
            let file = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
            assert!(file == *svg, "assets/{DIR}/{name} is not what the app draws for that step: {stale}");
        }
        // most steps show heatmaps; each picture is small enough to fetch before the app
        // (the largest, 8 query × 16 key cells per head, is 108 kB raw and 8 kB gzip)
        let steps: usize = lessons::lessons().iter().map(|l| l.steps.len()).sum();
        assert!(want.len() * 4 > steps * 6, "{} pictures (light and dark) for {steps} steps", want.len());
        // each light picture has its dark twin, the same size, on the dark background
        for pair in want.chunks(2) {
            let [(light, l), (dark, d)] = pair else { panic!("a picture without its dark twin") };
            assert_eq!(dark, &light.replace(".svg", "-dark.svg"));
            assert_eq!(l.split('>').next(), d.split('>').next(), "{dark}: another size than {light}");
            assert!(d.contains("fill=\"#18181E\"") && !l.contains("fill=\"#18181E\""), "{dark}");
        }
        for (name, svg) in &want {
            assert!(svg.starts_with("<svg") && svg.len() < 128_000, "{name}: {} bytes", svg.len());
        }
    }

    /// index.html's head requests a lesson link's picture beside its words, for the steps
    /// that have one: its list is [`picture_index`], and each entry names a file this
    /// module draws (`UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen` writes it).
    #[test]
    fn first_screen_index_html_lists_the_steps_with_pictures() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/index.html");
        let html = std::fs::read_to_string(path).unwrap();
        let index = picture_index();
        let want = with_picture_index(&html, &index).expect("index.html has the lesson-picture markers");
        if std::env::var_os("UPDATE_FIRST_SCREEN").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap();
        assert!(have == want, "index.html's picture list is not {index:?}: run UPDATE_FIRST_SCREEN=1 cargo test --lib first_screen");
        // the list names exactly the files drawn, in the form the head's script reads
        let mut named = Vec::new();
        for entry in index.split(' ') {
            let (id, steps) = entry.split_once(':').expect("id:steps");
            for c in steps.chars() {
                named.push(file_name(id, c.to_digit(36).unwrap() as usize));
            }
        }
        let drawn: Vec<String> =
            all_step_svgs().into_iter().map(|(n, _)| n).filter(|n| !n.ends_with("-dark.svg")).collect();
        assert_eq!(named, drawn);
        assert_eq!(with_picture_index("x = 'old';", "a"), None);
        assert_eq!(
            with_picture_index(&format!("x = {INDEX_BEGIN}old{INDEX_END};"), "a:0"),
            Some(format!("x = {INDEX_BEGIN}a:0{INDEX_END};"))
        );
    }

    /// The masks lesson's step 2 (the weights after the mask) draws its weights on the
    /// viridis scale with the blocked cells hatched, the numbers the app shows.
    #[test]
    fn a_step_picture_draws_the_cards_of_its_focus_step() {
        let all = lessons::lessons();
        let masks = all.iter().find(|l| l.id == "masks").expect("the masks lesson");
        let step = &masks.steps[2];
        let svg = step_picture(masks, 2).expect("masks step 2 shows heatmaps").svg;
        let trace = crate::engine::run(&step.scenario).unwrap();
        let id = CardId { step: shown_step(&trace, step.focus), batch: step.batch, head: 0 };
        let d = CardData::build(&trace, id).unwrap();
        // every row label and every cell's rectangle is in the picture
        for label in &d.labels.rows {
            let text =
                crate::draw::heatmap_layout::short_label(label).replace('<', "&lt;").replace('>', "&gt;");
            assert!(svg.contains(&format!(">{text}<")) || svg.contains(&format!(">\n{text}\n<")), "{label}");
        }
        assert!(svg.matches("<rect").count() >= d.values.len(), "{svg}");
        // a step whose picture is another view has none
        let decode = all.iter().find_map(|l| {
            l.steps.iter().position(|s| matches!(s.extra, Extra::Decode { .. })).map(|s| (l, s))
        });
        if let Some((l, s)) = decode {
            assert_eq!(step_picture(l, s), None);
        }
    }
}
