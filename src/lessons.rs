//! Guided lessons: each step is a scenario for the engine, the trace step to look at,
//! and words written from the trace's own numbers (so an edit updates the words too).
//!
//! Pure Rust, no web dependency: the page renders these, the tests check that every
//! number a lesson states is one the engine computed.

use std::collections::BTreeMap;

use crate::engine::trace::shape_text;
use crate::engine::{
    weights::parameter_count, ExplicitWeights, Fill, MaskConfig, Padding, ProjectionKind, Projections,
    Scenario, Trace,
};

/// One step of a lesson.
#[derive(Debug, Clone)]
pub struct LessonStep {
    /// Short title.
    pub title: &'static str,
    /// What the engine runs.
    pub scenario: Scenario,
    /// The trace step the page selects and highlights.
    pub focus: &'static str,
    /// The sentence of the batch shown.
    pub batch: usize,
    /// Writes the step's text from the live trace.
    pub narrate: fn(&Trace) -> String,
}

/// A lesson: an id for its URL, a title, its steps.
#[derive(Debug, Clone)]
pub struct Lesson {
    /// URL id, e.g. `baseball-bat`.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// The seeds it follows.
    pub seeds: &'static str,
    /// The steps, in order.
    pub steps: Vec<LessonStep>,
}

/// Two decimals, as the seeds print them.
pub fn num(v: f64) -> String {
    crate::draw::heatmap::short_number(v)
}

/// `trace[step][b, head, i, j]` (or `[b, i, j]` for steps without heads), NaN if absent.
pub fn at(trace: &Trace, step: &str, b: usize, head: usize, i: usize, j: usize) -> f64 {
    trace.step(step).and_then(|s| s.matrix(b, head)).and_then(|m| m.get((i, j)).copied()).unwrap_or(f64::NAN)
}

fn row(trace: &Trace, step: &str, b: usize, head: usize, i: usize) -> String {
    let cells: Vec<String> = trace
        .step(step)
        .and_then(|s| s.matrix(b, head))
        .map(|m| m.row(i).iter().map(|v| num(*v)).collect())
        .unwrap_or_default();
    format!("[{}]", cells.join(", "))
}

fn token(trace: &Trace, b: usize, i: usize) -> String {
    trace.tokens.get(b).and_then(|r| r.get(i)).cloned().unwrap_or_default()
}

/// The index of the largest weight in row `i` of head `head`.
pub fn argmax(trace: &Trace, b: usize, head: usize, i: usize) -> Option<usize> {
    let m = trace.step("weights")?.matrix(b, head)?;
    let r = m.row(i);
    (0..r.len()).filter(|&j| r[j].is_finite()).max_by(|&a, &c| r[a].total_cmp(&r[c]))
}

fn base(sentences: &[&str], d_model: usize, n_heads: usize) -> Scenario {
    Scenario::identity(sentences, d_model, n_heads)
}

// ----------------------------------------------------------------------------------
// 1. The baseball bat (seed 003)
// ----------------------------------------------------------------------------------

fn bat_embeddings() -> BTreeMap<String, Vec<f64>> {
    BTreeMap::from([("baseball".into(), vec![2.0, 0.0, 0.0]), ("bat".into(), vec![1.0, 1.0, 0.0])])
}

