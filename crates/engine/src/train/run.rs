//! The training loop, and the report `trace --train` prints.

use serde::{Deserialize, Serialize};

use super::backward::{backward, Scratch};
use super::config::{words, TaskKind, TrainConfig, TrainError};
use super::forward::{forward, Acts, Intervention};
use super::model::{Dims, Model, Named};
use super::optim::Optimizer;
use super::tasks::{self, Batch, BatchJson, TaskData};

/// What one step measured, before its update. JSON writes a loss that is not finite (a
/// diverged run) as `null`; reading `null` gives NaN back.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// The step, from 0.
    pub step: usize,
    /// The mean cross-entropy of its batch.
    #[serde(deserialize_with = "nan_if_null")]
    pub loss: f64,
    /// The fraction of its targets predicted right (most likely token).
    #[serde(deserialize_with = "nan_if_null")]
    pub accuracy: f64,
}

/// Reads a number that JSON may hold as `null` (serde_json writes NaN and ±∞ so) as NaN.
///
/// # Errors
/// Anything but a number or `null`.
pub fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A list of numbers that JSON may hold with `null`s (NaN, ±∞), read with NaN for `null`.
///
/// # Errors
/// Anything but a list of numbers or `null`s.
pub fn nans_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    Ok(Vec::<Option<f64>>::deserialize(d)?.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
}

/// A model, its optimizer and its data, with every buffer a step needs made once: a step
/// draws the next batch, runs forward and backward, and updates the parameters, without
/// allocating.
#[derive(Debug, Clone)]
pub struct Trainer {
    /// The configuration.
    pub config: TrainConfig,
    /// The model being trained.
    pub model: Model,
    /// The optimizer and its state.
    pub optimizer: Optimizer,
    data: TaskData,
    batch: Batch,
    acts: Acts,
    scratch: Scratch,
    grads: Vec<f64>,
    steps: usize,
}

impl Trainer {
    /// A trainer with the seeded initial model.
    ///
    /// # Errors
    /// As [`TrainConfig::validate`].
    pub fn new(config: &TrainConfig) -> Result<Self, TrainError> {
        config.validate()?;
        let model = Model::init(Dims::of(config), config.seed);
        Ok(Self::with_model(config, model))
    }

    /// A trainer starting from `model` (whose sizes must be the configuration's).
    fn with_model(config: &TrainConfig, model: Model) -> Self {
        let b = config.batch;
        Self {
            optimizer: Optimizer::new(config.optimizer, model.params.len()),
            data: TaskData::new(config, 1),
            batch: Batch::new(b, config.t),
            acts: Acts::new(&model, b),
            scratch: Scratch::new(&model, b),
            grads: vec![0.0; model.params.len()],
            steps: 0,
            config: config.clone(),
            model,
        }
    }

    /// One step: the next batch, the loss and its gradient, the update. Returns the loss
    /// and accuracy before the update.
    pub fn step(&mut self) -> StepStats {
        self.data.fill(&mut self.batch);
        let loss = forward(
            &self.model,
            &self.batch.tokens,
            &self.batch.targets,
            &mut self.acts,
            &Intervention::default(),
        );
        let accuracy = self.acts.accuracy(&self.batch.targets, self.model.dims.vocab);
        backward(
            &self.model,
            &self.batch.tokens,
            &self.batch.targets,
            &self.acts,
            &mut self.scratch,
            &mut self.grads,
            None,
        );
        self.optimizer.step(&mut self.model.params, &self.grads);
        let stats = StepStats { step: self.steps, loss, accuracy };
        self.steps += 1;
        stats
    }

    /// What the run needs to go on from here: [`Trainer::restore`] of it, then the same
    /// steps, gives the same numbers to the bit (training is seeded and deterministic).
    pub fn save(&self) -> Saved {
        Saved {
            params: self.model.params.clone(),
            optimizer: self.optimizer.clone(),
            data: self.data.clone(),
            steps: self.steps,
        }
    }

