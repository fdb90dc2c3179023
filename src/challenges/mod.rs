//! Challenges: the learner builds the head. A challenge is a starting scenario, the parts
//! the learner may edit, a [`Goal`] checked on the live trace, up to three hints and a
//! worked solution (the edits that meet the goal).
//!
//! Pure Rust, no web dependency, tested natively: [`builtin`] holds the built-in set, and
//! its tests run the engine on every start (goal not met) and every solution (goal met).
//! A challenge is serde, so a teacher can write one as JSON ([`Challenge::from_json`]).

use serde::{Deserialize, Serialize};

use crate::engine::{ExplicitWeights, MaskConfig, Positional, ProjectionKind, Projections, Scenario};

pub mod builtin;
mod digits;
pub mod goal;
pub mod induction;
pub mod training;

pub use goal::{Goal, Progress};

/// Most hints a challenge has.
pub const MAX_HINTS: usize = 3;
/// Largest d_model whose matrices a challenge may ask the learner to edit.
pub const MAX_EDIT_D_MODEL: usize = 4;

/// One of the four projection matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Matrix {
    /// W_Q.
    WQ,
    /// W_K.
    WK,
    /// W_V.
    WV,
    /// W_O.
    WO,
}

impl Matrix {
    /// All four, in the page's order.
    pub const ALL: [Matrix; 4] = [Matrix::WQ, Matrix::WK, Matrix::WV, Matrix::WO];

    /// The name on the page: "W_Q", …
    pub fn label(self) -> &'static str {
        match self {
            Matrix::WQ => "W_Q",
            Matrix::WK => "W_K",
            Matrix::WV => "W_V",
            Matrix::WO => "W_O",
        }
    }
}

/// What the learner may change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Editable {
    /// The words whose embeddings may be edited.
    #[serde(default)]
    pub embeddings: Vec<String>,
    /// The projection matrices that may be edited.
    #[serde(default)]
    pub matrices: Vec<Matrix>,
    /// The positions option may be switched.
    #[serde(default)]
    pub positions: bool,
    /// The mask settings may be changed.
    #[serde(default)]
    pub mask: bool,
}

/// One edit a learner can make (fields named as in the JSON).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case", deny_unknown_fields)]
pub enum Edit {
    /// Set a word's embedding.
    Embedding { word: String, vector: Vec<f64> },
    /// Set a whole projection matrix (row-major, `y = x @ W`).
    Matrix { matrix: Matrix, rows: Vec<Vec<f64>> },
    /// Set the positional encoding.
    Positions { positional: Positional },
    /// Set the mask.
    Mask { mask: MaskConfig },
}

/// One challenge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Challenge {
    /// Short id for the URL, `?challenge=ID`: lower-case letters, digits and `-`.
    pub id: String,
    /// Title.
    pub title: String,
    /// What to do and why it matters.
    pub story: String,
    /// The scenario the challenge starts from.
    pub scenario: Scenario,
    /// What may be edited.
    pub editable: Editable,
    /// What the attention must do.
    pub goal: Goal,
    /// Up to three hints, revealed one at a time.
    #[serde(default)]
    pub hints: Vec<String>,
    /// The worked solution: edits to the starting scenario that meet the goal.
    pub solution: Vec<Edit>,
    /// Why the solution works, shown with it.
    #[serde(default)]
    pub why: String,
}

/// The width of the keys and values, `h_kv · d_k`.
pub fn kv_width(s: &Scenario) -> usize {
    let h = s.n_heads.max(1);
    s.kv_heads() * (s.d_model / h)
}

/// The shape `(rows, cols)` of a matrix in scenario `s`.
pub fn matrix_shape(s: &Scenario, m: Matrix) -> (usize, usize) {
    match m {
        Matrix::WQ | Matrix::WO => (s.d_model, s.d_model),
        Matrix::WK | Matrix::WV => (s.d_model, kv_width(s)),
    }
}