fn lesson_bat() -> Lesson {
    let mut pair = base(&["baseball bat"], 3, 1);
    pair.embeddings = bat_embeddings();
    let mut whole = base(&["I bought a baseball bat"], 3, 1);
    whole.embeddings = bat_embeddings();
    Lesson {
        id: "baseball-bat",
        title: "The baseball bat",
        seeds: "seed 003",
        steps: vec![
            LessonStep {
                title: "Two words in a 3-dimensional space",
                scenario: pair.clone(),
                focus: "x",
                batch: 0,
                narrate: |t| {
                    format!(
                        "In \"I bought a baseball bat\", is a bat a wooden club or an animal? Take a 3-dimensional \
                         space whose dimensions mean sports, animal and other. \"baseball\" is {} and \"bat\" is {}: \
                         on its own, \"bat\" is half sports, half animal. Self-attention uses Q = K = V = x here \
                         (identity projections, one head, d_k = d_model = {}).",
                        row(t, "x", 0, 0, 0),
                        row(t, "x", 0, 0, 1),
                        t.sizes.d_k
                    )
                },
            },
            LessonStep {
                title: "Scores: QKᵀ / √d_k",
                scenario: pair.clone(),
                focus: "scaled",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Every query is dotted with every key: QKᵀ = [{}, {}]. Dividing by √d_k = √{} gives the \
                         scores the seed prints: baseball {} and bat {}. (The seed calls these \"scores\"; in the \
                         pipeline they are the scaled step.) \"baseball\"·\"bat\" = {} because they share the \
                         sports dimension.",
                        row(t, "scores", 0, 0, 0),
                        row(t, "scores", 0, 0, 1),
                        t.sizes.d_k,
                        row(t, "scaled", 0, 0, 0),
                        row(t, "scaled", 0, 0, 1),
                        num(at(t, "scaled", 0, 0, 0, 1)),
                    )
                },
            },
            LessonStep {
                title: "Weights: softmax of each row",
                scenario: pair.clone(),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Softmax turns each row into weights that sum to 1: baseball {} and bat {}. \"bat\" gives \
                         {} of its attention to \"baseball\": its two scores are equal, so the weights are too.",
                        row(t, "weights", 0, 0, 0),
                        row(t, "weights", 0, 0, 1),
                        num(at(t, "weights", 0, 0, 1, 0)),
                    )
                },
            },
            LessonStep {
                title: "Output: bat is pulled toward baseball",
                scenario: pair,
                focus: "output",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Each output row is the weighted average of the values: baseball {} and bat {}. \"bat\" \
                         moved from {} to {}: more sports ({} → {}), less animal ({} → {}). That is how attention \
                         injects context. Edit the vectors, or drag \"bat\" in the plot, and watch every number \
                         here change.",
                        row(t, "output", 0, 0, 0),
                        row(t, "output", 0, 0, 1),
                        row(t, "x", 0, 0, 1),
                        row(t, "output", 0, 0, 1),
                        num(at(t, "x", 0, 0, 1, 0)),
                        num(at(t, "output", 0, 0, 1, 0)),
                        num(at(t, "x", 0, 0, 1, 1)),
                        num(at(t, "output", 0, 0, 1, 1)),
                    )
                },
            },
            LessonStep {
                title: "The whole sentence",
                scenario: whole,
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "With the whole sentence, \"I\", \"bought\" and \"a\" sit on the \"other\" dimension. The \
                         scores of \"baseball\" and \"bat\" with each other do not change (baseball·bat scaled is \
                         still {}), but now softmax shares each row among five keys: \"bat\" gives {} to \
                         \"baseball\", {} to itself and {} to each of the others, so its output is {}.",
                        num(at(t, "scaled", 0, 0, 3, 4)),
                        num(at(t, "weights", 0, 0, 4, 3)),
                        num(at(t, "weights", 0, 0, 4, 4)),
                        num(at(t, "weights", 0, 0, 4, 0)),
                        row(t, "output", 0, 0, 4),
                    )
                },
            },
        ],
    }
}

// ----------------------------------------------------------------------------------
// 2. Why several heads (seed 002)
// ----------------------------------------------------------------------------------

/// The 8 named features: sports, animal, nature, thing, describes, action, refers, function.
const NATURE: usize = 2;
const ANIMAL: usize = 1;
const THING: usize = 3;
const REFERS: usize = 6;

fn zeros(d: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; d]; d]
}

