//! The four tutorials the lessons follow, named as their readers know them, and what each
//! contributes. The lessons' words name them by [`Source::name`]; the page's Sources list
//! reads [`SOURCES`].

/// One tutorial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// Its entry's id in the page's Sources list, which a step header links to.
    pub id: &'static str,
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
    id: "src-annotated",
    name: "the Annotated Transformer",
    by: "Harvard NLP's line-by-line walk through \"Attention Is All You Need\"",
    contributes: "the sinusoidal positional encoding, masks as mask == 0 = blocked filled with -1e9, \
                  and the view + transpose(1, 2) that splits d_model into heads",
};

/// The masterclass chapter on scaled dot-product attention.
pub const MASTERCLASS: Source = Source {
    id: "src-masterclass",
    name: "the Masterclass chapter",
    by:
        "a Transformer masterclass, its chapter that implements scaled dot-product attention in PyTorch (the \
         copy the lessons follow names no author and gives no address)",
    contributes: "scaled dot-product attention step by step, masks with True = blocked (as \
                  nn.MultiheadAttention), padding masks, and cross-attention's T_q × T_k weights",
};

/// Michael Gethers' multi-head attention article.
pub const MULTI_HEAD: Source = Source {
    id: "src-multi-head",
    name: "the multi-head attention article",
    by: "Michael Gethers, \"Multi-Head Attention\" (2026)",
    contributes: "why several heads, what W_O does, the parameter count, and the causal + padding \
                  mask table",
};

