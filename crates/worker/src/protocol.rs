//! The messages between the page and its engine worker, as types: the page posts a
//! [`Request`], the worker posts a [`Reply`]. Each side encodes with `to_js` and decodes
//! with `from_js`, so a message's keys are written in this file only.
//!
//! | message | JS object |
//! |---|---|
//! | [`Request::Compute`] | `{id, scenario_json}` |
//! | [`Request::Warm`] | `{warm: scenario_json}` |
//! | [`Request::Recycle`] | `{recycle: [ArrayBuffer, …]}` (transferred) |
//! | [`Reply::Ready`] | `{ready: true}` |
//! | [`Reply::Trace`] | `{id, meta, data: [Float64Array, …], blocked: Uint8Array, times}` (buffers transferred) |
//! | [`Reply::Error`] | `{id, error, field, times}` |
//! | [`TrainRequest::Start`] | `{id, train: config_json}` |
//! | [`TrainRequest::Steps`] | `{id, train_steps: N}` |
//! | [`TrainRequest::Checkpoint`] | `{id, train_checkpoint: step}` |
//! | [`TrainRequest::Gradient`] | `{id, train_gradient: {name, i, j}}` |
//! | [`TrainReply::Progress`] | `{id, training: progress_json}` |
//! | [`TrainReply::Checkpoint`] | `{id, checkpoint: checkpoint_json}` |
//! | [`TrainReply::Gradient`] | `{id, gradient: gradient_json}` |
//! | [`TrainReply::Error`] | `{id, training_error}` |
//! | [`ExportRequest`] | `{id, export: "script" \| "notebook", scenario_json}` |
//! | [`ExportReply::Text`] | `{id, export_text}` |
//! | [`ExportReply::Error`] | `{id, export_error}` |
//!
//! Training has its own two types, so code that handles only traces matches on
//! [`Request`] and [`Reply`] as before; [`Reply::from_js`] returns `None` for a training
//! reply (read it with [`TrainReply::from_js`]). The Python export ([`ExportRequest`],
//! [`ExportReply`]) is the same: the page asks a worker of its own for the file's text, so
//! the export writer is not in the page's wasm.
//!
//! The buffers are JS objects ([`js_sys`]), so encoding and decoding run in a browser
//! only; what they carry is tested natively in the crate's library ([`crate::split`],
//! [`crate::join`], [`crate::RunError`]).

use attention_engine::error::Field;
use js_sys::{Array, ArrayBuffer, Float64Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

use crate::RunError;

const ID: &str = "id";
const SCENARIO_JSON: &str = "scenario_json";
const WARM: &str = "warm";
const RECYCLE: &str = "recycle";
const READY: &str = "ready";
const META: &str = "meta";
const DATA: &str = "data";
const BLOCKED: &str = "blocked";
const TIMES: &str = "times";
const ERROR: &str = "error";
const FIELD: &str = "field";
const TRAIN: &str = "train";
const TRAIN_STEPS: &str = "train_steps";
const TRAINING: &str = "training";
const TRAINING_ERROR: &str = "training_error";
const TRAIN_CHECKPOINT: &str = "train_checkpoint";
const TRAIN_GRADIENT: &str = "train_gradient";
const GRADIENT: &str = "gradient";
const CHECKPOINT: &str = "checkpoint";
const EXPORT: &str = "export";
const EXPORT_TEXT: &str = "export_text";
const EXPORT_ERROR: &str = "export_error";

/// The worker's clock (ms since the epoch, sub-millisecond) at three moments of a
/// request; the page marks them (`al-worker-received`, `-computed`, `-sent`) for the
/// benchmarks. Written as `[received, computed, sent]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Times {
    /// When the request arrived.
    pub received: f64,
    /// When the engine was done.
    pub computed: f64,
    /// When the answer left.
    pub sent: f64,
}

/// What the page posts to the worker.
#[derive(Debug, Clone)]
pub enum Request {
    /// Compute this scenario and answer with its trace.
    Compute {
        /// The request's number: the answer carries it back.
        id: u64,
        /// The scenario, as JSON.
        scenario_json: String,
    },
    /// Compute this scenario and answer nothing: the worker's first run is its slow one.
    Warm {
        /// The scenario, as JSON.
        scenario_json: String,
    },
    /// An answer's buffers, read and sent back, for the worker to fill again.
    Recycle {
        /// The buffers (transferred).
        buffers: Vec<ArrayBuffer>,
    },
}

