//! A whole scenario in a link: what the URL's short keys cannot say (explicit or edited
//! embeddings, explicit weights and biases, and any option without a key of its own)
//! travels in the fragment, `#s=1.<data>`.
//!
//! `<data>` is the scenario's JSON (the same format as an exported scenario file),
//! compressed with DEFLATE (`miniz_oxide`) and written in base64url without padding
//! (`base64`). The `1.` is the format's version: a later format gets another number, and
//! this one keeps being read. The way in checks as much as an imported file: the
//! decompressed size is capped before it is read, the JSON is the strict scenario
//! format (unknown fields are errors), and the engine then checks every size and number
//! as for any scenario. Every number is written as the shortest decimal that reads back
//! to the same `f64`, so a link reproduces the trace bit for bit.
//!
//! Pure Rust, no web dependency: tested natively (`tests` below).

use attention_engine::Scenario;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The fragment key: `#s=…`.
pub const KEY: &str = "s";

/// The version written before the data.
pub const VERSION: &str = "1";

/// The longest link data written (32 kB of base64url): beyond it a scenario is offered
/// as a JSON file instead. Browsers accept far longer addresses, but messaging apps,
/// e-mail clients and QR codes do not.
pub const MAX_ENCODED: usize = 32 * 1024;

/// The most bytes a link's data may decompress to (4 MiB): a few kilobytes of DEFLATE
/// can expand to gigabytes, so the reader stops here.
pub const MAX_DECODED: usize = 4 << 20;

/// Why a scenario cannot go into a link, or a link cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The scenario's link would be longer than [`MAX_ENCODED`].
    #[error(
        "this scenario is too large for a link ({bytes} bytes, over the {max} a link may hold): \
         use \"Export scenario\" to share it as a JSON file"
    )]
    TooLarge {
        /// The encoded length.
        bytes: usize,
        /// [`MAX_ENCODED`].
        max: usize,
    },
    /// The data is not `VERSION.base64url`.
    #[error("the link's scenario is not readable: {0}")]
    Malformed(String),
    /// A version this page does not know (a link from a newer page).
    #[error(
        "the link's scenario is in format {0}, which this page does not know: open it in a newer version"
    )]
    UnknownVersion(String),
    /// The scenario JSON inside is not a valid scenario.
    #[error("the link's scenario is not valid: {0}")]
    Invalid(String),
}

/// The link data of a scenario: `1.<base64url(deflate(json))>`.
///
/// # Errors
/// [`LinkError::TooLarge`] when it would be longer than [`MAX_ENCODED`].
pub fn encode(scenario: &Scenario) -> Result<String, LinkError> {
    let json = serde_json::to_string(scenario).map_err(|e| LinkError::Invalid(e.to_string()))?;
    let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    let data = format!("{VERSION}.{}", URL_SAFE_NO_PAD.encode(packed));
    if data.len() > MAX_ENCODED {
        return Err(LinkError::TooLarge { bytes: data.len(), max: MAX_ENCODED });
    }
    Ok(data)
}

/// The scenario in link data written by [`encode`].
///
/// # Errors
/// [`LinkError::Malformed`] for data that is not base64url DEFLATE (truncated, altered)
/// or decompresses past [`MAX_DECODED`]; [`LinkError::UnknownVersion`];
/// [`LinkError::Invalid`] for JSON that is not a scenario.
pub fn decode(data: &str) -> Result<Scenario, LinkError> {
    let Some((version, body)) = data.split_once('.') else {
        return Err(LinkError::Malformed("no version".into()));
    };
    if version != VERSION {
        return Err(LinkError::UnknownVersion(version.chars().take(12).collect()));
    }
    let packed = URL_SAFE_NO_PAD.decode(body).map_err(|e| LinkError::Malformed(e.to_string()))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_DECODED)
        .map_err(|e| LinkError::Malformed(format!("the compressed data is damaged ({:?})", e.status)))?;
    let text = std::str::from_utf8(&json).map_err(|_| LinkError::Malformed("not UTF-8 text".into()))?;
    Scenario::from_json(text).map_err(|e| LinkError::Invalid(e.to_string()))
}

/// The link data in a URL fragment (`#s=…&…`, with or without the `#`), if there is any.
pub fn from_fragment(fragment: &str) -> Option<&str> {
    fragment
        .trim_start_matches('#')
        .split('&')
        .find_map(|pair| pair.strip_prefix(KEY).and_then(|rest| rest.strip_prefix('=')))
        .filter(|data| !data.is_empty())
}

