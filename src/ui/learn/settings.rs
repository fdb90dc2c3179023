//! What the Learn view trains: the task, the model's sizes, the optimizer, the seed, as
//! the learner sets them; each task's starting preset; the engine's
//! [`TrainConfig`] they make; and the same in the link (`learn=TASK&learn_lr=…`). Plain
//! Rust, tested natively. Whether a configuration is valid is the engine's to say
//! ([`TrainConfig::validate`], run by the worker): the page shows its message.

use crate::challenges::training::{self, TrainingChallenge};
use crate::engine::train::{OptimizerConfig, PositionKind, TaskKind, TrainConfig};
use crate::lessons::induction;

/// The steps a run may take before it stops by itself (the induction task's are the
/// lesson's run's, [`LearnSettings::budget`]).
pub const STEP_BUDGET: usize = 5000;

/// Momentum of the `sgd` choice (plain SGD at these learning rates barely moves).
pub const SGD_MOMENTUM: f64 = 0.9;

/// The tasks the view offers (the engine's `sentences` needs lines, which the view has no
/// editor for).
pub const TASKS: [TaskKind; 3] = [TaskKind::PreviousToken, TaskKind::FirstToken, TaskKind::Induction];

/// The optimizer, as `torch.optim` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptKind {
    /// `torch.optim.SGD` with momentum [`SGD_MOMENTUM`].
    Sgd,
    /// `torch.optim.Adam` with its defaults.
    Adam,
    /// `torch.optim.AdamW` with its defaults (weight decay 0.01).
    AdamW,
}

impl OptKind {
    /// Every choice, in the menu's order.
    pub const ALL: [Self; 3] = [Self::Sgd, Self::Adam, Self::AdamW];

    /// The name in the link and the menu.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sgd => "sgd",
            Self::Adam => "adam",
            Self::AdamW => "adamw",
        }
    }

    /// The optimizer at learning rate `lr`.
    fn config(self, lr: f64) -> OptimizerConfig {
        match self {
            Self::Sgd => OptimizerConfig::Sgd {
                lr,
                momentum: SGD_MOMENTUM,
                dampening: 0.0,
                nesterov: false,
                weight_decay: 0.0,
            },
            Self::Adam => OptimizerConfig::adam(lr),
            Self::AdamW => OptimizerConfig::AdamW { lr, betas: [0.9, 0.999], eps: 1e-8, weight_decay: 1e-2 },
        }
    }
}

/// The positions' names, as the engine's JSON spells them.
pub fn position_name(p: PositionKind) -> &'static str {
    match p {
        PositionKind::None => "none",
        PositionKind::Sinusoidal => "sinusoidal",
        PositionKind::Learned => "learned",
    }
}

/// Every position choice, in the menu's order.
pub const POSITIONS: [PositionKind; 3] =
    [PositionKind::Learned, PositionKind::Sinusoidal, PositionKind::None];

/// The Learn view's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnSettings {
    /// What the model learns to predict.
    pub task: TaskKind,
    /// Token ids `0..vocab`.
    pub vocab: usize,
    /// Tokens per sequence.
    pub t: usize,
    /// Width of the residual stream.
    pub d_model: usize,
    /// Heads per layer.
    pub n_heads: usize,
    /// Attention layers.
    pub n_layers: usize,
    /// How positions enter the residual stream.
    pub positions: PositionKind,
    /// The optimizer.
    pub optimizer: OptKind,
    /// Its learning rate.
    pub lr: f64,
    /// Seeds the initial weights and the data.
    pub seed: u64,
    /// The training challenge being played (`crate::challenges::training`), by id: its
    /// step budget replaces [`STEP_BUDGET`].
    pub challenge: Option<&'static str>,
}

impl Default for LearnSettings {
    fn default() -> Self {
        Self::preset(TaskKind::PreviousToken)
    }
}

impl LearnSettings {
    /// A task's starting point: sizes that learn it in a few seconds in the worker. The
    /// induction preset is the induction lesson's run ([`induction::CONFIG`], the run
    /// BENCHMARKS.md measures, whose loss drops near step 300).
    pub fn preset(task: TaskKind) -> Self {
        let base = Self {
            task,
            vocab: 16,
            t: 8,
            d_model: 16,
            n_heads: 2,
            n_layers: 1,
            positions: PositionKind::Learned,
            optimizer: OptKind::Adam,
            lr: 0.01,
            seed: 1,
            challenge: None,
        };
        match (task, induction::config()) {
            (TaskKind::Induction, Some(c)) => Self::from_config(c, None),
            _ => base,
        }
    }

