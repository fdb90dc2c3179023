//! The tasks: seeded generators of `(tokens, targets)` batches. A target of −1 is not
//! scored. Token ids are `0..vocab`; draws use a ChaCha8 stream of the configuration's seed
//! (stream 1 for the training batches, stream 2 for the probe), so a seed gives the same
//! batches on every machine.
//!
//! - `previous-token`: tokens uniform in `0..vocab`; the target at `t ≥ 1` is
//!   `tokens[t − 1]` (position 0 has none).
//! - `first-token`: tokens uniform; the target at `t ≥ 1` is `tokens[0]`.
//! - `sentences`: the vocabulary is `<pad>` (id 0) then each distinct word of `lines`
//!   (split on white space, case kept) in order of first appearance. A row is a line drawn
//!   uniformly; a line longer than `T + 1` words gives a window of `T + 1` consecutive words
//!   starting uniformly at random. The tokens are the window's words but the last, the
//!   targets its words but the first (next-word prediction); the rest of the row is
//!   `<pad>` with target −1.
//! - `induction`: a period `p`, uniform in `max(2, ⌈T/4⌉) ..= T/2`, then `p` distinct tokens
//!   (drawn without replacement from `0..vocab`) repeated to the end: `tokens[t] =
//!   tokens[t mod p]` (with `p = T/2` the second half repeats the first). The target at
//!   `t` is `tokens[t + 1]` for `p ≤ t ≤ T − 2`: there the current token occurred once
//!   before, at `t − p`, and the answer is what followed it. Elsewhere −1 (the first `p`
//!   tokens are unpredictable, and at `t = p − 1` nothing announces the repeat). Because
//!   `p` varies, no fixed positional offset finds the answer: the model has to look up
//!   the earlier occurrence by content, which takes two layers (an induction head).
//!
//! A uniform draw in `0..n` is `⌊u·n / 2⁶⁴⌋` for a 64-bit draw `u` (bias below n/2⁶⁴).

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::Serialize;

use super::config::{words, TaskKind, TrainConfig};

/// The id of `<pad>` in the `sentences` task.
pub const PAD_ID: usize = 0;

/// One batch: `b` sequences of `t` tokens and their targets, row-major.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Batch {
    /// Sequences.
    pub b: usize,
    /// Tokens per sequence.
    pub t: usize,
    /// `(b, t)` token ids.
    pub tokens: Vec<usize>,
    /// `(b, t)` target ids, −1 where nothing is scored.
    pub targets: Vec<i64>,
}

/// A batch as the JSON report writes it: nested `(B, T)` arrays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchJson {
    /// `(B, T)`.
    pub tokens: Vec<Vec<usize>>,
    /// `(B, T)`, −1 = not scored.
    pub targets: Vec<Vec<i64>>,
}

impl Batch {
    /// An empty batch of `b` sequences of `t` tokens.
    pub fn new(b: usize, t: usize) -> Self {
        Self { b, t, tokens: vec![0; b * t], targets: vec![-1; b * t] }
    }

    /// The nested form of the report.
    pub fn to_json(&self) -> BatchJson {
        let t = self.t.max(1);
        BatchJson {
            tokens: self.tokens.chunks(t).map(<[usize]>::to_vec).collect(),
            targets: self.targets.chunks(t).map(<[i64]>::to_vec).collect(),
        }
    }
}

/// A uniform draw in `0..n` (0 for n = 0).
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// The generator of a configuration's batches.
#[derive(Debug, Clone)]
pub struct TaskData {
    task: TaskKind,
    vocab: usize,
    t: usize,
    lines: Vec<Vec<usize>>,
    rng: ChaCha8Rng,
}

impl TaskData {
    /// The generator of stream `stream` of the configuration's seed (1: training, 2: probe).
    pub fn new(config: &TrainConfig, stream: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(stream);
        let vocabulary = words(&config.lines);
        let lines = config
            .lines
            .iter()
            .map(|l| {
                l.split_whitespace()
                    .map(|w| vocabulary.iter().position(|v| v == w).unwrap_or(PAD_ID))
                    .collect()
            })
            .collect();
        Self { task: config.task, vocab: config.vocab_size(), t: config.t, lines, rng }
    }

    /// Fills `batch` (its `b` and `t` kept) with the next draw.
    pub fn fill(&mut self, batch: &mut Batch) {
        let t = batch.t.max(1);
        for (tokens, targets) in batch.tokens.chunks_exact_mut(t).zip(batch.targets.chunks_exact_mut(t)) {
            self.sequence(tokens, targets);
        }
    }

    /// The next `count` sequences as a new batch.
    pub fn batch(&mut self, count: usize) -> Batch {
        let mut batch = Batch::new(count, self.t);
        self.fill(&mut batch);
        batch
    }

    fn sequence(&mut self, tokens: &mut [usize], targets: &mut [i64]) {
        let t = tokens.len();
        targets.fill(-1);
        match self.task {
            TaskKind::PreviousToken | TaskKind::FirstToken => {
                for x in tokens.iter_mut() {
                    *x = below(&mut self.rng, self.vocab);
                }
                let first = tokens.first().copied().unwrap_or(0);
                for (i, y) in targets.iter_mut().enumerate().skip(1) {
                    let answer =
                        if self.task == TaskKind::PreviousToken { tokens.get(i - 1) } else { Some(&first) };
                    *y = answer.map_or(-1, |&a| a as i64);
                }
            }
            TaskKind::Induction => {
                let shortest = t.div_ceil(4).max(2);
                let p = shortest + below(&mut self.rng, (t / 2).saturating_sub(shortest) + 1);
                // a partial Fisher–Yates shuffle of 0..vocab: p distinct tokens
                let mut pool: Vec<usize> = (0..self.vocab).collect();
                for i in 0..p.min(self.vocab) {
                    let j = i + below(&mut self.rng, self.vocab - i);
                    pool.swap(i, j);
                }
                for (i, x) in tokens.iter_mut().enumerate() {
                    *x = pool.get(i % p.max(1)).copied().unwrap_or(0);
                }
                for (i, y) in targets.iter_mut().enumerate().take(t.saturating_sub(1)).skip(p) {
                    *y = tokens.get(i + 1).map_or(-1, |&a| a as i64);
                }
            }
            TaskKind::Sentences => {
                tokens.fill(PAD_ID);
                let line = below(&mut self.rng, self.lines.len());
                let Some(words) = self.lines.get(line) else { return };
                let span = words.len().min(t + 1);
                let start = below(&mut self.rng, words.len() - span + 1);
                let window = words.get(start..start + span).unwrap_or(&[]);
                for (i, pair) in window.windows(2).enumerate() {
                    if let (Some(x), Some(y), [a, b]) = (tokens.get_mut(i), targets.get_mut(i), pair) {
                        *x = *a;
                        *y = *b as i64;
                    }
                }
            }
        }
    }
}

/// The probe batch: `count` sequences from stream 2 of the seed, the same for the whole
/// run (the Learn view draws each head's map on it).
pub fn probe(config: &TrainConfig, count: usize) -> Batch {
    TaskData::new(config, 2).batch(count)
}
