//! The hints under h, h_kv and the MLA rank: a head's width and what a decoder caches per
//! token and layer. With multi-head latent attention on, all three read the same MLA sizes
//! (the scenario's, which the trace records) and the engine's [`LatentCache`], so they
//! never state different d_k or cache sizes.

use crate::engine::attention::head_width;
use crate::engine::mla::{Compression, LatentCache};
use crate::engine::Mla;

use super::settings::{mla_follows_page, page_mla, Settings};

/// The hint under h: what d_k, the width of one head, is. d_model / h unless the state
/// has a head size of its own (an imported Gemma or Llama `head_dim`), where h · d_k need
/// not be d_model, or MLA, whose query/key heads are d_nope + d_rope wide.
pub fn d_k_words(s: &Settings) -> String {
    if let Some(m) = &s.mla {
        return format!(
            "MLA: d_k = d_nope + d_rope = {} + {} = {}, d_v = {}{}",
            m.qk_nope_head_dim,
            m.qk_rope_head_dim,
            m.d_k(),
            m.v_head_dim,
            not_yet(s)
        );
    }
    match (s.d_head, head_width(s.d_model, s.n_heads)) {
        (Some(d), _) => format!(
            "d_k = d_head = {d}, a head size of its own: h · d_k = {} against d_model = {}",
            s.n_heads * d,
            s.d_model
        ),
        (None, Ok(d_k)) => format!("d_k = d_model / h = {d_k}"),
        (None, Err(_)) => "d_k = d_model / h is not a whole number".to_string(),
    }
}

/// The hint under h_kv: what a decoder caches per token and layer. Every key/value head's
/// key and value, or under MLA the latent and the shared RoPE key.
pub fn cache_words(s: &Settings) -> String {
    if let Some(m) = &s.mla {
        let c = LatentCache::new(m, s.d_model, s.n_heads);
        return format!(
            "MLA caches per token and layer c_KV and k_rot (the rotated k_pe): r_kv + d_rope = {} + {} = {} numbers \
             (every head's key and value would be h · (d_k + d_v) = {} · ({} + {}) = {}){}",
            c.kv_lora_rank,
            c.d_rope,
            c.latent(),
            c.n_heads,
            c.d_k,
            c.d_v,
            c.heads(),
            not_yet(s)
        );
    }
    let Ok(d_k) = s.d_head.map_or_else(|| head_width(s.d_model, s.n_heads), Ok) else {
        return String::new();
    };
    let h_kv = s.n_kv_heads.unwrap_or(s.n_heads);
    let saving = if h_kv < s.n_heads && h_kv > 0 && s.n_heads.is_multiple_of(h_kv) {
        format!(" ({}× less than with h = {} K/V heads)", s.n_heads / h_kv, s.n_heads)
    } else {
        String::new()
    };
    format!(
        "K/V cache per token and layer: 2 · h_kv · d_k = 2 · {h_kv} · {d_k} = {} numbers{saving}",
        2 * h_kv * d_k
    )
}

/// The hint under the MLA rank: the head sizes a rank turns on (off), or the sizes in use
/// and whether the latent still compresses (on).
pub fn mla_words(s: &Settings) -> String {
    let Some(m) = &s.mla else {
        let m = page_mla(s.d_model, s.n_heads, 1);
        return format!(
            "A rank turns MLA on with heads in DeepSeek-V3's proportions, d_nope : d_rope : d_v = 2 : 1 : 2, \
             sized from d_model / h: d_nope = d_v = {}, d_rope = {}.",
            m.qk_nope_head_dim, m.qk_rope_head_dim
        );
    };
    let c = LatentCache::new(m, s.d_model, s.n_heads);
    let whose = if mla_follows_page(s) {
        "DeepSeek-V3's 2 : 1 : 2, sized from d_model and h"
    } else {
        "the scenario's own, whatever d_model and h"
    };
    let sizes = format!("{}{}, {whose}", sizes_text(m), not_yet(s));
    match c.compression() {
        Compression::Compresses => format!(
            "{sizes}. The cache per token and layer: {} numbers, against {} for every head's key and value.",
            c.latent(),
            c.heads()
        ),
        Compression::WiderThanInput => format!(
            "{sizes}. r_kv = {} is wider than x (d_model = {}): c_KV is made from x by one matrix and a scale, \
             so its {} numbers span at most {} dimensions and the latent no longer compresses; a latent of \
             r_kv ≤ {} holds as much.",
            c.kv_lora_rank, c.d_model, c.kv_lora_rank, c.d_model, c.d_model
        ),
        Compression::NoSmallerThanHeads => format!(
            "{sizes}. r_kv + d_rope = {} numbers per token and layer is no fewer than every head's key and \
             value, h · (d_k + d_v) = {}: the latent no longer compresses.",
            c.latent(),
            c.heads()
        ),
    }
}

/// With MLA and a head size of its own both set, the engine refuses the scenario (MLA's
/// head sizes are its own) and the page still shows the last trace it computed: the MLA
/// hints then say that their sizes are not the ones on screen.
fn not_yet(s: &Settings) -> &'static str {
    if s.mla.is_some() && s.d_head.is_some() {
        " (once d_head is removed; the maps still show the last sizes that ran)"
    } else {
        ""
    }
}

