//! A training run's curves: the loss of every step (left axis, nats) and its accuracy
//! (right axis, 0 to 100 %), against the step. The numbers are the engine's, as the
//! worker reported them; this only places them.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::embedding_plot::ticks;
use super::{Canvas, Drawn};

/// The loss line's colour (Okabe–Ito vermilion).
pub const LOSS_COLOR: RGBColor = RGBColor(213, 94, 0);
/// The accuracy line's colour (Okabe–Ito blue).
pub const ACCURACY_COLOR: RGBColor = RGBColor(0, 114, 178);

/// What to draw: one `(step, loss, accuracy)` per step, in order.
pub struct Curve<'a> {
    /// The steps' numbers.
    pub points: &'a [(usize, f64, f64)],
    /// The last step the x axis reaches (at least the last point's).
    pub x_max: usize,
    /// A step to mark with a vertical line (the checkpoint shown), if any.
    pub marker: Option<usize>,
}

/// Where the plot goes, CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveLayout {
    /// Whole picture width.
    pub width: f64,
    /// Whole picture height.
    pub height: f64,
    /// The plot area: left, top, right, bottom edges.
    pub area: (f64, f64, f64, f64),
    /// The labels' font size.
    pub font: f64,
}

/// The smallest label font, CSS px: what a screen shows of a picture drawn at its size.
pub const MIN_FONT: f64 = 12.0;

impl CurveLayout {
    /// A `width × height` picture with room for the axes' numbers: labels of
    /// [`MIN_FONT`] px, larger in a wider picture (a fortieth of it, up to 16 px), the
    /// margins four of them wide beside the plot (a loss tick such as `2.5e7`) and about
    /// two and a half above and below.
    pub fn new(width: f64, height: f64) -> Self {
        let (width, height) = (width.max(160.0), height.max(120.0));
        let font = (width / 40.0).clamp(MIN_FONT, 16.0);
        let (side, top, bottom) = (4.0 * font, 2.2 * font, 2.7 * font);
        Self { width, height, area: (side, top, width - side, height - bottom), font }
    }
}

/// The points to draw: at most about two per pixel column (every `k`-th step, always the
/// last), so a long run draws as fast as a short one.
pub fn thinned(points: &[(usize, f64, f64)], columns: f64) -> Vec<&(usize, f64, f64)> {
    let keep = (2.0 * columns.max(1.0)) as usize;
    let stride = points.len().div_ceil(keep.max(1)).max(1);
    let mut out: Vec<_> = points.iter().step_by(stride).collect();
    if let Some(last) = points.last() {
        if out.last().is_none_or(|p| !std::ptr::eq(*p, last)) {
            out.push(last);
        }
    }
    out
}

/// A loss axis number that fits the axis's margin: as [`crate::format::tick`] below 10,000,
/// else in e-notation with one decimal (`2.5e7`, `1e4`), as a diverged run's losses are.
pub fn loss_tick(v: f64) -> String {
    if v.is_finite() && v.abs() >= 1e4 {
        format!("{v:.1e}").replace(".0e", "e")
    } else {
        crate::format::tick(v)
    }
}

fn width_of(dpr: f64) -> u32 {
    (2.0 * dpr).round().max(1.0) as u32
}

