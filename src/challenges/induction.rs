//! The constructing challenge "Build an induction head by hand": two layers of one head,
//! with every weight but W_Q and W_K fixed, and the learner sets those four matrices.
//!
//! The residual stream has four named blocks, each one-hot: `token` (which token is
//! here), `position`, `previous` (empty until layer 1 writes into it) and `next` (what
//! layer 2 writes, which the unembedding reads). The fixed weights:
//! - layer 1's W_V copies `token` into `previous` and W_O is the identity, so whatever a
//!   position attends to in layer 1 lands in its `previous` block;
//! - layer 2's W_V copies `token` into `next`, W_O is the identity;
//! - `E` puts the token in `token`, `P` the position in `position`; `W_U` reads `next`
//!   (times [`READ`]).
//!
//! A query or a key is the residual stream times W_Q or W_K. The learner writes each as a
//! [`Map`] (which block it reads, where in the head's space it writes) times a strength:
//! the matrix is built from the choice and shown. The goal is checked on the engine's
//! forward pass ([`crate::engine::train::evaluate`]) over [`SEQUENCES`], with the engine's
//! scores: layer 1's weight on the previous token and layer 2's on the token after the
//! earlier occurrence, both at least [`AT_LEAST`] on average.
//!
//! Sequences start with `^`, a start token, as a real model's do: without it, position 0
//! could only attend to itself, its `previous` block would hold its own token, and layer 2
//! would find two keys announcing "after A".

use crate::engine::train::history::HeadScores;
use crate::engine::train::model::{Dims, Model, Named, Tensor};
use crate::engine::train::{
    evaluate, induction_score, previous_token_score, Batch, HeadId, Intervention, PositionKind, TaskKind,
    TrainConfig,
};

/// The challenge's id (`?challenge=ID`).
pub const ID: &str = "induction-by-hand";
/// Its title.
pub const TITLE: &str = "Build an induction head by hand (two layers)";
/// What to do.
pub const STORY: &str = "Two layers of one head each. Every weight is set except W_Q and W_K: layer 1's W_V copies each \
     token into a 'previous' block of the residual stream, and layer 2's W_V copies each token into the block the \
     prediction reads. Choose what each query and key reads so that layer 1 becomes a previous-token head and layer \
     2 attends to the token after the earlier occurrence of the current token (at the second B: the C after the first \
     B). The goal: on three test sequences, layer 1 puts at least 90% of its weight on the previous token and layer 2 \
     at least 90% on the induction key.";
/// Why the solution works, shown once the goal is met or the solution asked for.
pub const WHY: &str = "Layer 1's query is its position i and its key announces the position after it, j + 1, so the \
     two meet when j = i − 1: each token reads the one before it and writes it into its 'previous' block. Layer 2's \
     query is the token itself, and its key is the token before (what layer 1 wrote), so the second B meets the key \
     whose previous token is B: the C after the first B. That is K-composition: layer 2's keys read layer 1's output.";

/// The tokens: `^` (start) then the letters.
pub const TOKENS: [&str; 5] = ["^", "A", "B", "C", "D"];
/// Tokens per sequence.
pub const T: usize = 9;
/// The test sequences: `^`, four distinct letters, the same four again.
pub const SEQUENCES: [&str; 3] = ["^ A B C D A B C D", "^ C A D B C A D B", "^ B D A C B D A C"];
/// The mean weight each head must put where it should.
pub const AT_LEAST: f64 = 0.9;
/// How strongly `W_U` reads the `next` block.
pub const READ: f64 = 10.0;

const V: usize = TOKENS.len();
/// The blocks' first dimensions.
const TOKEN: usize = 0;
const POSITION: usize = V;
const PREVIOUS: usize = V + T;
const NEXT: usize = 2 * V + T;
/// The residual stream's width.
pub const D_MODEL: usize = 3 * V + T;

/// A query's or key's map: which block of the residual stream it reads, and where in the
/// head's space each one-hot lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Map {
    /// Nothing: every score 0, so the weights are uniform.
    Zero,
    /// `token` a → a's own place (the token it is).
    Token,
    /// `previous` a → a's own place (the token before it, once layer 1 has run).
    Previous,
    /// `position` i → place i.
    Position,
    /// `position` i → place i + 1 (the position after it; the last has none).
    NextPosition,
}

