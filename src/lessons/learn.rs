//! The lesson "How a head learns": one step of gradient descent by hand, on the baseball
//! pair, with every number from the engine's `train::by_hand` (which the NumPy and torch
//! checks hold to the chain rule and to autograd).
//!
//! "bat" (query row 1) should mean the sports bat. Its output is read as three scores for
//! the three meanings, the loss is the cross-entropy for "sports", and one SGD step on W_Q
//! moves the weight "bat" gives "baseball". Every sentence is written from the step the
//! engine computed for the vectors on screen, with a case for each sign, so an edit that
//! turns the story around gets words that say so.

use attention_engine::train::by_hand::{one_step, ByHandInput, ByHandStep};

use super::quiz::{Quiz, QuizKind};
use super::{base, num, token, Aside, Claim, Extra, Lesson, LessonStep, Quantity};
use crate::engine::{StepName as S, Trace};

/// The query row whose output the loss reads: "bat".
const QUERY: usize = 1;
/// The meaning the loss asks for: the first dimension, "sports".
const TARGET: usize = 0;
/// The learning rate of the one step.
const LR: f64 = 1.0;

/// The step the engine takes for the trace on screen: its `x` (after positions, if any),
/// its projections. `None` when the trace has projections with biases, or sizes the step
/// cannot read (an edit the lesson does not allow).
pub fn step_of(t: &Trace) -> Option<ByHandStep> {
    let x = t.step(x_step(t))?.matrix(0, 0)?;
    let (rows, d) = x.dim();
    let p = &t.params;
    if [&p.q, &p.k, &p.v].iter().any(|l| l.w().dim() != (d, d) || l.b().iter().any(|b| *b != 0.0)) {
        return None;
    }
    let flat = |w: &ndarray::Array2<f64>| w.iter().copied().collect::<Vec<f64>>();
    let mut input = ByHandInput::identity(x.iter().copied().collect(), rows, d, QUERY, TARGET, LR);
    input.w_q = flat(p.q.w());
    input.w_k = flat(p.k.w());
    input.w_v = flat(p.v.w());
    one_step(&input).ok()
}

/// A vector as the page prints it: `[1.50, 0.50, 0.00]`.
fn vector(v: &[f64]) -> String {
    format!("[{}]", v.iter().map(|x| num(*x)).collect::<Vec<_>>().join(", "))
}

/// Dimension `i`'s name ("sports"), or "dimension i".
fn meaning(t: &Trace, i: usize) -> String {
    t.feature_names
        .as_ref()
        .and_then(|f| f.get(i))
        .map_or_else(|| format!("dimension {i}"), |n| n.to_string())
}

/// The words when the trace on screen has no step (an edit the lesson cannot follow).
const NO_STEP: &str = "These vectors give no step to follow here. Press Reset to get the lesson's own \
                       vectors back.";

/// "up", "down" or "nowhere": how the weight "bat" gives "baseball" moved.
fn direction(s: &ByHandStep) -> usize {
    let (before, after) = (s.before.weights[0], s.after.weights[0]);
    if num(before) == num(after) {
        2
    } else if after > before {
        1
    } else {
        0
    }
}

fn direction_choices(t: &Trace) -> Vec<String> {
    let keys = (token(t, 0, QUERY), token(t, 0, 0));
    vec![
        format!("Down: \"{}\" takes less of \"{}\"", keys.0, keys.1),
        format!("Up: \"{}\" takes more of \"{}\"", keys.0, keys.1),
        "It stays where it is".into(),
    ]
}

fn direction_answer(t: &Trace) -> Option<(usize, String)> {
    let s = step_of(t)?;
    let (k0, k1) = (token(t, 0, 0), token(t, 0, 1));
    let reason = match direction(&s) {
        1 => format!("Taking more of \"{k0}\" moves the output toward its value, and that lowers the loss more than taking more of \"{k1}\" would, so the step raises the weight on \"{k0}\""),
        0 => format!("Taking more of \"{k1}\" lowers the loss more than taking more of \"{k0}\" would, so the step lowers the weight on \"{k0}\""),
        _ => "The two keys would lower the loss about equally, so the step leaves the weight where it is".into(),
    };
    let why = format!(
        "{reason}. The next steps work it out, one link of the chain rule at a time, and the last one shows the new \
         weight and the new loss."
    );
    Some((direction(&s), why))
}

