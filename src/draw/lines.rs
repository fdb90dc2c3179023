//! The lines view of a `(B, h, T_q, T_k)` step (BertViz's "head view"): the query tokens
//! in a left column, the key tokens in a right one, a line from query `i` to key `j` whose
//! opacity is the weight, one colour per head.
//!
//! Blocked pairs and `<pad>` keys are drawn grey and dashed; a row of NaN is written
//! "NaN" beside its query and gets no lines (a NaN is never drawn as a zero). With a
//! token in focus only its lines are drawn, and the weights are written beside the other
//! column. Nothing here computes attention: the numbers come from the trace.

use ndarray::ArrayView2;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::heatmap_layout::short_label;
use super::theme::HEAD_COLORS;
use super::{Canvas, Drawn};

/// The token in focus: a query (its row) or a key (its column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Focus {
    /// Query `i`: its lines to every key.
    Query(usize),
    /// Key `j`: the lines of every query to it.
    Key(usize),
}

/// What to draw.
pub struct Lines<'a> {
    /// One `T_q × T_k` matrix per head.
    pub heads: Vec<ArrayView2<'a, f64>>,
    /// Query labels.
    pub queries: &'a [String],
    /// Key labels.
    pub keys: &'a [String],
    /// Which queries are `<pad>`.
    pub query_pad: &'a [bool],
    /// Which keys are `<pad>`.
    pub key_pad: &'a [bool],
    /// Row-major `T_q × T_k` blocked flags (the same for every head), or empty.
    pub blocked: &'a [bool],
    /// True for `weights`: opacity is the number itself. Otherwise each row's finite
    /// numbers are spread over 0..1 (a colour choice, not a probability).
    pub probabilities: bool,
    /// The token in focus, if any.
    pub focus: Option<Focus>,
}

impl Lines<'_> {
    /// Whether pair `(i, j)` is blocked by the mask.
    pub fn is_blocked(&self, i: usize, j: usize) -> bool {
        self.blocked.get(i * self.keys.len() + j).copied().unwrap_or(false)
    }

    /// The number of head `h` at `(i, j)`, NaN if absent.
    pub fn value(&self, h: usize, i: usize, j: usize) -> f64 {
        self.heads.get(h).and_then(|m| m.get((i, j)).copied()).unwrap_or(f64::NAN)
    }

    /// Whether row `i` of head `h` holds a NaN.
    pub fn row_is_nan(&self, h: usize, i: usize) -> bool {
        self.heads.get(h).is_some_and(|m| i < m.nrows() && m.row(i).iter().any(|v| v.is_nan()))
    }

    /// A line's opacity in 0..=1 (0 for NaN and -inf).
    pub fn opacity(&self, h: usize, i: usize, j: usize) -> f64 {
        let v = self.value(h, i, j);
        if !v.is_finite() {
            return 0.0;
        }
        if self.probabilities {
            return v.clamp(0.0, 1.0);
        }
        let Some(m) = self.heads.get(h) else { return 0.0 };
        let finite = || m.row(i).into_iter().copied().filter(|x| x.is_finite());
        let lo = finite().fold(f64::INFINITY, f64::min);
        let hi = finite().fold(f64::NEG_INFINITY, f64::max);
        if hi > lo {
            (v - lo) / (hi - lo)
        } else {
            1.0
        }
    }

    /// Whether the pair is drawn under the current focus.
    fn shown(&self, i: usize, j: usize) -> bool {
        match self.focus {
            None => true,
            Some(Focus::Query(q)) => q == i,
            Some(Focus::Key(k)) => k == j,
        }
    }
}

/// The keys of row `i` of one head, largest first, at most `n`, blocked keys left out
/// unless they carry weight (a `-1e9` leak); `None` if the row is NaN.
pub fn top_keys(lines: &Lines, h: usize, i: usize, n: usize) -> Option<Vec<(usize, f64)>> {
    if lines.row_is_nan(h, i) {
        return None;
    }
    let mut keys: Vec<(usize, f64)> = (0..lines.keys.len())
        .map(|j| (j, lines.value(h, i, j)))
        .filter(|&(j, v)| v.is_finite() && !(lines.is_blocked(i, j) && v == 0.0))
        .collect();
    keys.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    keys.truncate(n);
    Some(keys)
}