/// The "Attention for Transformers" blog post with its baseball-bat example.
pub const BASEBALL_BAT: Source = Source {
    id: "src-baseball-bat",
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
    /// Its entry's id in the page's Sources list, which a step header links to.
    pub id: &'static str,
    /// How the step headers name it ("Llama 3", "Qwen3"): each such name links to the entry.
    pub cited_as: &'static [&'static str],
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
        id: "paper-vaswani",
        cited_as: &["Attention Is All You Need §3.5", "Attention Is All You Need"],
        name: "Vaswani et al., Attention Is All You Need (2017)",
        url: "https://arxiv.org/abs/1706.03762",
        contributes: "scaled dot-product attention, multi-head attention and the sinusoidal PE (§3.5)",
    },
    Paper {
        id: "paper-roformer",
        cited_as: &["RoFormer"],
        name: "Su et al., RoFormer (2021)",
        url: "https://arxiv.org/abs/2104.09864",
        contributes: "RoPE, rotary position embedding",
    },
    Paper {
        id: "paper-llama-2",
        cited_as: &["Llama 2", "Llama"],
        name: "Touvron et al., LLaMA (2023) and Llama 2 (2023)",
        url: "https://arxiv.org/abs/2307.09288",
        contributes:
            "the Llama models' sizes (Llama 2 7B: 32 layers, 32 heads of d_k = 128, 4,096 tokens of context)",
    },
    Paper {
        id: "paper-gqa",
        cited_as: &["GQA"],
        name: "Ainslie et al., GQA (2023)",
        url: "https://arxiv.org/abs/2305.13245",
        contributes: "grouped-query attention, h_kv key/value heads shared by groups of query heads",
    },
    Paper {
        id: "paper-mistral",
        cited_as: &["Mistral"],
        name: "Jiang et al., Mistral 7B (2023)",
        url: "https://arxiv.org/abs/2310.06825",
        contributes: "the sliding window W = 4096 (Mistral 7B v0.1) and its reach over 32 layers",
    },
    Paper {
        id: "paper-alibi",
        cited_as: &["ALiBi"],
        name: "Press et al., Train Short, Test Long: ALiBi (2021)",
        url: "https://arxiv.org/abs/2108.12409",
        contributes: "ALiBi's bias m·(j − i) and its slopes 2^(−8k/h)",
    },
    Paper {
        id: "paper-bloom",
        cited_as: &["BLOOM"],
        name: "BigScience, BLOOM (2022)",
        url: "https://arxiv.org/abs/2211.05100",
        contributes: "a model trained with ALiBi; its code adds m·j",
    },
    Paper {
        id: "paper-mpt",
        cited_as: &["MPT"],
        name: "MosaicML, MPT-7B (2023)",
        url: "https://www.databricks.com/blog/mpt-7b",
        contributes: "a model trained with ALiBi",
    },
    Paper {
        id: "paper-flash",
        cited_as: &["FlashAttention"],
        name: "Dao et al., FlashAttention (2022) and FlashAttention-2 (2023)",
        url: "https://arxiv.org/abs/2307.08691",
        contributes: "tiles, the online softmax, skipped causal tiles, and zeros for a fully blocked row",
    },
    Paper {
        id: "paper-llama-3",
        cited_as: &["Llama 3"],
        name: "Llama Team, AI @ Meta, The Llama 3 Herd of Models (2024)",
        url: "https://arxiv.org/abs/2407.21783",
        contributes:
            "Llama 3 8B's attention: 32 layers of 32 query heads (d_model 4,096, so d_k = 128) that share \
                      8 key/value heads, grouped-query attention",
    },
    Paper {
        id: "paper-qwen2",
        cited_as: &["Qwen"],
        name: "Yang et al., Qwen2 Technical Report (2024)",
        url: "https://arxiv.org/abs/2407.10671",
        contributes:
            "Qwen's attention: grouped-query attention, fewer key/value heads than query heads to shrink \
                      the KV cache, and RoPE positions",
    },
    Paper {
        id: "paper-qwen3",
        cited_as: &["Qwen3"],
        name: "Qwen Team, Qwen3 Technical Report (2025)",
        url: "https://arxiv.org/abs/2505.09388",
        contributes:
            "QK-norm: each head's q and k RMS-normalised before the scores, for stable training (in place \
                      of Qwen2's QKV bias), beside grouped-query attention and RoPE",
    },
    Paper {
        id: "paper-gemma-2",
        cited_as: &["Gemma 2"],
        name: "Gemma Team, Gemma 2: Improving Open Language Models at a Practical Size (2024)",
        url: "https://arxiv.org/abs/2408.00118",
        contributes: "logit soft-capping, c·tanh(s / c) on the attention scores, with c = 50",
    },
    Paper {
        id: "paper-olsson",
        cited_as: &["Olsson et al. 2022"],
        name: "Olsson et al., In-context Learning and Induction Heads (2022)",
        url: "https://arxiv.org/abs/2209.11895",
        contributes: "induction heads, which complete [A][B] … [A] with [B]",
    },
    Paper {
        id: "paper-streaming-llm",
        cited_as: &["StreamingLLM (Xiao et al. 2023)", "StreamingLLM"],
        name: "Xiao et al., Efficient Streaming Language Models with Attention Sinks (2023)",
        url: "https://arxiv.org/abs/2309.17453",
        contributes:
            "attention sinks on the first tokens, and StreamingLLM, which keeps the first tokens' keys and \
                      values beside a sliding window",
    },
    Paper {
        id: "paper-gpt-oss",
        cited_as: &["gpt-oss"],
        name: "OpenAI, gpt-oss-120b & gpt-oss-20b Model Card (2025)",
        url: "https://arxiv.org/abs/2508.10925",
        contributes: "a learned sink logit per head, one more term in the softmax's denominator",
    },
    Paper {
        id: "paper-deepseek-v2",
        cited_as: &["DeepSeek-V2"],
        name: "DeepSeek-AI, DeepSeek-V2 (2024)",
        url: "https://arxiv.org/abs/2405.04434",
        contributes: "multi-head latent attention: keys and values from a small cached latent c_KV, and one \
                      decoupled RoPE key shared by every head",
    },
    Paper {
        id: "paper-deepseek-v3",
        cited_as: &["V3"],
        name: "DeepSeek-AI, DeepSeek-V3 Technical Report (2024)",
        url: "https://arxiv.org/abs/2412.19437",
        contributes:
            "multi-head latent attention at DeepSeek-V3's sizes, whose cache per token the MLA lesson \
                      compares",
    },
];