/// The first `cols` columns of the `rows × rows` identity.
fn identity(rows: usize, cols: usize) -> Vec<Vec<f64>> {
    (0..rows).map(|i| (0..cols).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect()
}

/// The explicit weights a scenario uses, for the matrix editor: explicit ones as they are,
/// identity ones written out, seeded ones drawn.
pub fn explicit_weights(s: &Scenario) -> ExplicitWeights {
    let d = s.d_model;
    let kv = kv_width(s);
    match &s.projections {
        Projections::Explicit(e) => (**e).clone(),
        Projections::Named(ProjectionKind::Identity) => ExplicitWeights {
            w_q: identity(d, d),
            b_q: vec![],
            w_k: identity(d, kv),
            b_k: vec![],
            w_v: identity(d, kv),
            b_v: vec![],
            w_o: identity(d, d),
            b_o: vec![],
        },
        Projections::Named(ProjectionKind::Seeded) => {
            let w = crate::engine::weights::draw_seeded(s.seed, d, kv);
            let rows = |l: &crate::engine::weights::Linear| l.w().outer_iter().map(|r| r.to_vec()).collect();
            ExplicitWeights {
                w_q: rows(&w.q),
                b_q: vec![],
                w_k: rows(&w.k),
                b_k: vec![],
                w_v: rows(&w.v),
                b_v: vec![],
                w_o: rows(&w.o),
                b_o: vec![],
            }
        }
    }
}

/// The rows of matrix `m` in scenario `s`.
pub fn matrix_rows(s: &Scenario, m: Matrix) -> Vec<Vec<f64>> {
    let e = explicit_weights(s);
    match m {
        Matrix::WQ => e.w_q,
        Matrix::WK => e.w_k,
        Matrix::WV => e.w_v,
        Matrix::WO => e.w_o,
    }
}

/// `s` with one edit made. A matrix edit turns the projections into
/// [`Projections::Explicit`].
pub fn apply(s: &Scenario, edit: &Edit) -> Scenario {
    let mut s = s.clone();
    match edit {
        Edit::Embedding { word, vector } => {
            s.embeddings.insert(word.to_lowercase(), vector.clone());
        }
        Edit::Matrix { matrix, rows } => {
            let mut e = explicit_weights(&s);
            let slot = match matrix {
                Matrix::WQ => &mut e.w_q,
                Matrix::WK => &mut e.w_k,
                Matrix::WV => &mut e.w_v,
                Matrix::WO => &mut e.w_o,
            };
            *slot = rows.clone();
            s.projections = Projections::Explicit(Box::new(e));
        }
        Edit::Positions { positional } => s.positional = *positional,
        Edit::Mask { mask } => s.mask = *mask,
    }
    s
}

/// `s` with one entry of matrix `m` set: what one keystroke in the matrix editor does.
pub fn set_matrix_entry(s: &Scenario, m: Matrix, i: usize, j: usize, value: f64) -> Scenario {
    let mut rows = matrix_rows(s, m);
    if let Some(cell) = rows.get_mut(i).and_then(|r| r.get_mut(j)) {
        *cell = value;
    }
    apply(s, &Edit::Matrix { matrix: m, rows })
}

impl Challenge {
    /// The scenario with the worked solution's edits made.
    pub fn solved_scenario(&self) -> Scenario {
        self.solution.iter().fold(self.scenario.clone(), |s, e| apply(&s, e))
    }

    /// Reads and validates a challenge written as JSON.
    ///
    /// # Errors
    /// serde's message (line, column, what was expected), or what is wrong with it.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let c: Challenge = serde_json::from_str(text).map_err(|e| format!("not a challenge: {e}"))?;
        c.validate()?;
        Ok(c)
    }

    /// The challenge as pretty JSON, the format [`Challenge::from_json`] reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// Checks what serde cannot: the id, the hints, the sizes, and that the scenario runs.
    ///
    /// # Errors
    /// One sentence saying what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.id.is_empty()
            || self.id.len() > 40
            || !self.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(format!("id \"{}\": use 1 to 40 lower-case letters, digits and '-'", self.id));
        }
        if self.title.trim().is_empty() {
            return Err("the title is empty".into());
        }
        if self.hints.len() > MAX_HINTS {
            return Err(format!("{} hints: at most {MAX_HINTS}", self.hints.len()));
        }
        if !self.editable.matrices.is_empty() && self.scenario.d_model > MAX_EDIT_D_MODEL {
            return Err(format!(
                "matrices are editable only when d_model ≤ {MAX_EDIT_D_MODEL} (this one has {})",
                self.scenario.d_model
            ));
        }
        if self.scenario.sentences.len() > 4
            || self.scenario.sentences.iter().any(|s| s.split_whitespace().count() > 12)
        {
            return Err("keep a challenge small: at most 4 sentences of at most 12 words".into());
        }
        crate::engine::run(&self.scenario).map_err(|e| format!("the scenario does not run: {e}"))?;
        Ok(())
    }
}