    /// A training challenge's starting settings: its run, with the challenge named.
    pub fn for_challenge(c: &TrainingChallenge) -> Self {
        Self::from_config(&c.start, Some(c.id))
    }

    /// The settings that make the run `s` (a challenge's, if `challenge` names one).
    fn from_config(s: &TrainConfig, challenge: Option<&'static str>) -> Self {
        let optimizer = match s.optimizer {
            OptimizerConfig::Sgd { .. } => OptKind::Sgd,
            OptimizerConfig::Adam { .. } => OptKind::Adam,
            OptimizerConfig::AdamW { .. } => OptKind::AdamW,
        };
        Self {
            task: s.task,
            vocab: s.vocab.unwrap_or(16),
            t: s.t,
            d_model: s.d_model,
            n_heads: s.n_heads,
            n_layers: s.n_layers,
            positions: s.positions,
            optimizer,
            lr: s.optimizer.lr(),
            seed: s.seed,
            challenge,
        }
    }

    /// The challenge being played.
    pub fn training_challenge(&self) -> Option<TrainingChallenge> {
        self.challenge.and_then(training::by_id)
    }

    /// The steps a run may take: the challenge's budget; the induction preset's, the
    /// lesson's run's steps, so the view trains what the lesson recorded; else (any other
    /// task, or induction with a setting changed) [`STEP_BUDGET`].
    pub fn budget(&self) -> usize {
        self.budget_and_why().0
    }

    /// [`LearnSettings::budget`] and where it comes from, in words for the status line.
    pub fn budget_and_why(&self) -> (usize, &'static str) {
        match (self.training_challenge(), induction::config()) {
            (Some(c), _) => (c.budget(), "the challenge's budget"),
            (None, Some(c)) if self.is_induction_preset() => (c.steps, "the lesson's run"),
            _ => (STEP_BUDGET, "the step budget"),
        }
    }

    /// True for the induction task's preset, setting for setting.
    fn is_induction_preset(&self) -> bool {
        self.task == TaskKind::Induction && *self == Self::preset(TaskKind::Induction)
    }

    /// What the link and [`LearnSettings::from_pairs`] compare against: the challenge's
    /// start, else the task's preset.
    fn base(&self) -> Self {
        self.training_challenge().map_or_else(|| Self::preset(self.task), |c| Self::for_challenge(&c))
    }

    /// Sequences per step: the presets' batches.
    pub fn batch(&self) -> usize {
        if self.task == TaskKind::Induction {
            16
        } else {
            32
        }
    }

    /// The engine's configuration (causal, [`LearnSettings::budget`] steps).
    pub fn config(&self) -> TrainConfig {
        TrainConfig {
            task: self.task,
            vocab: Some(self.vocab),
            t: self.t,
            batch: self.batch(),
            seed: self.seed,
            steps: self.budget(),
            d_model: self.d_model,
            n_heads: self.n_heads,
            n_layers: self.n_layers,
            positions: self.positions,
            causal: true,
            window: None,
            lines: Vec::new(),
            optimizer: self.optimizer.config(self.lr),
        }
    }

    /// [`LearnSettings::config`] as the JSON the worker reads.
    pub fn config_json(&self) -> String {
        serde_json::to_string(&self.config()).unwrap_or_default()
    }

