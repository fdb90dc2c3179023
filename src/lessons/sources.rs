//! The four tutorials the lessons follow, named as their readers know them, and what each
//! contributes. The lessons' words name them by [`Source::name`]; the page's Sources list
//! reads [`SOURCES`].

/// One tutorial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// How the lessons name it in running text, e.g. "the baseball-bat tutorial".
    pub name: &'static str,
    /// Who wrote it, or where it appeared.
    pub by: &'static str,
    /// What the lessons take from it.
    pub contributes: &'static str,
}

/// The Annotated Transformer walkthrough: the sinusoidal positional encoding,
/// `masked_fill(mask == 0, -1e9)`, the `(B, h, T, d_k)` view and transpose.
pub const ANNOTATED: Source = Source {
    name: "the Annotated Transformer",
    by: "Harvard NLP's line-by-line walk through \"Attention Is All You Need\"",
    contributes: "the sinusoidal positional encoding, masks as mask == 0 = blocked filled with -1e9, \
                  and the view + transpose(1, 2) that splits d_model into heads",
};

/// The masterclass chapter on scaled dot-product attention.
pub const MASTERCLASS: Source = Source {
    name: "the Masterclass chapter",
    by: "a Transformer masterclass, its chapter on scaled dot-product attention",
    contributes: "scaled dot-product attention step by step, masks with True = blocked (as \
                  nn.MultiheadAttention), padding masks, and cross-attention's T_q × T_k weights",
};

/// Michael Gethers' multi-head attention article.
pub const MULTI_HEAD: Source = Source {
    name: "the multi-head attention article",
    by: "Michael Gethers, \"Multi-Head Attention\" (2026)",
    contributes: "why several heads, what W_O does, the parameter count, and the causal + padding \
                  mask table",
};

/// The "Attention for Transformers" blog post with its baseball-bat example.
pub const BASEBALL_BAT: Source = Source {
    name: "the baseball-bat tutorial",
    by: "the blog post \"Attention: For Transformers\"",
    contributes: "the 3-dimensional sports / animal / other embeddings of \"baseball bat\", its \
                  scores, weights and outputs, and encoder–decoder (cross) attention",
};

/// All four, in the order the lessons first use them.
pub const SOURCES: [Source; 4] = [BASEBALL_BAT, MULTI_HEAD, MASTERCLASS, ANNOTATED];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_are_named_as_readers_know_them_and_none_is_a_seed() {
        for s in SOURCES {
            assert!(s.name.starts_with("the ") && !s.contributes.is_empty() && !s.by.is_empty());
            assert!(!format!("{s:?}").to_lowercase().contains("seed"), "{s:?}");
        }
    }

    #[test]
    fn no_lesson_text_says_seed() {
        for lesson in crate::lessons::lessons() {
            assert!(!lesson.seeds.to_lowercase().contains("seed"), "{}: {}", lesson.id, lesson.seeds);
            for (i, step) in lesson.steps.iter().enumerate() {
                let trace = crate::engine::run(&step.scenario).unwrap();
                let mut text = (step.narrate)(&trace);
                if let Some(q) = step.quiz {
                    text += &(q.question)(&trace);
                }
                assert!(!text.to_lowercase().contains("seed"), "{} step {}: {text}", lesson.id, i + 1);
            }
        }
    }
}