/// Where everything goes, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinesLayout {
    /// Whole picture width.
    pub width: f64,
    /// Whole picture height.
    pub height: f64,
    /// Right edge of the query labels (lines start here).
    pub left_x: f64,
    /// Left edge of the key labels (lines end here).
    pub right_x: f64,
    /// Top of the first token.
    pub top: f64,
    /// Height of one token row.
    pub row_h: f64,
    /// Label width of one column.
    pub label_w: f64,
    /// Font size.
    pub font: f64,
}

impl LinesLayout {
    /// Two columns of `n_q` and `n_k` tokens whose longest label has `max_chars`
    /// characters, in at most `max_width` CSS pixels.
    pub fn new(n_q: usize, n_k: usize, max_chars: usize, max_width: f64) -> Self {
        let font: f64 = 13.0;
        let row_h = 26.0;
        let width = max_width.clamp(240.0, 560.0);
        // the column is as wide as its longest label, and never narrower than its header
        // "queries" (right-aligned on the column's edge, it was cut at the canvas's left)
        let header_w = (font - 1.0) * 0.62 * "queries".len() as f64;
        let label_w = (font * 0.62 * max_chars.clamp(3, 11) as f64).min(width * 0.25).max(header_w);
        // room for the numbers written beside the key column under focus
        let numbers_w = 44.0;
        let left_x = label_w + 8.0;
        let right_x = width - label_w - numbers_w;
        let top = 28.0;
        let n = n_q.max(n_k).max(1) as f64;
        Self { width, height: top + n * row_h + 10.0, left_x, right_x, top, row_h, label_w, font }
    }

    /// The vertical centre of token `i` of a column.
    pub fn y(&self, i: usize) -> f64 {
        self.top + (i as f64 + 0.5) * self.row_h
    }

    /// `(x, y, width, height)` of a query label.
    pub fn query_rect(&self, i: usize) -> (f64, f64, f64, f64) {
        (self.left_x - self.label_w - 4.0, self.top + i as f64 * self.row_h, self.label_w + 4.0, self.row_h)
    }

    /// `(x, y, width, height)` of a key label.
    pub fn key_rect(&self, j: usize) -> (f64, f64, f64, f64) {
        (self.right_x, self.top + j as f64 * self.row_h, self.label_w + 4.0, self.row_h)
    }
}

fn px(v: f64, dpr: f64) -> i32 {
    (v * dpr).round() as i32
}

/// A dashed segment from `a` to `b` (dashes of `dash` px).
fn dashed<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    a: (f64, f64),
    b: (f64, f64),
    dash: f64,
    style: ShapeStyle,
    dpr: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    let n = (len / dash).floor().max(1.0) as usize;
    for k in (0..n).step_by(2) {
        let (t0, t1) = (k as f64 / n as f64, ((k + 1) as f64 / n as f64).min(1.0));
        let p = |t: f64| (px(a.0 + (b.0 - a.0) * t, dpr), px(a.1 + (b.1 - a.1) * t, dpr));
        area.draw(&PathElement::new(vec![p(t0), p(t1)], style))?;
    }
    Ok(())
}

