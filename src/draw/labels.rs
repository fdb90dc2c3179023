//! Where to put the text labels of a scatter plot so that none sits on another label or
//! on a dot: each label tries the eight places around its dot, nearest first, then the
//! same eight a little farther out (with a leader line back to its dot). Pure geometry in
//! CSS pixels, no drawing: the plot draws what this decides, and the tests check it.

/// An axis-aligned rectangle, `x0 ≤ x1`, `y0 ≤ y1` (y grows downward, as on screen).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left.
    pub x0: f64,
    /// Top.
    pub y0: f64,
    /// Right.
    pub x1: f64,
    /// Bottom.
    pub y1: f64,
}

impl Rect {
    /// The area both rectangles cover (0 when they only touch or are apart).
    pub fn overlap(&self, o: &Rect) -> f64 {
        let w = self.x1.min(o.x1) - self.x0.max(o.x0);
        let h = self.y1.min(o.y1) - self.y0.max(o.y0);
        if w > 0.0 && h > 0.0 {
            w * h
        } else {
            0.0
        }
    }

    /// The area of `self` outside `bounds`.
    fn outside(&self, bounds: &Rect) -> f64 {
        (self.x1 - self.x0) * (self.y1 - self.y0) - self.overlap(bounds)
    }

    /// The point of the rectangle nearest to `(x, y)`.
    pub fn nearest(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (x.clamp(self.x0, self.x1), y.clamp(self.y0, self.y1))
    }
}

/// A dot on the plot: labels keep off it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dot {
    /// Centre.
    pub at: (f64, f64),
    /// Radius, with whatever outline it has.
    pub radius: f64,
}

impl Dot {
    fn rect(&self) -> Rect {
        let (x, y) = self.at;
        Rect { x0: x - self.radius, y0: y - self.radius, x1: x + self.radius, y1: y + self.radius }
    }
}

/// One label to place: the dot it names and the size of its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelBox {
    /// The dot the label belongs to.
    pub dot: Dot,
    /// Text width.
    pub width: f64,
    /// Text height.
    pub height: f64,
}

/// Where a label went: its rectangle, and whether it is far enough from its dot to need a
/// leader line (from [`Placed::leader`]'s first point to its second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    /// The text's rectangle (draw the text with its top-left corner at `(x0, y0)`).
    pub rect: Rect,
    /// A line from the dot's edge to the label, when the label sits away from its dot.
    pub leader: Option<((f64, f64), (f64, f64))>,
}

/// The gap between a dot and a label beside it.
const GAP: f64 = 3.0;
/// How much farther each further ring of places is.
const RING: f64 = 12.0;
/// Rings tried before settling for the least bad place.
const RINGS: usize = 6;

/// The price of a label with no leader that sits beside another dot than its own: more
/// than crossing an axis line, less than covering a label.
const AMBIGUOUS: f64 = 300.0;

/// Whether `rect`, a label of `label`'s dot, sits beside another of `dots`: that dot's
/// centre on the label's line and within two rings to its side, or in its column and
/// within a ring above or below. A reader takes a label for the name of the dot it sits
/// beside ("baseball" level with the output dot read as naming the output).
fn beside_another(rect: &Rect, label: &LabelBox, dots: &[Dot]) -> bool {
    let own = label.dot.at;
    dots.iter().filter(|d| (d.at.0 - own.0).abs() > 0.5 || (d.at.1 - own.1).abs() > 0.5).any(|d| {
        let (x, y) = d.at;
        let r = d.radius;
        let on_line = y >= rect.y0 - r
            && y <= rect.y1 + r
            && x >= rect.x0 - 2.0 * RING - r
            && x <= rect.x1 + 2.0 * RING + r;
        let in_column =
            x >= rect.x0 - r && x <= rect.x1 + r && y >= rect.y0 - RING - r && y <= rect.y1 + RING + r;
        on_line || in_column
    })
}

/// A rough text width in CSS pixels for `chars` characters of a sans-serif font of
/// `font_px` pixels (generous, so that estimated boxes cover the drawn text).
pub fn text_width(chars: usize, font_px: f64) -> f64 {
    chars as f64 * font_px * 0.62
}

