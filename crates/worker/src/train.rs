//! Training in the worker: the page starts a run with a configuration
//! (`attention_engine::train::TrainConfig` as JSON), then asks for a number of steps at a
//! time; each answer carries those steps' losses and accuracies and the attention maps on
//! the probe, so the page draws the curve and the maps a few times a second while the
//! worker trains. The numbers are the engine's; the page does no arithmetic.

use attention_engine::mask;
use attention_engine::train::analysis::{explain_gradient, GradientCell};
use attention_engine::train::{
    circuit, evaluate, induction_score, nan_if_null, previous_token_score, probe, Batch, CircuitReport,
    HeadId, Intervention, Model, Saved, StepStats, TrainConfig, TrainError, Trainer,
};
use serde::{Deserialize, Deserializer, Serialize};

/// Sequences in the probe batch the maps, loss and accuracy are measured on.
pub const PROBE_SEQUENCES: usize = 8;

/// The session saves the run's state (its parameters and the optimizer's) after every
/// this many steps (and at step 0), or after a multiple of it that keeps a whole run's
/// saved states within [`SAVED_BYTES`] ([`save_every`]). The page steps back to any step:
/// [`Session::checkpoint`] trains on from the saved state before it.
pub const CHECKPOINT_EVERY: usize = 25;

/// The most memory a run's saved states may take, bytes: the induction preset's 600 steps
/// take 2 MB at [`CHECKPOINT_EVERY`]; the largest model the Learn view allows over its
/// 5000 steps would take 209 MB, and saves every 100 steps instead.
pub const SAVED_BYTES: usize = 64 << 20;

/// Steps between saved states for a run of `steps` steps whose state takes `bytes`: the
/// smallest multiple of [`CHECKPOINT_EVERY`] whose states, step 0's included, fit
/// [`SAVED_BYTES`].
pub fn save_every(steps: usize, bytes: usize) -> usize {
    let fit = (SAVED_BYTES / bytes.max(1)).max(2) - 1;
    steps.div_ceil(fit).div_ceil(CHECKPOINT_EVERY).max(1) * CHECKPOINT_EVERY
}

/// A run whose latest loss is more than this many times its first step's has diverged.
pub const DIVERGED_FACTOR: f64 = 10.0;

/// Whether a run has diverged: its latest step's loss is not a finite number, or is more
/// than [`DIVERGED_FACTOR`] times its first step's (a loss that starts near ln(vocab) and
/// climbs tenfold is being pushed away from the minimum by steps that are too large).
/// `None` before any step.
pub fn diverged(history: &[StepStats]) -> Option<bool> {
    let (first, last) = (history.first()?, history.last()?);
    Some(!last.loss.is_finite() || last.loss > DIVERGED_FACTOR * first.loss)
}

/// The chain-rule terms of a gradient cell the page lists, largest first.
pub const GRADIENT_TERMS: usize = 5;

/// One weight's gradient on the probe batch at the run's current parameters: the
/// engine's [`explain_gradient`], its terms cut to the [`GRADIENT_TERMS`] largest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradientView {
    /// Steps done when it was computed.
    pub step: usize,
    /// The weight's row.
    pub i: usize,
    /// Its column.
    pub j: usize,
    /// The engine's explanation: dL/dW[i, j] and its largest terms.
    pub cell: GradientCell,
    /// How many non-zero terms the whole sum has.
    pub n_terms: usize,
    /// The sum of the terms listed.
    #[serde(deserialize_with = "nan_if_null")]
    pub listed_sum: f64,
    /// The sum of the terms left out (dL/dW[i, j] minus the listed terms).
    #[serde(deserialize_with = "nan_if_null")]
    pub rest: f64,
}

/// [`GradientView`] as JSON (the worker's side).
pub fn gradient_json(view: &GradientView) -> String {
    serde_json::to_string(view).unwrap_or_else(|_| String::from("{}"))
}

/// Reads what [`gradient_json`] wrote (on the page).
///
/// # Errors
/// JSON that is not a gradient cell.
pub fn gradient_from_json(text: &str) -> Result<GradientView, String> {
    serde_json::from_str(text).map_err(|e| format!("unreadable gradient cell from the worker: {e}"))
}

