//! The heatmaps' colours: the page's light and dark [`Theme`]s and the head colours
//! ([`HEAD_COLORS`]) that the heatmaps, the lines view and the embedding plot share.

use plotters::style::RGBColor;

/// Colours that follow the page's light or dark theme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    /// Canvas background.
    pub background: RGBColor,
    /// Labels and ticks.
    pub text: RGBColor,
    /// `<pad>` labels.
    pub muted: RGBColor,
    /// Blocked cells.
    pub blocked: RGBColor,
    /// The hatching over blocked cells.
    pub hatch: RGBColor,
    /// NaN cells (a fully masked row under `-inf`).
    pub nan: RGBColor,
}

impl Theme {
    /// The light theme.
    pub const LIGHT: Theme = Theme {
        background: RGBColor(255, 255, 255),
        text: RGBColor(28, 28, 36),
        muted: RGBColor(140, 140, 150),
        blocked: RGBColor(214, 214, 220),
        hatch: RGBColor(150, 150, 160),
        nan: RGBColor(250, 200, 200),
    };
    /// The dark theme.
    pub const DARK: Theme = Theme {
        background: RGBColor(24, 24, 30),
        text: RGBColor(230, 230, 236),
        muted: RGBColor(130, 130, 140),
        blocked: RGBColor(60, 60, 70),
        hatch: RGBColor(110, 110, 122),
        nan: RGBColor(120, 40, 48),
    };
}

/// The distinct colours of head column groups (Okabe–Ito, colour-blind safe).
pub const HEAD_COLORS: [RGBColor; 8] = [
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(120, 120, 120),
];
