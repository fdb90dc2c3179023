//! "Take it to Python": a run written out as one self-contained Python script
//! ([`python_script`]) or Jupyter notebook ([`notebook`]).
//!
//! The file holds everything the run used: the tokens, each distinct token's embedding,
//! every weight and bias (seeded ones drawn out, so nothing depends on our RNG), the mask
//! settings and the positional setting. From those it recomputes every step in NumPy, one
//! commented block per step with the page's step names and the PyTorch line, builds the
//! mask itself from the lengths (it does not copy ours), then runs the same pipeline in
//! PyTorch the way the tutorials write it (`view`, `transpose(1, 2)`, `masked_fill`,
//! `softmax(dim=-1)`) when `import torch` works. Last, it checks every step against the
//! page's numbers (`EXPECTED`) and ends with the line `N passed, M failed`; the script
//! exits non-zero if anything failed.
//!
//! Numbers are written with Rust's shortest round-trip formatting (`{:?}`), so they read
//! back bit for bit. Arrays of more than [`LITERAL_LIMIT`] numbers are written as a block
//! of text read by `numbers("""…""")` instead of a list literal: Python compiles a list
//! literal of a million floats in tens of seconds and gigabytes, a string in no time.
//!
//! The files: [`python_script`] (`script.rs`) and [`notebook`] (`notebook.rs`) write the same
//! sections (`sections.rs`, in order): the scenario in words (`words.rs`), the NumPy steps
//! (`numpy.rs`), decoding and the online softmax (`decoding.rs`), the PyTorch model
//! (`torch.rs`), multi-head latent attention's weights, steps and decoding (`latent.rs`) and
//! the page's numbers and the check (`check.rs`); Python values (strings,
//! numbers, arrays, weights) are written by `values.rs`.

mod check;
mod decoding;
mod latent;
mod layers;
mod notebook;
mod numpy;
mod script;
mod sections;
mod torch;
mod values;
mod words;

pub use notebook::notebook;

use attention_engine::scenario::Scenario;
pub use script::python_script;

/// Why `scenario` cannot be exported, if it cannot: the files write multi-head latent
/// attention for one layer only, so a run of more than one MLA layer is refused by name
/// rather than written half.
pub fn refusal(scenario: &Scenario) -> Option<String> {
    let n = scenario.layers();
    (n > 1 && scenario.mla.is_some()).then(|| {
        format!(
            "n_layers = {n} with multi-head latent attention: the Python export writes MLA for one layer; \
             set n_layers to 1 (or turn mla off) to take the run to Python"
        )
    })
}

/// Arrays with more numbers than this are written as a text block, not a list literal.
pub const LITERAL_LIMIT: usize = 16_384;

/// Relative tolerance of the script's check.
pub const RTOL: f64 = 1e-9;
/// Absolute floor of the script's check, times the step's largest magnitude (at least 1).
pub const ATOL: f64 = 1e-12;

/// One part of the file: words (comments in the script, a markdown cell in the notebook)
/// and the code after them.
struct Section {
    heading: String,
    /// Paragraphs, lightly marked up (backticks around code).
    prose: Vec<String>,
    code: String,
}

impl Section {
    fn new(heading: impl Into<String>, prose: Vec<String>, code: String) -> Self {
        Self { heading: heading.into(), prose, code }
    }
}

/// Where the sections go: the script ends with `sys.exit`, the notebook with an assert.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Script,
    Notebook,
}

/// The scenarios and readers the tests of this module share.
#[cfg(test)]
mod fixtures {
    use attention_engine::scenario::{
        Fill, MaskConfig, Padding, Positional, ProjectionKind, Projections, Scenario,
    };
    use attention_engine::Trace;

    pub(super) fn bat(fill: Fill) -> Scenario {
        let mut s = Scenario::identity(&["I bought a baseball bat", "the bat flew"], 3, 1);
        s.embeddings.insert("baseball".into(), vec![2.0, 0.0, 0.0]);
        s.embeddings.insert("bat".into(), vec![1.0, 1.0, 0.0]);
        s.mask = MaskConfig { causal: true, padding: Padding::KeysAndQueries, fill, ..MaskConfig::default() };
        s
    }

    /// [`bat`] and its trace.
    pub(super) fn bat_trace(fill: Fill) -> (Scenario, Trace) {
        let s = bat(fill);
        let trace = attention_engine::run(&s).unwrap();
        (s, trace)
    }

    /// Fails on the first of `parts` that `text` lacks, naming it.
    #[track_caller]
    pub(super) fn assert_contains_all(text: &str, parts: &[&str]) {
        for part in parts {
            assert!(text.contains(part), "missing: {part}");
        }
    }

    pub(super) fn seeded_cross() -> Scenario {
        let mut s = Scenario::identity(&["the cat sat down today", "dogs run"], 4, 2);
        s.kv_sentences =
            Some(vec!["le chat s'est assis".into(), "les chiens courent vite dans le parc".into()]);
        s.projections = Projections::Named(ProjectionKind::Seeded);
        s.seed = 3;
        s.positional = Positional::Sinusoidal;
        s.mask = MaskConfig {
            causal: true,
            padding: Padding::KeysAndQueries,
            fill: Fill::NegInf,
            ..MaskConfig::default()
        };
        s
    }

    /// The numbers of `name = np.array([...]).reshape(...)` or `numbers("""...""")`.
    pub(super) fn parse_array(script: &str, name: &str) -> Vec<f64> {
        let start =
            script.find(&format!("{name} = ")).unwrap_or_else(|| panic!("no {name}")) + name.len() + 3;
        let rest = &script[start..];
        let (body, text) = if let Some(r) = rest.strip_prefix("np.array([") {
            (&r[..r.find("]).reshape(").unwrap()], false)
        } else {
            let r = rest.strip_prefix("numbers(\"\"\"").unwrap();
            (&r[..r.find("\"\"\")").unwrap()], true)
        };
        let sep = |c: char| if text { c.is_whitespace() } else { c == ',' || c.is_whitespace() };
        body.split(sep)
            .filter(|t| !t.is_empty())
            .map(|t| match t {
                "float('nan')" | "nan" => f64::NAN,
                "float('-inf')" | "-inf" => f64::NEG_INFINITY,
                "float('inf')" | "inf" => f64::INFINITY,
                _ => t.parse().unwrap_or_else(|_| panic!("{t:?} in {name}")),
            })
            .collect()
    }

    pub(super) fn same_bits(a: &[f64], b: impl Iterator<Item = f64>) -> bool {
        let b: Vec<f64> = b.collect();
        a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }
}