/// The table beside step 1: the output, its meanings and the loss.
fn loss_aside(t: &Trace) -> Option<Aside> {
    let s = step_of(t)?;
    let names: Vec<String> = (0..s.before.output.len()).map(|i| meaning(t, i)).collect();
    let mut head = vec![format!("\"{}\"", token(t, 0, QUERY))];
    head.extend(names);
    Some(Aside {
        caption: format!(
            "The output as meaning scores; the loss is −log of the {} share, {}. W_Q, W_K, W_V start as the identity.",
            meaning(t, TARGET),
            num(s.before.loss)
        ),
        head,
        rows: vec![
            ("output o".into(), s.before.output.iter().map(|v| num(*v)).collect()),
            ("softmax(o)".into(), s.before.meaning.iter().map(|v| num(*v)).collect()),
        ],
    })
}

/// Step 2's table: one row per key, its value and dL/dweight.
fn keys_aside(t: &Trace) -> Option<Aside> {
    key_table(t, false)
}

/// Step 3's table: step 2's, with the weight and dL/dscore.
fn softmax_aside(t: &Trace) -> Option<Aside> {
    key_table(t, true)
}

/// One row per key: its value and dL/dweight, and with `scores` its weight and dL/dscore.
fn key_table(t: &Trace, scores: bool) -> Option<Aside> {
    let s = step_of(t)?;
    let d = s.before.output.len();
    let rows = (0..s.before.weights.len())
        .map(|j| {
            (
                format!("\"{}\"", token(t, 0, j)),
                [vector(&s.before.v[j * d..(j + 1) * d]), num(s.d_weights[j])]
                    .into_iter()
                    .chain(
                        scores.then(|| [num(s.before.weights[j]), num(s.d_scores[j])]).into_iter().flatten(),
                    )
                    .collect(),
            )
        })
        .collect();
    Some(Aside {
        caption: format!(
            "Key by key, for query \"{}\", with dL/do = {}. Σ p·dL/dp = {}.",
            token(t, 0, QUERY),
            vector(&s.d_output),
            num(s.d_weights_mean)
        ),
        head: ["key", "value v", "dL/dp", "weight p", "dL/ds"][..if scores { 5 } else { 3 }]
            .iter()
            .map(|h| h.to_string())
            .collect(),
        rows,
    })
}

/// dL/dq, and dL/dW_Q and the updated W_Q by row.
fn w_q_aside(t: &Trace) -> Option<Aside> {
    let s = step_of(t)?;
    let d = s.d_query.len();
    let mut rows = vec![
        (format!("x of \"{}\"", token(t, 0, QUERY)), x_row(t).iter().map(|v| num(*v)).collect()),
        ("dL/dq".into(), s.d_query.iter().map(|v| num(*v)).collect()),
    ];
    for i in 0..d {
        rows.push((
            format!("dL/dW_Q row {i}"),
            s.d_w_q[i * d..(i + 1) * d].iter().map(|v| num(*v)).collect(),
        ));
    }
    for i in 0..d {
        rows.push((
            format!("new W_Q row {i}"),
            s.w_q_after[i * d..(i + 1) * d].iter().map(|v| num(*v)).collect(),
        ));
    }
    let mut head = vec!["column →".into()];
    head.extend((0..d).map(|j| j.to_string()));
    Some(Aside {
        caption: format!("The gradient and the step, W_Q − {LR}·dL/dW_Q (rows and columns from 0)."),
        head,
        rows,
    })
}