/// Draws the lines view. Lines come first, then the labels on top; under focus, the
/// numbers beside the far column (one per head, in the head's colour).
///
/// # Errors
/// The backend's drawing errors.
pub fn draw_lines<DB: DrawingBackend>(canvas: Canvas<DB>, lines: &Lines, layout: &LinesLayout) -> Drawn<DB> {
    let Canvas { area, theme, dpr } = canvas;
    area.fill(&theme.background)?;
    let (n_q, n_k) = (lines.queries.len(), lines.keys.len());
    let n_heads = lines.heads.len();
    let font = ("sans-serif", layout.font * dpr).into_font();
    let header = ("sans-serif", (layout.font - 1.0) * dpr).into_font();
    let grey = theme.muted;
    let (x0, x1) = (layout.left_x + 4.0, layout.right_x - 4.0);

    // headers
    let left = Pos::new(HPos::Left, VPos::Center);
    let right = Pos::new(HPos::Right, VPos::Center);
    area.draw(&Text::new(
        "queries",
        (px(layout.left_x, dpr), px(12.0, dpr)),
        header.color(&grey).pos(right),
    ))?;
    area.draw(&Text::new("keys", (px(layout.right_x, dpr), px(12.0, dpr)), header.color(&grey).pos(left)))?;

    // the lines
    for i in 0..n_q {
        for j in 0..n_k {
            if !lines.shown(i, j) {
                continue;
            }
            let (a, b) = ((x0, layout.y(i)), (x1, layout.y(j)));
            let blocked = lines.is_blocked(i, j) || lines.key_pad.get(j).copied().unwrap_or(false);
            for h in 0..n_heads {
                if lines.row_is_nan(h, i) {
                    continue;
                }
                let alpha = lines.opacity(h, i, j);
                let c = HEAD_COLORS[h % HEAD_COLORS.len()];
                if blocked {
                    // grey and dashed; under a -1e9 leak the weight still shows
                    if alpha > 0.0 || lines.focus.is_some() {
                        let style = RGBAColor(grey.0, grey.1, grey.2, alpha.max(0.35)).stroke_width(1);
                        dashed(area, a, b, 5.0, style, dpr)?;
                    }
                } else if alpha > 0.0 {
                    let width = if lines.focus.is_some() { 3 } else { 2 };
                    let style = RGBAColor(c.0, c.1, c.2, alpha).stroke_width((f64::from(width) * dpr) as u32);
                    area.draw(&PathElement::new(
                        vec![(px(a.0, dpr), px(a.1, dpr)), (px(b.0, dpr), px(b.1, dpr))],
                        style,
                    ))?;
                }
            }
        }
    }

    // the labels: pad tokens grey, a focused token bold-coloured, NaN rows marked
    for (i, q) in lines.queries.iter().enumerate() {
        let pad = lines.query_pad.get(i).copied().unwrap_or(false);
        let color = if pad { grey } else { theme.text };
        let y = px(layout.y(i), dpr);
        area.draw(&Text::new(short_label(q), (px(layout.left_x, dpr), y), font.color(&color).pos(right)))?;
        if (0..n_heads).any(|h| lines.row_is_nan(h, i)) {
            area.draw(&Rectangle::new(
                [(px(x0, dpr), y - px(8.0, dpr)), (px(x0 + 34.0, dpr), y + px(8.0, dpr))],
                theme.nan.filled(),
            ))?;
            area.draw(&Text::new("NaN", (px(x0 + 4.0, dpr), y), font.color(&theme.text).pos(left)))?;
        }
    }
    for (j, k) in lines.keys.iter().enumerate() {
        let pad = lines.key_pad.get(j).copied().unwrap_or(false);
        let color = if pad { grey } else { theme.text };
        let y = px(layout.y(j), dpr);
        area.draw(&Text::new(short_label(k), (px(layout.right_x, dpr), y), font.color(&color).pos(left)))?;
    }

    // under focus, the numbers beside the other column
    // the number of head h for query i → key j, in the head's colour (grey when blocked)
    let label = |h: usize, i: usize, j: usize| {
        let color = if lines.is_blocked(i, j) { grey } else { HEAD_COLORS[h % HEAD_COLORS.len()] };
        let text = if lines.row_is_nan(h, i) {
            "NaN".to_owned()
        } else {
            crate::format::short(lines.value(h, i, j))
        };
        (text, color)
    };
    match lines.focus {
        Some(Focus::Query(i)) if i < n_q => {
            // one number per head, stacked around the key's line
            let x = layout.right_x + layout.label_w + 4.0;
            for j in 0..n_k {
                for h in 0..n_heads {
                    let (text, c) = label(h, i, j);
                    let dy = (h as f64 - (n_heads as f64 - 1.0) / 2.0) * (layout.font - 2.0);
                    area.draw(&Text::new(
                        text,
                        (px(x, dpr), px(layout.y(j) + dy, dpr)),
                        ("sans-serif", (layout.font - 2.0) * dpr).into_font().color(&c).pos(left),
                    ))?;
                }
            }
        }
        Some(Focus::Key(j)) if j < n_k => {
            // one number per head, side by side above the query's line
            let x = layout.left_x + 6.0;
            for i in 0..n_q {
                for h in 0..n_heads {
                    let (text, c) = label(h, i, j);
                    area.draw(&Text::new(
                        text,
                        (px(x + 38.0 * h as f64, dpr), px(layout.y(i) - 9.0, dpr)),
                        ("sans-serif", (layout.font - 3.0) * dpr).into_font().color(&c).pos(left),
                    ))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::test_support::labels;
    use crate::draw::Theme;
    use ndarray::array;

    /// Whether the SVG writes `t` as a text element.
    fn has_text(svg: &str, t: &str) -> bool {
        svg.contains(&format!("\n{t}\n</text>"))
    }

    /// The weights `heads` of two tokens attending to each other, no pad, nothing blocked.
    fn unpadded<'a>(heads: Vec<ArrayView2<'a, f64>>, toks: &'a [String]) -> Lines<'a> {
        Lines {
            heads,
            queries: toks,
            keys: toks,
            query_pad: &[false, false],
            key_pad: &[false, false],
            blocked: &[],
            probabilities: true,
            focus: None,
        }
    }

    fn svg_of(lines: &Lines) -> String {
        let longest = lines.queries.iter().chain(lines.keys).map(|l| l.chars().count()).max().unwrap_or(1);
        let layout = LinesLayout::new(lines.queries.len(), lines.keys.len(), longest, 480.0);
        let mut svg = String::new();
        {
            let backend = SVGBackend::with_string(&mut svg, (layout.width as u32, layout.height as u32));
            let area = backend.into_drawing_area();
            draw_lines(Canvas { area: &area, theme: &Theme::LIGHT, dpr: 1.0 }, lines, &layout).unwrap();
        }
        svg
    }

    /// Seed 003's weights: four lines, each as opaque as its weight, in head 1's colour.
    #[test]
    fn one_line_per_pair_with_the_weight_as_opacity() {
        let w = array![[0.7604, 0.2396], [0.5, 0.5]];
        let toks = labels(&["baseball", "bat"]);
        let lines = unpadded(vec![w.view()], &toks);
        let svg = svg_of(&lines);
        assert_eq!(svg.matches("<polyline").count(), 4, "{svg}");
        for op in ["0.7604", "0.2396", "0.5"] {
            assert!(svg.contains(&format!("opacity=\"{op}\"")), "opacity {op}");
        }
        let c = HEAD_COLORS[0];
        assert!(svg.contains(&format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)));
        for t in ["baseball", "bat", "queries", "keys"] {
            assert!(svg.contains(t), "{t}");
        }
        assert_eq!(top_keys(&lines, 0, 0, 3), Some(vec![(0, 0.7604), (1, 0.2396)]));
        // a tie keeps the keys in order
        assert_eq!(top_keys(&lines, 0, 1, 1), Some(vec![(0, 0.5)]));
    }

    /// The "queries" header, right-aligned on the query column's edge, starts inside the
    /// canvas even when every token is one letter ("I", "a") and the canvas is narrow.
    #[test]
    fn the_queries_header_fits_left_of_its_column() {
        for width in [240.0, 320.0, 560.0] {
            for chars in [1, 3, 11] {
                let l = LinesLayout::new(5, 5, chars, width);
                let header = (l.font - 1.0) * 0.62 * "queries".len() as f64;
                assert!(l.left_x - header >= 0.0, "{width} px, {chars} chars: {} < {header}", l.left_x);
                assert!(l.right_x > l.left_x + 40.0, "room for the lines at {width} px");
            }
        }
    }

    /// Focus on a query: only its lines, and its numbers beside the keys.
    #[test]
    fn focus_shows_one_tokens_lines_and_numbers() {
        let w = array![[0.7604, 0.2396], [0.5, 0.5]];
        let w2 = array![[0.1, 0.9], [0.3, 0.7]];
        let toks = labels(&["baseball", "bat"]);
        let mut lines = Lines { focus: Some(Focus::Query(1)), ..unpadded(vec![w.view(), w2.view()], &toks) };
        let svg = svg_of(&lines);
        assert_eq!(svg.matches("<polyline").count(), 4, "2 keys × 2 heads");
        for t in ["0.50", "0.30", "0.70"] {
            assert!(has_text(&svg, t), "{t} missing");
        }
        assert!(!has_text(&svg, "0.76"), "the other query's numbers are not written");
        let c = HEAD_COLORS[1];
        assert!(svg.contains(&format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)), "head 2's colour");
        lines.focus = Some(Focus::Key(0));
        let svg = svg_of(&lines);
        assert!(has_text(&svg, "0.76") && has_text(&svg, "0.10"));
    }

    /// Blocked and pad keys are dashed grey; a NaN row is written "NaN" and has no lines.
    #[test]
    fn blocked_dashed_and_nan_rows_marked() {
        let w = array![[1.0, 0.0, 0.0], [f64::NAN, f64::NAN, f64::NAN]];
        let q = labels(&["now", "<pad>"]);
        let k = labels(&["now", "later", "<pad>"]);
        let lines = Lines {
            heads: vec![w.view()],
            queries: &q,
            keys: &k,
            query_pad: &[false, true],
            key_pad: &[false, false, true],
            blocked: &[false, true, true, true, true, true],
            probabilities: true,
            focus: None,
        };
        let svg = svg_of(&lines);
        assert_eq!(svg.matches("<polyline").count(), 1, "only the one real weight, no zero lines: {svg}");
        assert!(has_text(&svg, "NaN"), "{svg}");
        assert_eq!(top_keys(&lines, 0, 1, 3), None, "a NaN row has no top keys, not zeros");
        assert_eq!(top_keys(&lines, 0, 0, 3), Some(vec![(0, 1.0)]), "blocked zero keys are left out");
        // under focus, the blocked keys get dashed grey lines
        let focused = Lines { focus: Some(Focus::Query(0)), ..lines };
        let svg = svg_of(&focused);
        let g = Theme::LIGHT.muted;
        assert!(svg.contains(&format!("#{:02X}{:02X}{:02X}", g.0, g.1, g.2)));
        assert!(svg.matches("<polyline").count() > 3, "dashes: several short segments");
        // a -1e9 leak: a blocked key with weight still draws (dashed)
        let leak = array![[0.0, 1.0]];
        let q1 = labels(&["now"]);
        let k2 = labels(&["now", "later"]);
        let lines = Lines {
            heads: vec![leak.view()],
            queries: &q1,
            keys: &k2,
            query_pad: &[false],
            key_pad: &[false, false],
            blocked: &[false, true],
            probabilities: true,
            focus: None,
        };
        assert!(svg_of(&lines).matches("<polyline").count() >= 2);
        assert_eq!(top_keys(&lines, 0, 0, 3), Some(vec![(1, 1.0), (0, 0.0)]));
    }

    #[test]
    fn scores_are_spread_per_row() {
        let s = array![[2.0, 1.0, f64::NEG_INFINITY]];
        let q = labels(&["a"]);
        let k = labels(&["a", "b", "c"]);
        let lines = Lines {
            heads: vec![s.view()],
            queries: &q,
            keys: &k,
            query_pad: &[false],
            key_pad: &[false; 3],
            blocked: &[false, false, true],
            probabilities: false,
            focus: None,
        };
        assert_eq!((lines.opacity(0, 0, 0), lines.opacity(0, 0, 1), lines.opacity(0, 0, 2)), (1.0, 0.0, 0.0));
        assert_eq!(lines.opacity(3, 9, 9), 0.0, "out of range is transparent, not a panic");
    }
}
