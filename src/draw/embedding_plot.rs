//! A small 2-D plot of embeddings before and after attention, with arrows: the baseball
//! bat lesson's picture of "bat" being pulled toward "baseball".

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::heatmap_layout::short_label;
use super::labels::{place_labels, text_width, Dot, LabelBox, Rect};
use super::{Canvas, Drawn};

/// One word: where it starts (its embedding) and where attention moves it (its output).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The token.
    pub label: String,
    /// (x, y) of the embedding.
    pub before: (f64, f64),
    /// (x, y) of the output row.
    pub after: (f64, f64),
    /// Drawn with a handle: the page lets the learner drag it.
    pub draggable: bool,
}

/// Maps data coordinates to CSS pixels and back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotLayout {
    /// Picture width.
    pub width: f64,
    /// Picture height.
    pub height: f64,
    /// Data range on x.
    pub x: (f64, f64),
    /// Data range on y.
    pub y: (f64, f64),
    /// Margin around the plot area.
    pub margin: f64,
    /// One dimension only (`d_model = 1`): a strip plot, each word on a row of its own
    /// (y is the row, not a number), no y ticks.
    pub one_d: bool,
}

/// The range a plot shows by default: seed 003's plane, with room to drag "bat".
pub const DEFAULT_RANGE: (f64, f64) = (-0.5, 3.0);

impl PlotLayout {
    /// A plot of `width × height` CSS pixels over the given data ranges.
    pub fn new(width: f64, height: f64, x: (f64, f64), y: (f64, f64)) -> Self {
        Self { width, height, x, y, margin: 28.0, one_d: false }
    }

    /// A plot that shows every finite coordinate of `points` (and at least
    /// [`DEFAULT_RANGE`], so that dragging within it never rescales the picture). With
    /// `one_d`, only x is fitted and y is `0..1`, the words' rows.
    pub fn fit(width: f64, height: f64, points: &[Point], one_d: bool) -> Self {
        let xs = points.iter().flat_map(|p| [p.before.0, p.after.0]);
        let ys = points.iter().flat_map(|p| [p.before.1, p.after.1]);
        let y = if one_d { (0.0, 1.0) } else { fit_range(ys) };
        Self { one_d, ..Self::new(width, height, fit_range(xs), y) }
    }

    /// Pixel position of a data point.
    pub fn to_px(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let w = self.width - 2.0 * self.margin;
        let h = self.height - 2.0 * self.margin;
        (
            self.margin + (x - self.x.0) / (self.x.1 - self.x.0) * w,
            self.height - self.margin - (y - self.y.0) / (self.y.1 - self.y.0) * h,
        )
    }

    /// Data point under a pixel position, clamped to the ranges.
    pub fn value_at(&self, px: f64, py: f64) -> (f64, f64) {
        let w = self.width - 2.0 * self.margin;
        let h = self.height - 2.0 * self.margin;
        let x = self.x.0 + (px - self.margin) / w * (self.x.1 - self.x.0);
        let y = self.y.0 + (self.height - self.margin - py) / h * (self.y.1 - self.y.0);
        (x.clamp(self.x.0, self.x.1), y.clamp(self.y.0, self.y.1))
    }
}

/// The label of a word's output dot: "bat (output)". Not "bat after", which a lesson about
/// a training step reads as "bat after the step".
pub fn output_label(word: &str) -> String {
    format!("{word} (output)")
}

/// The smallest range holding [`DEFAULT_RANGE`] and every finite value, with a margin of
/// a tenth of the values' span; non-finite values (a NaN output row) are left out.
pub fn fit_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return DEFAULT_RANGE;
    }
    let pad = (hi - lo) * 0.1;
    ((lo - pad).min(DEFAULT_RANGE.0), (hi + pad).max(DEFAULT_RANGE.1))
}

/// Axis ticks for `lo..=hi`: multiples of 1, 2 or 5 × 10^k, at most about seven of them;
/// none for an empty or non-finite range.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && hi > lo) {
        return vec![];
    }
    let raw = (hi - lo) / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    (first..=last).take(16).map(|k| k as f64 * step).collect()
}

