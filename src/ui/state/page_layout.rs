//! The widths and heights the page lays its heatmaps out for, from the window's size, as
//! plain Rust: the explorer's column beside the pipeline, a lesson's picture column
//! beside its words (and in presenter mode), and how tall a lesson's picture may be.
//! Tested natively.

use crate::engine::{StepName, Trace};

/// The explorer's column of cards, CSS px: the window (at most 1400 px) less the pipeline
/// beside it, or less the margins on a narrow screen (≤ 900 px).
pub fn explorer_column(viewport: f64) -> f64 {
    let w = viewport.min(1400.0);
    if w > 900.0 {
        w - 400.0
    } else {
        w - 40.0
    }
}

/// A lesson's picture column, CSS px: the stage's grid is 1fr : 1.25fr inside the lesson
/// box, 0.8fr : 1fr when presenting; a narrow screen has one column. `present` is asked
/// only on a wide screen.
pub fn lesson_column(viewport: f64, present: impl FnOnce() -> bool) -> f64 {
    let w = viewport;
    if w <= 900.0 {
        w - 70.0
    } else if present() {
        (w - 96.0) / 1.8
    } else {
        (w.min(1400.0) - 90.0) * 1.25 / 2.25
    }
}

/// How tall a lesson's picture may be, CSS px, so that words and picture share the first
/// screen (the page header, the lesson tabs and the card's title sit above it); no limit
/// on a narrow screen, where they stack.
pub fn lesson_max_height(viewport: f64, height: f64, present: bool) -> Option<f64> {
    // presenting: the step's sentence tabs, the step's name and shape, its head picker
    // and the card's title line sit above the canvas; a narrow card's axis titles wrap to
    // four lines beside its title (a map of two columns)
    let above = if present { 240.0 } else { 315.0 };
    (viewport > 900.0).then(|| (height - above).max(160.0))
}

/// The screen presenter mode lays a step out for, CSS px (a little more than 1280 × 720):
/// a larger screen shows that layout larger ([`presenter_zoom`]), type, maps and tables
/// together, so that a step that fits one screen fits every larger one, read from further.
pub const PRESENTER_SCREEN: (f64, f64) = (1370.0, 770.0);

/// How much larger presenter mode draws a step on a `width` × `height` screen (CSS
/// `zoom` on the page): [`PRESENTER_SCREEN`] scaled up as far as the screen holds it, to
/// two decimals (1.4 at 1920 × 1080), never less than 1 (1280 × 720 is laid out as it is).
/// The page is laid out for `width / zoom` × `height / zoom`.
pub fn presenter_zoom(width: f64, height: f64) -> f64 {
    let (w, h) = PRESENTER_SCREEN;
    ((width / w).min(height / h) * 100.0).floor().max(100.0) / 100.0
}

/// True when the explorer, opened on a screen `viewport` CSS px wide, folds its controls
/// (closed) so that a heatmap is on the first screen: a phone. Decided once, when the page
/// opens; a window made narrower later keeps what it has.
pub fn folds_controls(viewport: f64) -> bool {
    viewport > 0.0 && viewport <= 600.0
}

/// True when presenter mode should show one head at a time (with a picker) rather than
/// `heads` cards side by side: the cards, all of them in one row of `column`, would draw
/// cells smaller than their `label_font` labels, and a room reads 18 px labels only on
/// cells at least as tall (a second row of cards would not fit the screen). The labels on
/// the left and the colour bar take about 11 × `label_font` of a card, for `n_cols`
/// columns of cells.
pub fn one_head_at_a_time(column: f64, heads: usize, n_cols: usize, label_font: f64) -> bool {
    if heads < 2 {
        return false;
    }
    let card = column / heads as f64 - 40.0;
    let cell = (card - 11.0 * label_font) / n_cols.max(1) as f64;
    cell < label_font
}

/// The embedding plot's width with its margins, CSS px (its canvas is 300 px wide).
pub const PLOT_WIDTH: f64 = 330.0;

/// The smallest cell, CSS px, presenter mode draws a lesson's map in when a plot sits
/// beside it: a room reads a cell's number (two decimals at about 16 px) from the back.
pub const PRESENTER_MIN_CELL: f64 = 40.0;

/// The smallest size, CSS px as drawn, presenter mode writes a number in a heatmap's cell
/// at: a room reads 12 px digits from the back; a cell too small for them carries none,
/// and a step whose words quote its numbers shows them in a table beside the words.
pub const PRESENTER_MIN_NUMBER: f64 = 12.0;

/// True when presenter mode can put a plot `plot` px wide beside the cards of `n_cols`
/// columns in a picture column `column` px wide: the card keeps the room its labels and
/// colour bar take (about 11 × `label_font`, as in [`one_head_at_a_time`]) and cells of
/// at least [`PRESENTER_MIN_CELL`]. Where it cannot, the map has the column to itself.
pub fn plot_beside(column: f64, plot: f64, n_cols: usize, label_font: f64) -> bool {
    let card = column - plot - 30.0;
    (card - 11.0 * label_font) / n_cols.max(1) as f64 >= PRESENTER_MIN_CELL
}

/// The step shown, never one the trace lacks: a step of cross-attention or positions
/// that was switched off falls back to the weights.
pub fn shown_step(trace: &Trace, wanted: StepName) -> StepName {
    if trace.step(wanted).is_some() {
        wanted
    } else {
        StepName::Weights
    }
}