impl Map {
    /// Every map, in the page's order.
    pub const ALL: [Map; 5] = [Map::Zero, Map::Token, Map::Previous, Map::Position, Map::NextPosition];

    /// Its value in the page's select.
    pub fn key(self) -> &'static str {
        match self {
            Map::Zero => "zero",
            Map::Token => "token",
            Map::Previous => "previous",
            Map::Position => "position",
            Map::NextPosition => "next-position",
        }
    }

    /// The map with this [`Map::key`].
    pub fn from_key(key: &str) -> Option<Map> {
        Map::ALL.into_iter().find(|m| m.key() == key)
    }

    /// Its name on the page.
    pub fn label(self) -> &'static str {
        match self {
            Map::Zero => "nothing (all zeros)",
            Map::Token => "token a → place a",
            Map::Previous => "previous a → place a",
            Map::Position => "position i → place i",
            Map::NextPosition => "position i → place i + 1",
        }
    }

    /// The `(row, column)` pairs its matrix sets (to the strength): the row reads the
    /// residual stream, the column is the head's space (which uses the stream's token
    /// places for tokens and its position places for positions).
    pub fn cells(self) -> Vec<(usize, usize)> {
        match self {
            Map::Zero => Vec::new(),
            Map::Token => (0..V).map(|a| (TOKEN + a, TOKEN + a)).collect(),
            Map::Previous => (0..V).map(|a| (PREVIOUS + a, TOKEN + a)).collect(),
            Map::Position => (0..T).map(|i| (POSITION + i, POSITION + i)).collect(),
            Map::NextPosition => (0..T - 1).map(|i| (POSITION + i, POSITION + i + 1)).collect(),
        }
    }

    /// Its `(D_MODEL, D_MODEL)` matrix, row-major, times `strength`.
    pub fn matrix(self, strength: f64) -> Vec<f64> {
        let mut w = vec![0.0; D_MODEL * D_MODEL];
        for (r, c) in self.cells() {
            w[r * D_MODEL + c] = strength;
        }
        w
    }
}

/// What the learner sets: W_Q and W_K of each layer as a map, and one strength for all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt {
    /// Layer 1's W_Q and W_K.
    pub layer1: (Map, Map),
    /// Layer 2's W_Q and W_K.
    pub layer2: (Map, Map),
    /// Every set entry's value: a score is strength² / √d_k where query and key meet.
    pub strength: f64,
}

impl Attempt {
    /// Where the challenge starts: every query and key zero (uniform attention).
    pub const START: Attempt =
        Attempt { layer1: (Map::Zero, Map::Zero), layer2: (Map::Zero, Map::Zero), strength: 1.0 };

    /// The worked solution: layer 1's query is its position and its key announces the
    /// position after it, so position i meets i − 1; layer 2's query is its token and its
    /// key is the token before it, so the token after an earlier occurrence meets it. At
    /// strength 8 a score where they meet is 64 / √24 ≈ 13, so each softmax puts all but
    /// about e⁻¹³ of a row's weight there.
    pub const SOLUTION: Attempt = Attempt {
        layer1: (Map::Position, Map::NextPosition),
        layer2: (Map::Token, Map::Previous),
        strength: 8.0,
    };
}

/// One head's width: the challenge's heads span the whole residual stream (one head per
/// layer), so `d_k` = [`D_MODEL`].
pub const D_K: usize = D_MODEL;

/// The score where a query and a key meet (each sets one entry to `strength` in the same
/// place of the head's space), above the score 0 where they do not: `strength² / √d_k`.
pub fn meeting_score(strength: f64) -> f64 {
    strength * strength / (D_K as f64).sqrt()
}

/// The strength's limits on the page.
pub const STRENGTH_RANGE: std::ops::RangeInclusive<f64> = 0.0..=20.0;

