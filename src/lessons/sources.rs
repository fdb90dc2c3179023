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

/// A paper or model report the later lessons quote (a model's sizes, a method's rule),
/// with a link a reader can follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paper {
    /// The title, or the model it reports.
    pub name: &'static str,
    /// Where it is.
    pub url: &'static str,
    /// What the lessons take from it.
    pub contributes: &'static str,
}

/// The papers, in the order the lessons first use them.
pub const PAPERS: &[Paper] = &[
    Paper {
        name: "Vaswani et al., Attention Is All You Need (2017)",
        url: "https://arxiv.org/abs/1706.03762",
        contributes: "scaled dot-product attention, multi-head attention and the sinusoidal PE (§3.5)",
    },
    Paper {
        name: "Su et al., RoFormer (2021)",
        url: "https://arxiv.org/abs/2104.09864",
        contributes: "RoPE, rotary position embedding",
    },
    Paper {
        name: "Touvron et al., LLaMA (2023) and Llama 2 (2023)",
        url: "https://arxiv.org/abs/2307.09288",
        contributes:
            "the Llama models' sizes (Llama 2 7B: 32 layers, 32 heads of d_k = 128, 4,096 tokens of context)",
    },
    Paper {
        name: "Ainslie et al., GQA (2023)",
        url: "https://arxiv.org/abs/2305.13245",
        contributes: "grouped-query attention, h_kv key/value heads shared by groups of query heads",
    },
    Paper {
        name: "Jiang et al., Mistral 7B (2023)",
        url: "https://arxiv.org/abs/2310.06825",
        contributes: "the sliding window W = 4096 (Mistral 7B v0.1) and its reach over 32 layers",
    },
    Paper {
        name: "Press et al., Train Short, Test Long: ALiBi (2021)",
        url: "https://arxiv.org/abs/2108.12409",
        contributes: "ALiBi's bias m·(j − i) and its slopes 2^(−8k/h)",
    },
    Paper {
        name: "BigScience, BLOOM (2022)",
        url: "https://arxiv.org/abs/2211.05100",
        contributes: "a model trained with ALiBi; its code adds m·j",
    },
    Paper {
        name: "MosaicML, MPT-7B (2023)",
        url: "https://www.databricks.com/blog/mpt-7b",
        contributes: "a model trained with ALiBi",
    },
    Paper {
        name: "Dao et al., FlashAttention (2022) and FlashAttention-2 (2023)",
        url: "https://arxiv.org/abs/2307.08691",
        contributes: "tiles, the online softmax, skipped causal tiles, and zeros for a fully blocked row",
    },
];

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
    fn every_paper_has_a_link_a_reader_can_follow() {
        for p in PAPERS {
            assert!(
                p.url.starts_with("https://") && !p.name.is_empty() && !p.contributes.is_empty(),
                "{p:?}"
            );
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
