//! The embeddings, `x` and `x_kv`: where a token's vector came from (the scenario, the
//! lexicon, the word's hash, or `<pad>`), recomputed where it can be.

use super::explanation::{ExplainError, Explanation, Kind};
use super::read::three;
use super::write::{comma, plain, py, tex};
use super::Explainer;
use crate::embedding::{self, Source};
use crate::step::StepName;

impl Explainer<'_> {
    /// `x`, `x_kv`: a looked-up embedding.
    pub(super) fn embedding(&self) -> Result<Explanation, ExplainError> {
        let [b, t, c] = three(self.index)?;
        let keys = self.step == StepName::XKv;
        let tokens = if keys { self.trace.key_tokens(b) } else { self.trace.query_tokens(b) };
        let text = tokens.get(t).cloned().unwrap_or_default();
        let sources = if keys { self.trace.kv_sources.as_ref() } else { Some(&self.trace.sources) };
        let source = sources.and_then(|s| s.get(b)).and_then(|row| row.get(t)).copied();
        let d_model = self.d_model();
        let key = text.to_lowercase();
        let feature = self.trace.feature_names.as_ref().and_then(|f| f.get(c)).map(|f| f.as_ref());
        let name = self.step.as_str();
        let mut notes = vec![format!("Token {t} of sentence {b} is “{text}”.")];
        let (label, recomputed) = match source {
            Some(Source::Explicit) => {
                notes.push(format!("Its vector is the scenario's own embedding for “{key}” (embeddings are matched without case)."));
                (format!("embeddings[\"{key}\"][{c}]"), None)
            }
            Some(Source::Lexicon) => {
                notes.push(format!(
                    "Its vector comes from the built-in {d_model}-dimensional lexicon, where each dimension has a name."
                ));
                let v = embedding::lexicon(d_model).and_then(|l| l.get(&key)).and_then(|v| v.get(c)).copied();
                (format!("lexicon[\"{key}\"][{c}]"), v)
            }
            Some(Source::Hashed) => {
                notes.push(format!(
                    "No embedding or lexicon entry has “{key}”, so its vector is derived from the word itself: a ChaCha8 stream seeded with the FNV-1a hash of “{key}” and d_model = {d_model}, rounded to two decimals (the same on every machine)."
                ));
                (
                    format!("hashed_vector(\"{key}\", {d_model})[{c}]"),
                    embedding::hashed_vector(&key, d_model).get(c).copied(),
                )
            }
            Some(Source::Pad) => {
                notes.push(
                    "It is padding added to make the sentences equally long: `<pad>` is the zero vector."
                        .into(),
                );
                ("<pad> = 0".into(), Some(0.0))
            }
            None => {
                notes.push("The trace does not say where this token's vector came from.".into());
                (format!("{name}[{}]", comma(self.index)), None)
            }
        };
        if let Some(f) = feature {
            notes.push(format!("Dimension {c} is named “{f}”."));
        }
        if let Some(r) = recomputed {
            self.check(r, &mut notes);
        }
        let tokens_name = if keys { "kv_tokens" } else { "tokens" };
        self.done(
            format!("{name}[b,t,c] = embedding(token[b,t])[c]"),
            Kind::Source { source },
            vec![plain(label, self.result)],
            notes,
            vec![],
            format!("embedding({tokens_name})[{}]", py(self.index)),
            format!(r"{} = \mathrm{{emb}}(\text{{{text}}})_{{{c}}} = {}", self.lhs(), tex(self.result)),
        )
    }
}