/// Places every label, in order, so that no label overlaps a dot, a rectangle of `avoid`
/// (tick labels, axis lines) or a label placed before it, and all stay inside `bounds`, if
/// any place around its dot allows it; otherwise the place with the least overlap. Labels
/// more than one gap from their dot get a leader.
pub fn place_labels(labels: &[LabelBox], dots: &[Dot], avoid: &[Rect], bounds: Rect) -> Vec<Placed> {
    let dot_rects: Vec<Rect> = dots.iter().map(Dot::rect).chain(avoid.iter().copied()).collect();
    let mut placed: Vec<Placed> = Vec::with_capacity(labels.len());
    for label in labels {
        let mut best: Option<(f64, Placed)> = None;
        'rings: for ring in 0..RINGS {
            let off = label.dot.radius + GAP + ring as f64 * RING;
            for rect in candidates(label, off) {
                let cost = dot_rects.iter().map(|d| rect.overlap(d)).sum::<f64>()
                    + placed.iter().map(|p| rect.overlap(&p.rect)).sum::<f64>()
                    + rect.outside(&bounds)
                    // beside another dot, without a leader, it would name that one
                    + if ring == 0 && beside_another(&rect, label, dots) { AMBIGUOUS } else { 0.0 }
                    // a small price for distance, so a nearer free place wins
                    + ring as f64 * 1e-3;
                let leader = (ring > 0).then(|| {
                    let end = rect.nearest(label.dot.at);
                    let (dx, dy) = (end.0 - label.dot.at.0, end.1 - label.dot.at.1);
                    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
                    let r = label.dot.radius;
                    ((label.dot.at.0 + dx / len * r, label.dot.at.1 + dy / len * r), end)
                });
                let candidate = Placed { rect, leader };
                if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                    best = Some((cost, candidate));
                }
                if cost < 1.0 {
                    break 'rings;
                }
            }
        }
        if let Some((_, p)) = best {
            placed.push(p);
        }
    }
    placed
}