/// "Heads: d_nope = 4, d_rope = 2, d_v = 4".
fn sizes_text(m: &Mla) -> String {
    format!("Heads: d_nope = {}, d_rope = {}, d_v = {}", m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, StepName};
    use crate::ui::state::settings::{scenario, set_mla_rank, DEFAULT_TEXT};

    #[test]
    fn the_d_k_hint_says_where_d_k_comes_from() {
        let mut s = Settings { d_model: 8, n_heads: 2, ..Settings::default() };
        assert_eq!(d_k_words(&s), "d_k = d_model / h = 4");
        s.n_heads = 3;
        assert_eq!(d_k_words(&s), "d_k = d_model / h is not a whole number");
        s.d_head = Some(4);
        assert_eq!(
            d_k_words(&s),
            "d_k = d_head = 4, a head size of its own: h · d_k = 12 against d_model = 8"
        );
    }

    #[test]
    fn mla_hints_beside_a_head_size_say_they_are_not_yet_in_effect() {
        let mut s = Settings { d_model: 8, n_heads: 2, d_head: Some(5), ..Settings::default() };
        set_mla_rank(&mut s, Some(3));
        assert!(s.mla.is_some());
        for hint in [d_k_words(&s), cache_words(&s), mla_words(&s)] {
            assert!(hint.contains("once d_head is removed"), "{hint}");
        }
        // the engine refuses this scenario: the hints' "not yet" is true
        assert!(run(&scenario(DEFAULT_TEXT, &s).0).is_err());
        s.d_head = None;
        for hint in [d_k_words(&s), cache_words(&s), mla_words(&s)] {
            assert!(!hint.contains("once d_head"), "{hint}");
        }
    }

    /// Every number after an `=` in `text`, in order.
    fn results(text: &str) -> Vec<usize> {
        text.split(" = ")
            .skip(1)
            .filter_map(|part| part.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
            .collect()
    }

    #[test]
    fn under_mla_every_hint_states_the_traces_sizes_and_cache() {
        for (d_model, h, rank) in [(8, 2, 3), (3, 1, 2), (4, 2, 2), (16, 4, 6), (2, 1, 1)] {
            let mut s = Settings { d_model, n_heads: h, ..Settings::default() };
            // before: what a rank would turn on, as set_mla_rank builds it
            let off = mla_words(&s);
            set_mla_rank(&mut s, Some(rank));
            let m = s.mla.clone().unwrap();
            assert!(
                off.contains(&format!(
                    "d_nope = d_v = {}, d_rope = {}.",
                    m.qk_nope_head_dim, m.qk_rope_head_dim
                )),
                "{off}"
            );
            // the trace's sizes
            let (sc, _) = scenario(DEFAULT_TEXT, &s);
            let t = run(&sc).unwrap();
            let k = t.step(StepName::KCat).unwrap().shape[3];
            let v = t.step(StepName::VHeads).unwrap().shape[3];
            let latent = t.step(StepName::CKv).unwrap().shape[2];
            let k_pe = t.step(StepName::KPe).unwrap().shape[3];
            let tm = t.mla.clone().unwrap();
            assert_eq!((k, v, latent, k_pe), (tm.d_k(), tm.v_head_dim, tm.kv_lora_rank, tm.qk_rope_head_dim));
            // h: d_k and d_v as the trace's steps have them
            let dk = d_k_words(&s);
            assert_eq!(results(&dk), [tm.qk_nope_head_dim, k, v], "{dk}");
            // h_kv: the latent and the shared key, what MLA caches, beside every head's K and V
            let cache = cache_words(&s);
            assert!(cache.starts_with("MLA caches per token and layer c_KV and k_rot"), "{cache}");
            assert_eq!(results(&cache), [latent, latent + k_pe, h, h * (k + v)], "{cache}");
            // the MLA hint: the same sizes, the same cache (or why it no longer compresses)
            let hint = mla_words(&s);
            assert!(
                hint.starts_with(&format!(
                    "Heads: d_nope = {}, d_rope = {k_pe}, d_v = {v}, DeepSeek-V3's 2 : 1 : 2, sized from d_model \
                     and h.",
                    tm.qk_nope_head_dim
                )),
                "{hint}"
            );
            assert_eq!((tm.qk_nope_head_dim, tm.v_head_dim), (2 * k_pe, 2 * k_pe));
            if latent <= d_model && latent + k_pe < h * (k + v) {
                assert!(
                    hint.contains(&format!("{} numbers, against {}", latent + k_pe, h * (k + v))),
                    "{hint}"
                );
            } else {
                assert!(hint.contains("no longer compresses"), "{hint}");
            }
            // no hint says d_model / h under MLA
            for text in [&dk, &cache, &hint] {
                assert!(!text.contains("d_model / h"), "{text}");
            }
        }
    }

    /// A lesson's or an import's heads are said to be the scenario's own, not V3's proportions.
    #[test]
    fn an_mla_of_its_own_is_not_called_deepseeks_proportions() {
        let s = Settings { d_model: 8, n_heads: 2, mla: Some(Mla::sized(4, 3, 2, 3)), ..Settings::default() };
        let hint = mla_words(&s);
        assert!(hint.starts_with("Heads: d_nope = 3, d_rope = 2, d_v = 3, the scenario's own"), "{hint}");
        assert!(!hint.contains("DeepSeek"), "{hint}");
    }

    #[test]
    fn a_rank_past_the_model_is_run_with_a_note() {
        let mut s = Settings { d_model: 8, n_heads: 2, ..Settings::default() };
        set_mla_rank(&mut s, Some(12));
        assert!(run(&scenario(DEFAULT_TEXT, &s).0).is_ok());
        assert!(mla_words(&s).contains("r_kv = 12 is wider than x (d_model = 8)"), "{}", mla_words(&s));
        set_mla_rank(&mut s, Some(40));
        assert!(mla_words(&s).contains("r_kv + d_rope = 42 numbers per token and layer is no fewer"));
    }
}