    /// Goes back (or on) to where `saved` was taken, keeping this trainer's buffers. The
    /// saved state must be of this trainer's configuration (a [`Trainer::save`] of it, or
    /// of a clone of it).
    pub fn restore(&mut self, saved: &Saved) {
        self.model.params.clone_from(&saved.params);
        self.optimizer.clone_from(&saved.optimizer);
        self.data.clone_from(&saved.data);
        self.steps = saved.steps;
    }

    /// `n` steps; their stats.
    pub fn train(&mut self, n: usize) -> Vec<StepStats> {
        (0..n).map(|_| self.step()).collect()
    }

    /// Steps taken.
    pub fn steps_done(&self) -> usize {
        self.steps
    }

    /// The last step's batch.
    pub fn batch(&self) -> &Batch {
        &self.batch
    }

    /// The last step's gradient (before its update), in the model's layout.
    pub fn grads(&self) -> &[f64] {
        &self.grads
    }

    /// The last step's activations (before its update).
    pub fn acts(&self) -> &Acts {
        &self.acts
    }

    /// The configuration's probe batch (see [`tasks::probe`]).
    pub fn probe(&self, count: usize) -> Batch {
        tasks::probe(&self.config, count)
    }
}

/// A run's state between two steps without the buffers a step reuses: the parameters,
/// the optimizer's state, the data generator's and the step count ([`Trainer::save`]).
#[derive(Debug, Clone)]
pub struct Saved {
    params: Vec<f64>,
    optimizer: Optimizer,
    data: TaskData,
    steps: usize,
}

impl Saved {
    /// The steps taken when it was saved.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The parameters then.
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// About how many bytes it holds: its parameters and the optimizer's buffers, in f64
    /// (the data generator's state and the `sentences` task's lines are small beside them).
    pub fn bytes(&self) -> usize {
        (self.params.len() + self.optimizer.state_len()) * std::mem::size_of::<f64>()
    }
}

/// One entry of the report's `steps`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepLoss {
    /// The step, from 0.
    pub step: usize,
    /// Its loss, before its update.
    pub loss: f64,
}

/// What `trace --train` prints: the run, number for number, so an independent
/// implementation can redo it from `params_init` and `batches`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The configuration, as read (defaults filled in).
    pub config: TrainConfig,
    /// The `sentences` task's vocabulary (id → word); absent for the other tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words: Option<Vec<String>>,
    /// Every parameter before the first step, by name.
    pub params_init: Named,
    /// Every step's batch.
    pub batches: Vec<BatchJson>,
    /// Every step's loss, before its update.
    pub steps: Vec<StepLoss>,
    /// Every parameter's gradient at step 0.
    pub grads_first: Named,
    /// Every parameter after the last step.
    pub params_final: Named,
}

/// Trains as the configuration says and reports every number.
///
/// # Errors
/// As [`TrainConfig::validate`].
pub fn report(config: &TrainConfig) -> Result<Report, TrainError> {
    let mut trainer = Trainer::new(config)?;
    let params_init = trainer.model.named(&trainer.model.params);
    let (mut batches, mut steps) = (Vec::with_capacity(config.steps), Vec::with_capacity(config.steps));
    let mut grads_first = Named::default();
    for i in 0..config.steps {
        let stats = trainer.step();
        if i == 0 {
            grads_first = trainer.model.named(trainer.grads());
        }
        batches.push(trainer.batch().to_json());
        steps.push(StepLoss { step: stats.step, loss: stats.loss });
    }
    Ok(Report {
        config: config.clone(),
        words: (config.task == TaskKind::Sentences).then(|| words(&config.lines)),
        params_init,
        batches,
        steps,
        grads_first,
        params_final: trainer.model.named(&trainer.model.params),
    })
}

/// Reads a configuration from JSON, trains, and returns the report as JSON text.
///
/// # Errors
/// As [`TrainConfig::from_json`].
pub fn report_json(config_json: &str) -> Result<String, TrainError> {
    let report = report(&TrainConfig::from_json(config_json)?)?;
    serde_json::to_string(&report).map_err(TrainError::from)
}
