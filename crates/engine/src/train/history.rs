//! A training run recorded for telling: every step's loss, each head's scores on the
//! probe at regular checkpoints, the step at which each head formed, and the trained
//! model taken apart on the probe (its attention, its predictions, each head ablated).
//!
//! The lesson "Induction heads" shows such a run from a file written at build time; a
//! test holds the file equal to a fresh [`history`] of the same configuration.
//!
//! **When a head forms.** A head's score at a checkpoint is the one
//! [`super::analysis::previous_token_score`] or [`super::analysis::induction_score`]
//! measures on the probe batch (the mean weight it puts where that kind of head would). A
//! head has formed at the first checkpoint from which its score stays at or above a
//! threshold at every later checkpoint of the run ([`formation_step`]): a score that
//! crosses the line and falls back under it has not formed yet. [`halfway_formation`]
//! puts the line halfway between the head's score at the start and at the end of the run,
//! so one rule serves a head whose score ends near 0.5 and one whose ends near 0.75.

use serde::{Deserialize, Serialize};

use super::analysis::{ablate, evaluate, induction_score, previous_token_score};
use super::config::{TrainConfig, TrainError};
use super::forward::{HeadId, Intervention};
use super::run::Trainer;
use super::tasks::probe;

/// The scores of one head at one checkpoint, on the probe batch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeadScores {
    /// Mean weight on key `i − 1` ([`previous_token_score`]).
    pub previous_token: f64,
    /// Mean weight on the key after the earlier occurrence ([`induction_score`]).
    pub induction: f64,
}

/// The model on the probe batch before the update of step `step`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Steps taken before it (0 = the initial model).
    pub step: usize,
    /// The probe batch's loss.
    pub probe_loss: f64,
    /// Every head's scores, layer by layer, head by head.
    pub heads: Vec<HeadScores>,
}

/// The trained model with one head switched off, on the probe batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ablated {
    /// The head switched off.
    pub head: HeadId,
    /// The probe loss without it.
    pub loss: f64,
    /// The probe accuracy without it.
    pub accuracy: f64,
    /// `(T)`: the most likely next token at every position of probe sequence 0 without it.
    pub predictions: Vec<usize>,
}

/// A recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The configuration trained.
    pub config: TrainConfig,
    /// Probe sequences the checkpoints and the trained model are measured on.
    pub probe_sequences: usize,
    /// Every step's training loss (its own batch, before its update).
    pub losses: Vec<f64>,
    /// Every step's training accuracy (the same batch).
    pub accuracies: Vec<f64>,
    /// Every `every` steps from 0, and after the last step.
    pub checkpoints: Vec<Checkpoint>,
    /// `(T)`: probe sequence 0's tokens.
    pub tokens: Vec<usize>,
    /// `(T)`: probe sequence 0's targets (−1 = not scored).
    pub targets: Vec<i64>,
    /// Per layer, `(h, T, T)`: the trained model's attention on probe sequence 0.
    pub attention: Vec<Vec<f64>>,
    /// The trained model's probe loss.
    pub loss: f64,
    /// The trained model's probe accuracy.
    pub accuracy: f64,
    /// `(T)`: its most likely next token at every position of probe sequence 0.
    pub predictions: Vec<usize>,
    /// Every head switched off in turn, layer by layer.
    pub ablations: Vec<Ablated>,
}

/// Trains `config` for its steps, measuring every head on `probe_sequences` probe
/// sequences every `every` steps (and after the last).
///
/// # Errors
/// As [`TrainConfig::validate`]; `every` or `probe_sequences` of 0.
pub fn history(config: &TrainConfig, every: usize, probe_sequences: usize) -> Result<History, TrainError> {
    if every == 0 || probe_sequences == 0 {
        return Err(TrainError::Invalid {
            field: "history",
            message: "checkpoints need every ≥ 1 and at least one probe sequence".into(),
        });
    }
    let mut trainer = Trainer::new(config)?;
    let batch = probe(config, probe_sequences);
    let (n_layers, h, t) = (config.n_layers, config.n_heads, config.t);
    let heads: Vec<HeadId> =
        (0..n_layers).flat_map(|layer| (0..h).map(move |head| HeadId { layer, head })).collect();
    let measure = |trainer: &Trainer| {
        let e = evaluate(&trainer.model, &batch, &Intervention::default());
        let heads = heads
            .iter()
            .map(|&head| HeadScores {
                previous_token: previous_token_score(&e, &trainer.model, &batch, head),
                induction: induction_score(&e, &trainer.model, &batch, head),
            })
            .collect();
        Checkpoint { step: trainer.steps_done(), probe_loss: e.loss, heads }
    };
    let (mut losses, mut accuracies) = (Vec::with_capacity(config.steps), Vec::with_capacity(config.steps));
    let mut checkpoints = Vec::new();
    for i in 0..config.steps {
        if i % every == 0 {
            checkpoints.push(measure(&trainer));
        }
        let s = trainer.step();
        losses.push(s.loss);
        accuracies.push(s.accuracy);
    }
    checkpoints.push(measure(&trainer));
    let model = &trainer.model;
    let e = evaluate(model, &batch, &Intervention::default());
    let first = |v: &[usize]| v.get(..t).unwrap_or(&[]).to_vec();
    let ablations = heads
        .iter()
        .map(|&head| {
            let a = ablate(model, &batch, head);
            Ablated { head, loss: a.loss, accuracy: a.accuracy, predictions: first(&a.predictions) }
        })
        .collect();
    Ok(History {
        config: config.clone(),
        probe_sequences,
        losses,
        accuracies,
        checkpoints,
        tokens: first(&batch.tokens),
        targets: batch.targets.get(..t).unwrap_or(&[]).to_vec(),
        attention: e.attention.iter().map(|a| a.get(..h * t * t).unwrap_or(&[]).to_vec()).collect(),
        loss: e.loss,
        accuracy: e.accuracy,
        predictions: first(&e.predictions),
        ablations,
    })
}