    /// The link's pairs: the task, the challenge, then every setting that differs from
    /// the task's preset (or the challenge's start).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let p = self.base();
        let mut q = vec![("learn", self.task.name().to_owned())];
        if let Some(id) = self.challenge {
            q.push(("learn_challenge", id.to_owned()));
        }
        let mut add = |key: &'static str, differs: bool, value: String| {
            if differs {
                q.push((key, value));
            }
        };
        add("learn_vocab", self.vocab != p.vocab, self.vocab.to_string());
        add("learn_T", self.t != p.t, self.t.to_string());
        add("learn_d", self.d_model != p.d_model, self.d_model.to_string());
        add("learn_h", self.n_heads != p.n_heads, self.n_heads.to_string());
        add("learn_layers", self.n_layers != p.n_layers, self.n_layers.to_string());
        add("learn_pos", self.positions != p.positions, position_name(self.positions).to_owned());
        add("learn_opt", self.optimizer != p.optimizer, self.optimizer.name().to_owned());
        add("learn_lr", self.lr != p.lr, self.lr.to_string());
        add("learn_seed", self.seed != p.seed, self.seed.to_string());
        q
    }

    /// Settings read back from the link's pairs: the task's preset (or the challenge's
    /// start), then each setting the link gives. A value that is not what the link should
    /// hold keeps the preset's and adds a notice.
    pub fn from_pairs(pairs: &[(&str, String)]) -> (Self, Vec<String>) {
        let mut notices = Vec::new();
        let mut bad = |key: &str, value: &str, want: &str| {
            notices.push(format!("The link's {key}=\"{value}\" is not {want}; the default is used instead."));
        };
        let value = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str());
        let task = match value("learn") {
            Some(name) => TASKS.into_iter().find(|t| t.name() == name).unwrap_or_else(|| {
                bad("learn", name, "previous-token, first-token or induction");
                TaskKind::PreviousToken
            }),
            None => TaskKind::PreviousToken,
        };
        let mut s = Self::preset(task);
        if let Some(id) = value("learn_challenge") {
            match training::by_id(id) {
                Some(c) => s = Self::for_challenge(&c),
                None => bad("learn_challenge", id, "a training challenge"),
            }
        }
        let mut number = |key: &str, lo: usize, hi: usize, slot: &mut usize| {
            let Some(v) = value(key) else { return };
            match v.parse::<usize>() {
                Ok(n) if (lo..=hi).contains(&n) => *slot = n,
                _ => bad(key, v, &format!("a whole number from {lo} to {hi}")),
            }
        };
        number("learn_vocab", 2, MAX_VOCAB, &mut s.vocab);
        number("learn_T", 2, MAX_T, &mut s.t);
        number("learn_d", 1, MAX_D_MODEL, &mut s.d_model);
        number("learn_h", 1, MAX_HEADS, &mut s.n_heads);
        number("learn_layers", 1, MAX_LAYERS, &mut s.n_layers);
        if let Some(v) = value("learn_pos") {
            match POSITIONS.into_iter().find(|p| position_name(*p) == v) {
                Some(p) => s.positions = p,
                None => bad("learn_pos", v, "learned, sinusoidal or none"),
            }
        }
        if let Some(v) = value("learn_opt") {
            match OptKind::ALL.into_iter().find(|o| o.name() == v) {
                Some(o) => s.optimizer = o,
                None => bad("learn_opt", v, "sgd, adam or adamw"),
            }
        }
        if let Some(v) = value("learn_lr") {
            match v.parse::<f64>() {
                Ok(lr) if lr.is_finite() && lr > 0.0 && lr <= MAX_LR => s.lr = lr,
                _ => bad("learn_lr", v, &format!("a number above 0 and at most {MAX_LR}")),
            }
        }
        if let Some(v) = value("learn_seed") {
            match v.parse::<u64>() {
                Ok(seed) => s.seed = seed,
                Err(_) => bad("learn_seed", v, "a whole number ≥ 0"),
            }
        }
        (s, notices)
    }
}

/// The view's largest vocabulary (a map's labels stay readable).
pub const MAX_VOCAB: usize = 64;
/// The view's longest sequence.
pub const MAX_T: usize = 32;
/// The view's widest residual stream.
pub const MAX_D_MODEL: usize = 64;
/// The view's most heads per layer.
pub const MAX_HEADS: usize = 8;
/// The view's most layers (induction needs 2).
pub const MAX_LAYERS: usize = 2;
/// The largest learning rate the view takes.
pub const MAX_LR: f64 = 10.0;

#[cfg(test)]
mod tests {
    use super::*;
    use attention_worker::train::Session;

