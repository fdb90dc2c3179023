//! Training challenges: the learner trains the Learn view's model and must reach a probe
//! accuracy within a step budget, changing only the settings the challenge frees (here
//! the learning rate and the positions). The worker trains and measures the accuracy on
//! its fixed probe batch; [`TrainingChallenge::judge`] reads those reports and says
//! whether the goal is met, and why not. Pure Rust on the engine's [`TrainConfig`],
//! tested natively with the worker's own training session.

use crate::engine::train::{OptimizerConfig, PositionKind, TaskKind, TrainConfig};

use super::goal::Progress;

/// One training challenge.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingChallenge {
    /// Short id for the link, `learn_challenge=ID`.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// What to do and why it matters.
    pub story: &'static str,
    /// The run the challenge starts from; its `steps` is the budget.
    pub start: TrainConfig,
    /// The probe accuracy asked for, as a fraction.
    pub at_least: f64,
    /// Hints, revealed one at a time.
    pub hints: [&'static str; 3],
    /// Why a solution works, shown once the goal is met.
    pub why: &'static str,
}

/// What the worker reported after some steps: how many, and the accuracy on the probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Steps taken since the start of the run.
    pub steps_done: usize,
    /// The model's accuracy on the probe batch then.
    pub accuracy: f64,
}

/// The built-in training challenges.
pub fn all() -> Vec<TrainingChallenge> {
    vec![previous_token_95()]
}

/// The training challenges on `task`: the ones the Learn view offers while it trains
/// that task (a challenge on another task would not be about what is on the screen).
pub fn on_task(task: TaskKind) -> Vec<TrainingChallenge> {
    all().into_iter().filter(|c| c.start.task == task).collect()
}

/// The training challenge with this id.
pub fn by_id(id: &str) -> Option<TrainingChallenge> {
    all().into_iter().find(|c| c.id == id)
}

/// Previous-token to 95 % in 100 steps. It starts with no positions and a learning rate
/// of 0.001, which cannot get there: without positions a head cannot tell which key came
/// just before (every key looks the same wherever it stands), and at 0.001 Adam moves
/// each weight by about 0.1 in 100 steps. Learned positions at 0.01 to 0.1, or sinusoidal
/// ones at 0.01 to 0.1, reach it (the tests train them).
fn previous_token_95() -> TrainingChallenge {
    TrainingChallenge {
        id: "previous-token-95",
        title: "Train a previous-token head in 100 steps",
        story: "The model below must learn to predict, at every position, the token just before it, and reach 95% accuracy on the probe batch within 100 steps. \
                You may change only two settings: the positions and the learning rate. Everything else (the data, the seed, the sizes, Adam) stays as it is.",
        start: TrainConfig {
            task: TaskKind::PreviousToken,
            vocab: Some(16),
            t: 8,
            batch: 32,
            seed: 1,
            steps: 100,
            d_model: 16,
            n_heads: 2,
            n_layers: 1,
            positions: PositionKind::None,
            causal: true,
            window: None,
            lines: Vec::new(),
            optimizer: OptimizerConfig::adam(0.001),
        },
        at_least: 0.95,
        hints: [
            "Look at the positions first. With none, what does a key at position 3 carry that says it stands just before position 4?",
            "Adam moves each weight by about the learning rate at every step: at 0.001, 100 steps move a weight by about 0.1.",
            "Try learned positions with a learning rate between 0.01 and 0.1. Much above that (0.3 and more), the loss jumps about and never settles.",
        ],
        why: "A previous-token head needs each key to say where it stands: learned or sinusoidal positions add that to every token's vector, and the head learns a query that matches the key one place back. \
              With no positions, the only thing that tells places apart is the causal mask, and the accuracy stays near 40%. The learning rate sets how far each step moves the weights: too small and 100 steps are not enough, too large and the steps overshoot.",
    }
}