/// A strength typed into the page's field, or why it is not one: a number from 0 to 20.
pub fn read_strength(raw: &str) -> Result<f64, String> {
    let shown: String = raw.trim().chars().take(20).collect();
    match crate::format::read_typed_number(raw) {
        Some(s) if STRENGTH_RANGE.contains(&s) => Ok(s),
        Some(s) if s < *STRENGTH_RANGE.start() => Err(format!(
            "The strength must be from {} to {}, not {shown}: it multiplies both W_Q and W_K, so a negative \
             one flips the sign of both and gives the same scores as {}.",
            STRENGTH_RANGE.start(),
            STRENGTH_RANGE.end(),
            crate::format::exact(-s)
        )),
        Some(_) => Err(format!(
            "The strength must be from {} to {}, not {shown}: at {} the score where a query and a key meet \
             is already {} above the others: a softmax in f64 already gives the keys that meet all of the row's weight.",
            STRENGTH_RANGE.start(),
            STRENGTH_RANGE.end(),
            STRENGTH_RANGE.end(),
            crate::format::fixed(meeting_score(*STRENGTH_RANGE.end()), 2),
        )),
        None => Err(format!(
            "The strength must be a number from {} to {}, not \"{shown}\".",
            STRENGTH_RANGE.start(),
            STRENGTH_RANGE.end()
        )),
    }
}

/// What a strength does to the scores, exactly for each layer: layer 1's query and key
/// read one-hot position entries (1), so where they meet the score is `s² / √d_k` above
/// the others; layer 2's key reads the `previous` block, which holds layer 1's weights
/// (at most 1), so its gap is at most that, and equal only when layer 1 puts all its
/// weight on the previous token.
pub fn strength_words(s: f64) -> String {
    let sq = crate::format::exact(s);
    let m = crate::format::fixed(meeting_score(s), 2);
    format!(
        "Each head here has d_k = {D_K}. In layer 1, where a query and a key meet (each sets one entry to the \
         strength, {sq}, in the same place), the score is {sq}² / √{D_K} = {m} above the score 0 where they do \
         not. A layer-2 key that reads the 'previous' block reads layer 1's weights (at most 1) instead of a \
         1, so its gap is at most {m}, and {m} only when layer 1 puts all its weight on the previous token."
    )
}

/// What the page says the block maps' word "place" and the start token `^` mean.
pub fn legend() -> [(&'static str, String); 2] {
    [
        (
            "place",
            format!(
                "one of the {D_K} dimensions of a head's query and key space (d_k = {D_K}: one head reads the \
                 whole residual stream). A query and a key score where both write into the same place: the score \
                 is the product of their two entries there, divided by √d_k. \"token a → place a\" writes token a \
                 into place a, so a query and a key that read the same token meet."
            ),
        ),
        (
            "^",
            "the start token every test sequence begins with, as a real model's text begins with a \
             beginning-of-sequence token. It gives the first letter a token before it, so no position must read \
             itself as its previous token."
                .to_owned(),
        ),
    ]
}

/// The strength a judge tries an attempt's maps at, to tell maps of the wrong shape from
/// maps too weak to meet the goal: the worked solution's.
pub const STRONG: f64 = Attempt::SOLUTION.strength;

/// Why an attempt does not meet the goal, or that it does, with the engine's outcomes.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Both heads put at least [`AT_LEAST`] where they should.
    Met,
    /// The same four maps at a strength of `strong` meet the goal (their outcome
    /// `at_strong`): the maps are right and the strength too low, so the softmax spreads
    /// the weight.
    TooWeak {
        /// The strength tried.
        strong: f64,
        /// The engine's outcome there.
        at_strong: Outcome,
    },
    /// Layer 1's maps do not make a previous-token head even at `strong` (`at_strong`).
    Layer1Wrong {
        /// The strength tried.
        strong: f64,
        /// The engine's outcome there.
        at_strong: Outcome,
    },
    /// Layer 1's maps are right at `strong`; layer 2's do not make an induction head there.
    Layer2Wrong {
        /// The strength tried.
        strong: f64,
        /// The engine's outcome there.
        at_strong: Outcome,
    },
}