/// The fragment that carries `data`: `#s=<data>`.
pub fn fragment(data: &str) -> String {
    format!("#{KEY}={data}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use attention_engine::{
        run, ExplicitWeights, Fill, MaskConfig, Mla, MlaWeights, Padding, Positional, ProjectionKind,
        Projections, QkNorm, Rope, RopeStyle,
    };
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn matrix(rows: usize, cols: usize, vals: &[f64]) -> Vec<Vec<f64>> {
        (0..rows).map(|i| (0..cols).map(|j| vals[(i * cols + j) % vals.len()]).collect()).collect()
    }

    /// Random scenarios with every option: explicit weights (any f64 bits the engine
    /// accepts, subnormals and -0 included), edited embeddings, GQA, RoPE, ALiBi, windows
    /// (with kept first keys), masks, cross-attention, positions.
    fn arb() -> impl Strategy<Value = Scenario> {
        let number = prop_oneof![
            -1e3f64..1e3,
            Just(-0.0),
            Just(f64::MIN_POSITIVE / 3.0),
            Just(0.1 + 0.2),
            Just(1e30),
            any::<f64>().prop_filter("finite, |x| ≤ 1e30", |x| x.is_finite() && x.abs() <= 1e30),
        ];
        (
            1usize..=4,
            1usize..=3,
            prop::collection::vec(number, 64),
            any::<(bool, bool, bool, bool, bool)>(),
            (0usize..3, 0usize..3, prop::option::of(1usize..6), any::<u64>()),
            (prop::option::of(0.05f64..2.0), prop::option::of(0.5f64..60.0)),
            prop::collection::vec("[a-z]{1,5}( [a-z]{1,5}){0,4}", 1..4),
        )
            .prop_map(
                |(
                    h,
                    d_k,
                    vals,
                    (explicit, cross, causal, alibi, pe),
                    (kv, rope, window, seed),
                    (scale, softcap),
                    sentences,
                )| {
                    let d = h * d_k;
                    let divisors: Vec<usize> = (1..=h).filter(|g| h % g == 0).collect();
                    let h_kv = divisors[kv % divisors.len()];
                    let kvw = h_kv * d_k;
                    let mut embeddings = BTreeMap::new();
                    for (i, w) in ["bat", "<pad>", "cat"].iter().enumerate() {
                        embeddings
                            .insert(w.to_string(), (0..d).map(|c| vals[(i * 7 + c) % vals.len()]).collect());
                    }
                    Scenario {
                        kv_sentences: cross.then(|| sentences.iter().rev().cloned().collect()),
                        sentences,
                        d_model: d,
                        n_heads: h,
                        // a head size of its own with seeded weights (explicit ones are d_model wide here)
                        d_head: (!explicit && seed % 3 == 0).then_some(d_k + 1),
                        n_kv_heads: (h_kv != h).then_some(h_kv),
                        embeddings,
                        projections: if explicit {
                            Projections::Explicit(Box::new(ExplicitWeights {
                                w_q: matrix(d, d, &vals),
                                b_q: vals[..d].to_vec(),
                                w_k: matrix(d, kvw, &vals[1..]),
                                b_k: vals[2..2 + kvw].to_vec(),
                                w_v: matrix(d, kvw, &vals[3..]),
                                b_v: vec![],
                                w_o: matrix(d, d, &vals[5..]),
                                b_o: vals[7..7 + d].to_vec(),
                            }))
                        } else {
                            Projections::Named(ProjectionKind::Seeded)
                        },
                        seed,
                        mask: MaskConfig {
                            causal,
                            padding: Padding::ALL[kv % 3],
                            fill: Fill::ALL[rope % 2],
                            window,
                            // StreamingLLM's kept first keys, beside a window only
                            keep_first: window.and(usize::try_from(seed % 5).ok().filter(|&k| k > 0)),
                        },
                        positional: if pe { Positional::Sinusoidal } else { Positional::None },
                        rope: (rope > 0 && d_k % 2 == 0).then(|| Rope {
                            style: RopeStyle::ALL[rope - 1],
                            base: vals[9].abs() + 1.0,
                            fraction: (d_k == 4).then_some(0.5),
                            scaling: None,
                        }),
                        alibi,
                        scale,
                        softcap,
                        qk_norm: (kv == 1).then(|| QkNorm {
                            q_weight: vals[..d_k].to_vec(),
                            k_weight: vec![],
                            eps: 1e-6,
                            whole_projection: false,
                        }),
                        sinks: (kv == 2).then(|| vals[..h].to_vec()),
                        // multi-head latent attention with its own weights (any f64 bits)
                        mla: (seed % 4 == 2).then(|| Mla {
                            kv_lora_rank: 2,
                            q_lora_rank: None,
                            qk_nope_head_dim: 1,
                            qk_rope_head_dim: 2,
                            v_head_dim: 3,
                            mscale_all_dim: None,
                            rope_in_place: seed % 8 == 6,
                            eps: vals[4].abs().max(1e-6),
                            weights: Some(Box::new(MlaWeights {
                                b_kv_a: vals[..4].to_vec(),
                                kv_a_norm: vals[2..4].to_vec(),
                                b_o: vals[..d].to_vec(),
                                ..MlaWeights::uncompressed(
                                    matrix(d, h * 3, &vals),
                                    matrix(d, 4, &vals[1..]),
                                    matrix(2, h * 4, &vals[2..]),
                                    matrix(h * 3, d, &vals[3..]),
                                )
                            })),
                        }),
                        // more than one layer (self-attention only), now and then shown at layer 1
                        // (1 is written as absent, so absent it is)
                        n_layers: (!cross && seed % 5 == 1 && seed % 4 != 0)
                            .then_some(1 + (seed % 4) as usize),
                        layer: (!cross && seed % 10 == 1).then_some(1),
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// A link gives back the very scenario, and so the very trace, bit for bit.
        #[test]
        fn every_scenario_survives_a_link(s in arb()) {
            let data = encode(&s).unwrap();
            prop_assert!(data.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{data}");
            let back = decode(from_fragment(&fragment(&data)).unwrap()).unwrap();
            prop_assert_eq!(&back, &s);
            if let (Ok(a), Ok(b)) = (run(&s), run(&back)) {
                for (x, y) in a.steps.iter().zip(&b.steps) {
                    prop_assert!(x.data.iter().zip(y.data.iter()).all(|(p, q)| p.to_bits() == q.to_bits()));
                }
            }
        }

        /// A truncated or altered link is a message, never a panic.
        #[test]
        fn a_damaged_link_is_an_error(s in arb(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let data = encode(&s).unwrap();
            let truncated = &data[..cut.index(data.len())];
            if truncated != data {
                prop_assert!(decode(truncated).is_err() || decode(truncated).ok() == Some(s.clone()));
            }
            let mut bytes = data.into_bytes();
            let i = flip.index(bytes.len());
            bytes[i] = byte;
            if let Ok(text) = String::from_utf8(bytes) {
                let _ = decode(&text); // any result but a panic
            }
        }
    }

    #[test]
    fn messages_for_bad_links() {
        assert!(matches!(decode("no-dot"), Err(LinkError::Malformed(_))));
        assert!(matches!(decode("2.abc"), Err(LinkError::UnknownVersion(v)) if v == "2"));
        assert!(matches!(decode("1.***"), Err(LinkError::Malformed(_))));
        let not_a_scenario = format!(
            "1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(br#"{"sentences": 3}"#, 6))
        );
        let e = decode(&not_a_scenario).unwrap_err();
        assert!(e.to_string().starts_with("the link's scenario is not valid"), "{e}");
        // a bomb: 8 MiB of spaces compress to a few kB, and the reader stops at 4 MiB
        let bomb = format!(
            "1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&vec![b' '; 8 << 20], 9))
        );
        assert!(bomb.len() < MAX_ENCODED);
        assert!(matches!(decode(&bomb), Err(LinkError::Malformed(_))));
        assert_eq!(from_fragment("#x=1&s=1.abc"), Some("1.abc"));
        assert_eq!(from_fragment("s="), None);
        assert_eq!(from_fragment(""), None);
    }

    #[test]
    fn a_scenario_too_large_for_a_link_says_so() {
        // four 64 × 64 matrices of pseudo-random numbers do not compress below 32 kB
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let vals: Vec<f64> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        let mut s = Scenario::identity(&["a b"], 64, 1);
        let m = matrix(64, 64, &vals);
        s.projections = Projections::Explicit(Box::new(ExplicitWeights {
            w_q: m.clone(),
            b_q: vec![],
            w_k: m.clone(),
            b_k: vec![],
            w_v: m.clone(),
            b_v: vec![],
            w_o: m,
            b_o: vec![],
        }));
        let e = encode(&s).unwrap_err();
        assert!(matches!(e, LinkError::TooLarge { max: MAX_ENCODED, .. }));
        assert!(e.to_string().contains("Export scenario"));
    }
}