/// How wide each card may be in a column `column` px wide.
pub fn card_width(column: f64, heads: usize, n_cols: usize) -> f64 {
    // two heads side by side while their cells stay big enough to read; one per row
    // beyond T = 24, so that T = 64 still has ~10 px cells and labels
    if heads > 1 && column > 560.0 && n_cols <= 24 {
        (column / 2.0 - 40.0).min(520.0)
    } else {
        (column - 30.0).min(760.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explorer_column_leaves_room_for_the_pipeline() {
        assert_eq!(explorer_column(375.0), 335.0);
        assert_eq!(explorer_column(900.0), 860.0);
        assert_eq!(explorer_column(1200.0), 800.0);
        assert_eq!(explorer_column(2560.0), 1000.0);
    }

    #[test]
    fn a_lessons_column_follows_its_grid() {
        let asked = std::cell::Cell::new(false);
        let present = |p: bool| {
            let asked = &asked;
            move || {
                asked.set(true);
                p
            }
        };
        assert_eq!(lesson_column(375.0, present(true)), 305.0);
        assert!(!asked.get(), "a narrow screen does not ask");
        assert_eq!(lesson_column(996.0, present(true)), 500.0);
        assert!(asked.get());
        assert_eq!(lesson_column(1210.0, present(false)), 622.2222222222222);
        assert_eq!(lesson_column(3000.0, present(false)), (1400.0 - 90.0) * 1.25 / 2.25);
    }

    #[test]
    fn a_plot_sits_beside_a_map_only_while_its_cells_stay_readable() {
        let at_1280 = lesson_column(1280.0, || true);
        // two keys beside a 330 px plot: cells of about 50 px
        assert!(plot_beside(at_1280, 330.0, 2, 18.0));
        // five keys would be 20 px cells: the map keeps the column
        assert!(!plot_beside(at_1280, 330.0, 5, 18.0));
        assert!(plot_beside(lesson_column(1920.0, || true), 330.0, 5, 18.0));
    }

    #[test]
    fn a_step_whose_words_point_at_the_plot_keeps_it_when_presented() {
        let mut pointing = 0;
        for lesson in crate::lessons::lessons() {
            for (s, step) in lesson.steps.iter().enumerate() {
                let t = crate::engine::run(&step.scenario).expect("a lesson step runs");
                if step.extra != crate::lessons::Extra::EmbeddingPlot || !step.words(&t).contains("plot") {
                    continue;
                }
                pointing += 1;
                for width in [1280.0, 1920.0] {
                    let column = lesson_column(width, || true);
                    assert!(
                        plot_beside(column, PLOT_WIDTH, t.key_length(0), 18.0),
                        "{} step {} at {width} px",
                        lesson.id,
                        s + 1
                    );
                }
            }
        }
        assert!(pointing > 0);
    }

    #[test]
    fn a_lessons_picture_fits_the_first_screen() {
        assert_eq!(lesson_max_height(800.0, 700.0, false), None);
        assert_eq!(lesson_max_height(1200.0, 800.0, false), Some(485.0));
        assert_eq!(lesson_max_height(1200.0, 800.0, true), Some(560.0));
        assert_eq!(lesson_max_height(1200.0, 350.0, false), Some(160.0));
    }

    #[test]
    fn presenter_mode_shows_one_head_when_two_would_shrink_the_cells_below_the_labels() {
        // 1280 px presenting: a 658 px picture column
        let column = lesson_column(1280.0, || true);
        assert!(!one_head_at_a_time(column, 1, 13, 18.0), "one head is one head");
        assert!(!one_head_at_a_time(column, 2, 2, 18.0), "baseball bat: two heads of 2 × 2 fit");
        assert!(one_head_at_a_time(column, 2, 7, 18.0), "masks: 7 keys");
        assert!(one_head_at_a_time(column, 2, 13, 18.0), "why heads: 13 keys");
        // four cards of 2 columns would wrap to a second row, below the screen
        assert!(one_head_at_a_time(column, 4, 2, 18.0), "GQA: four heads of d_k = 2");
        assert!(!one_head_at_a_time(1800.0, 4, 2, 18.0), "unless the column holds four");
        // the explorer's label size on a wide screen keeps both
        assert!(!one_head_at_a_time(1400.0, 2, 7, 12.0));
    }

    #[test]
    fn presenter_type_grows_with_the_screen_and_its_layout_stays_one_that_fits() {
        assert_eq!(presenter_zoom(1280.0, 720.0), 1.0);
        assert_eq!(presenter_zoom(1366.0, 768.0), 1.0);
        assert_eq!(presenter_zoom(1920.0, 1080.0), 1.4);
        assert_eq!(presenter_zoom(3840.0, 2160.0), 2.8);
        // a wide, short window: the height decides
        assert_eq!(presenter_zoom(2560.0, 1080.0), 1.4);
        // what each screen is laid out as: at least the 1280 × 720 every step fits (by
        // the browser test), never more than the screen
        for (w, h) in
            [(1280.0, 720.0), (1920.0, 1080.0), (2560.0, 1440.0), (1600.0, 1200.0), (3840.0, 2160.0)]
        {
            let z = presenter_zoom(w, h);
            assert!(w / z >= 1280.0 && h / z >= 720.0 && z >= 1.0, "{w} × {h}: {z}");
        }
    }

    #[test]
    fn a_phone_folds_the_explorers_controls() {
        assert!(folds_controls(375.0) && folds_controls(600.0));
        assert!(!folds_controls(601.0) && !folds_controls(1440.0));
        assert!(!folds_controls(0.0), "no window width known: keep them open");
    }
}