/// Judges `a` (whose outcome is `o`): met, or which part is wrong, by running its maps
/// again at [`STRONG`] (or its own strength, if higher) through the engine.
pub fn verdict(a: &Attempt, o: &Outcome) -> Option<Verdict> {
    if o.met() {
        return Some(Verdict::Met);
    }
    let strong = a.strength.max(STRONG);
    let at_strong = judge(&Attempt { strength: strong, ..*a })?;
    Some(if at_strong.met() {
        Verdict::TooWeak { strong, at_strong }
    } else if at_strong.heads[0].previous_token < AT_LEAST {
        Verdict::Layer1Wrong { strong, at_strong }
    } else {
        Verdict::Layer2Wrong { strong, at_strong }
    })
}

/// A fraction as a percentage, one decimal.
pub fn percent(x: f64) -> String {
    format!("{}%", crate::format::fixed(100.0 * x, 1))
}

/// The verdict in words: what is right, what is not, and the numbers the engine judged.
pub fn verdict_words(a: &Attempt, o: &Outcome) -> String {
    let goal = percent(AT_LEAST);
    let now = format!(
        "Layer 1 puts {} of its weight on the previous token (goal: {goal}); layer 2 puts {} on the token after \
         the earlier occurrence (goal: {goal}). Next-token accuracy on the second rounds: {}, loss {}.",
        percent(o.heads[0].previous_token),
        percent(o.heads[1].induction),
        percent(o.accuracy),
        crate::format::fixed(o.loss, 3),
    );
    let Some(v) = verdict(a, o) else { return format!("Not yet. {now}") };
    let both =
        |x: &Outcome| format!("{} and {}", percent(x.heads[0].previous_token), percent(x.heads[1].induction));
    match v {
        Verdict::Met => format!("Goal met. {now}"),
        Verdict::TooWeak { strong, at_strong } => format!(
            "Not yet, but the four maps are right: at strength {strong} the same maps put {} where they \
             should. At strength {s} they are too weak: where layer 1's query and key meet, the score is \
             only {s}² / √{D_K} = {m} above the others, and layer 2's at most that, so the softmax spreads \
             the weight. {now}",
            both(&at_strong),
            s = crate::format::exact(a.strength),
            m = crate::format::fixed(meeting_score(a.strength), 2),
        ),
        Verdict::Layer1Wrong { strong, at_strong } => format!(
            "Not yet: layer 1's maps do not make a previous-token head. Even at strength {strong} they put \
             only {} of its weight on the previous token, so layer 1 does not write the token before into the \
             'previous' block that layer 2's keys can read. {now}",
            percent(at_strong.heads[0].previous_token),
        ),
        Verdict::Layer2Wrong { strong, at_strong } => format!(
            "Not yet: layer 1's maps are right (at strength {strong} it puts {} on the previous token), but \
             layer 2's do not make an induction head: even at strength {strong} it puts only {} on the token \
             after the earlier occurrence. {now}",
            percent(at_strong.heads[0].previous_token),
            percent(at_strong.heads[1].induction),
        ),
    }
}

/// The hints, one at a time.
pub const HINTS: [&str; 3] = [
    "Layer 1 must match query i with key i − 1. The query can only say where it is; what can the key at j say so that it meets the query at j + 1?",
    "In layer 2 the right key is not the earlier B but the token after it, C. B and C share nothing, except what layer 1 wrote into C's previous block: B.",
    "Softmax only puts nearly all the weight on one key when that key's score is far above the others. A score is strength² / √d_k, with d_k = 24 here: try a strength of 5 or more.",
];

/// `s`'s token ids, or `None` for a word not in [`TOKENS`] or the wrong length.
fn ids(s: &str) -> Option<Vec<usize>> {
    let ids: Option<Vec<usize>> = s.split_whitespace().map(|w| TOKENS.iter().position(|t| *t == w)).collect();
    ids.filter(|v| v.len() == T)
}