/// Draws the axes, their numbers, the loss and accuracy lines, and a legend. A step whose
/// loss is not finite (a diverged run) breaks the loss line there.
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_curve<DB: DrawingBackend>(canvas: Canvas<DB>, curve: &Curve, layout: &CurveLayout) -> Drawn<DB> {
    let Canvas { area, theme, dpr } = canvas;
    area.fill(&theme.background)?;
    let (x0, y0, x1, y1) = layout.area;
    let px = |(x, y): (f64, f64)| ((x * dpr).round() as i32, (y * dpr).round() as i32);
    let points = thinned(curve.points, x1 - x0);
    let x_max = curve.x_max.max(points.last().map_or(1, |p| p.0)).max(1) as f64;
    let loss_hi = points.iter().map(|p| p.1).filter(|v| v.is_finite()).fold(0.0, f64::max).max(0.1) * 1.05;
    let at_x = |step: f64| x0 + (x1 - x0) * step / x_max;
    let at_loss = |v: f64| y1 - (y1 - y0) * v / loss_hi;
    let at_acc = |v: f64| y1 - (y1 - y0) * v;
    let font = layout.font * dpr;
    let label = |color: &RGBColor, h: HPos, v: VPos| {
        ("sans-serif", font).into_font().color(color).pos(Pos::new(h, v))
    };
    let grid = theme.blocked.stroke_width(1);
    for v in ticks(0.0, loss_hi) {
        let y = at_loss(v);
        area.draw(&PathElement::new(vec![px((x0, y)), px((x1, y))], grid))?;
        area.draw(&Text::new(
            loss_tick(v),
            px((x0 - 5.0, y)),
            label(&LOSS_COLOR, HPos::Right, VPos::Center),
        ))?;
    }
    for v in [0.0, 0.5, 1.0] {
        let text = format!("{}%", (v * 100.0) as u32);
        area.draw(&Text::new(
            text,
            px((x1 + 5.0, at_acc(v))),
            label(&ACCURACY_COLOR, HPos::Left, VPos::Center),
        ))?;
    }
    for v in ticks(0.0, x_max) {
        let x = at_x(v);
        area.draw(&Text::new(
            crate::format::tick(v),
            px((x, y1 + 5.0)),
            label(&theme.text, HPos::Center, VPos::Top),
        ))?;
    }
    let axis = theme.text.stroke_width(dpr.max(1.0) as u32);
    area.draw(&PathElement::new(vec![px((x0, y0)), px((x0, y1)), px((x1, y1)), px((x1, y0))], axis))?;
    let title_y = y0 - 0.75 * layout.font;
    area.draw(&Text::new("loss", px((x0, title_y)), label(&LOSS_COLOR, HPos::Left, VPos::Center)))?;
    area.draw(&Text::new("accuracy", px((x1, title_y)), label(&ACCURACY_COLOR, HPos::Right, VPos::Center)))?;
    if let Some(step) = curve.marker {
        let x = at_x(step as f64);
        area.draw(&PathElement::new(
            vec![px((x, y0)), px((x, y1))],
            theme.muted.stroke_width(width_of(dpr)),
        ))?;
    }
    let width = width_of(dpr);
    let mut segment = Vec::new();
    for p in &points {
        if p.1.is_finite() {
            segment.push(px((at_x(p.0 as f64), at_loss(p.1))));
        } else if !segment.is_empty() {
            area.draw(&PathElement::new(std::mem::take(&mut segment), LOSS_COLOR.stroke_width(width)))?;
        }
    }
    area.draw(&PathElement::new(segment, LOSS_COLOR.stroke_width(width)))?;
    let accuracy: Vec<_> =
        points.iter().filter(|p| p.2.is_finite()).map(|p| px((at_x(p.0 as f64), at_acc(p.2)))).collect();
    area.draw(&PathElement::new(accuracy, ACCURACY_COLOR.stroke_width(width)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::Theme;

    fn svg(points: &[(usize, f64, f64)], x_max: usize) -> String {
        let layout = CurveLayout::new(400.0, 200.0);
        let mut svg = String::new();
        {
            let backend = SVGBackend::with_string(&mut svg, (400, 200));
            let curve = Curve { points, x_max, marker: None };
            let area = backend.into_drawing_area();
            draw_curve(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, &curve, &layout).unwrap();
        }
        svg
    }

    #[test]
    fn draws_both_lines_with_their_axes() {
        let points: Vec<_> = (0..100).map(|s| (s, 2.0 - s as f64 / 60.0, s as f64 / 100.0)).collect();
        let svg = svg(&points, 500);
        for text in ["loss", "accuracy", "100%", "0%", "500"] {
            assert!(svg.contains(&format!(">\n{text}\n</text>")), "{text} missing");
        }
        // the axes box, one loss line, one accuracy line, one grid line per loss tick
        assert_eq!(svg.matches("<polyline").count(), 3 + ticks(0.0, 2.0 * 1.05).len());
    }

    #[test]
    fn a_diverged_step_breaks_the_loss_line_and_nothing_panics() {
        let points = [(0, 1.0, 0.1), (1, f64::INFINITY, f64::NAN), (2, 0.5, 0.2), (3, 0.4, 0.3)];
        let with_break = svg(&points, 3);
        let without = svg(&[(0, 1.0, 0.1), (2, 0.5, 0.2), (3, 0.4, 0.3)], 3);
        assert_eq!(with_break.matches("<polyline").count(), without.matches("<polyline").count() + 1);
        assert!(!svg(&[], 0).is_empty());
        // a marked step is one more line
        let layout = CurveLayout::new(400.0, 200.0);
        let mut marked = String::new();
        {
            let backend = SVGBackend::with_string(&mut marked, (400, 200));
            let curve = Curve { points: &points, x_max: 3, marker: Some(2) };
            let area = backend.into_drawing_area();
            draw_curve(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, &curve, &layout).unwrap();
        }
        assert_eq!(marked.matches("<polyline").count(), with_break.matches("<polyline").count() + 1);
    }

    #[test]
    fn a_diverged_runs_loss_axis_numbers_fit_the_margin() {
        assert_eq!(loss_tick(2.5), "2.5");
        assert_eq!(loss_tick(5000.0), "5000");
        assert_eq!(loss_tick(1e4), "1e4");
        assert_eq!(loss_tick(2.5e7), "2.5e7");
        assert_eq!(loss_tick(3.0000000000000004e7), "3e7");
        // every tick of a loss axis up to 80 million is at most five characters
        let svg = svg(&[(0, 2.8, 0.1), (600, 7.93e7, 0.1)], 600);
        for v in ticks(0.0, 7.93e7 * 1.05) {
            let text = loss_tick(v);
            assert!(text.len() <= 5 && svg.contains(&format!(">\n{text}\n</text>")), "{text}");
        }
    }

    /// The labels are never under 12 px and grow with a wide picture; the margins grow with
    /// them, so a five-character loss tick still fits beside the plot (about 0.6 em a
    /// character) and the plot keeps most of the picture.
    #[test]
    fn the_labels_grow_with_the_picture_and_fit_its_margins() {
        for w in [100.0, 300.0, 480.0, 640.0, 900.0, 2000.0] {
            let l = CurveLayout::new(w, 240.0);
            assert!(l.font >= MIN_FONT && l.font <= 16.0, "{w}: {}", l.font);
            assert!(l.area.0 >= 5.0 * 0.6 * l.font + 5.0, "{w}: {:?}", l.area);
            assert!(l.area.1 >= 1.5 * l.font && l.height - l.area.3 >= l.font + 5.0, "{w}: {:?}", l.area);
        }
        assert_eq!(CurveLayout::new(400.0, 240.0).font, 12.0);
        assert_eq!(CurveLayout::new(640.0, 240.0).font, 16.0);
        assert!(CurveLayout::new(520.0, 240.0).font > 12.0);
        // the labels are drawn at the layout's size (plotters' SVG writes it divided by 1.24;
        // its canvas, as px)
        let svg = svg(&[(0, 2.0, 0.1), (10, 1.0, 0.5)], 10);
        assert!(svg.contains(&format!("font-size=\"{}\"", 12.0 / 1.24)), "{svg}");
    }

    #[test]
    fn a_long_run_is_thinned_to_the_width_but_keeps_its_last_step() {
        let points: Vec<_> = (0..10_001).map(|s| (s, 1.0, 0.5)).collect();
        let kept = thinned(&points, 300.0);
        assert!(kept.len() <= 602, "{}", kept.len());
        assert_eq!(kept.last().map(|p| p.0), Some(10_000));
        assert_eq!(thinned(&points[..5], 300.0).len(), 5);
    }
}