fn eye(d: usize) -> Vec<Vec<f64>> {
    (0..d).map(|i| (0..d).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect()
}

/// Two hand-made heads on the 8 named features (d_k = 4 each):
/// - head 1 (columns 0–3): a pronoun looks for an inanimate thing. Query: "refers";
///   key: "thing" minus "animal".
/// - head 2 (columns 4–7): a word looks for a word of the same nature. Query and key:
///   "nature" (and "animal" on a second column).
///
/// V and W_O are the identity, so each head's output is its slice of the embeddings.
pub fn two_heads() -> ExplicitWeights {
    let mut w_q = zeros(8);
    let mut w_k = zeros(8);
    // head 1: "it" (refers = 2) → column 0
    w_q[REFERS][0] = 1.0;
    w_k[THING][0] = 3.0;
    w_k[ANIMAL][0] = -3.0;
    // head 2: nature and animal → columns 4 and 5
    w_q[NATURE][4] = 2.0;
    w_k[NATURE][4] = 2.0;
    w_q[ANIMAL][5] = 2.0;
    w_k[ANIMAL][5] = 2.0;
    ExplicitWeights { w_q, b_q: vec![], w_k, b_k: vec![], w_v: eye(8), b_v: vec![], w_o: eye(8), b_o: vec![] }
}

/// One head of the same width d_k = 4 that must hold both relationships: the two heads'
/// query and key columns summed into the same four columns.
pub fn one_head_same_budget() -> ExplicitWeights {
    let two = two_heads();
    let fold = |w: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
        w.iter().map(|r| (0..8).map(|j| if j < 4 { r[j] + r[j + 4] } else { 0.0 }).collect()).collect()
    };
    ExplicitWeights { w_q: fold(&two.w_q), w_k: fold(&two.w_k), ..two }
}

const CREEK: &str = "The creek was cold and the spunky dog wanted to jump over it";
const IT: usize = 12;
const COLD: usize = 3;
const CREEK_I: usize = 1;

fn lesson_heads() -> Lesson {
    let mut two = base(&[CREEK], 8, 2);
    two.projections = Projections::Explicit(Box::new(two_heads()));
    let mut one = base(&[CREEK], 8, 2);
    one.projections = Projections::Explicit(Box::new(one_head_same_budget()));
    Lesson {
        id: "why-heads",
        title: "Why several heads",
        seeds: "seed 002",
        steps: vec![
            LessonStep {
                title: "Two relationships to one word",
                scenario: two.clone(),
                focus: "x",
                batch: 0,
                narrate: |t| {
                    format!(
                        "\"The creek was cold and the spunky dog wanted to jump over it.\" \"cold\" describes the \
                         creek and \"it\" refers to the creek: two different relationships to the same word. \
                         Each token has 8 named features ({}); \"creek\" is {}.",
                        t.feature_names.as_ref().map(|f| f.join(", ")).unwrap_or_default(),
                        row(t, "x", 0, 0, CREEK_I),
                    )
                },
            },
            LessonStep {
                title: "Head 1: a pronoun finds its referent",
                scenario: two.clone(),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    let j = argmax(t, 0, 0, IT).unwrap_or(0);
                    format!(
                        "Head 1's queries ask \"do I refer to something?\" and its keys answer \"I am a thing, \
                         not an animal\". The \"it\" row puts its largest weight, {}, on \"{}\" (and {} on \
                         \"dog\").",
                        num(at(t, "weights", 0, 0, IT, j)),
                        token(t, 0, j),
                        num(at(t, "weights", 0, 0, IT, 7)),
                    )
                },
            },
            LessonStep {
                title: "Head 2: an adjective finds its noun",
                scenario: two.clone(),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    let j = argmax(t, 0, 1, COLD).unwrap_or(0);
                    format!(
                        "Head 2 looks at other columns of the same embeddings: nature and animal. The \"cold\" \
                         row puts its largest weight, {}, on \"{}\". The heads see different subspaces \
                         (columns 1–4 and 5–8 of Q and K), so they can attend to different things.",
                        num(at(t, "weights", 0, 1, COLD, j)),
                        token(t, 0, j),
                    )
                },
            },
            LessonStep {
                title: "One head with the same budget blurs them",
                scenario: one,
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Now both relationships must share one head's 4 query and key columns (head 1 here; head \
                         2 is left empty, so it attends uniformly). To make both \"cold\" and \"it\" match \
                         \"creek\", their queries must point the same way, so they become the same query: \
                         \"it\" attends {} and \"cold\" attends {}, identical rows. The head can no longer \
                         tell \"a pronoun looking for its referent\" from \"an adjective looking for its noun\"; \
                         with two heads their rows differ.",
                        row(t, "weights", 0, 0, IT),
                        row(t, "weights", 0, 0, COLD),
                    )
                },
            },
            LessonStep {
                title: "Concat and W_O mix the heads",
                scenario: two,
                focus: "concat",
                batch: 0,
                narrate: |t| {
                    let d = t.sizes.d_model;
                    format!(
                        "Each head returns d_k = {} numbers per token; concat lays them side by side into \
                         d_model = {} (the coloured bands), and W_O ({}×{}) mixes them. The layer has \
                         4·d_model² + 4·d_model = {} parameters whatever h is, and each head costs O(T²·d_k) \
                         = {}²·{} multiply-adds for its scores.",
                        t.sizes.d_k,
                        d,
                        d,
                        d,
                        parameter_count(d),
                        t.sizes.t,
                        t.sizes.d_k,
                    )
                },
            },
        ],
    }
}