/// The test sequences as a batch: the target at a position of the second round is the
/// next token (what followed the same token in the first round).
pub fn batch() -> Batch {
    let mut b = Batch::new(SEQUENCES.len(), T);
    for (s, seq) in SEQUENCES.iter().enumerate() {
        let tokens = ids(seq).unwrap_or_else(|| vec![0; T]);
        let period = (T - 1) / 2;
        for i in 0..T {
            b.tokens[s * T + i] = tokens[i];
            b.targets[s * T + i] = if i > period && i + 1 < T { tokens[i + 1] as i64 } else { -1 };
        }
    }
    b
}

/// The model an attempt builds: the fixed weights with the attempt's W_Q and W_K.
pub fn model(a: &Attempt) -> Option<Model> {
    let config = TrainConfig {
        task: TaskKind::Induction,
        vocab: Some(V),
        t: T,
        batch: SEQUENCES.len(),
        seed: 0,
        steps: 0,
        d_model: D_MODEL,
        n_heads: 1,
        n_layers: 2,
        positions: PositionKind::Learned,
        causal: true,
        window: None,
        lines: Vec::new(),
        optimizer: crate::engine::train::OptimizerConfig::Sgd {
            lr: 0.0,
            momentum: 0.0,
            dampening: 0.0,
            nesterov: false,
            weight_decay: 0.0,
        },
    };
    let square = |data: Vec<f64>| Tensor { shape: vec![D_MODEL, D_MODEL], data };
    let block = |rows: usize, from: usize, to: usize, n: usize, scale: f64| {
        let mut w = vec![0.0; rows * D_MODEL];
        for a in 0..n {
            w[(from + a) * D_MODEL + to + a] = scale;
        }
        w
    };
    let copy = |to: usize| square(block(D_MODEL, TOKEN, to, V, 1.0));
    let identity = square(block(D_MODEL, 0, 0, D_MODEL, 1.0));
    let zeros = Tensor { shape: vec![D_MODEL], data: vec![0.0; D_MODEL] };
    let mut named = vec![
        ("E".to_string(), Tensor { shape: vec![V, D_MODEL], data: block(V, 0, TOKEN, V, 1.0) }),
        ("P".to_string(), Tensor { shape: vec![T, D_MODEL], data: block(T, 0, POSITION, T, 1.0) }),
    ];
    for (l, (q, k), to) in [(0, a.layer1, PREVIOUS), (1, a.layer2, NEXT)] {
        let p = |n: &str| format!("layers[{l}].{n}");
        named.push((p("W_Q"), square(q.matrix(a.strength))));
        named.push((p("b_Q"), zeros.clone()));
        named.push((p("W_K"), square(k.matrix(a.strength))));
        named.push((p("b_K"), zeros.clone()));
        named.push((p("W_V"), copy(to)));
        named.push((p("b_V"), zeros.clone()));
        named.push((p("W_O"), identity.clone()));
        named.push((p("b_O"), zeros.clone()));
    }
    let mut w_u = vec![0.0; D_MODEL * V];
    for a in 0..V {
        w_u[(NEXT + a) * V + a] = READ;
    }
    named.push(("W_U".to_string(), Tensor { shape: vec![D_MODEL, V], data: w_u }));
    Model::from_named(Dims::of(&config), &Named(named)).ok()
}

/// How an attempt does: each layer's head scores on the test sequences, the loss, the
/// accuracy of the next-token predictions of the second round, and layer 2's weights on
/// sequence 1 (for the page's map).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Layer 1's and layer 2's scores.
    pub heads: [HeadScores; 2],
    /// The mean cross-entropy over the scored positions.
    pub loss: f64,
    /// The fraction predicted right.
    pub accuracy: f64,
    /// Per layer, `(T, T)`: the head's weights on the first sequence.
    pub attention: [Vec<f64>; 2],
}

impl Outcome {
    /// Whether the goal is met: layer 1 a previous-token head and layer 2 an induction
    /// head, each with at least [`AT_LEAST`] of its weight where it should be.
    pub fn met(&self) -> bool {
        self.heads[0].previous_token >= AT_LEAST && self.heads[1].induction >= AT_LEAST
    }
}

