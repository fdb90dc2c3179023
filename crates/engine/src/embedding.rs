//! Toy embeddings: tokens to the input tensor `x` of shape `(B, T, d_model)`.
//!
//! A token's vector comes from the first of these that has one:
//! 1. the scenario's explicit `embeddings` (matched without case);
//! 2. the hand-made [`Lexicon`] for this `d_model`, whose dimensions have names
//!    (in 3 dimensions: sports, animal, other, as in seed 003);
//! 3. a vector derived from the word itself: a ChaCha8 stream seeded with the FNV-1a hash
//!    of the lower-cased word and `d_model`, rounded to two decimals. The same word gives
//!    the same vector on every machine, native or wasm.
//!
//! `<pad>` is the zero vector unless the scenario gives `"<pad>"` explicitly.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ndarray::Array3;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::error::{check_number, EngineError, Field};
use crate::tokenize::{Batch, PAD};

/// Where a token's vector came from, shown in the page next to `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The scenario's `embeddings`.
    Explicit,
    /// The hand-made lexicon.
    Lexicon,
    /// Derived from the word's hash.
    Hashed,
    /// The zero vector of `<pad>`.
    Pad,
}

/// A hand-made embedding space with named dimensions.
#[derive(Debug, Clone, Copy)]
pub struct Lexicon {
    /// One name per dimension; `dims.len()` is the `d_model` this lexicon serves.
    pub dims: &'static [&'static str],
    /// `(word, vector)` pairs; every vector has `dims.len()` numbers.
    pub words: &'static [(&'static str, &'static [f64])],
}

impl Lexicon {
    /// The vector of a lower-cased word, if the lexicon has it.
    pub fn get(&self, key: &str) -> Option<&'static [f64]> {
        self.words.iter().find(|(w, _)| *w == key).map(|(_, v)| *v)
    }
}

/// Seed 003's space: "sports", "animal", "other". "baseball" = (2,0,0), "bat" = (1,1,0).
pub const SPORTS_ANIMAL_OTHER: Lexicon = Lexicon {
    dims: &["sports", "animal", "other"],
    words: &[
        // seed 003: "I bought a baseball bat"
        ("baseball", &[2.0, 0.0, 0.0]),
        ("bat", &[1.0, 1.0, 0.0]),
        ("i", &[0.0, 0.0, 1.0]),
        ("bought", &[0.0, 0.0, 1.0]),
        ("a", &[0.0, 0.0, 1.0]),
        // seed 000: "The cat sat on the mat"
        ("the", &[0.0, 0.0, 1.0]),
        ("cat", &[0.0, 2.0, 0.0]),
        ("sat", &[0.0, 0.5, 1.0]),
        ("on", &[0.0, 0.0, 1.0]),
        ("mat", &[0.0, 0.0, 2.0]),
        // seed 002: "The creek was cold and the spunky dog wanted to jump over it"
        ("creek", &[0.0, 0.0, 2.0]),
        ("was", &[0.0, 0.0, 1.0]),
        ("cold", &[0.0, 0.0, 1.5]),
        ("and", &[0.0, 0.0, 1.0]),
        ("spunky", &[0.5, 1.0, 0.5]),
        ("dog", &[0.0, 2.0, 0.0]),
        ("wanted", &[0.0, 0.5, 1.0]),
        ("to", &[0.0, 0.0, 1.0]),
        ("jump", &[1.0, 0.5, 0.5]),
        ("over", &[0.0, 0.0, 1.0]),
        ("it", &[0.0, 0.0, 1.0]),
        // seed 002: "this is a sample sequence"
        ("this", &[0.0, 0.0, 1.0]),
        ("is", &[0.0, 0.0, 1.0]),
        ("sample", &[0.0, 0.0, 1.0]),
        ("sequence", &[0.0, 0.0, 1.0]),
        // a few more for "the bat flew", "the ball", …
        ("flew", &[0.0, 1.5, 0.5]),
        ("ball", &[2.0, 0.0, 0.5]),
        ("game", &[2.0, 0.0, 0.5]),
        ("cave", &[0.0, 1.0, 1.0]),
        ("wings", &[0.0, 2.0, 0.0]),
    ],
};