/// The optimizer's kind and settings other than its learning rate, as torch names them.
fn optimizer_words(o: OptimizerConfig) -> String {
    match o {
        OptimizerConfig::Sgd { momentum, dampening, nesterov, weight_decay, .. } => format!(
            "SGD (momentum {momentum}, dampening {dampening}, nesterov {nesterov}, weight decay {weight_decay})"
        ),
        OptimizerConfig::Adam { betas, eps, weight_decay, .. } => {
            format!("Adam (betas {}, {}, eps {eps}, weight decay {weight_decay})", betas[0], betas[1])
        }
        OptimizerConfig::AdamW { betas, eps, weight_decay, .. } => {
            format!("AdamW (betas {}, {}, eps {eps}, weight decay {weight_decay})", betas[0], betas[1])
        }
    }
}

/// A percentage with one decimal, or the number's own words when it is not finite.
fn percent(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1}%", 100.0 * x)
    } else {
        format!("{x}")
    }
}

impl TrainingChallenge {
    /// The steps allowed.
    pub fn budget(&self) -> usize {
        self.start.steps
    }

    /// The goal in one sentence.
    pub fn describe(&self) -> String {
        format!(
            "reach {} accuracy on the probe batch within {} steps, changing only the positions and the learning rate.",
            percent(self.at_least),
            self.budget()
        )
    }

    /// The settings of `config` that the challenge holds fixed and that differ from its
    /// start, each as "name: yours (the challenge's …)"; empty when only the freed ones
    /// (positions, learning rate) changed.
    pub fn locked_changes(&self, config: &TrainConfig) -> Vec<String> {
        let s = &self.start;
        let mut out = Vec::new();
        let mut differs = |name: &str, yours: String, its: String| {
            if yours != its {
                out.push(format!("{name} is {yours} (the challenge's: {its})"));
            }
        };
        // Display only: `{:?}` would bring Debug's string escaping (and its Unicode tables)
        // into the page's wasm
        let or_none = |n: Option<usize>| n.map_or_else(|| "none".to_owned(), |n| n.to_string());
        differs("the task", config.task.name().into(), s.task.name().into());
        differs("vocab", or_none(config.vocab), or_none(s.vocab));
        differs("T", config.t.to_string(), s.t.to_string());
        differs("the batch", config.batch.to_string(), s.batch.to_string());
        differs("the seed", config.seed.to_string(), s.seed.to_string());
        differs("the step budget", config.steps.to_string(), s.steps.to_string());
        differs("d_model", config.d_model.to_string(), s.d_model.to_string());
        differs("heads h", config.n_heads.to_string(), s.n_heads.to_string());
        differs("layers", config.n_layers.to_string(), s.n_layers.to_string());
        differs("causal", config.causal.to_string(), s.causal.to_string());
        differs("the window", or_none(config.window), or_none(s.window));
        differs("the lines", config.lines.join(" / "), s.lines.join(" / "));
        differs("the optimizer", optimizer_words(config.optimizer), optimizer_words(s.optimizer));
        out
    }