/// A training run kept by the worker between messages.
#[derive(Debug, Clone)]
pub struct Session {
    trainer: Trainer,
    probe: Batch,
    /// The run's state every [`Session::every`] steps from 0, in step order.
    saved: Vec<Saved>,
    /// Steps between saved states ([`save_every`]).
    every: usize,
}

/// The model as it was after a number of steps, on the probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Steps done (updates made) before it.
    pub step: usize,
    /// The model then, on the probe.
    pub probe: ProbeView,
}

/// What the page receives after some steps (JSON: [`progress_json`], read back with
/// [`progress_from_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Steps taken since the start.
    pub steps_done: usize,
    /// The steps just taken: each one's loss and accuracy before its update.
    pub stats: Vec<StepStats>,
    /// The model now, on the probe.
    pub probe: ProbeView,
}

/// The model on the probe batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeView {
    /// Heads per layer.
    pub n_heads: usize,
    /// The first probe sequence's tokens (`T`).
    pub tokens: Vec<usize>,
    /// Its targets (`T`, −1 = none).
    pub targets: Vec<i64>,
    /// The most likely next token at each of its positions (`T`).
    pub predictions: Vec<usize>,
    /// Per layer, `(h, T, T)` row-major: each head's attention weights on that sequence.
    #[serde(deserialize_with = "vecs_nan_if_null")]
    pub attention: Vec<Vec<f64>>,
    /// `(T, T)` row-major: may query `i` not attend to key `j` (the engine's mask rule).
    pub blocked: Vec<bool>,
    /// The mean loss over the whole probe batch.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss: f64,
    /// The accuracy over the whole probe batch.
    #[serde(deserialize_with = "nan_if_null")]
    pub accuracy: f64,
    /// Each head's scores over the whole probe batch, layer by layer.
    pub heads: Vec<HeadScores>,
    /// The model taken apart on the whole probe batch (`attention_engine::train::circuit`):
    /// each head switched off, each earlier head removed from each later layer's keys,
    /// and the heads the prediction depends on. Sent with every answer: on the probe's few
    /// sequences it costs a forward pass per head and per (head, later layer), a small
    /// part of a slice of training steps.
    pub circuit: CircuitReport,
}

/// What one head does on the probe (`attention_engine::train::analysis`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeadScores {
    /// The head.
    pub head: HeadId,
    /// Its mean weight on the previous token.
    #[serde(deserialize_with = "nan_if_null")]
    pub previous_token: f64,
    /// Its mean weight on the token after the query token's earlier occurrence.
    #[serde(deserialize_with = "nan_if_null")]
    pub induction: f64,
    /// The probe batch's mean loss with this head's output zeroed (its ablation,
    /// `attention_engine::train::ablate`): how much the model needs the head.
    #[serde(deserialize_with = "nan_if_null")]
    pub ablated_loss: f64,
}

/// Lists of numbers that JSON may hold as `null` (NaN, ±∞), read with NaN for `null`.
fn vecs_nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
    let lists = Vec::<Vec<Option<f64>>>::deserialize(d)?;
    Ok(lists.into_iter().map(|l| l.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect()).collect())
}

impl Session {
    /// A run of the configuration, with its seeded initial model.
    ///
    /// # Errors
    /// As [`TrainConfig::from_json`]: unreadable JSON or a bad field, named.
    pub fn start(config_json: &str) -> Result<Self, TrainError> {
        let config = TrainConfig::from_json(config_json)?;
        let trainer = Trainer::new(&config)?;
        let first = trainer.save();
        Ok(Self {
            probe: probe(&config, PROBE_SEQUENCES),
            every: save_every(config.steps, first.bytes()),
            saved: vec![first],
            trainer,
        })
    }

    /// The trainer (the model, its configuration, the last step).
    pub fn trainer(&self) -> &Trainer {
        &self.trainer
    }

    /// The model on the probe now.
    pub fn probe_view(&self) -> ProbeView {
        self.view_of(&self.trainer.model)
    }

    /// Steps between saved states for this run ([`save_every`]).
    pub fn every(&self) -> usize {
        self.every
    }

