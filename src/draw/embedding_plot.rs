//! A small 2-D plot of embeddings before and after attention, with arrows: the baseball
//! bat lesson's picture of "bat" being pulled toward "baseball".

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::heatmap::{short_label, Theme};

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
}

impl PlotLayout {
    /// A plot of `width × height` CSS pixels over the given data ranges.
    pub fn new(width: f64, height: f64, x: (f64, f64), y: (f64, f64)) -> Self {
        Self { width, height, x, y, margin: 28.0 }
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

/// Draws axes, every word's embedding (hollow), its output (filled) and an arrow between.
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_embedding_plot<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[Point],
    layout: &PlotLayout,
    theme: &Theme,
    dpr: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let px = |(x, y): (f64, f64)| ((x * dpr).round() as i32, (y * dpr).round() as i32);
    let at = |p: (f64, f64)| px(layout.to_px(p));
    area.fill(&theme.background)?;
    let font = 12.0 * dpr;
    // grid and axes
    let grid = theme.blocked.stroke_width(1);
    let mut v = layout.x.0.ceil();
    while v <= layout.x.1 {
        area.draw(&PathElement::new(vec![at((v, layout.y.0)), at((v, layout.y.1))], grid))?;
        let style = ("sans-serif", font * 0.85)
            .into_font()
            .color(&theme.muted)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let (x, y) = at((v, layout.y.0));
        area.draw(&Text::new(crate::format::tick(v), (x, y + (4.0 * dpr) as i32), style))?;
        v += 1.0;
    }
    let mut v = layout.y.0.ceil();
    while v <= layout.y.1 {
        area.draw(&PathElement::new(vec![at((layout.x.0, v)), at((layout.x.1, v))], grid))?;
        let style = ("sans-serif", font * 0.85)
            .into_font()
            .color(&theme.muted)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let (x, y) = at((layout.x.0, v));
        area.draw(&Text::new(crate::format::tick(v), (x - (4.0 * dpr) as i32, y), style))?;
        v += 1.0;
    }
    let axis = theme.text.stroke_width((1.5 * dpr) as u32);
    area.draw(&PathElement::new(vec![at((0.0, layout.y.0)), at((0.0, layout.y.1))], axis))?;
    area.draw(&PathElement::new(vec![at((layout.x.0, 0.0)), at((layout.x.1, 0.0))], axis))?;

    let colors = [RGBColor(213, 94, 0), RGBColor(0, 114, 178), RGBColor(0, 158, 115)];
    for (k, p) in points.iter().enumerate() {
        let color = colors[k % colors.len()];
        let (b, a) = (at(p.before), at(p.after));
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
        let r = (5.0 * dpr) as i32;
        area.draw(&Circle::new(
            b,
            r + if p.draggable { (2.0 * dpr) as i32 } else { 0 },
            color.stroke_width((2.0 * dpr) as u32),
        ))?;
        area.draw(&Circle::new(a, r, color.filled()))?;
        let style = ("sans-serif", font).into_font().color(&color).pos(Pos::new(HPos::Left, VPos::Bottom));
        area.draw(&Text::new(short_label(&p.label), (b.0 + r + 3, b.1 - r), style.clone()))?;
        area.draw(&Text::new(format!("{} after", short_label(&p.label)), (a.0 + r + 3, a.1 + 3 * r), style))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            draw_embedding_plot(&b.into_drawing_area(), &pts, &l, &Theme::LIGHT, 1.0).unwrap();
        }
        assert_eq!(svg.matches("<circle").count(), 4);
        assert_eq!(svg.matches("<polygon").count(), 2, "two arrow heads");
        assert!(svg.contains("bat after") && svg.contains("baseball"));
    }
}