/// An 8-dimensional space for the seeds' longer sentences, with one dimension per kind
/// of meaning a head might look for.
pub const EIGHT_FEATURES: Lexicon = Lexicon {
    dims: &["sports", "animal", "nature", "thing", "describes", "action", "refers", "function"],
    words: &[
        ("baseball", &[2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        ("bat", &[1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        ("i", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5]),
        ("bought", &[0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
        ("a", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("the", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("cat", &[0.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        ("sat", &[0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
        ("on", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("mat", &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0]),
        ("creek", &[0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        ("was", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 1.0]),
        ("cold", &[0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0]),
        ("and", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("spunky", &[0.0, 0.5, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0]),
        ("dog", &[0.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        ("wanted", &[0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
        ("to", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("jump", &[0.5, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
        ("over", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        ("it", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]),
        ("this", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
        ("is", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 1.0]),
        ("sample", &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
        ("sequence", &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0]),
        ("flew", &[0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]),
    ],
};

/// The lexicon for a `d_model`, if there is one.
pub fn lexicon(d_model: usize) -> Option<&'static Lexicon> {
    [&SPORTS_ANIMAL_OTHER, &EIGHT_FEATURES].into_iter().find(|l| l.dims.len() == d_model)
}

/// FNV-1a, 64-bit: a tiny, fixed, platform-independent hash.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A uniform number in [0, 1) from the top 53 bits of the next `u64`.
pub(crate) fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The deterministic vector of a word that no lexicon or scenario gives: components in
/// [-1, 1], rounded to two decimals so the tables stay readable.
pub fn hashed_vector(key: &str, d_model: usize) -> Vec<f64> {
    let seed = fnv1a(key.as_bytes()) ^ (d_model as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..d_model).map(|_| ((unit(&mut rng) * 2.0 - 1.0) * 100.0).round() / 100.0).collect()
}

/// Hashed vectors drawn lately, by `(d_model, word)`: typing a word into a long text
/// embeds every other word again, and drawing each from its ChaCha stream is not free
/// at the stress size (BENCHMARKS.md, R4.3). The cache changes no number.
static HASHED: Mutex<HashedCache> = Mutex::new(BTreeMap::new());

/// `(d_model, word)` → the word's vector.
type HashedCache = BTreeMap<(usize, String), Arc<[f64]>>;

/// How many vectors [`HASHED`] keeps (it starts again when full): 4 096 × d_model 512 is
/// 16 MiB at most.
const HASHED_CACHE_LEN: usize = 4096;

/// [`hashed_vector`], from [`HASHED`] when it is there.
fn hashed_cached(key: &str, d_model: usize) -> Arc<[f64]> {
    let k = (d_model, key.to_owned());
    if let Some(v) = HASHED.lock().ok().and_then(|cache| cache.get(&k).cloned()) {
        return v;
    }
    let v: Arc<[f64]> = hashed_vector(key, d_model).into();
    if let Ok(mut cache) = HASHED.lock() {
        if cache.len() >= HASHED_CACHE_LEN {
            cache.clear();
        }
        cache.insert(k, Arc::clone(&v));
    }
    v
}

/// Validates the scenario's explicit embeddings and lower-cases their keys.
///
/// # Errors
/// [`EngineError::EmbeddingLength`] or [`EngineError::BadNumber`].
pub fn explicit_table(
    embeddings: &BTreeMap<String, Vec<f64>>,
    d_model: usize,
) -> Result<BTreeMap<String, Vec<f64>>, EngineError> {
    let mut table = BTreeMap::new();
    for (word, vector) in embeddings {
        if vector.len() != d_model {
            return Err(EngineError::EmbeddingLength { word: word.clone(), len: vector.len(), d_model });
        }
        for (i, &v) in vector.iter().enumerate() {
            check_number(v, Field::Embeddings, || format!("embedding of \"{word}\"[{i}]"))?;
        }
        let key = if word == PAD { word.clone() } else { word.to_lowercase() };
        table.insert(key, vector.clone());
    }
    Ok(table)
}

/// Builds `x` for a batch.
///
/// # Shapes
/// - returns `x`: `[B, T, d_model]`, and the source of each token's vector `[B][T]`.
///
/// # Errors
/// As [`explicit_table`].
pub fn embed(
    batch: &Batch,
    d_model: usize,
    embeddings: &BTreeMap<String, Vec<f64>>,
) -> Result<(Array3<f64>, Vec<Vec<Source>>), EngineError> {
    let explicit = explicit_table(embeddings, d_model)?;
    let lexicon = lexicon(d_model);
    let mut x = Array3::<f64>::zeros((batch.b(), batch.t, d_model));
    let mut sources = Vec::with_capacity(batch.b());
    for (row, mut x_b) in batch.tokens.iter().zip(x.outer_iter_mut()) {
        let mut row_sources = Vec::with_capacity(row.len());
        for (token, mut x_bt) in row.iter().zip(x_b.outer_iter_mut()) {
            let mut put = |vector: &[f64]| x_bt.iter_mut().zip(vector).for_each(|(slot, &v)| *slot = v);
            let source = if let Some(v) = explicit.get(&token.key) {
                put(v);
                Source::Explicit
            } else if token.is_pad {
                Source::Pad // x starts as zeros
            } else if let Some(v) = lexicon.and_then(|l| l.get(&token.key)) {
                put(v);
                Source::Lexicon
            } else {
                put(&hashed_cached(&token.key, d_model));
                Source::Hashed
            };
            row_sources.push(source);
        }
        sources.push(row_sources);
    }
    Ok((x, sources))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::batch;

    #[test]
    fn lexicons_are_well_formed() {
        for lex in [&SPORTS_ANIMAL_OTHER, &EIGHT_FEATURES] {
            for (word, v) in lex.words {
                assert_eq!(v.len(), lex.dims.len(), "{word}");
                assert_eq!(*word, word.to_lowercase());
            }
        }
    }

    #[test]
    fn seed_003_vectors() {
        let b = batch(&["I bought a baseball BAT".into()]).unwrap();
        let (x, src) = embed(&b, 3, &BTreeMap::new()).unwrap();
        assert_eq!(x.slice(ndarray::s![0, 3, ..]).to_vec(), vec![2.0, 0.0, 0.0]);
        assert_eq!(x.slice(ndarray::s![0, 4, ..]).to_vec(), vec![1.0, 1.0, 0.0]);
        assert_eq!(src[0][4], Source::Lexicon);
    }

    #[test]
    fn explicit_beats_lexicon_beats_hash_and_pad_is_zero() {
        let b = batch(&["Bat zyzzyva".into(), "bat".into()]).unwrap();
        let explicit = BTreeMap::from([("BAT".to_string(), vec![0.5, 0.5, 0.5])]);
        let (x, src) = embed(&b, 3, &explicit).unwrap();
        assert_eq!(x.slice(ndarray::s![0, 0, ..]).to_vec(), vec![0.5, 0.5, 0.5]);
        assert_eq!(src[0], vec![Source::Explicit, Source::Hashed]);
        assert_eq!(x.slice(ndarray::s![0, 1, ..]).to_vec(), hashed_vector("zyzzyva", 3));
        assert_eq!(x.slice(ndarray::s![1, 1, ..]).to_vec(), vec![0.0; 3]);
        assert_eq!(src[1][1], Source::Pad);
    }

    #[test]
    fn cached_hashed_vectors_are_the_drawn_ones() {
        for word in ["zyzzyva", "quokka", "w17"] {
            for d in [1, 2, 5, 256] {
                let first = hashed_cached(word, d);
                let again = hashed_cached(word, d);
                assert!(Arc::ptr_eq(&first, &again), "the second comes from the cache");
                let drawn = hashed_vector(word, d);
                assert_eq!(first.len(), d);
                assert!(first.iter().zip(&drawn).all(|(a, b)| a.to_bits() == b.to_bits()), "{word} at {d}");
            }
        }
        // what embed puts in x is the drawn vector, cached or not
        let b = batch(&["zyzzyva quokka".to_string()]).unwrap();
        for _ in 0..2 {
            let (x, sources) = embed(&b, 5, &BTreeMap::new()).unwrap();
            assert_eq!(sources[0], [Source::Hashed, Source::Hashed]);
            assert_eq!(x.slice(ndarray::s![0, 1, ..]).to_vec(), hashed_vector("quokka", 5));
        }
    }

    #[test]
    fn hashed_vectors_are_stable() {
        // Pinned so that a change of hash, RNG or rounding is noticed: the same word must
        // give the same vector on every machine and in every release.
        assert_eq!(hashed_vector("zyzzyva", 4), hashed_vector("zyzzyva", 4));
        assert_ne!(hashed_vector("zyzzyva", 4), hashed_vector("aardvark", 4));
        let v = hashed_vector("hello", 5);
        assert!(v.iter().all(|x| (-1.0..=1.0).contains(x) && (x * 100.0).fract() == 0.0));
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn explicit_errors() {
        let short = BTreeMap::from([("bat".to_string(), vec![1.0])]);
        assert_eq!(
            explicit_table(&short, 3),
            Err(EngineError::EmbeddingLength { word: "bat".into(), len: 1, d_model: 3 })
        );
        let nan = BTreeMap::from([("bat".to_string(), vec![1.0, f64::NAN, 0.0])]);
        assert!(matches!(explicit_table(&nan, 3), Err(EngineError::BadNumber { .. })));
    }
}
