//! Colour scales: viridis (sequential, colour-blind safe) for weights in [0, 1], and a
//! blue–white–red diverging scale centred on 0 for signed values.

use plotters::style::colors::colormaps::{ColorMap, DerivedColorMap, ViridisRGB};
use plotters::style::RGBColor;

/// Which kind of scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    /// Viridis from `lo` to `hi` (weights: 0 to 1).
    Sequential,
    /// Blue below 0, white at 0, red above; symmetric, `lo = -hi`.
    Diverging,
}

/// A colour scale over a range of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The kind.
    pub kind: ScaleKind,
    /// The value drawn with the first colour.
    pub lo: f64,
    /// The value drawn with the last colour.
    pub hi: f64,
}

const BLUE: RGBColor = RGBColor(33, 102, 172);
const WHITE: RGBColor = RGBColor(247, 247, 247);
const RED: RGBColor = RGBColor(178, 24, 43);

impl Scale {
    /// Weights: viridis over exactly [0, 1], so heads and masks compare at a glance.
    pub fn weights() -> Self {
        Self { kind: ScaleKind::Sequential, lo: 0.0, hi: 1.0 }
    }

    /// A diverging scale symmetric about 0 that covers every finite value given.
    /// Non-finite values (±inf fills, NaN rows) are ignored; they are drawn as blocked.
    pub fn diverging<'a>(values: impl IntoIterator<Item = &'a f64>) -> Self {
        let max_abs = values.into_iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
        let hi = if max_abs > 0.0 { max_abs } else { 1.0 };
        Self { kind: ScaleKind::Diverging, lo: -hi, hi }
    }

    /// The colour of a finite value (clamped to the range).
    pub fn color(&self, v: f64) -> RGBColor {
        let span = self.hi - self.lo;
        let t = if span > 0.0 { ((v - self.lo) / span).clamp(0.0, 1.0) } else { 0.5 };
        match self.kind {
            ScaleKind::Sequential => ViridisRGB::get_color(t),
            ScaleKind::Diverging => DerivedColorMap::new(&[BLUE, WHITE, RED]).get_color(t),
        }
    }

    /// Black or white, whichever reads better on `background`.
    pub fn text_on(background: RGBColor) -> RGBColor {
        let RGBColor(r, g, b) = background;
        let luma = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
        if luma > 140.0 {
            RGBColor(0, 0, 0)
        } else {
            RGBColor(255, 255, 255)
        }
    }

    /// Five evenly spaced tick values for the colour bar, from `lo` to `hi`.
    pub fn ticks(&self) -> [f64; 5] {
        let step = (self.hi - self.lo) / 4.0;
        [self.lo, self.lo + step, self.lo + 2.0 * step, self.lo + 3.0 * step, self.hi]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diverging_is_centred_on_zero() {
        let s = Scale::diverging(&[-0.5, 2.0, f64::NEG_INFINITY, f64::NAN]);
        assert_eq!((s.lo, s.hi), (-2.0, 2.0));
        assert_eq!(s.color(0.0), WHITE);
        assert_eq!(s.color(-2.0), BLUE);
        assert_eq!(s.color(9.0), RED);
        assert_eq!(Scale::diverging(&[0.0]).hi, 1.0);
    }

    #[test]
    fn weights_use_viridis_ends() {
        let s = Scale::weights();
        assert_eq!(s.color(0.0), ViridisRGB::get_color(0.0));
        assert_eq!(s.color(1.0), ViridisRGB::get_color(1.0));
        assert_ne!(s.color(0.0), s.color(1.0));
        assert_eq!(s.ticks(), [0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(Scale::text_on(s.color(0.0)), RGBColor(255, 255, 255)); // dark purple
        assert_eq!(Scale::text_on(s.color(1.0)), RGBColor(0, 0, 0)); // yellow
    }
}