// ----------------------------------------------------------------------------------
// 3. Masks (seeds 000, 001, 002)
// ----------------------------------------------------------------------------------

const SAMPLE: [&str; 2] = ["this is a sample sequence", "the spunky dog wanted to jump high"];

fn masks(causal: bool, padding: Padding, fill: Fill) -> Scenario {
    let mut s = base(&SAMPLE, 8, 2);
    s.mask = MaskConfig { causal, padding, fill };
    s
}

fn lesson_masks() -> Lesson {
    Lesson {
        id: "masks",
        title: "Masks",
        seeds: "seeds 000, 001, 002",
        steps: vec![
            LessonStep {
                title: "Causal: no peeking at the future",
                scenario: masks(true, Padding::None, Fill::NegInf),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "A decoder must not see later words. Seed 000's subsequent_mask blocks key j > i: the \
                         hatched upper triangle. Blocked scores become -inf, so their weights are exactly {}; \
                         \"this\" can only attend to itself ({}), \"is\" splits {} between \"this\" and \"is\".",
                        num(at(t, "weights", 0, 0, 0, 1)),
                        num(at(t, "weights", 0, 0, 0, 0)),
                        row(t, "weights", 0, 0, 1),
                    )
                },
            },
            LessonStep {
                title: "Padding: a batch needs equal lengths",
                scenario: masks(false, Padding::Keys, Fill::NegInf),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    let pads = t.sizes.t - t.lengths.first().copied().unwrap_or(0);
                    format!(
                        "The batch is padded to its longest sentence, T = {}, so \"this is a sample sequence\" \
                         gets {} <pad> tokens. A padding mask (seed 001, PyTorch's key_padding_mask) stops every \
                         query from attending to them: the <pad> columns get weight {}, and the five real words \
                         share all of it (row 1 sums to {}).",
                        t.sizes.t,
                        pads,
                        num(at(t, "weights", 0, 0, 0, 5)),
                        num(t.step("weights").and_then(|s| s.row_sum(0, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
            LessonStep {
                title: "Both together",
                scenario: masks(true, Padding::KeysAndQueries, Fill::NegInf),
                focus: "masked",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Causal and padding together give seed 002's table: a triangle for the words, and the \
                         <pad> rows blocked entirely. The mask is built once per sentence as (B, T, T) = ({}, \
                         {}, {}) and mask.unsqueeze(1) makes it (B, 1, T, T), which broadcasts over the h = {} \
                         heads (see the masked step's shape trace).",
                        t.sizes.b,
                        t.sizes.t,
                        t.sizes.t,
                        t.sizes.n_heads,
                    )
                },
            },
            LessonStep {
                title: "-inf: a fully masked row is NaN",
                scenario: masks(true, Padding::KeysAndQueries, Fill::NegInf),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "A <pad> query row has every key blocked. With -inf, softmax computes e^(-inf − (-inf)) \
                         = e^NaN: the row's weights are {} (0/0), and the NaN flows into context, concat and \
                         output. Seed 001's code warns about exactly this (\"NaNs detected in attention \
                         weights\").",
                        num(at(t, "weights", 0, 0, 6, 0)),
                    )
                },
            },
            LessonStep {
                title: "-1e9: a fully masked row is uniform",
                scenario: masks(true, Padding::KeysAndQueries, Fill::LargeNegative),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "With -1e9 (seed 000's choice) every score in a fully masked row is the same -1e9, so \
                         softmax gives each of the T = {} keys the weight {} = 1/T: finite, but meaningless, and \
                         usually ignored by the loss. Elsewhere -1e9 and -inf give the same weights to 1e-9.",
                        t.sizes.t,
                        num(at(t, "weights", 0, 0, 6, 0)),
                    )
                },
            },
        ],
    }
}