    /// The model after `step` steps (at most the steps done), on the probe: the saved
    /// state at or before it, trained on to it (at most [`Session::every`] − 1 steps),
    /// the same to the bit as the run was then.
    pub fn checkpoint(&self, step: usize) -> Option<Checkpoint> {
        let step = step.min(self.trainer.steps_done());
        if step == self.trainer.steps_done() {
            return Some(Checkpoint { step, probe: self.probe_view() });
        }
        let saved = self.saved.iter().rev().find(|s| s.steps() <= step)?;
        let mut replay = self.trainer.clone();
        replay.restore(saved);
        replay.train(step - saved.steps());
        Some(Checkpoint { step, probe: self.view_of(&replay.model) })
    }

    /// `model` on the probe.
    fn view_of(&self, model: &Model) -> ProbeView {
        let eval = evaluate(model, &self.probe, &Intervention::default());
        let circuit = circuit(model, &self.probe);
        let (t, h) = (model.dims.t, model.dims.n_heads);
        ProbeView {
            n_heads: h,
            tokens: self.probe.tokens.iter().take(t).copied().collect(),
            targets: self.probe.targets.iter().take(t).copied().collect(),
            predictions: eval.predictions.iter().take(t).copied().collect(),
            attention: eval
                .attention
                .iter()
                .map(|layer| layer.iter().take(h * t * t).copied().collect())
                .collect(),
            blocked: (0..t * t).map(|ij| mask::blocked(&model.dims.mask, t, t, ij / t, ij % t)).collect(),
            loss: eval.loss,
            accuracy: eval.accuracy,
            heads: (0..model.dims.n_layers)
                .flat_map(|layer| (0..h).map(move |head| HeadId { layer, head }))
                .map(|head| HeadScores {
                    head,
                    previous_token: previous_token_score(&eval, model, &self.probe, head),
                    induction: induction_score(&eval, model, &self.probe, head),
                    ablated_loss: circuit
                        .ablations
                        .iter()
                        .find(|a| a.head == head)
                        .map_or(f64::NAN, |a| a.loss),
                })
                .collect(),
            circuit,
        }
    }

    /// The weight cell `name[i, j]`'s gradient on the probe batch at the current parameters.
    ///
    /// # Errors
    /// A name that is not a weight the engine explains, or a row or column out of range.
    pub fn gradient(&self, name: &str, i: usize, j: usize) -> Result<GradientView, String> {
        let model = &self.trainer.model;
        let Some(mut cell) = explain_gradient(model, &self.probe, name, i, j) else {
            let dm = &model.dims;
            return Err(format!(
                "{name}[{i}, {j}]: not a weight cell of this model: the weights explained are layers[l].W_Q, W_K, W_V, W_O (l from 0 to {}, {} × {}) and W_U ({} × {}), rows and columns from 0",
                dm.n_layers.saturating_sub(1),
                dm.d_model,
                dm.d_model,
                dm.d_model,
                dm.vocab
            ));
        };
        let n_terms = cell.terms.len();
        cell.terms.truncate(GRADIENT_TERMS);
        let listed_sum = cell.terms.iter().map(|t| t.product).sum::<f64>();
        let rest = cell.value - listed_sum;
        Ok(GradientView { step: self.trainer.steps_done(), i, j, cell, n_terms, listed_sum, rest })
    }

    /// Takes `steps` steps (none past the configuration's `steps`) and reports them.
    pub fn advance(&mut self, steps: usize) -> Progress {
        let left = self.trainer.config.steps.saturating_sub(self.trainer.steps_done());
        let n = steps.min(left);
        let mut stats = Vec::with_capacity(n);
        for _ in 0..n {
            stats.push(self.trainer.step());
            let done = self.trainer.steps_done();
            if done.is_multiple_of(self.every) {
                self.saved.push(self.trainer.save());
            }
        }
        Progress { steps_done: self.trainer.steps_done(), stats, probe: self.probe_view() }
    }
}