/// Before and after the step, for query "bat": one row per number.
fn after_aside(t: &Trace) -> Option<Aside> {
    let s = step_of(t)?;
    let (b, a) = (&s.before, &s.after);
    let mut rows = Vec::new();
    for i in 0..b.q.len() {
        rows.push((format!("q[{i}]"), vec![num(b.q[i]), num(a.q[i])]));
    }
    for j in 0..b.scores.len() {
        let key = token(t, 0, j);
        rows.push((format!("score of \"{key}\""), vec![num(b.scores[j]), num(a.scores[j])]));
        rows.push((format!("weight of \"{key}\""), vec![num(b.weights[j]), num(a.weights[j])]));
    }
    rows.push(("loss".into(), vec![num(b.loss), num(a.loss)]));
    Some(Aside {
        caption: format!("Query \"{}\" before and after one step on W_Q.", token(t, 0, QUERY)),
        head: vec!["".into(), "before".into(), "after".into()],
        rows,
    })
}

fn loss_words(t: &Trace) -> String {
    let Some(s) = step_of(t) else { return NO_STEP.into() };
    format!(
        "Training needs a goal: say this \"{q}\" is the {target} kind. Read its output {o} as logits, one per meaning, \
         and softmax them: {m}. The loss is −log {share} = {loss}, 0 only when the model is sure. Only W_Q learns \
         here.",
        q = token(t, 0, QUERY),
        target = meaning(t, TARGET),
        o = vector(&s.before.output),
        m = vector(&s.before.meaning),
        share = num(s.before.meaning[TARGET]),
        loss = num(s.before.loss),
    )
}

/// A number of the by-hand step, for a claim.
fn value(name: &'static str, v: f64) -> Quantity {
    Quantity::Computed(name, v)
}

/// A gradient's sign as printed: -1, 0 (it prints 0.00) or 1.
fn sign(g: f64) -> i8 {
    if num(g) == num(0.0) {
        0
    } else if g < 0.0 {
        -1
    } else {
        1
    }
}

/// How a gradient's sign reads ("lowers the loss" for a negative one), and the claim.
fn more_helps(name: &'static str, g: f64) -> (&'static str, Claim) {
    match sign(g) {
        0 => ("leaves the loss as it is", Claim::Rounds(value(name, g), "0.00")),
        -1 => ("lowers the loss", Claim::Negative(value(name, g))),
        _ => ("raises the loss", Claim::Positive(value(name, g))),
    }
}

/// Step 2's words and claims: the sign of each dL/dp, and whether the two agree.
fn back(t: &Trace) -> (String, Vec<Claim>) {
    let Some(s) = step_of(t) else { return (NO_STEP.into(), Vec::new()) };
    let (h0, c0) = more_helps("dL/dp of key 0", s.d_weights[0]);
    let (h1, c1) = more_helps("dL/dp of key 1", s.d_weights[1]);
    let (g0, g1) = (sign(s.d_weights[0]), sign(s.d_weights[1]));
    let text = format!(
        "Backward, one link at a time. dL/do = softmax(o) − onehot({target}) = {d_o}. Then each weight: taking more \
         of key j adds its value v_j to the output, so dL/dp_j = dL/do · v_j. For \"{k0}\" that is {n0}: more of it \
         {h0}. For \"{k1}\" it is {n1}: more of it {h1}. {share}",
        share = if g0 == g1 && g0 != 0 {
            "Both point the same way, yet the two weights share one total of 1: more of one is less of the other. \
             What decides is which key helps more, as the next step shows."
        } else {
            "The weights share one total of 1, so the next step weighs the two against each other."
        },
        target = meaning(t, TARGET),
        d_o = vector(&s.d_output),
        k0 = token(t, 0, 0),
        n0 = num(s.d_weights[0]),
        k1 = token(t, 0, 1),
        n1 = num(s.d_weights[1]),
    );
    (text, vec![c0, c1])
}

fn back_words(t: &Trace) -> String {
    back(t).0
}