/// What the worker posts to the page.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The worker can take requests (once).
    Ready,
    /// A request's trace, taken apart ([`crate::Parts`], as JS buffers).
    Trace {
        /// The request's number.
        id: u64,
        /// [`crate::Parts::meta`].
        meta: String,
        /// Each step's numbers (transferred).
        data: Vec<Float64Array>,
        /// The mask, one byte per cell (transferred).
        blocked: Uint8Array,
        /// The worker's clock.
        times: Times,
    },
    /// A request's engine error, with the control it is about.
    Error {
        /// The request's number.
        id: u64,
        /// The engine's error.
        error: RunError,
        /// The worker's clock.
        times: Times,
    },
}

fn set(o: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(key), value);
}

/// A message of two keys: the request's number `id`, and `key` holding `value`.
fn numbered(id: u64, key: &str, value: &JsValue) -> JsValue {
    let o = Object::new();
    set(&o, ID, &JsValue::from_f64(id as f64));
    set(&o, key, value);
    o.into()
}

fn get(msg: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(msg, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

fn get_string(msg: &JsValue, key: &str) -> Option<String> {
    get(msg, key).and_then(|v| v.as_string())
}

fn get_id(msg: &JsValue) -> Option<u64> {
    get(msg, ID).and_then(|v| v.as_f64()).map(|x| x as u64)
}

impl Times {
    fn to_js(self) -> JsValue {
        Array::of3(&self.received.into(), &self.computed.into(), &self.sent.into()).into()
    }

    fn from_js(v: Option<JsValue>) -> Self {
        let Some(a) = v.and_then(|v| v.dyn_into::<Array>().ok()) else { return Self::default() };
        let at = |i: u32| a.get(i).as_f64().unwrap_or(0.0);
        Self { received: at(0), computed: at(1), sent: at(2) }
    }
}

impl Request {
    /// The message as the page posts it.
    pub fn to_js(&self) -> JsValue {
        let o = Object::new();
        match self {
            Self::Compute { id, scenario_json } => {
                set(&o, ID, &JsValue::from_f64(*id as f64));
                set(&o, SCENARIO_JSON, &JsValue::from_str(scenario_json));
            }
            Self::Warm { scenario_json } => set(&o, WARM, &JsValue::from_str(scenario_json)),
            Self::Recycle { buffers } => set(&o, RECYCLE, &Self::buffers(buffers)),
        }
        o.into()
    }

    /// The buffers to transfer with the message (none but a recycle's).
    pub fn transfer(&self) -> Array {
        match self {
            Self::Recycle { buffers } => Self::buffers(buffers),
            _ => Array::new(),
        }
    }

    fn buffers(buffers: &[ArrayBuffer]) -> Array {
        buffers.iter().collect()
    }

    /// The message the worker received, if it is one.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        if let Some(scenario_json) = get_string(msg, WARM) {
            return Some(Self::Warm { scenario_json });
        }
        if let Some(buffers) = get(msg, RECYCLE).and_then(|b| b.dyn_into::<Array>().ok()) {
            let buffers = buffers.iter().filter_map(|b| b.dyn_into::<ArrayBuffer>().ok()).collect();
            return Some(Self::Recycle { buffers });
        }
        Some(Self::Compute { id: get_id(msg)?, scenario_json: get_string(msg, SCENARIO_JSON)? })
    }
}

impl Reply {
    /// The message as the worker posts it.
    pub fn to_js(&self) -> JsValue {
        let o = Object::new();
        match self {
            Self::Ready => set(&o, READY, &JsValue::TRUE),
            Self::Trace { id, meta, data, blocked, times } => {
                set(&o, ID, &JsValue::from_f64(*id as f64));
                set(&o, META, &JsValue::from_str(meta));
                set(&o, DATA, &data.iter().collect::<Array>());
                set(&o, BLOCKED, blocked);
                set(&o, TIMES, &times.to_js());
            }
            Self::Error { id, error, times } => {
                set(&o, ID, &JsValue::from_f64(*id as f64));
                set(&o, ERROR, &JsValue::from_str(error.message()));
                set(&o, FIELD, &JsValue::from_str(error.field().as_str()));
                set(&o, TIMES, &times.to_js());
            }
        }
        o.into()
    }

    /// The buffers to transfer with the message: a trace's numbers and mask.
    pub fn transfer(&self) -> Array {
        let transfer = Array::new();
        if let Self::Trace { data, blocked, .. } = self {
            for a in data {
                transfer.push(&a.buffer());
            }
            transfer.push(&blocked.buffer());
        }
        transfer
    }