// ----------------------------------------------------------------------------------
// 4. Shapes (seeds 000, 002)
// ----------------------------------------------------------------------------------

fn shape_of(trace: &Trace, step: &str) -> String {
    trace.step(step).map(|s| shape_text(&s.dims, &s.shape)).unwrap_or_default()
}

fn path_of(trace: &Trace, step: &str) -> String {
    trace
        .step(step)
        .map(|s| {
            s.shape_path
                .iter()
                .map(|r| {
                    let sizes: Vec<String> = r.shape.iter().map(usize::to_string).collect();
                    format!("{} → ({})", r.op, sizes.join(", "))
                })
                .collect::<Vec<_>>()
                .join(", then ")
        })
        .unwrap_or_default()
}

/// Numbers `from..to` of row `t` of a `(B, T, d_model)` step, sentence 0.
fn slice(trace: &Trace, step: &str, t: usize, from: usize, to: usize) -> String {
    let cells: Vec<String> = (from..to).map(|c| num(at(trace, step, 0, 0, t, c))).collect();
    format!("[{}]", cells.join(", "))
}

fn lesson_shapes() -> Lesson {
    let mut s = base(&["the cat sat on the mat"], 8, 2);
    s.projections = Projections::Named(ProjectionKind::Seeded);
    s.seed = 7;
    Lesson {
        id: "shapes",
        title: "Shapes",
        seeds: "seeds 000, 002",
        steps: vec![
            LessonStep {
                title: "One tensor, (B, T, d_model)",
                scenario: s.clone(),
                focus: "q",
                batch: 0,
                narrate: |t| {
                    format!(
                        "Follow the queries. q = self.w_q(x) has shape {}: one row of d_model = {} numbers per \
                         token. Multi-head attention gives each of the h = {} heads its own d_k = {} columns of \
                         that row: token 2 (\"{}\") gives head 1 {} and head 2 {}.",
                        shape_of(t, "q"),
                        t.sizes.d_model,
                        t.sizes.n_heads,
                        t.sizes.d_k,
                        token(t, 0, 1),
                        slice(t, "q", 1, 0, t.sizes.d_k),
                        slice(t, "q", 1, t.sizes.d_k, 2 * t.sizes.d_k),
                    )
                },
            },
            LessonStep {
                title: "view, then transpose(1, 2)",
                scenario: s.clone(),
                focus: "q_heads",
                batch: 0,
                narrate: |t| {
                    let d_k = t.sizes.d_k;
                    format!(
                        "q.view(B, T, h, d_k) splits each row into h pieces of d_k without moving a number; \
                         transpose(1, 2) then puts the head axis before T, so each head is a (T, d_k) matrix the \
                         matmul can work on: {}. Head 2's row for \"{}\" is {}: exactly columns {}–{} of q.",
                        path_of(t, "q_heads"),
                        token(t, 0, 1),
                        {
                            let cells: Vec<String> = (0..d_k).map(|c| num(at(t, "q_heads", 0, 1, 1, c))).collect();
                            format!("[{}]", cells.join(", "))
                        },
                        d_k + 1,
                        2 * d_k,
                    )
                },
            },
            LessonStep {
                title: "Without the transpose, heads get the wrong numbers",
                scenario: s.clone(),
                focus: "q_heads",
                batch: 0,
                narrate: |t| {
                    let d_k = t.sizes.d_k;
                    let wrong = t
                        .step("q")
                        .and_then(|q| crate::engine::view_without_transpose(q, t.sizes.n_heads).ok())
                        .map(|w| {
                            let cells: Vec<String> = (0..d_k).map(|c| num(w[[0, 0, 1, c]])).collect();
                            format!("[{}]", cells.join(", "))
                        })
                        .unwrap_or_default();
                    format!(
                        "q.view(B, h, T, d_k) has the right shape, {}, but the wrong numbers: it reads memory \
                         in order, so \"head 1, token 2\" becomes {}, which is token 1's second half (head \
                         2's columns {}), not token 2's first half {}. Every head mixes tokens and other heads' \
                         features, and nothing fails loudly. The shapes agree; the meaning does not.",
                        shape_of(t, "q_heads"),
                        wrong,
                        slice(t, "q", 0, d_k, 2 * d_k),
                        slice(t, "q", 1, 0, d_k),
                    )
                },
            },
            LessonStep {
                title: "The attention matrix is (B, h, T, T)",
                scenario: s.clone(),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "q_heads (B, h, T, d_k) @ k_heads.transpose(-2, -1) (B, h, d_k, T) multiplies the last two \
                         axes and keeps (B, h) in front, so the attention matrix is {}: one T × T matrix per \
                         sentence and head. Seed 000's text calls it B × L × h × h; that is a slip, and its own \
                         next formula and code give B × h × L × L, as here.",
                        shape_of(t, "weights"),
                    )
                },
            },
            LessonStep {
                title: "Concat: transpose back, contiguous(), view",
                scenario: s,
                focus: "concat",
                batch: 0,
                narrate: |t| {
                    format!(
                        "After attention, context is {}. context.transpose(1, 2) swaps h and T back, but only \
                         changes how memory is read (strides): the numbers of one token are no longer next to \
                         each other, and view refuses a non-contiguous tensor. .contiguous() copies them into \
                         the new order so that .view(B, T, d_model) can join the heads: {}. (reshape does both \
                         steps in one call.) The result, {}, has each token's heads side by side.",
                        shape_of(t, "context"),
                        path_of(t, "concat"),
                        shape_of(t, "concat"),
                    )
                },
            },
        ],
    }
}