/// Step 3's words and claims: the key whose dL/ds is negative is the score the loss wants
/// higher, the other lower (the two add up to 0 with two keys), or neither at two decimals.
/// The scores are not parameters: the words say only W_Q moves, and how far each score
/// follows is step 5's to show.
fn softmax(t: &Trace) -> (String, Vec<Claim>) {
    let Some(s) = step_of(t) else { return (NO_STEP.into(), Vec::new()) };
    let up = if s.d_scores[0] < s.d_scores[1] { (0, 1) } else { (1, 0) };
    let ds = |j: usize| value(if j == 0 { "dL/ds of key 0" } else { "dL/ds of key 1" }, s.d_scores[j]);
    let (moves, claims) = if sign(s.d_scores[up.0]) == 0 && sign(s.d_scores[up.1]) == 0 {
        (
            "neither score needs to move, at two decimals".to_string(),
            vec![Claim::Rounds(ds(0), "0.00"), Claim::Rounds(ds(1), "0.00")],
        )
    } else {
        (
            format!(
                "the loss wants \"{}\"'s score up and \"{}\"'s down",
                token(t, 0, up.0),
                token(t, 0, up.1)
            ),
            vec![Claim::Negative(ds(up.0)), Claim::Positive(ds(up.1))],
        )
    };
    let text = format!(
        "The weights must sum to 1, so a score cannot raise one weight without lowering the others. The softmax's \
         Jacobian says how: dL/ds_j = p_j·(dL/dp_j − Σ p·dL/dp), with Σ p·dL/dp = {mean}. That gives {ds}. What \
         counts is how each key compares with the average: the loss falls fastest if each score moves against its \
         gradient, so {moves}. But a score is not a weight of the model: a step changes only W_Q, and each score \
         then moves only as far as the new query lets it (step 5 shows how far).",
        mean = num(s.d_weights_mean),
        ds = vector(&s.d_scores),
    );
    (text, claims)
}

fn softmax_words(t: &Trace) -> String {
    softmax(t).0
}

fn w_q_words(t: &Trace) -> String {
    let Some(s) = step_of(t) else { return NO_STEP.into() };
    format!(
        "Each score is q·k_j / √d_k, so dL/dq = Σ_j dL/ds_j·k_j / √{d} = {dq}. And q = x_{q}·W_Q, so dL/dW_Q is the \
         outer product x_{q}ᵀ·dL/dq: row i is x_{q}[i] times dL/dq (only \"{q}\" has a loss, and its x is {x}). \
         The step is W_Q − lr·dL/dW_Q with lr = {LR}: large for a real model, but it makes one step visible.",
        d = s.d_query.len(),
        dq = vector(&s.d_query),
        q = token(t, 0, QUERY),
        x = vector(&x_row(t)),
    )
}

/// The trace step the projections read: `x` after positions when there are any.
fn x_step(t: &Trace) -> S {
    if t.step(S::XPe).is_some() {
        S::XPe
    } else {
        S::X
    }
}

/// The query token's input vector, as the step read it.
fn x_row(t: &Trace) -> Vec<f64> {
    t.step(x_step(t)).and_then(|s| s.matrix(0, 0)).map(|m| m.row(QUERY).to_vec()).unwrap_or_default()
}

/// Step 5's words and claims: the weight "bat" gives "baseball" and the loss, each
/// before and after the step, with the words and the claim of the case the numbers are in.
fn after(t: &Trace) -> (String, Vec<Claim>) {
    let Some(s) = step_of(t) else { return (NO_STEP.into(), Vec::new()) };
    let (w0, w1) = (value("weight before", s.before.weights[0]), value("weight after", s.after.weights[0]));
    let (moved, weight) = match direction(&s) {
        1 => ("up", Claim::Greater(w1, w0)),
        0 => ("down", Claim::Greater(w0, w1)),
        _ => ("nowhere at two decimals", Claim::Equal(w0, w1)),
    };
    let (l0, l1) = (value("loss before", s.before.loss), value("loss after", s.after.loss));
    let (loss, fell) = if num(s.after.loss) == num(s.before.loss) {
        (format!("the loss stays at {}", num(s.after.loss)), Claim::Equal(l0, l1))
    } else if s.after.loss < s.before.loss {
        (
            format!("the loss fell from {} to {}", num(s.before.loss), num(s.after.loss)),
            Claim::Greater(l0, l1),
        )
    } else {
        (
            format!(
                "the loss rose from {} to {}: the step was too long",
                num(s.before.loss),
                num(s.after.loss)
            ),
            Claim::Greater(l1, l0),
        )
    };
    let text = format!(
        "Run the forward pass again with the new W_Q. \"{q}\"'s query is now {q_new}, its scores {s_new}, and the \
         weight it gives \"{k}\" went {moved}, from {w0} to {w1}; {loss}. That is one step, with lr = {LR}: every \
         weight moves against its gradient, by the learning rate times it. (The map shows the weights before the \
         step; the numbers here are after it.)",
        q = token(t, 0, QUERY),
        q_new = vector(&s.after.q),
        s_new = vector(&s.after.scores),
        k = token(t, 0, 0),
        w0 = num(s.before.weights[0]),
        w1 = num(s.after.weights[0]),
    );
    (text, vec![weight, fell])
}