/// The eight places around a dot at distance `off`: right, upper right, lower right,
/// left, upper left, lower left, above, below.
fn candidates(label: &LabelBox, off: f64) -> [Rect; 8] {
    let (x, y) = label.dot.at;
    let (w, h) = (label.width, label.height);
    let d = off * std::f64::consts::FRAC_1_SQRT_2;
    let at = |x0: f64, y0: f64| Rect { x0, y0, x1: x0 + w, y1: y0 + h };
    [
        at(x + off, y - h / 2.0),
        at(x + d, y - d - h),
        at(x + d, y + d),
        at(x - off - w, y - h / 2.0),
        at(x - d - w, y - d - h),
        at(x - d - w, y + d),
        at(x - w / 2.0, y - off - h),
        at(x - w / 2.0, y + off),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Rect = Rect { x0: 0.0, y0: 0.0, x1: 300.0, y1: 260.0 };

    fn label(at: (f64, f64), text: &str) -> LabelBox {
        LabelBox { dot: Dot { at, radius: 7.0 }, width: text_width(text.chars().count(), 12.0), height: 14.0 }
    }

    /// No label on a dot or on another label, and every label inside the bounds.
    fn check(labels: &[LabelBox], dots: &[Dot]) -> Vec<Placed> {
        let placed = place_labels(labels, dots, &[], BOUNDS);
        assert_eq!(placed.len(), labels.len());
        for (i, p) in placed.iter().enumerate() {
            assert_eq!(p.rect.outside(&BOUNDS), 0.0, "label {i} leaves the plot: {p:?}");
            for d in dots {
                assert_eq!(p.rect.overlap(&d.rect()), 0.0, "label {i} covers the dot at {:?}", d.at);
            }
            for (j, q) in placed.iter().enumerate().skip(i + 1) {
                assert_eq!(p.rect.overlap(&q.rect), 0.0, "labels {i} and {j} overlap");
            }
        }
        placed
    }

    #[test]
    fn the_baseball_bat_labels_keep_apart() {
        // seed 003 in the 300 × 260 plot: baseball (2, 0) → (1.76, 0.24), bat (1, 1) → (1.5, 0.5),
        // at the pixels PlotLayout gives them; "bat after" must not sit on "baseball".
        let (baseball, baseball_after) = ((178.0, 192.0), (163.0, 178.0));
        let (bat, bat_after) = ((117.0, 131.0), (147.0, 161.0));
        let dots: Vec<Dot> = [baseball, baseball_after, bat, bat_after]
            .into_iter()
            .map(|at| Dot { at, radius: 7.0 })
            .collect();
        let labels = [
            label(baseball, "baseball"),
            label(baseball_after, "baseball after"),
            label(bat, "bat"),
            label(bat_after, "bat after"),
        ];
        check(&labels, &dots);
    }

    #[test]
    fn labels_of_one_spot_fan_out_with_leaders() {
        // d_model = 1 with equal numbers: every dot in one place.
        let at = (150.0, 130.0);
        let dots = vec![Dot { at, radius: 7.0 }];
        // ten labels, eight places beside the dot: some must move out
        let labels: Vec<LabelBox> =
            ["a", "a after", "b", "b after", "c", "c after", "d", "d after", "e", "e after"]
                .map(|s| label(at, s))
                .to_vec();
        let placed = check(&labels, &dots);
        assert!(placed.iter().any(|p| p.leader.is_some()), "some label needs a leader line");
        for p in placed.iter().filter_map(|p| p.leader) {
            let ((x, y), _) = p;
            let r = ((x - at.0).powi(2) + (y - at.1).powi(2)).sqrt();
            assert!((r - 7.0).abs() < 1e-6, "a leader starts at the dot's edge");
        }
    }

    /// The learn lesson's first plot: "baseball" (the ring at (2, 0)) went to its upper
    /// right, level with the output dot at (1.76, 0.24), and read as that dot's name. A
    /// label with no leader is beside no other dot.
    #[test]
    fn a_label_is_not_beside_another_dot() {
        let (baseball, baseball_out) = ((203.0, 204.0), (187.0, 189.0));
        let (bat, bat_out) = ((133.0, 146.0), (167.0, 175.0));
        let dots: Vec<Dot> =
            [baseball, baseball_out, bat, bat_out].map(|at| Dot { at, radius: 7.0 }).to_vec();
        let labels = [
            label(baseball, "baseball"),
            label(baseball_out, "baseball (output)"),
            label(bat, "bat"),
            label(bat_out, "bat (output)"),
        ];
        let axis = Rect { x0: 0.0, y0: 203.0, x1: 300.0, y1: 205.0 };
        let placed = place_labels(&labels, &dots, &[axis], BOUNDS);
        for (p, l) in placed.iter().zip(&labels) {
            assert!(p.leader.is_some() || !beside_another(&p.rect, l, &dots), "{l:?} at {p:?}");
        }
        // the test sees the case: level with the output dot, to the ring's upper right
        let upper_right = candidates(&labels[0], 10.0)[1];
        assert!(beside_another(&upper_right, &labels[0], &dots), "{upper_right:?}");
    }

    #[test]
    fn a_free_label_sits_right_beside_its_dot() {
        let placed = check(&[label((100.0, 100.0), "bat")], &[Dot { at: (100.0, 100.0), radius: 7.0 }]);
        assert_eq!(placed[0].leader, None);
        assert_eq!(placed[0].rect.x0, 110.0, "to the right, one gap from the dot");
    }

    #[test]
    fn labels_at_the_edge_turn_inward() {
        let at = (295.0, 5.0);
        let placed = check(&[label(at, "baseball after")], &[Dot { at, radius: 3.0 }]);
        assert!(placed[0].rect.x1 <= 300.0 && placed[0].rect.y0 >= 0.0);
    }

    #[test]
    fn labels_keep_off_the_axis() {
        let axis = Rect { x0: 0.0, y0: 99.0, x1: 300.0, y1: 101.0 };
        let at = (100.0, 100.0);
        let placed = place_labels(&[label(at, "baseball")], &[Dot { at, radius: 7.0 }], &[axis], BOUNDS);
        assert_eq!(placed[0].rect.overlap(&axis), 0.0, "{placed:?}");
    }

    #[test]
    fn no_labels_no_places() {
        assert!(place_labels(&[], &[], &[], BOUNDS).is_empty());
    }
}
