//! The attention-only model's parameters: one flat `Vec<f64>` and the table of named
//! tensors in it (the optimizers then treat every parameter alike, and a step allocates
//! nothing).
//!
//! Names and order, in the paper's `x @ W + b` convention: `E` (vocab, d_model), `P`
//! (T, d_model, learned positions only), then for each layer `l`: `layers[l].W_Q`
//! (d_model, d_model), `layers[l].b_Q` (d_model), `W_K`, `b_K`, `W_V`, `b_V`, `W_O`, `b_O`;
//! last `W_U` (d_model, vocab), with no bias.

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

use super::config::{PositionKind, TrainConfig, TrainError};
use crate::embedding::unit;
use crate::scenario::{Fill, MaskConfig, Padding};

/// The model's sizes and its fixed (not learned) choices.
#[derive(Debug, Clone, PartialEq)]
pub struct Dims {
    /// Token ids `0..vocab`.
    pub vocab: usize,
    /// Sequence length.
    pub t: usize,
    /// Residual stream width.
    pub d_model: usize,
    /// Heads per layer.
    pub n_heads: usize,
    /// Attention layers.
    pub n_layers: usize,
    /// How positions enter.
    pub positions: PositionKind,
    /// The engine's mask settings (causal and window; no padding, `-inf` fill semantics).
    pub mask: MaskConfig,
}

impl Dims {
    /// The sizes of a (validated) configuration.
    pub fn of(config: &TrainConfig) -> Self {
        Self {
            vocab: config.vocab_size(),
            t: config.t,
            d_model: config.d_model,
            n_heads: config.n_heads,
            n_layers: config.n_layers,
            positions: config.positions,
            mask: MaskConfig {
                window: config.window,
                ..MaskConfig::new(config.causal, Padding::None, Fill::NegInf)
            },
        }
    }

    /// One head's width, `d_k = d_model / h`.
    pub fn d_k(&self) -> usize {
        self.d_model / self.n_heads.max(1)
    }
}

/// Where one layer's eight tensors start in the flat parameter vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerOffsets {
    /// `W_Q` (d_model, d_model)
    pub w_q: usize,
    /// `b_Q` (d_model)
    pub b_q: usize,
    /// `W_K`
    pub w_k: usize,
    /// `b_K`
    pub b_k: usize,
    /// `W_V`
    pub w_v: usize,
    /// `b_V`
    pub b_v: usize,
    /// `W_O`
    pub w_o: usize,
    /// `b_O`
    pub b_o: usize,
}

/// One named tensor of the flat vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamSpec {
    /// `E`, `P`, `layers[0].W_Q`, …, `W_U`.
    pub name: String,
    /// Its shape (row-major).
    pub shape: Vec<usize>,
    /// Where it starts.
    pub offset: usize,
}

impl ParamSpec {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True for a tensor with no entries (never, for a valid configuration).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The table of named tensors in the flat vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Every tensor, in the documented order.
    pub specs: Vec<ParamSpec>,
    /// `E`'s offset.
    pub e: usize,
    /// `P`'s offset (learned positions only).
    pub p: Option<usize>,
    /// Each layer's offsets.
    pub layers: Vec<LayerOffsets>,
    /// `W_U`'s offset.
    pub w_u: usize,
    /// The total number of parameters.
    pub len: usize,
}

impl Layout {
    /// The layout of a model with these sizes.
    pub fn of(dims: &Dims) -> Self {
        let d = dims.d_model;
        let mut specs = Vec::new();
        let mut len = 0;
        let mut add = |name: String, shape: Vec<usize>| {
            let offset = len;
            len += shape.iter().product::<usize>();
            specs.push(ParamSpec { name, shape, offset });
            offset
        };
        let e = add("E".into(), vec![dims.vocab, d]);
        let p = (dims.positions == PositionKind::Learned).then(|| add("P".into(), vec![dims.t, d]));
        let layers = (0..dims.n_layers)
            .map(|l| {
                let mut pair = |x: &str| {
                    (
                        add(format!("layers[{l}].W_{x}"), vec![d, d]),
                        add(format!("layers[{l}].b_{x}"), vec![d]),
                    )
                };
                let ((w_q, b_q), (w_k, b_k), (w_v, b_v), (w_o, b_o)) =
                    (pair("Q"), pair("K"), pair("V"), pair("O"));
                LayerOffsets { w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o }
            })
            .collect();
        let w_u = add("W_U".into(), vec![d, dims.vocab]);
        Self { specs, e, p, layers, w_u, len }
    }
}