/// Where each source and paper a step header names is: `(start, end, id)` of every name
/// in `text` that [`SOURCES`] or a paper's `cited_as` gives, the longest name first at a
/// position, whole words only ("Llama" is not inside "Llama 3", "V3" not inside "DeepSeek-V3x").
pub fn citations(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut names: Vec<(&'static str, &'static str)> = SOURCES.iter().map(|s| (s.name, s.id)).collect();
    names.extend(PAPERS.iter().flat_map(|p| p.cited_as.iter().map(move |n| (*n, p.id))));
    names.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let found = (!word(text[..i].chars().next_back()))
            .then(|| {
                names
                    .iter()
                    .find(|(n, _)| names_at(&text[i..], n) && !word(text[i + n.len()..].chars().next()))
            })
            .flatten();
        match found {
            Some((n, id)) => {
                out.push((i, i + n.len(), *id));
                i += n.len();
            }
            None => i += text[i..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// Whether `text` starts with `name`, its first letter in either case ("The Masterclass
/// chapter" opens a sentence).
fn names_at(text: &str, name: &str) -> bool {
    let (Some(a), Some(b)) = (text.get(..1), name.get(..1)) else { return false };
    a.eq_ignore_ascii_case(b) && text.get(1..name.len()) == name.get(1..)
}

/// `text` cut into pieces, each with the id of the Sources entry it names, if it names
/// one ([`citations`]); joined, the pieces are `text`.
pub fn cited_pieces(text: &str) -> Vec<(&str, Option<&'static str>)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end, id) in citations(text) {
        if start > at {
            out.push((&text[at..start], None));
        }
        out.push((&text[start..end], Some(id)));
        at = end;
    }
    if at < text.len() {
        out.push((&text[at..], None));
    }
    out
}

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

    /// Every source a step header names links to its entry: the lessons' `seeds`, with
    /// the links taken out, leave only joining words ("and", "'s attention", …), and each
    /// link's id is an entry of the Sources list.
    #[test]
    fn every_source_a_header_names_links_to_its_entry() {
        let ids: Vec<&str> = SOURCES.iter().map(|s| s.id).chain(PAPERS.iter().map(|p| p.id)).collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "ids are unique");
        // the connecting words a header may have beside its sources, and the one header
        // that names no source (the KV cache follows how GPT-style models generate)
        let joining = [
            ",",
            "and",
            "'s",
            "attention",
            "multi-head",
            "latent",
            "online",
            "softmax",
            "softcap",
            "QK-norm",
            "how",
            "GPT-style",
            "models",
            "generate",
            "text",
        ];
        for lesson in crate::lessons::lessons() {
            let pieces = cited_pieces(lesson.seeds);
            assert_eq!(pieces.iter().map(|p| p.0).collect::<String>(), lesson.seeds);
            for (piece, id) in &pieces {
                match id {
                    Some(id) => assert!(ids.contains(id), "{}: {id}", lesson.id),
                    None => {
                        let rest = piece.replace(',', " , ").replace("'s", " 's ");
                        for w in rest.split_whitespace() {
                            assert!(
                                joining.contains(&w),
                                "{}: \"{w}\" in \"{}\" is not linked",
                                lesson.id,
                                lesson.seeds
                            );
                        }
                    }
                }
            }
        }
        fn linked(t: &str) -> Vec<(&str, &'static str)> {
            cited_pieces(t).into_iter().filter_map(|(p, id)| id.map(|id| (p, id))).collect()
        }
        assert_eq!(
            linked("Llama 3, Mistral and Qwen's attention"),
            [("Llama 3", "paper-llama-3"), ("Mistral", "paper-mistral"), ("Qwen", "paper-qwen2")]
        );
        assert_eq!(
            linked("Llama, Mistral and Qwen3's"),
            [("Llama", "paper-llama-2"), ("Mistral", "paper-mistral"), ("Qwen3", "paper-qwen3")]
        );
        assert_eq!(
            linked("DeepSeek-V2 and V3's"),
            [("DeepSeek-V2", "paper-deepseek-v2"), ("V3", "paper-deepseek-v3")]
        );
        assert_eq!(linked("the Masterclass chapter and the baseball-bat tutorial").len(), 2);
        assert!(linked("Llamas and QwenX").is_empty());
        // a name that opens a sentence
        assert_eq!(linked("The Masterclass chapter masks"), [("The Masterclass chapter", "src-masterclass")]);
        assert!(linked("Themasterclass chapter").is_empty());
    }

    /// The facts the lessons quote from Llama 3 and Qwen are in their entries.
    #[test]
    fn llama_3_and_qwen_are_listed_with_what_the_lessons_quote() {
        let entry = |id: &str| PAPERS.iter().find(|p| p.id == id).unwrap();
        let llama = entry("paper-llama-3");
        assert_eq!(llama.url, "https://arxiv.org/abs/2407.21783");
        for fact in ["32 layers", "32 query heads", "d_k = 128", "8 key/value heads"] {
            assert!(llama.contributes.contains(fact), "{fact}");
        }
        assert_eq!(entry("paper-qwen2").url, "https://arxiv.org/abs/2407.10671");
        assert!(entry("paper-qwen2").contributes.contains("grouped-query attention"));
        assert_eq!(entry("paper-qwen3").url, "https://arxiv.org/abs/2505.09388");
        assert!(entry("paper-qwen3").contributes.contains("QK-norm"));
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
