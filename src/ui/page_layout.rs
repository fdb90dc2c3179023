//! The widths and heights the page lays its heatmaps out for, from the window's size, as
//! plain Rust: the explorer's column beside the pipeline, a lesson's picture column
//! beside its words (and in presenter mode), and how tall a lesson's picture may be.
//! Tested natively.

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
    let above = if present { 140.0 } else { 300.0 };
    (viewport > 900.0).then(|| (height - above).max(160.0))
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
    fn a_lessons_picture_fits_the_first_screen() {
        assert_eq!(lesson_max_height(800.0, 700.0, false), None);
        assert_eq!(lesson_max_height(1200.0, 800.0, false), Some(500.0));
        assert_eq!(lesson_max_height(1200.0, 800.0, true), Some(660.0));
        assert_eq!(lesson_max_height(1200.0, 350.0, false), Some(160.0));
    }
}