/// The URL fragment key that carries a whole challenge: `#c=1.<base64url(deflate(json))>`,
/// the codec of [`crate::link`].
pub const LINK_KEY: &str = "c";

/// The fragment that carries `c`, e.g. `#c=1.…`.
pub fn link_fragment(c: &Challenge) -> String {
    use base64::Engine as _;
    let json = serde_json::to_string(c).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!(
        "#{LINK_KEY}={}.{}",
        crate::link::VERSION,
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed)
    )
}

/// The challenge in a URL fragment written by [`link_fragment`], if the fragment has one.
///
/// # Errors
/// What is wrong with the data, in one sentence.
pub fn from_link_fragment(fragment: &str) -> Option<Result<Challenge, String>> {
    use base64::Engine as _;
    let data = fragment
        .trim_start_matches('#')
        .split('&')
        .find_map(|p| p.strip_prefix(LINK_KEY).and_then(|r| r.strip_prefix('=')))?;
    Some((|| {
        let body = data
            .strip_prefix(crate::link::VERSION)
            .and_then(|r| r.strip_prefix('.'))
            .ok_or("the challenge link has an unknown version")?;
        let packed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| "the challenge link is damaged (not base64url)")?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, crate::link::MAX_DECODED)
            .map_err(|_| "the challenge link is damaged (bad compressed data)")?;
        let text = String::from_utf8(json).map_err(|_| "the challenge link is not UTF-8 text")?;
        Challenge::from_json(&text)
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_edit_turns_identity_explicit_and_keeps_the_rest() {
        let s = Scenario::identity(&["a b"], 2, 1);
        let t = set_matrix_entry(&s, Matrix::WQ, 0, 1, 3.0);
        let e = explicit_weights(&t);
        assert_eq!(e.w_q, vec![vec![1.0, 3.0], vec![0.0, 1.0]]);
        assert_eq!(e.w_k, identity(2, 2));
        assert!(crate::engine::run(&t).is_ok());
        // Out of range: nothing changes but the form.
        let u = set_matrix_entry(&s, Matrix::WK, 5, 5, 3.0);
        assert_eq!(explicit_weights(&u).w_k, identity(2, 2));
    }

    #[test]
    fn the_readme_example_reads_and_its_solution_works() {
        let readme = include_str!("../../README.md");
        let section = readme.split("## Challenges").nth(1).expect("README has a Challenges section");
        let json = section.split("```json").nth(1).and_then(|r| r.split("```").next()).expect("an example");
        let c = Challenge::from_json(json).unwrap();
        assert!(!c.goal.check(&crate::engine::run(&c.scenario).unwrap()).met);
        assert!(c.goal.check(&crate::engine::run(&c.solved_scenario()).unwrap()).met);
    }

    #[test]
    fn link_round_trip() {
        let c = builtin::all().pop().unwrap();
        let f = link_fragment(&c);
        assert!(f.starts_with("#c=1."));
        assert_eq!(from_link_fragment(&f), Some(Ok(c)));
        assert_eq!(from_link_fragment("#s=1.abc"), None);
        assert!(from_link_fragment("#c=1.!!").unwrap().is_err());
    }

    #[test]
    fn grouped_key_matrices_are_narrow() {
        let mut s = Scenario::identity(&["a b"], 4, 2);
        s.n_kv_heads = Some(1);
        assert_eq!(matrix_shape(&s, Matrix::WK), (4, 2));
        assert_eq!(matrix_rows(&s, Matrix::WV).len(), 4);
        assert_eq!(matrix_rows(&s, Matrix::WV)[0].len(), 2);
    }

    #[test]
    fn json_round_trip_and_clear_errors() {
        for c in builtin::all() {
            let back = Challenge::from_json(&c.to_json()).unwrap();
            assert_eq!(back, c);
        }
        let e = Challenge::from_json("{\"id\": 3}").unwrap_err();
        assert!(e.starts_with("not a challenge"), "{e}");
        let mut c = builtin::all().remove(0);
        c.id = "Bad Id".into();
        assert!(Challenge::from_json(&c.to_json()).unwrap_err().contains("id"));
        let mut c = builtin::all().remove(0);
        c.hints = vec!["a".into(); 4];
        assert!(Challenge::from_json(&c.to_json()).unwrap_err().contains("hints"));
        let mut c = builtin::all().remove(0);
        c.scenario.n_heads = 2;
        assert!(Challenge::from_json(&c.to_json()).unwrap_err().contains("does not run"));
    }
}