/// Small boxes along the segment `a → b` (CSS pixels), for labels to keep off it; the
/// ends are left out (the dots are there, and labels may sit beside them).
pub fn segment_boxes(a: (f64, f64), b: (f64, f64)) -> Vec<Rect> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if !len.is_finite() || len < 1.0 {
        return vec![];
    }
    let n = ((len / 4.0).ceil() as usize).min(400);
    (1..n)
        .map(|i| {
            let f = i as f64 / n as f64;
            let (x, y) = (a.0 + dx * f, a.1 + dy * f);
            Rect { x0: x - 1.5, y0: y - 1.5, x1: x + 1.5, y1: y + 1.5 }
        })
        .collect()
}

/// Draws axes, every word's embedding (hollow), its output (filled) and an arrow between,
/// and labels placed by [`place_labels`] so that none covers a dot or another label (with
/// a leader line when a label had to move away from its dot). An output that is not finite
/// (a fully masked row's NaN) is left out, arrow and all.
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_embedding_plot<DB: DrawingBackend>(
    canvas: Canvas<DB>,
    points: &[Point],
    layout: &PlotLayout,
) -> Drawn<DB> {
    let Canvas { area, theme, dpr } = canvas;
    let px = |(x, y): (f64, f64)| ((x * dpr).round() as i32, (y * dpr).round() as i32);
    let at = |p: (f64, f64)| px(layout.to_px(p));
    area.fill(&theme.background)?;
    let font = 12.0 * dpr;
    // grid and axes; tick labels and the axes are kept clear of the word labels
    let grid = theme.blocked.stroke_width(1);
    let tick_font = 12.0 * 0.85;
    let mut avoid = Vec::new();
    for v in ticks(layout.x.0, layout.x.1) {
        area.draw(&PathElement::new(vec![at((v, layout.y.0)), at((v, layout.y.1))], grid))?;
        let style = ("sans-serif", font * 0.85)
            .into_font()
            .color(&theme.muted)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let text = crate::format::tick(v);
        let (x, y) = layout.to_px((v, layout.y.0));
        let w = text_width(text.chars().count(), tick_font);
        avoid.push(Rect { x0: x - w / 2.0, y0: y + 4.0, x1: x + w / 2.0, y1: y + 4.0 + tick_font * 1.2 });
        area.draw(&Text::new(text, px((x, y + 4.0)), style))?;
    }
    if !layout.one_d {
        for v in ticks(layout.y.0, layout.y.1) {
            area.draw(&PathElement::new(vec![at((layout.x.0, v)), at((layout.x.1, v))], grid))?;
            let style = ("sans-serif", font * 0.85)
                .into_font()
                .color(&theme.muted)
                .pos(Pos::new(HPos::Right, VPos::Center));
            let (x, y) = at((layout.x.0, v));
            area.draw(&Text::new(crate::format::tick(v), (x - (4.0 * dpr) as i32, y), style))?;
        }
    }
    let axis = theme.text.stroke_width((1.5 * dpr) as u32);
    let y_axis = if layout.one_d { layout.y.0 } else { 0.0 };
    area.draw(&PathElement::new(vec![at((0.0, layout.y.0)), at((0.0, layout.y.1))], axis))?;
    area.draw(&PathElement::new(vec![at((layout.x.0, y_axis)), at((layout.x.1, y_axis))], axis))?;
    // the two axes as thin boxes: x = 0 from bottom to top, and the horizontal axis
    let (zero_x, bottom) = layout.to_px((0.0, layout.y.0));
    let top = layout.to_px((0.0, layout.y.1)).1;
    let (left, axis_y) = layout.to_px((layout.x.0, y_axis));
    let right = layout.to_px((layout.x.1, y_axis)).0;
    avoid.push(Rect { x0: zero_x - 1.5, y0: top, x1: zero_x + 1.5, y1: bottom });
    avoid.push(Rect { x0: left, y0: axis_y - 1.5, x1: right, y1: axis_y + 1.5 });

    let colors = [RGBColor(213, 94, 0), RGBColor(0, 114, 178), RGBColor(0, 158, 115)];
    let finite = |(x, y): (f64, f64)| x.is_finite() && y.is_finite();
    let r = 5.0;
    let ring = |p: &Point| if p.draggable { r + 3.0 } else { r + 1.0 };
    // every dot, in CSS pixels, and the labels that name them
    let mut dots = Vec::new();
    let mut labels = Vec::new();
    let mut texts = Vec::new();
    // in one dimension each word gets a row of its own, so the arrows do not overlap
    let n = points.len() as f64;
    let lane =
        |k: usize, (x, y): (f64, f64)| if layout.one_d { (x, (k as f64 + 1.0) / (n + 1.0)) } else { (x, y) };
    for (k, p) in points.iter().enumerate() {
        let color = colors[k % colors.len()];
        let (before, after) = (lane(k, p.before), lane(k, p.after));
        for (where_, text, radius) in
            [(before, short_label(&p.label), ring(p)), (after, output_label(&short_label(&p.label)), r)]
        {
            if !finite(where_) {
                continue;
            }
            let dot = Dot { at: layout.to_px(where_), radius };
            dots.push(dot);
            labels.push(LabelBox { dot, width: text_width(text.chars().count(), 12.0), height: 14.0 });
            texts.push((text, color));
        }
    }
    let bounds = Rect { x0: 0.0, y0: 0.0, x1: layout.width, y1: layout.height };
    // the arrows too: a label should not sit on a line
    for (k, p) in points.iter().enumerate() {
        let (b, a) = (lane(k, p.before), lane(k, p.after));
        if finite(b) && finite(a) {
            avoid.extend(segment_boxes(layout.to_px(b), layout.to_px(a)));
        }
    }
    let placed = place_labels(&labels, &dots, &avoid, bounds);

    for (k, p) in points.iter().enumerate() {
        let color = colors[k % colors.len()];
        let (before, after) = (lane(k, p.before), lane(k, p.after));
        if !finite(before) {
            continue;
        }
        let b = at(before);
        if finite(after) {
            let a = at(after);
            // arrow from before to after, with a small head
            area.draw(&PathElement::new(vec![b, a], color.stroke_width((2.0 * dpr) as u32)))?;
            let (dx, dy) = (f64::from(a.0 - b.0), f64::from(a.1 - b.1));
            let len = (dx * dx + dy * dy).sqrt();
            if len > 6.0 * dpr {
                let (ux, uy) = (dx / len, dy / len);
                let s = 9.0 * dpr;
                let left = (a.0 - (s * (ux + uy * 0.5)) as i32, a.1 - (s * (uy - ux * 0.5)) as i32);
                let right = (a.0 - (s * (ux - uy * 0.5)) as i32, a.1 - (s * (uy + ux * 0.5)) as i32);
                area.draw(&Polygon::new(vec![a, left, right], color.filled()))?;
            }
            area.draw(&Circle::new(a, (r * dpr) as i32, color.filled()))?;
        }
        let extra = if p.draggable { 2.0 } else { 0.0 };
        area.draw(&Circle::new(b, ((r + extra) * dpr) as i32, color.stroke_width((2.0 * dpr) as u32)))?;
    }
    for ((place, label), (text, color)) in placed.iter().zip(&labels).zip(texts) {
        if let Some((from, to)) = place.leader {
            area.draw(&PathElement::new(vec![px(from), px(to)], color.stroke_width(dpr.max(1.0) as u32)))?;
        }
        // the estimated box is wider than the text: hold the text to the side nearest its dot
        let Rect { x0, y0, x1, .. } = place.rect;
        let dot_x = label.dot.at.0;
        let (h, x) = if x1 <= dot_x {
            (HPos::Right, x1)
        } else if x0 >= dot_x {
            (HPos::Left, x0)
        } else {
            (HPos::Center, (x0 + x1) / 2.0)
        };
        let style = ("sans-serif", font).into_font().color(&color).pos(Pos::new(h, VPos::Top));
        area.draw(&Text::new(text, px((x, y0 + 1.0)), style))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::Theme;

    #[test]
    fn pixel_mapping_round_trips() {
        let l = PlotLayout::new(300.0, 260.0, (-0.5, 3.0), (-0.5, 3.0));
        for p in [(0.0, 0.0), (2.0, 0.0), (1.0, 1.0), (1.76, 0.24)] {
            let (x, y) = l.to_px(p);
            let back = l.value_at(x, y);
            assert!((back.0 - p.0).abs() < 1e-9 && (back.1 - p.1).abs() < 1e-9);
        }
        assert_eq!(l.value_at(-100.0, -100.0), (-0.5, 3.0)); // clamped
    }

    #[test]
    fn draws_points_and_arrows_to_svg() {
        let l = PlotLayout::new(300.0, 260.0, (-0.5, 3.0), (-0.5, 3.0));
        let pts = vec![
            Point { label: "baseball".into(), before: (2.0, 0.0), after: (1.76, 0.24), draggable: false },
            Point { label: "bat".into(), before: (1.0, 1.0), after: (1.5, 0.5), draggable: true },
        ];
        let mut svg = String::new();
        {
            let b = SVGBackend::with_string(&mut svg, (300, 260));
            let area = b.into_drawing_area();
            draw_embedding_plot(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, &pts, &l).unwrap();
        }
        assert_eq!(svg.matches("<circle").count(), 4);
        assert_eq!(svg.matches("<polygon").count(), 2, "two arrow heads");
        assert!(svg.contains("bat (output)") && svg.contains("baseball"));
    }

    fn svg_of(pts: &[Point], l: &PlotLayout) -> String {
        let mut svg = String::new();
        {
            let b = SVGBackend::with_string(&mut svg, (l.width as u32, l.height as u32));
            let area = b.into_drawing_area();
            draw_embedding_plot(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, pts, l).unwrap();
        }
        svg
    }

    #[test]
    fn ticks_are_round_and_never_minus_zero() {
        assert_eq!(ticks(-0.5, 3.0), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(-0.6, 0.6), vec![-0.5, 0.0, 0.5]);
        assert!(ticks(f64::NAN, 1.0).is_empty() && ticks(1.0, 1.0).is_empty());
        assert!(ticks(-1e30, 1e30).len() <= 16, "huge ranges give few ticks, and return");
        // -0.0 and tiny negatives print as 0
        let l = PlotLayout::new(300.0, 260.0, (-1.0, 1.0), (-1.0, 1.0));
        let pts =
            vec![Point { label: "bat".into(), before: (-1e-12, -0.0), after: (0.5, 0.5), draggable: true }];
        let svg = svg_of(&pts, &l);
        assert!(!svg.contains(">-0<") && !svg.contains(">-0.0"), "a tick prints -0");
    }

    #[test]
    fn fit_range_holds_every_finite_value() {
        assert_eq!(fit_range([]), DEFAULT_RANGE);
        assert_eq!(fit_range([1.0, 2.0, f64::NAN]), DEFAULT_RANGE);
        let (lo, hi) = fit_range([-10.0, 20.0, f64::INFINITY]);
        assert!(lo <= -10.0 && hi >= 20.0 && hi.is_finite());
        let pts = vec![Point {
            label: "bat".into(),
            before: (40.0, -7.0),
            after: (f64::NAN, f64::NAN),
            draggable: true,
        }];
        let l = PlotLayout::fit(300.0, 260.0, &pts, false);
        assert!(l.x.1 >= 40.0 && l.y.0 <= -7.0);
    }

    #[test]
    fn one_dimension_and_nan_outputs_draw_without_panicking() {
        // d_model = 1: every point on the x axis; NaN outputs (a fully masked row) are left out
        let pts = vec![
            Point { label: "baseball".into(), before: (2.0, 0.0), after: (1.9, 0.0), draggable: false },
            Point { label: "bat".into(), before: (1.0, 0.0), after: (f64::NAN, 0.0), draggable: true },
        ];
        let l = PlotLayout::fit(300.0, 260.0, &pts, true);
        let svg = svg_of(&pts, &l);
        assert_eq!(svg.matches("<circle").count(), 3, "two embeddings and one finite output");
        assert!(svg.contains("baseball (output)") && !svg.contains("bat (output)"));
        // huge numbers: a picture, quickly
        let huge =
            vec![Point { label: "x".into(), before: (1e30, -1e30), after: (-1e30, 1e30), draggable: false }];
        let svg = svg_of(&huge, &PlotLayout::fit(300.0, 260.0, &huge, false));
        assert!(svg.contains("x (output)"));
    }

    #[test]
    fn segments_become_boxes_between_their_ends() {
        let boxes = segment_boxes((0.0, 0.0), (40.0, 0.0));
        assert_eq!(boxes.len(), 9);
        assert!(boxes.iter().all(|b| b.x0 > 0.0 && b.x1 < 40.0 && b.y0 < 0.0 && b.y1 > 0.0));
        assert!(segment_boxes((0.0, 0.0), (0.5, 0.0)).is_empty());
        assert!(segment_boxes((0.0, 0.0), (f64::INFINITY, 0.0)).is_empty());
        assert!(segment_boxes((0.0, 0.0), (1e9, 0.0)).len() < 400);
    }
}