    /// Whether the run of `config`, as the worker reported it (`readings`, in the order
    /// they came), meets the goal: some reading at or before the budget has at least the
    /// accuracy asked. Unmet, the words say what is missing: a setting the challenge
    /// holds fixed, the accuracy so far, or a budget spent.
    pub fn judge(&self, config: &TrainConfig, readings: &[Reading]) -> Progress {
        let asked = self.at_least;
        let budget = self.budget();
        let unmet = |measured: f64, words: String| Progress {
            met: false,
            measured,
            asked,
            words,
            quoted: Vec::new(),
        };
        let locked = self.locked_changes(config);
        if !locked.is_empty() {
            return unmet(
                f64::NAN,
                format!(
                    "Only the positions and the learning rate may change in this challenge, but {}. Start the challenge again.",
                    locked.join(", ")
                ),
            );
        }
        let within = || readings.iter().filter(|r| r.steps_done <= budget);
        if let Some(r) = within().find(|r| r.accuracy >= asked) {
            return Progress {
                met: true,
                measured: r.accuracy,
                asked,
                words: format!(
                    "{} on the probe at step {} of the {budget} allowed: goal met.",
                    percent(r.accuracy),
                    r.steps_done
                ),
                quoted: Vec::new(),
            };
        }
        let Some(last) = within().next_back() else {
            return unmet(f64::NAN, format!("Press Play: {} asked within {budget} steps.", percent(asked)));
        };
        if !last.accuracy.is_finite() {
            return unmet(
                last.accuracy,
                format!(
                    "At step {} the accuracy is not a number: the run diverged. Lower the learning rate.",
                    last.steps_done
                ),
            );
        }
        let words = if last.steps_done == 0 {
            format!(
                "Press Play: {} asked within {budget} steps; {} on the probe before any step.",
                percent(asked),
                percent(last.accuracy)
            )
        } else if last.steps_done >= budget {
            format!(
                "The {budget} steps are spent at {} on the probe, below the {} asked. Change the positions or the learning rate (the run starts again), then Play.",
                percent(last.accuracy),
                percent(asked)
            )
        } else {
            format!(
                "{} on the probe at step {} of {budget}; {} asked.",
                percent(last.accuracy),
                last.steps_done,
                percent(asked)
            )
        };
        unmet(last.accuracy, words)
    }
}