// ----------------------------------------------------------------------------------
// 5. Cross-attention (seeds 001, 003)
// ----------------------------------------------------------------------------------

fn cross(padding: Padding) -> Scenario {
    let mut s = base(&["this is a sample sequence"], 8, 2);
    s.kv_sentences = Some(vec!["the spunky dog wanted to jump high".into()]);
    s.mask.padding = padding;
    s
}

fn lesson_cross() -> Lesson {
    let mut batch = base(&["this is a sample sequence", "the cat sat"], 8, 2);
    batch.kv_sentences = Some(vec!["the spunky dog wanted to jump high".into(), "the creek was cold".into()]);
    batch.mask.padding = Padding::Keys;
    Lesson {
        id: "cross",
        title: "Cross-attention",
        seeds: "seeds 001, 003",
        steps: vec![
            LessonStep {
                title: "Queries from one sentence, keys and values from another",
                scenario: cross(Padding::None),
                focus: "weights",
                batch: 0,
                narrate: |t| {
                    format!(
                        "In a decoder, cross-attention takes its queries from the decoder's sentence and its keys \
                         and values from the encoder's (seed 003). Here T_q = {} query tokens meet T_k = {} key \
                         tokens, so the weights are {}: one row per query, one column per key, as in seed 001's \
                         example (seq_len_q = 5, seq_len_k = 7). Each row still sums to 1 (row 1: {}).",
                        t.sizes.t,
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        shape_of(t, "weights"),
                        num(t.step("weights").and_then(|s| s.row_sum(0, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
            LessonStep {
                title: "The output has the queries' length",
                scenario: cross(Padding::None),
                focus: "output",
                batch: 0,
                narrate: |t| {
                    format!(
                        "weights {} @ v {} gives context {}: each query gets a weighted sum of the other \
                         sentence's values, so the output is {}, shaped like the queries, not the keys.",
                        shape_of(t, "weights"),
                        shape_of(t, "v_heads"),
                        shape_of(t, "context"),
                        shape_of(t, "output"),
                    )
                },
            },
            LessonStep {
                title: "Padding the keys of a batch",
                scenario: batch,
                focus: "weights",
                batch: 1,
                narrate: |t| {
                    let kv_len = t.kv_lengths.as_ref().and_then(|l| l.get(1)).copied().unwrap_or(0);
                    format!(
                        "In a batch, the key sentences are padded to the longest, T_k = {}. Seed 001 masks \
                         the last key positions of the shorter one (its padding_mask[:, :, -2:] = True): here \
                         sentence 2 has {} real keys, so its <pad> key columns get weight {} and its rows \
                         still sum to {}.",
                        t.sizes.t_k.unwrap_or(t.sizes.t),
                        kv_len,
                        num(at(t, "weights", 1, 0, 0, kv_len)),
                        num(t.step("weights").and_then(|s| s.row_sum(1, 0, 0)).unwrap_or(f64::NAN)),
                    )
                },
            },
        ],
    }
}

/// All lessons, in order.
pub fn lessons() -> Vec<Lesson> {
    vec![lesson_bat(), lesson_heads(), lesson_masks(), lesson_shapes(), lesson_cross()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn every_step_runs_and_narrates_engine_numbers() {
        for lesson in lessons() {
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = run(&step.scenario).unwrap_or_else(|e| panic!("{} step {i}: {e}", lesson.id));
                assert!(trace.step(step.focus).is_some());
                let text = (step.narrate)(&trace);
                assert!(!text.is_empty() && !text.contains("[]"), "{}: {text}", lesson.id);
            }
        }
    }

    #[test]
    fn baseball_bat_states_the_seed_numbers() {
        let l = lesson_bat();
        let say = |i: usize| (l.steps[i].narrate)(&run(&l.steps[i].scenario).unwrap());
        assert!(say(1).contains("baseball [2.31, 1.15] and bat [1.15, 1.15]"), "{}", say(1));
        assert!(say(2).contains("baseball [0.76, 0.24] and bat [0.50, 0.50]"), "{}", say(2));
        assert!(say(3).contains("baseball [1.76, 0.24, 0.00] and bat [1.50, 0.50, 0.00]"), "{}", say(3));
    }

    #[test]
    fn two_heads_find_creek_and_one_head_blurs() {
        let l = lesson_heads();
        let trace = run(&l.steps[1].scenario).unwrap();
        assert_eq!(trace.tokens[0][CREEK_I], "creek");
        assert_eq!(trace.tokens[0][IT], "it");
        assert_eq!(trace.tokens[0][COLD], "cold");
        assert_eq!(argmax(&trace, 0, 0, IT), Some(CREEK_I), "head 1: it → creek");
        assert_eq!(argmax(&trace, 0, 1, COLD), Some(CREEK_I), "head 2: cold → creek");
        let w =
            |t: &Trace, h: usize, i: usize| t.step("weights").unwrap().matrix(0, h).unwrap().row(i).to_vec();
        // two heads: "it" and "cold" attend differently in each head
        assert_ne!(w(&trace, 0, IT), w(&trace, 0, COLD));
        assert_ne!(w(&trace, 1, IT), w(&trace, 1, COLD));
        // one head of the same width: the same query, so the same row
        let blurred = run(&l.steps[3].scenario).unwrap();
        assert_eq!(w(&blurred, 0, IT), w(&blurred, 0, COLD));
    }

    #[test]
    fn shapes_lesson_quotes_the_wrong_heads() {
        let l = lesson_shapes();
        let trace = run(&l.steps[2].scenario).unwrap();
        let wrong = crate::engine::view_without_transpose(trace.step("q").unwrap(), 2).unwrap();
        let q = &trace.step("q").unwrap().data;
        // "head 1, token 2" without the transpose is token 1's second half
        assert_eq!(wrong[[0, 0, 1, 0]], q[[0, 0, 4]]);
        assert_ne!(wrong[[0, 0, 1, 0]], trace.step("q_heads").unwrap().data[[0, 0, 1, 0]]);
        assert!((l.steps[2].narrate)(&trace).contains("token 1's second half"));
    }

    #[test]
    fn cross_lesson_is_5_by_7() {
        let l = lesson_cross();
        let trace = run(&l.steps[0].scenario).unwrap();
        assert_eq!(trace.step("weights").unwrap().shape, [1, 2, 5, 7]);
        let trace = run(&l.steps[2].scenario).unwrap();
        assert_eq!(trace.step("weights").unwrap().shape, [2, 2, 5, 7]);
    }

    #[test]
    fn masks_lesson_shows_nan_then_uniform() {
        let l = lesson_masks();
        let nan = run(&l.steps[3].scenario).unwrap();
        assert!(at(&nan, "weights", 0, 0, 6, 0).is_nan());
        let uniform = run(&l.steps[4].scenario).unwrap();
        assert!((at(&uniform, "weights", 0, 0, 6, 0) - 1.0 / 7.0).abs() < 1e-12);
        assert!((l.steps[4].narrate)(&uniform).contains("0.14 = 1/T"));
    }
}