    /// The message the page received, if it is one. An error whose field is unknown is
    /// about the scenario as a whole.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        if get(msg, READY).is_some_and(|v| v.is_truthy()) {
            return Some(Self::Ready);
        }
        if [TRAINING, TRAINING_ERROR, CHECKPOINT, EXPORT_TEXT, EXPORT_ERROR]
            .iter()
            .any(|key| get(msg, key).is_some())
        {
            return None;
        }
        let id = get_id(msg)?;
        let times = Times::from_js(get(msg, TIMES));
        if let Some(message) = get_string(msg, ERROR) {
            let field = get_string(msg, FIELD).and_then(|f| Field::from_name(&f)).unwrap_or(Field::Scenario);
            return Some(Self::Error { id, error: RunError::new(field, message), times });
        }
        let data = get(msg, DATA)
            .and_then(|d| d.dyn_into::<Array>().ok())
            .map(|d| d.iter().filter_map(|a| a.dyn_into::<Float64Array>().ok()).collect())
            .unwrap_or_default();
        let blocked = get(msg, BLOCKED)
            .and_then(|b| b.dyn_into::<Uint8Array>().ok())
            .unwrap_or_else(|| Uint8Array::new_with_length(0));
        Some(Self::Trace { id, meta: get_string(msg, META).unwrap_or_default(), data, blocked, times })
    }
}

/// What the page posts to train (see [`crate::train`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrainRequest {
    /// Start a training run (replacing any before it); the answer is its state at step 0.
    Start {
        /// The request's number.
        id: u64,
        /// The `attention_engine::train::TrainConfig`, as JSON.
        config_json: String,
    },
    /// Take this many more steps of the run (none past its configured `steps`).
    Steps {
        /// The request's number.
        id: u64,
        /// How many steps.
        steps: usize,
    },
    /// Show the model as it was after `step` steps (at most the steps done).
    Checkpoint {
        /// The request's number.
        id: u64,
        /// The step.
        step: usize,
    },
    /// Explain the weight cell `name[i, j]`'s gradient on the probe batch now.
    Gradient {
        /// The request's number.
        id: u64,
        /// The parameter (`layers[l].W_Q`, …, `W_U`).
        name: String,
        /// Its row.
        i: usize,
        /// Its column.
        j: usize,
    },
}

/// What the worker posts back to a [`TrainRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrainReply {
    /// The steps taken and the model on the probe: [`crate::train::progress_json`].
    Progress {
        /// The request's number.
        id: u64,
        /// The progress, as JSON.
        progress_json: String,
    },
    /// A checkpoint on the probe: [`crate::train::checkpoint_json`].
    Checkpoint {
        /// The request's number.
        id: u64,
        /// The checkpoint, as JSON.
        checkpoint_json: String,
    },
    /// A gradient cell explained: [`crate::train::gradient_json`].
    Gradient {
        /// The request's number.
        id: u64,
        /// The cell, as JSON.
        gradient_json: String,
    },
    /// A bad configuration (the message names the field), or steps asked for before a run
    /// was started.
    Error {
        /// The request's number.
        id: u64,
        /// What is wrong.
        error: String,
    },
}

impl TrainRequest {
    /// The message as the page posts it: the run's number and one key, which says what
    /// is asked.
    pub fn to_js(&self) -> JsValue {
        let (id, key, value) = match self {
            Self::Start { id, config_json } => (id, TRAIN, JsValue::from_str(config_json)),
            Self::Steps { id, steps } => (id, TRAIN_STEPS, JsValue::from_f64(*steps as f64)),
            Self::Checkpoint { id, step } => (id, TRAIN_CHECKPOINT, JsValue::from_f64(*step as f64)),
            Self::Gradient { id, name, i, j } => {
                let cell = Object::new();
                set(&cell, "name", &JsValue::from_str(name));
                set(&cell, "i", &JsValue::from_f64(*i as f64));
                set(&cell, "j", &JsValue::from_f64(*j as f64));
                (id, TRAIN_GRADIENT, cell.into())
            }
        };
        numbered(*id, key, &value)
    }