/// A training challenge's heading in the Learn view, "Challenge 11: …": numbered, as the
/// challenge list numbers it, after the built-in challenges and the two-layer one.
pub fn heading(c: &TrainingChallenge) -> String {
    match all().iter().position(|x| x.id == c.id) {
        Some(i) => format!("Challenge {}: {}", super::builtin::all().len() + 2 + i, c.title),
        None => format!("Challenge: {}", c.title),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use attention_worker::train::Session;

    /// The worker's readings of a run of `config` to its budget, one every `every` steps
    /// (the page asks for slices the same way).
    fn train(config: &TrainConfig, every: usize) -> Vec<Reading> {
        let mut session = Session::start(&serde_json::to_string(config).unwrap()).unwrap();
        let mut readings = vec![];
        loop {
            let p = session.advance(every);
            readings.push(Reading { steps_done: p.steps_done, accuracy: p.probe.accuracy });
            if p.stats.is_empty() {
                return readings;
            }
        }
    }

    fn with(c: &TrainingChallenge, positions: PositionKind, lr: f64) -> TrainConfig {
        TrainConfig { positions, optimizer: OptimizerConfig::adam(lr), ..c.start.clone() }
    }

    /// The Learn view offers a challenge only on its own task: none while it trains
    /// induction, the previous-token one while it trains previous-token.
    #[test]
    fn a_challenge_is_offered_on_its_own_task_only() {
        assert!(on_task(TaskKind::Induction).is_empty());
        assert!(on_task(TaskKind::FirstToken).is_empty());
        let ids: Vec<_> = on_task(TaskKind::PreviousToken).into_iter().map(|c| c.id).collect();
        assert_eq!(ids, ["previous-token-95"]);
    }

    /// The start cannot reach the goal, and neither can either half of the solution alone;
    /// learned or sinusoidal positions at a learning rate of 0.01 to 0.1 do, within the
    /// budget, in the worker's own sessions and readings.
    #[test]
    fn the_start_fails_and_the_solutions_reach_95_percent_within_the_budget() {
        let c = by_id("previous-token-95").unwrap();
        let start = c.judge(&c.start, &train(&c.start, 10));
        assert!(!start.met && start.words.starts_with("The 100 steps are spent at "), "{}", start.words);
        for (positions, lr) in
            [(PositionKind::Learned, 0.001), (PositionKind::None, 0.03), (PositionKind::Learned, 1.0)]
        {
            let config = with(&c, positions, lr);
            let p = c.judge(&config, &train(&config, 10));
            assert!(!p.met, "{positions:?} at {lr}: {}", p.words);
        }
        for (positions, lr) in [
            (PositionKind::Learned, 0.01),
            (PositionKind::Learned, 0.03),
            (PositionKind::Learned, 0.1),
            (PositionKind::Sinusoidal, 0.03),
        ] {
            let config = with(&c, positions, lr);
            let p = c.judge(&config, &train(&config, 10));
            assert!(p.met && p.measured >= 0.95, "{positions:?} at {lr}: {}", p.words);
            assert!(p.words.ends_with("of the 100 allowed: goal met."), "{}", p.words);
        }
    }

    #[test]
    fn the_words_say_what_is_missing() {
        let c = by_id("previous-token-95").unwrap();
        let at = |steps_done, accuracy| Reading { steps_done, accuracy };
        let p = c.judge(&c.start, &[]);
        assert_eq!((p.met, p.words.as_str()), (false, "Press Play: 95.0% asked within 100 steps."));
        let p = c.judge(&c.start, &[at(0, 0.071)]);
        assert_eq!(p.words, "Press Play: 95.0% asked within 100 steps; 7.1% on the probe before any step.");
        let p = c.judge(&c.start, &[at(0, 0.1), at(40, 0.5)]);
        assert_eq!(p.words, "50.0% on the probe at step 40 of 100; 95.0% asked.");
        assert_eq!(p.measured, 0.5);
        // the first reading that reaches it is the one reported, even if a later one falls
        let p = c.judge(&c.start, &[at(30, 0.96), at(60, 0.9)]);
        assert!(p.met && p.words.starts_with("96.0% on the probe at step 30 "), "{}", p.words);
        // a reading past the budget does not count (the worker stops at it; a longer run
        // would be another configuration)
        assert!(!c.judge(&c.start, &[at(100, 0.9), at(101, 1.0)]).met);
        assert!(c.judge(&c.start, &[at(100, 0.95)]).met);
        let p = c.judge(&c.start, &[at(20, f64::NAN)]);
        assert!(!p.met && p.words.contains("diverged"), "{}", p.words);
    }

    /// A setting the challenge holds fixed is named with both values; the freed ones
    /// (positions, learning rate) are not.
    #[test]
    fn only_the_positions_and_the_learning_rate_are_free() {
        let c = by_id("previous-token-95").unwrap();
        assert!(c.locked_changes(&with(&c, PositionKind::Sinusoidal, 0.5)).is_empty());
        let wider = TrainConfig { d_model: 32, seed: 2, ..with(&c, PositionKind::Learned, 0.03) };
        assert_eq!(
            c.locked_changes(&wider),
            vec!["the seed is 2 (the challenge's: 1)", "d_model is 32 (the challenge's: 16)"]
        );
        let p = c.judge(&wider, &[Reading { steps_done: 50, accuracy: 1.0 }]);
        assert!(
            !p.met && p.words.starts_with("Only the positions and the learning rate may change"),
            "{}",
            p.words
        );
        let adamw = TrainConfig {
            optimizer: OptimizerConfig::AdamW {
                lr: 0.01,
                betas: [0.9, 0.999],
                eps: 1e-8,
                weight_decay: 0.01,
            },
            ..c.start.clone()
        };
        assert_eq!(c.locked_changes(&adamw).len(), 1);
        assert_eq!(
            c.locked_changes(&adamw)[0],
            "the optimizer is AdamW (betas 0.9, 0.999, eps 0.00000001, weight decay 0.01) (the challenge's: Adam (betas 0.9, 0.999, eps 0.00000001, weight decay 0))"
        );
        assert!(by_id("nope").is_none());
        assert_eq!(
            c.describe(),
            "reach 95.0% accuracy on the probe batch within 100 steps, changing only the positions and the learning rate."
        );
    }
}