    fn pairs(p: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        p.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn every_preset_is_a_configuration_the_engine_takes_and_its_link_is_its_task() {
        for task in TASKS {
            let s = LearnSettings::preset(task);
            TrainConfig::from_json(&s.config_json()).unwrap();
            assert_eq!(s.to_pairs(), pairs(&[("learn", task.name())]));
            assert_eq!(LearnSettings::from_pairs(&s.to_pairs()), (s, vec![]));
        }
        assert_eq!(LearnSettings::preset(TaskKind::Induction).n_layers, 2);
    }

    /// The induction preset trains exactly the lesson's recorded run, its budget included,
    /// so the view's step count is the one the lesson quotes.
    #[test]
    fn the_induction_preset_is_the_lessons_run() {
        let s = LearnSettings::preset(TaskKind::Induction);
        let lesson = induction::config().unwrap();
        assert_eq!(s.config(), *lesson);
        assert_eq!(s.budget(), lesson.steps);
        assert_eq!(s.budget(), induction::run().unwrap().losses.len());
        assert_eq!(LearnSettings::default().budget(), STEP_BUDGET);
        assert_eq!(s.budget_and_why().1, "the lesson's run");
        // a learner who changes a setting gets the budget the other tasks have
        for changed in [
            LearnSettings { lr: 0.003, ..s.clone() },
            LearnSettings { seed: 8, ..s.clone() },
            LearnSettings { d_model: 8, ..s.clone() },
        ] {
            assert_eq!(changed.budget_and_why(), (STEP_BUDGET, "the step budget"));
            assert_eq!(changed.config().steps, STEP_BUDGET);
        }
        // and going back to the preset's values restores the lesson's run
        assert_eq!(
            LearnSettings { lr: 0.01, ..LearnSettings { lr: 0.003, ..s.clone() } }.budget(),
            lesson.steps
        );
    }

    #[test]
    fn settings_round_trip_through_the_link() {
        let s = LearnSettings {
            vocab: 9,
            t: 6,
            d_model: 12,
            n_heads: 3,
            n_layers: 2,
            positions: PositionKind::None,
            optimizer: OptKind::AdamW,
            lr: 0.003,
            seed: 42,
            ..LearnSettings::preset(TaskKind::FirstToken)
        };
        assert_eq!(s.to_pairs().len(), 10);
        assert_eq!(LearnSettings::from_pairs(&s.to_pairs()), (s, vec![]));
    }

    #[test]
    fn a_bad_value_keeps_the_preset_and_says_so() {
        let (s, notices) = LearnSettings::from_pairs(&pairs(&[
            ("learn", "induction"),
            ("learn_T", "1000"),
            ("learn_lr", "-1"),
            ("learn_opt", "rmsprop"),
            ("learn_h", "4"),
        ]));
        assert_eq!(s, LearnSettings { n_heads: 4, ..LearnSettings::preset(TaskKind::Induction) });
        assert_eq!(notices.len(), 3, "{notices:?}");
        assert!(notices[0].contains("learn_T=\"1000\"") && notices[0].contains("from 2 to 32"));
        let (s, notices) = LearnSettings::from_pairs(&pairs(&[("learn", "sentences")]));
        assert_eq!((s, notices.len()), (LearnSettings::default(), 1));
    }

    /// A challenge's settings make exactly its starting run (its budget included), and its
    /// link names it and then only what the learner changed; an unknown one is a notice.
    #[test]
    fn a_training_challenge_starts_from_its_own_run_and_its_link_names_it() {
        for c in training::all() {
            let s = LearnSettings::for_challenge(&c);
            assert_eq!(s.config(), c.start);
            assert_eq!(s.budget(), c.budget());
            assert_eq!(s.to_pairs(), pairs(&[("learn", c.start.task.name()), ("learn_challenge", c.id)]));
            let tried = LearnSettings { positions: PositionKind::Learned, lr: 0.03, ..s.clone() };
            assert_eq!(tried.to_pairs().len(), 4);
            assert_eq!(LearnSettings::from_pairs(&tried.to_pairs()), (tried, vec![]));
        }
        assert_eq!(LearnSettings::default().budget(), STEP_BUDGET);
        let (s, notices) =
            LearnSettings::from_pairs(&pairs(&[("learn", "previous-token"), ("learn_challenge", "nope")]));
        assert_eq!((s, notices.len()), (LearnSettings::default(), 1));
    }

    /// A configuration the engine refuses is the engine's to name (the page shows it).
    #[test]
    fn the_engine_names_a_bad_combination() {
        let s = LearnSettings { n_heads: 3, ..LearnSettings::default() };
        let err = TrainConfig::from_json(&s.config_json()).unwrap_err().to_string();
        assert!(err.starts_with("n_heads: must divide d_model = 16"), "{err}");
    }

    /// The preset the browser test trains through the page reaches 95 % on the probe, as
    /// the worker measures it, well inside the budget.
    #[test]
    fn the_previous_token_preset_learns_its_task() {
        let mut session = Session::start(&LearnSettings::default().config_json()).unwrap();
        let mut steps = 0;
        while session.probe_view().accuracy < 0.95 {
            session.advance(50);
            steps += 50;
            assert!(steps <= 1000, "{steps} steps: {}", session.probe_view().accuracy);
        }
    }
}