/// A tensor as the JSON report writes it: `{shape, data}`, data row-major.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tensor {
    /// The shape.
    pub shape: Vec<usize>,
    /// The numbers, row-major.
    pub data: Vec<f64>,
}

/// Named tensors in the layout's order; serialised as one JSON object whose keys keep
/// that order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Named(pub Vec<(String, Tensor)>);

impl Serialize for Named {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, tensor) in &self.0 {
            map.serialize_entry(name, tensor)?;
        }
        map.end()
    }
}

impl Named {
    /// The tensor called `name`.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// The attention-only model: sizes, layout, the flat parameters and the fixed
/// sinusoidal table (when used).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Sizes and fixed choices.
    pub dims: Dims,
    /// Where each named tensor lives in `params`.
    pub layout: Layout,
    /// Every parameter, flat.
    pub params: Vec<f64>,
    /// `(T, d_model)` sinusoids for [`PositionKind::Sinusoidal`], empty otherwise.
    pub sinusoids: Vec<f64>,
}

impl Model {
    /// A model with seeded weights: every matrix Xavier-uniform, `U(−a, a)` with
    /// `a = √(6 / (rows + cols))`, drawn in layout order, row-major, from a ChaCha8
    /// stream seeded with `seed` (stream 0); every bias zero.
    pub fn init(dims: Dims, seed: u64) -> Self {
        let layout = Layout::of(&dims);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut params = vec![0.0; layout.len];
        for spec in &layout.specs {
            if let ([rows, cols], Some(slot)) =
                (spec.shape.as_slice(), params.get_mut(spec.offset..spec.offset + spec.len()))
            {
                let a = (6.0 / (rows + cols) as f64).sqrt();
                for x in slot {
                    *x = a * (2.0 * unit(&mut rng) - 1.0);
                }
            }
        }
        Self::with_params(dims, layout, params)
    }

    fn with_params(dims: Dims, layout: Layout, params: Vec<f64>) -> Self {
        let sinusoids = match dims.positions {
            PositionKind::Sinusoidal => {
                crate::positional::table(dims.t, dims.d_model).into_raw_vec_and_offset().0
            }
            _ => Vec::new(),
        };
        Self { dims, layout, params, sinusoids }
    }

    /// A model with the given tensors, every one of the layout by name and shape.
    ///
    /// # Errors
    /// [`TrainError::Invalid`] (field `params`) for a missing tensor, a wrong shape or a
    /// non-finite number.
    pub fn from_named(dims: Dims, named: &Named) -> Result<Self, TrainError> {
        let layout = Layout::of(&dims);
        let mut params = vec![0.0; layout.len];
        for spec in &layout.specs {
            let bad = |message: String| TrainError::Invalid { field: "params", message };
            let tensor = named.get(&spec.name).ok_or_else(|| bad(format!("{} is missing", spec.name)))?;
            if tensor.shape != spec.shape || tensor.data.len() != spec.len() {
                return Err(bad(format!(
                    "{} must have shape {:?} ({} numbers), got {:?} ({} numbers)",
                    spec.name,
                    spec.shape,
                    spec.len(),
                    tensor.shape,
                    tensor.data.len()
                )));
            }
            if tensor.data.iter().any(|x| !x.is_finite()) {
                return Err(bad(format!("{} has a number that is not finite", spec.name)));
            }
            if let Some(slot) = params.get_mut(spec.offset..spec.offset + spec.len()) {
                slot.copy_from_slice(&tensor.data);
            }
        }
        Ok(Self::with_params(dims, layout, params))
    }

    /// `values` (parameters or gradients, in this layout) as named tensors.
    pub fn named(&self, values: &[f64]) -> Named {
        Named(
            self.layout
                .specs
                .iter()
                .map(|s| {
                    let data = values.get(s.offset..s.offset + s.len()).unwrap_or(&[]).to_vec();
                    (s.name.clone(), Tensor { shape: s.shape.clone(), data })
                })
                .collect(),
        )
    }

    /// The parameters `offset .. offset + len`.
    pub fn slice(&self, offset: usize, len: usize) -> &[f64] {
        self.params.get(offset..offset + len).unwrap_or(&[])
    }
}