/// The first step of `scores` (`(step, score)` in step order) from which the score stays
/// at or above `threshold` to the end; `None` if the last is below it (or there is none).
pub fn formation_step(scores: &[(usize, f64)], threshold: f64) -> Option<usize> {
    let below = scores.iter().rposition(|&(_, s)| s.is_nan() || s < threshold);
    match below {
        None => scores.first().map(|&(step, _)| step),
        Some(i) => scores.get(i + 1).map(|&(step, _)| step),
    }
}

/// Halfway: the first step from which the score stays at or above halfway between its
/// first and its last value ([`formation_step`] with that line), with the line; `None`
/// for fewer than two scores or a last score not above the first.
pub fn halfway_formation(scores: &[(usize, f64)]) -> Option<(usize, f64)> {
    let (&(_, first), &(_, last)) = (scores.first()?, scores.last()?);
    if scores.len() < 2 || last.is_nan() || last <= first {
        return None;
    }
    let line = 0.5 * (first + last);
    formation_step(scores, line).map(|step| (step, line))
}

impl History {
    /// Head `k`'s (layer by layer, head by head) score at every checkpoint, as `score`
    /// reads it.
    pub fn scores(&self, k: usize, score: fn(&HeadScores) -> f64) -> Vec<(usize, f64)> {
        self.checkpoints.iter().filter_map(|c| c.heads.get(k).map(|s| (c.step, score(s)))).collect()
    }

    /// The same run with every number rounded to `places` decimals: what a file keeps.
    #[must_use]
    pub fn rounded(mut self, places: i32) -> Self {
        let f = 10f64.powi(places);
        let r = |x: &mut f64| *x = (*x * f).round() / f;
        self.losses.iter_mut().chain(&mut self.accuracies).for_each(r);
        for c in &mut self.checkpoints {
            r(&mut c.probe_loss);
            for s in &mut c.heads {
                r(&mut s.previous_token);
                r(&mut s.induction);
            }
        }
        self.attention.iter_mut().flatten().for_each(r);
        r(&mut self.loss);
        r(&mut self.accuracy);
        for a in &mut self.ablations {
            r(&mut a.loss);
            r(&mut a.accuracy);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_forms_where_its_score_stays_above_the_line() {
        let s = [(0, 0.1), (10, 0.6), (20, 0.3), (30, 0.5), (40, 0.7)];
        assert_eq!(formation_step(&s, 0.5), Some(30));
        assert_eq!(formation_step(&s, 0.05), Some(0));
        assert_eq!(formation_step(&s, 0.71), None);
        assert_eq!(formation_step(&[], 0.5), None);
        assert_eq!(formation_step(&[(0, 0.9), (10, f64::NAN)], 0.5), None);
    }

    #[test]
    fn halfway_is_between_the_first_and_the_last_score() {
        let s = [(0, 0.1), (10, 0.6), (20, 0.3), (30, 0.5), (40, 0.7)];
        let (step, line) = halfway_formation(&s).unwrap();
        assert_eq!(step, 30);
        assert!((line - 0.4).abs() < 1e-12);
        assert_eq!(halfway_formation(&[(0, 0.5), (10, 0.4)]), None);
        assert_eq!(halfway_formation(&[(0, 0.5)]), None);
    }

    fn small() -> TrainConfig {
        TrainConfig::from_json(
            r#"{"task": "induction", "vocab": 8, "T": 8, "batch": 4, "seed": 3, "steps": 25,
                "d_model": 8, "n_heads": 2, "n_layers": 2, "positions": "learned", "causal": true,
                "optimizer": {"kind": "adam", "lr": 0.01}}"#,
        )
        .unwrap()
    }

    /// The losses are the trainer's, the checkpoints fall every `every` steps and after
    /// the last, and the last checkpoint is the trained model's evaluation.
    #[test]
    fn a_history_records_the_run_it_trains() {
        let config = small();
        let h = history(&config, 10, 3).unwrap();
        let mut trainer = Trainer::new(&config).unwrap();
        let stats = trainer.train(25);
        assert_eq!(h.losses, stats.iter().map(|s| s.loss).collect::<Vec<_>>());
        assert_eq!(h.accuracies, stats.iter().map(|s| s.accuracy).collect::<Vec<_>>());
        assert_eq!(h.checkpoints.iter().map(|c| c.step).collect::<Vec<_>>(), [0, 10, 20, 25]);
        let last = h.checkpoints.last().unwrap();
        assert_eq!(last.probe_loss, h.loss);
        let batch = probe(&config, 3);
        let e = evaluate(&trainer.model, &batch, &Intervention::default());
        assert_eq!(e.loss, h.loss);
        let head = HeadId { layer: 1, head: 1 };
        assert_eq!(last.heads[3].induction, induction_score(&e, &trainer.model, &batch, head));
        assert_eq!(h.attention.len(), 2);
        assert_eq!(h.attention[1].len(), 2 * 8 * 8);
        assert_eq!(h.ablations.len(), 4);
        assert_eq!(h.ablations[3].loss, ablate(&trainer.model, &batch, head).loss);
        assert_eq!(h.tokens, batch.tokens[..8]);
        assert!(history(&config, 0, 3).is_err());
    }

    #[test]
    fn rounding_keeps_the_places_asked_for() {
        let h = history(&small(), 10, 2).unwrap().rounded(4);
        for x in h.losses.iter().chain(h.attention.iter().flatten()) {
            assert!(((x * 1e4).round() / 1e4 - x).abs() < 1e-15);
        }
    }
}