/// [`Session::advance`] as the JSON the worker posts.
pub fn progress_json(progress: &Progress) -> String {
    // Only numbers, vectors and field names: serde_json cannot fail on them, and a NaN
    // loss (which training never produces from finite inputs) would be written as null.
    serde_json::to_string(progress).unwrap_or_else(|_| String::from("{}"))
}

/// A [`Checkpoint`] as the JSON the worker posts.
pub fn checkpoint_json(checkpoint: &Checkpoint) -> String {
    serde_json::to_string(checkpoint).unwrap_or_else(|_| String::from("{}"))
}

/// Reads what [`checkpoint_json`] wrote (on the page).
///
/// # Errors
/// JSON that is not a checkpoint.
pub fn checkpoint_from_json(text: &str) -> Result<Checkpoint, String> {
    serde_json::from_str(text).map_err(|e| format!("unreadable checkpoint from the worker: {e}"))
}

/// Reads what [`progress_json`] wrote (on the page).
///
/// # Errors
/// JSON that is not a progress report.
pub fn progress_from_json(text: &str) -> Result<Progress, String> {
    serde_json::from_str(text).map_err(|e| format!("unreadable progress from the worker: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use attention_engine::train::ablate;

    const CONFIG: &str = r#"{"task": "previous-token", "vocab": 8, "T": 6, "batch": 8, "seed": 3, "steps": 50,
        "d_model": 8, "n_heads": 2, "positions": "learned", "causal": true,
        "optimizer": {"kind": "adam", "lr": 0.02}}"#;

    #[test]
    fn steps_arrive_in_slices_that_add_up_to_one_run() {
        let mut session = Session::start(CONFIG).unwrap();
        let first = session.advance(20);
        assert_eq!((first.steps_done, first.stats.len(), first.stats[0].step), (20, 20, 0));
        let rest = session.advance(100);
        assert_eq!((rest.steps_done, rest.stats.len(), rest.stats[0].step), (50, 30, 20));
        assert!(session.advance(10).stats.is_empty());
        // the same losses as one run of 50 steps
        let mut whole = Trainer::new(&TrainConfig::from_json(CONFIG).unwrap()).unwrap();
        let losses: Vec<f64> = whole.train(50).iter().map(|s| s.loss).collect();
        let sliced: Vec<f64> = first.stats.iter().chain(&rest.stats).map(|s| s.loss).collect();
        assert_eq!(losses, sliced);
        // the maps: one layer of 2 heads of 6 × 6 rows that sum to 1
        let probe = rest.probe;
        assert_eq!((probe.tokens.len(), probe.attention.len(), probe.attention[0].len()), (6, 1, 72));
        assert!(probe.attention[0].chunks(6).all(|row| (row.iter().sum::<f64>() - 1.0).abs() < 1e-12));
        // 50 steps of previous-token: the heads' scores are there, and one of them looks back
        assert_eq!(probe.heads.len(), 2);
        assert!(probe.heads.iter().any(|s| s.previous_token > 0.4), "{:?}", probe.heads);
        assert!(progress_json(&session.advance(0))
            .starts_with(r#"{"steps_done":50,"stats":[],"probe":{"n_heads":2,"tokens":["#));
        // ablating a head is the engine's `ablate` on the probe, and the head that looks back
        // is the one the trained model needs
        let back = probe.heads.iter().max_by(|a, b| a.previous_token.total_cmp(&b.previous_token)).unwrap();
        assert_eq!(back.ablated_loss, ablate(&session.trainer().model, &session.probe, back.head).loss);
        assert!(back.ablated_loss > probe.loss + 0.5, "{} → {}", probe.loss, back.ablated_loss);
        // causal: key j > i is blocked, the rest is not
        assert!(probe.blocked.iter().enumerate().all(|(ij, &b)| b == (ij % 6 > ij / 6)));
    }

    /// The page reads back what the worker writes, number for number; a diverged run's
    /// NaN (written as null) comes back as NaN, not as an error.
    #[test]
    fn progress_survives_the_trip_through_json() {
        let mut session = Session::start(CONFIG).unwrap();
        let progress = session.advance(5);
        assert_eq!(progress_from_json(&progress_json(&progress)).unwrap(), progress);
        let mut diverged = progress.clone();
        diverged.stats[0].loss = f64::INFINITY;
        diverged.probe.loss = f64::NAN;
        diverged.probe.attention[0][0] = f64::NAN;
        let back = progress_from_json(&progress_json(&diverged)).unwrap();
        assert!(
            back.stats[0].loss.is_nan() && back.probe.loss.is_nan() && back.probe.attention[0][0].is_nan()
        );
        assert_eq!(back.probe.attention[0][1..], progress.probe.attention[0][1..]);
        assert!(progress_from_json("{").unwrap_err().starts_with("unreadable progress"));
    }

    /// A checkpoint is the model as it was after its step, for every step: the same view
    /// as a run stopped there, trained on from the saved state before it.
    #[test]
    fn checkpoints_step_back_through_the_run_to_every_step() {
        let mut session = Session::start(CONFIG).unwrap();
        let at_start = session.probe_view();
        session.advance(50);
        assert_eq!(session.every(), CHECKPOINT_EVERY);
        assert_eq!(session.saved.iter().map(Saved::steps).collect::<Vec<_>>(), [0, 25, 50]);
        let mut stopped = Session::start(CONFIG).unwrap();
        for step in [1, 24, 25, 26, 37] {
            stopped.advance(step - stopped.trainer().steps_done());
            let back = session.checkpoint(step).unwrap();
            assert_eq!((back.step, &back.probe), (step, &stopped.probe_view()), "step {step}");
        }
        assert_eq!(session.checkpoint(0).unwrap().probe, at_start);
        assert_eq!(
            session.checkpoint(usize::MAX).unwrap(),
            Checkpoint { step: 50, probe: session.probe_view() }
        );
        // the run goes on as it would have: replaying did not touch it
        let mut whole = Trainer::new(&TrainConfig::from_json(CONFIG).unwrap()).unwrap();
        whole.train(50);
        assert_eq!(session.trainer().model.params, whole.model.params);
        let back = session.checkpoint(30).unwrap();
        assert_eq!(checkpoint_from_json(&checkpoint_json(&back)).unwrap(), back);
    }

    /// Saved states are spaced so that a whole run's fit the memory allowed: the
    /// induction preset every 25 steps; the largest model over 5000 steps less often.
    #[test]
    fn saved_states_fit_their_memory() {
        assert_eq!(save_every(600, 84_000), CHECKPOINT_EVERY);
        assert_eq!(save_every(50, 1), CHECKPOINT_EVERY);
        for (steps, bytes) in [(5000, 1_044_000), (5000, 84_000), (600, 20 << 20), (1, usize::MAX)] {
            let every = save_every(steps, bytes);
            assert!(every.is_multiple_of(CHECKPOINT_EVERY));
            assert!(
                bytes == usize::MAX || (steps / every + 1) * bytes <= SAVED_BYTES,
                "{steps} {bytes}: {every}"
            );
        }
        assert_eq!(save_every(5000, 1_044_000), 100);
    }

    /// Every answer carries the engine's circuit on the probe batch: on two layers, each
    /// head switched off (with its predictions) and layer 1's head taken out of layer 2's
    /// keys; the heads' ablated losses are the circuit's.
    #[test]
    fn the_circuit_comes_with_the_probe() {
        let two = r#"{"task": "induction", "vocab": 12, "T": 10, "batch": 8, "seed": 5, "steps": 40,
            "d_model": 8, "n_heads": 1, "n_layers": 2, "positions": "learned", "causal": true,
            "optimizer": {"kind": "adam", "lr": 0.02}}"#;
        let mut session = Session::start(two).unwrap();
        let probe = session.advance(40).probe;
        let c = &probe.circuit;
        assert_eq!(*c, circuit(&session.trainer().model, &session.probe));
        assert_eq!((c.loss, c.ablations.len(), c.k_composition.len()), (probe.loss, 2, 1));
        assert_eq!((c.k_composition[0].source, c.k_composition[0].layer), (HeadId { layer: 0, head: 0 }, 1));
        assert_eq!(c.ablations[1].predictions.len(), PROBE_SEQUENCES * 10);
        for (scores, effect) in probe.heads.iter().zip(&c.ablations) {
            assert_eq!((scores.head, scores.ablated_loss), (effect.head, effect.loss));
        }
        assert_eq!(progress_from_json(&progress_json(&session.advance(0))).unwrap().probe, probe);
        // one layer: nothing to compose
        assert!(Session::start(CONFIG).unwrap().probe_view().circuit.k_composition.is_empty());
    }

    #[test]
    fn a_bad_configuration_is_named() {
        let err = Session::start(&CONFIG.replace(r#""n_heads": 2"#, r#""n_heads": 3"#)).unwrap_err();
        assert!(err.to_string().starts_with("n_heads:"), "{err}");
    }

    #[test]
    fn a_loss_far_above_its_start_or_not_finite_is_diverged() {
        let at = |step, loss| StepStats { step, loss, accuracy: 0.1 };
        assert_eq!(diverged(&[]), None);
        assert_eq!(diverged(&[at(0, 2.8), at(1, 2.0)]), Some(false));
        assert_eq!(diverged(&[at(0, 2.8), at(1, 28.0)]), Some(false));
        assert_eq!(diverged(&[at(0, 2.8), at(1, 28.1)]), Some(true));
        assert_eq!(diverged(&[at(0, 2.8), at(1, f64::NAN)]), Some(true));
        assert_eq!(diverged(&[at(0, 2.8), at(1, f64::INFINITY)]), Some(true));
        // Adam at learning rate 10 on previous-token: the loss climbs tenfold within a few steps
        let long = CONFIG.replace(r#""steps": 50"#, r#""steps": 300"#);
        let mut wild = Session::start(&long.replace(r#""lr": 0.02"#, r#""lr": 10.0"#)).unwrap();
        let stats = wild.advance(300).stats;
        assert_eq!(diverged(&stats), Some(true), "{:?}", stats.last());
        let mut calm = Session::start(&long).unwrap();
        assert_eq!(diverged(&calm.advance(300).stats), Some(false));
    }

    /// The gradient cell is the engine's on the probe at the current parameters; its
    /// listed terms and the rest add up to it; a bad name or cell is named.
    #[test]
    fn a_gradient_cell_is_explained_on_the_probe_now() {
        let mut session = Session::start(CONFIG).unwrap();
        session.advance(10);
        let view = session.gradient("layers[0].W_Q", 1, 2).unwrap();
        let full = explain_gradient(&session.trainer.model, &session.probe, "layers[0].W_Q", 1, 2).unwrap();
        assert_eq!((view.step, view.i, view.j, view.n_terms), (10, 1, 2, full.terms.len()));
        assert_eq!(view.cell.value, full.value);
        assert_eq!(view.cell.terms[..], full.terms[..GRADIENT_TERMS]);
        assert!((view.listed_sum + view.rest - full.value).abs() < 1e-15);
        assert!(view.cell.terms.windows(2).all(|w| w[0].product.abs() >= w[1].product.abs()));
        // the value is the probe batch's gradient: a finite difference of its loss agrees
        let spec = session.trainer.model.layout.specs.iter().find(|s| s.name == "layers[0].W_Q").unwrap();
        let at = spec.offset + 8 + 2;
        let loss_with = |delta: f64| {
            let mut m = session.trainer.model.clone();
            m.params[at] += delta;
            evaluate(&m, &session.probe, &Intervention::default()).loss
        };
        let h = 1e-6;
        let numeric = (loss_with(h) - loss_with(-h)) / (2.0 * h);
        assert!((numeric - full.value).abs() < 1e-7, "{numeric} vs {}", full.value);
        // W_U's columns are the vocabulary
        assert_eq!(session.gradient("W_U", 7, 7).unwrap().cell.upstream, "dlogits");
        assert!(session.gradient("W_U", 8, 0).unwrap_err().starts_with("W_U[8, 0]: not a weight cell"));
        assert!(session.gradient("layers[1].W_Q", 0, 0).is_err());
        assert!(session.gradient("E", 0, 0).is_err());
        assert_eq!(gradient_from_json(&gradient_json(&view)).unwrap(), view);
        assert!(gradient_from_json("[").unwrap_err().starts_with("unreadable gradient cell"));
    }
}