    /// The training message the worker received, if it is one.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        if let Some(config_json) = get_string(msg, TRAIN) {
            return Some(Self::Start { id: get_id(msg)?, config_json });
        }
        if let Some(step) = get(msg, TRAIN_CHECKPOINT).and_then(|s| s.as_f64()) {
            return Some(Self::Checkpoint { id: get_id(msg)?, step: step.max(0.0) as usize });
        }
        if let Some(cell) = get(msg, TRAIN_GRADIENT).filter(|c| c.is_object()) {
            let index = |key| get(&cell, key).and_then(|v| v.as_f64()).map_or(0, |v| v.max(0.0) as usize);
            let name = get_string(&cell, "name").unwrap_or_default();
            return Some(Self::Gradient { id: get_id(msg)?, name, i: index("i"), j: index("j") });
        }
        let steps = get(msg, TRAIN_STEPS)?.as_f64()?;
        Some(Self::Steps { id: get_id(msg)?, steps: steps.max(0.0) as usize })
    }
}

impl TrainReply {
    /// The message as the worker posts it: the run's number and one key, which says what
    /// the JSON text is.
    pub fn to_js(&self) -> JsValue {
        let (id, key, text) = match self {
            Self::Progress { id, progress_json } => (id, TRAINING, progress_json),
            Self::Checkpoint { id, checkpoint_json } => (id, CHECKPOINT, checkpoint_json),
            Self::Gradient { id, gradient_json } => (id, GRADIENT, gradient_json),
            Self::Error { id, error } => (id, TRAINING_ERROR, error),
        };
        numbered(*id, key, &JsValue::from_str(text))
    }

    /// The training reply the page received, if it is one.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        let id = get_id(msg)?;
        if let Some(progress_json) = get_string(msg, TRAINING) {
            return Some(Self::Progress { id, progress_json });
        }
        if let Some(checkpoint_json) = get_string(msg, CHECKPOINT) {
            return Some(Self::Checkpoint { id, checkpoint_json });
        }
        if let Some(gradient_json) = get_string(msg, GRADIENT) {
            return Some(Self::Gradient { id, gradient_json });
        }
        Some(Self::Error { id, error: get_string(msg, TRAINING_ERROR)? })
    }
}

/// Which file the Python export writes: `attention_export::python_script` or
/// `attention_export::notebook`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// The script (`attention_lens.py`).
    Script,
    /// The Jupyter notebook (`attention_lens.ipynb`).
    Notebook,
}

impl ExportKind {
    /// The message's `export` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Script => "script",
            Self::Notebook => "notebook",
        }
    }

    /// The kind an `export` value names.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Script, Self::Notebook].into_iter().find(|k| k.as_str() == name)
    }
}

/// What the page posts for a Python export: the worker runs the scenario and writes the
/// file ([`crate::export`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRequest {
    /// The request's number.
    pub id: u64,
    /// Which file.
    pub kind: ExportKind,
    /// The scenario, as JSON.
    pub scenario_json: String,
}

/// What the worker posts back to an [`ExportRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportReply {
    /// The file's text.
    Text {
        /// The request's number.
        id: u64,
        /// The file.
        text: String,
    },
    /// Why the file could not be written (the engine's error, or the export's refusal).
    Error {
        /// The request's number.
        id: u64,
        /// What is wrong.
        error: String,
    },
}

impl ExportRequest {
    /// The message as the page posts it.
    pub fn to_js(&self) -> JsValue {
        let msg = numbered(self.id, EXPORT, &JsValue::from_str(self.kind.as_str()));
        let _ =
            Reflect::set(&msg, &JsValue::from_str(SCENARIO_JSON), &JsValue::from_str(&self.scenario_json));
        msg
    }

    /// The export request the worker received, if it is one.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        let kind = ExportKind::from_name(&get_string(msg, EXPORT)?)?;
        Some(Self { id: get_id(msg)?, kind, scenario_json: get_string(msg, SCENARIO_JSON)? })
    }
}

impl ExportReply {
    /// The message as the worker posts it.
    pub fn to_js(&self) -> JsValue {
        match self {
            Self::Text { id, text } => numbered(*id, EXPORT_TEXT, &JsValue::from_str(text)),
            Self::Error { id, error } => numbered(*id, EXPORT_ERROR, &JsValue::from_str(error)),
        }
    }

    /// The export reply the page received, if it is one.
    pub fn from_js(msg: &JsValue) -> Option<Self> {
        let id = get_id(msg)?;
        if let Some(text) = get_string(msg, EXPORT_TEXT) {
            return Some(Self::Text { id, text });
        }
        Some(Self::Error { id, error: get_string(msg, EXPORT_ERROR)? })
    }
}