fn after_words(t: &Trace) -> String {
    after(t).0
}

/// The lesson.
pub fn lesson() -> Lesson {
    let mut pair = base(&["baseball bat"], 3, 1);
    pair.embeddings = super::baseball_bat::bat_embeddings();
    Lesson {
        id: "learn",
        title: "How a head learns",
        seeds: "the baseball-bat tutorial",
        steps: vec![
            LessonStep::new("A goal and a loss", pair.clone(), S::Weights, loss_words)
                .extra(Extra::EmbeddingPlot)
                .aside(loss_aside)
                .quiz(Quiz {
                    question: |t| {
                        format!(
                            "After one gradient step on W_Q, which way will \"{}\"'s weight on \"{}\" move?",
                            token(t, 0, QUERY),
                            token(t, 0, 0)
                        )
                    },
                    kind: QuizKind::Choice { choices: direction_choices, answer: direction_answer },
                    reveal: None,
                    reveal_extra: None,
                }),
            LessonStep::new("Backward: dL/do, then dL/dweights", pair.clone(), S::Weights, back_words)
                .aside(keys_aside)
                .claims_each_case(|t| back(t).1),
            LessonStep::new("Through the softmax", pair.clone(), S::Weights, softmax_words)
                .aside(softmax_aside)
                .claims_each_case(|t| softmax(t).1),
            LessonStep::new("Back to W_Q", pair.clone(), S::Q, w_q_words).aside(w_q_aside),
            LessonStep::new("The update", pair.clone(), S::Weights, after_words)
                .aside(after_aside)
                .claims_each_case(|t| after(t).1),
            LessonStep::new("The step, repeated", pair, S::Weights, |_| {
                "Training is that step, repeated: every weight of every head at once, averaged over a batch of \
                 sequences. Optimizers such as Adam scale each weight's step by the size of its recent gradients, \
                 so that all of them move at a similar pace. To watch it, open the Learn tab at the top of the \
                 page: a one-layer model learns the previous-token task (at every position, predict the token just \
                 before it). Press Play and a head's map turns from almost uniform into a stripe just below the \
                 diagonal while the loss falls."
                    .into()
            }),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn the_pair_step_moves_bat_toward_baseball() {
        let t = lesson().trace(0);
        let s = step_of(&t).unwrap();
        assert_eq!(vector(&s.before.weights), "[0.50, 0.50]");
        assert_eq!(vector(&s.d_scores), "[-0.15, 0.15]");
        assert_eq!(direction(&s), 1);
        assert_eq!(num(s.after.weights[0]), "0.55");
        assert!(after_words(&t).contains("went up, from 0.50 to 0.55; the loss fell from 0.46 to"));
        assert!(softmax_words(&t).contains("the loss wants \"baseball\"'s score up and \"bat\"'s down"));
    }

    /// Edited so that "baseball" carries no sports: more of it no longer helps, and the
    /// words and the answer follow the numbers.
    #[test]
    fn the_words_follow_an_edit_that_turns_the_story() {
        let mut scenario = lesson().steps[0].scenario.clone();
        scenario.embeddings.insert("baseball".into(), vec![0.0, 2.0, 0.0]);
        let t = run(&scenario).unwrap();
        let s = step_of(&t).unwrap();
        assert!(s.d_scores[0] > 0.0);
        assert_eq!(direction_answer(&t).unwrap().0, direction(&s));
        assert_eq!(direction(&s), 0);
        assert!(softmax_words(&t).contains("the loss wants \"bat\"'s score up and \"baseball\"'s down"));
        assert!(after_words(&t).contains("went down"));
    }
}
