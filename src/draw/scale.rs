//! Colour scales: viridis (sequential, colour-blind safe) for weights in [0, 1], and a
//! blue–white–red diverging scale centred on 0 for signed values.

use std::sync::OnceLock;

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

/// Points of each colour map kept in a table ([`Scale::color`]); odd, so t = ½ is one.
pub const STEPS: usize = 4097;
static SEQUENTIAL: OnceLock<Vec<RGBColor>> = OnceLock::new();
static DIVERGING: OnceLock<Vec<RGBColor>> = OnceLock::new();

/// A [`Scale`]'s colours as a table: [`Scale::lookup`].
#[derive(Debug, Clone, Copy)]
pub struct Lookup {
    table: &'static [RGBColor],
    lo: f64,
    /// Table steps per unit of value (0 for an empty range: the middle colour).
    per: f64,
}

impl Lookup {
    /// See [`Scale::color`].
    #[inline]
    pub fn color(&self, v: f64) -> RGBColor {
        let i = if self.per > 0.0 { ((v - self.lo) * self.per).round() } else { (STEPS / 2) as f64 };
        // `as` saturates: below the range is 0, above it the last (NaN is 0; cells that
        // are NaN are drawn as blocked before they get here)
        let i = (i as usize).min(STEPS - 1);
        self.table.get(i).copied().unwrap_or(WHITE)
    }
}

/// WCAG 2's relative luminance of an sRGB colour, 0 (black) to 1 (white).
pub fn relative_luminance(RGBColor(r, g, b): RGBColor) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// The colour map of `kind` at `t` in [0, 1], computed: what the tables hold.
fn map_color(kind: ScaleKind, t: f64) -> RGBColor {
    match kind {
        ScaleKind::Sequential => ViridisRGB::get_color(t),
        ScaleKind::Diverging => DerivedColorMap::new(&[BLUE, WHITE, RED]).get_color(t),
    }
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

    /// The colour of a finite value (clamped to the range): the colour map's at the
    /// nearest of [`STEPS`] evenly spaced points of the range, looked up, not computed
    /// per cell (a 128 × 128 card has 16 384 cells; computing each took ~40 ns). The
    /// ends and the middle are exact; elsewhere a channel is at most 1 of 255 off.
    pub fn color(&self, v: f64) -> RGBColor {
        self.lookup().color(v)
    }

    /// [`Scale::color`] with the table found once, for a loop over many cells.
    pub fn lookup(&self) -> Lookup {
        let kind = self.kind;
        let table = match kind {
            ScaleKind::Sequential => &SEQUENTIAL,
            ScaleKind::Diverging => &DIVERGING,
        }
        .get_or_init(|| (0..STEPS).map(|i| map_color(kind, i as f64 / (STEPS - 1) as f64)).collect());
        let span = self.hi - self.lo;
        Lookup { table, lo: self.lo, per: if span > 0.0 { (STEPS - 1) as f64 / span } else { 0.0 } }
    }

    /// The colour map itself at `t` in [0, 1], computed (for the tests of [`Scale::color`]).
    pub fn exact_color(&self, t: f64) -> RGBColor {
        map_color(self.kind, t)
    }

    /// Black or white, whichever reads better on `background`.
    pub fn text_on(background: RGBColor) -> RGBColor {
        // WCAG 2's contrast ratio: the text colour with the larger one (black on viridis'
        // middle greens, where a brightness cut-off chose white)
        let l = relative_luminance(background);
        let (on_black, on_white) = ((l + 0.05) / 0.05, 1.05 / (l + 0.05));
        if on_black >= on_white {
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
    fn the_looked_up_colour_is_the_colour_map_to_within_one_unit() {
        for scale in [Scale::weights(), Scale::diverging(&[-3.0, 3.0])] {
            for i in 0..=20_000 {
                let t = f64::from(i) / 20_000.0;
                let v = scale.lo + t * (scale.hi - scale.lo);
                let (RGBColor(a, b, c), RGBColor(x, y, z)) = (scale.color(v), scale.exact_color(t));
                let off = [a.abs_diff(x), b.abs_diff(y), c.abs_diff(z)];
                assert!(off.iter().all(|&d| d <= 1), "{:?} at t = {t}: {off:?}", scale.kind);
            }
            // the ends and the middle exactly
            for t in [0.0, 0.5, 1.0] {
                assert_eq!(scale.color(scale.lo + t * (scale.hi - scale.lo)), scale.exact_color(t));
            }
        }
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
                                                                     // WCAG AA for the numbers written on a cell: at least 4.5:1 on every colour of both maps
        let lum = relative_luminance;
        for scale in [Scale::weights(), Scale::diverging(&[-1.0, 1.0])] {
            for i in 0..=200 {
                let bg = scale.color(scale.lo + (scale.hi - scale.lo) * f64::from(i) / 200.0);
                let (a, b) = (lum(bg), lum(Scale::text_on(bg)));
                let ratio = (a.max(b) + 0.05) / (a.min(b) + 0.05);
                assert!(ratio >= 4.5, "{bg:?}: {ratio}");
            }
        }
    }
}