/// Runs an attempt through the engine.
pub fn judge(a: &Attempt) -> Option<Outcome> {
    let model = model(a)?;
    let b = batch();
    let e = evaluate(&model, &b, &Intervention::default());
    let score = |layer| {
        let head = HeadId { layer, head: 0 };
        HeadScores {
            previous_token: previous_token_score(&e, &model, &b, head),
            induction: induction_score(&e, &model, &b, head),
        }
    };
    let first = |l: usize| e.attention.get(l).and_then(|a| a.get(..T * T)).unwrap_or(&[]).to_vec();
    Some(Outcome {
        heads: [score(0), score(1)],
        loss: e.loss,
        accuracy: e.accuracy,
        attention: [first(0), first(1)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_solution_meets_the_goal() {
        let o = judge(&Attempt::SOLUTION).unwrap();
        assert!(o.met(), "{o:?}");
        assert!(o.heads[0].previous_token > 0.999 && o.heads[1].induction > 0.999, "{o:?}");
        assert_eq!(o.accuracy, 1.0);
        assert!(o.loss < 1e-3, "{}", o.loss);
    }

    /// The start and the tempting wrong answers fail: layer 2 matching the same token
    /// attends to the earlier B, not the C after it; layer 1 matching its own position
    /// attends to itself; a weak strength leaves the softmax spread.
    #[test]
    fn wrong_attempts_fail() {
        let wrong = [
            Attempt::START,
            Attempt { layer2: (Map::Token, Map::Token), ..Attempt::SOLUTION },
            Attempt { layer1: (Map::Position, Map::Position), ..Attempt::SOLUTION },
            Attempt { layer1: (Map::NextPosition, Map::Position), ..Attempt::SOLUTION },
            Attempt { strength: 1.0, ..Attempt::SOLUTION },
        ];
        for a in wrong {
            let o = judge(&a).unwrap();
            assert!(!o.met(), "{a:?}: {o:?}");
        }
        let same = judge(&wrong[1]).unwrap();
        assert!(same.heads[1].induction < 0.01, "{same:?}");
        assert!(same.accuracy < 0.5);
    }

    /// The strength's words hold for each layer, read back from the engine's weights (a
    /// weight ratio is e to the score gap): in layer 1 the meeting key is exactly
    /// s² / √d_k above every other key; in layer 2 no key is more than that above another.
    #[test]
    fn the_strengths_score_gap_is_exact_in_layer_one_and_a_bound_in_layer_two() {
        for strength in [1.0, 2.5, 8.0] {
            let o = judge(&Attempt { strength, ..Attempt::SOLUTION }).unwrap();
            let m = meeting_score(strength);
            let w = |l: usize, i: usize, j: usize| o.attention[l][i * T + j];
            for i in 1..T {
                for k in (0..=i).filter(|&k| k != i - 1) {
                    let gap = (w(0, i, i - 1) / w(0, i, k)).ln();
                    assert!((gap - m).abs() < 1e-9, "layer 1, strength {strength}, row {i}: {gap} vs {m}");
                }
                for (j, k) in (0..=i).flat_map(|j| (0..=i).map(move |k| (j, k))) {
                    let gap = (w(1, i, j) / w(1, i, k)).ln();
                    assert!(gap <= m + 1e-9, "layer 2, strength {strength}, row {i}: {gap} > {m}");
                }
            }
            let words = strength_words(strength);
            let shown = crate::format::fixed(m, 2);
            assert!(words.contains(&format!("= {shown} above the score 0")), "{words}");
            assert!(words.contains(&format!("its gap is at most {shown}")), "{words}");
        }
        // at strength 1 layer 1 spreads its weight, so layer 2's gap is below the bound
        let o = judge(&Attempt { strength: 1.0, ..Attempt::SOLUTION }).unwrap();
        assert!(o.heads[0].previous_token < 0.5, "{o:?}");
    }

    /// A strength outside 0 to 20, or not a number, gets a message, never a silent value.
    #[test]
    fn a_strength_out_of_range_is_refused_by_name() {
        assert_eq!(read_strength(" 8 "), Ok(8.0));
        assert_eq!(read_strength("2,5"), Ok(2.5));
        assert_eq!(read_strength("0"), Ok(0.0));
        let negative = read_strength("-5").unwrap_err();
        assert!(negative.starts_with("The strength must be from 0 to 20, not -5"), "{negative}");
        assert!(read_strength("21").unwrap_err().contains("not 21"));
        assert_eq!(
            read_strength("strong").unwrap_err(),
            "The strength must be a number from 0 to 20, not \"strong\"."
        );
    }

    /// Without layer 1's head (its query and key fine, but nothing written into
    /// `previous` if layer 1 attends nowhere useful), layer 2's key has nothing to match.
    #[test]
    fn layer_two_needs_layer_one() {
        let o = judge(&Attempt { layer1: (Map::Zero, Map::Zero), ..Attempt::SOLUTION }).unwrap();
        assert!(o.heads[1].induction < AT_LEAST, "{o:?}");
    }

    /// The verdict says which part is wrong, with the engine's numbers: the right maps at
    /// strength 1 are too weak (and would meet the goal at the solution's strength);
    /// layer 2 matching the same token, or layer 1 matching its own position, are wrong
    /// at any strength.
    #[test]
    fn the_verdict_tells_weak_maps_from_wrong_ones() {
        let weak = Attempt { strength: 1.0, ..Attempt::SOLUTION };
        let o = judge(&weak).unwrap();
        let Some(Verdict::TooWeak { strong, at_strong }) = verdict(&weak, &o) else { panic!("{o:?}") };
        assert_eq!(strong, STRONG);
        assert!(at_strong.met() && o.heads[1].induction < AT_LEAST, "{o:?}");
        let words = verdict_words(&weak, &o);
        assert!(words.starts_with("Not yet, but the four maps are right: at strength 8"), "{words}");
        assert!(
            words.contains(&format!("1² / √{D_K} = 0.20 above the others, and layer 2's at most that")),
            "{words}"
        );
        assert!(words.contains(&percent(o.heads[1].induction)), "{words}");
        assert_eq!(D_K, 24);
        assert!((meeting_score(8.0) - 64.0 / 24f64.sqrt()).abs() < 1e-12);

        let same_token = Attempt { layer2: (Map::Token, Map::Token), ..Attempt::SOLUTION };
        let o = judge(&same_token).unwrap();
        assert!(matches!(verdict(&same_token, &o), Some(Verdict::Layer2Wrong { .. })));
        let words = verdict_words(&same_token, &o);
        assert!(
            words.starts_with("Not yet: layer 1's maps are right (at strength 8 it puts 100.0%"),
            "{words}"
        );

        for a in [Attempt::START, Attempt { layer1: (Map::Position, Map::Position), ..Attempt::SOLUTION }] {
            let o = judge(&a).unwrap();
            assert!(matches!(verdict(&a, &o), Some(Verdict::Layer1Wrong { .. })), "{a:?}");
            assert!(verdict_words(&a, &o)
                .starts_with("Not yet: layer 1's maps do not make a previous-token head"));
        }
        let o = judge(&Attempt::SOLUTION).unwrap();
        assert_eq!(verdict(&Attempt::SOLUTION, &o), Some(Verdict::Met));
        assert!(verdict_words(&Attempt::SOLUTION, &o).starts_with("Goal met. Layer 1 puts 100.0%"));
        let [place, start] = legend();
        assert!(place.0 == "place" && place.1.contains("d_k = 24") && start.0 == "^");
    }

    #[test]
    fn a_map_is_read_back_from_its_key() {
        for m in Map::ALL {
            assert_eq!(Map::from_key(m.key()), Some(m));
        }
        assert_eq!(Map::from_key("diagonal"), None);
    }

    #[test]
    fn the_test_sequences_are_two_rounds_after_a_start_token() {
        let b = batch();
        for s in 0..SEQUENCES.len() {
            let tokens = &b.tokens[s * T..(s + 1) * T];
            assert_eq!(tokens[0], 0);
            assert_eq!(tokens[1..5], tokens[5..9]);
            let mut firsts = tokens[1..5].to_vec();
            firsts.sort_unstable();
            firsts.dedup();
            assert_eq!(firsts.len(), 4);
        }
        assert_eq!(b.targets[..T], [-1, -1, -1, -1, -1, 2, 3, 4, -1]);
    }
}
