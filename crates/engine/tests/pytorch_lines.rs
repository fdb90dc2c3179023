//! Every step's PyTorch line against the step itself: a line that reshapes with
//! `.view(...)` names the axes its shape path records, in order, and those sizes hold as
//! many numbers as the tensor it reshapes. (`make check-torch` runs each line in PyTorch.)

use attention_engine::{run, Positional, Rope, RopeStyle, Scenario, Step, StepName, Trace};
use proptest::prelude::*;

mod common;
use common::arb_scenario;

/// The arguments of the `.view(...)` the line applies to the step's tensor (the one on
/// the right of `=`), e.g. `["B", "T", "h_kv", "d_k"]`; `None` for a line without one.
fn view_args(line: &str) -> Option<Vec<String>> {
    let (target, rest) = line.split_once(" = ")?;
    let start = rest.find(".view(")?;
    // The view must be on the tensor being assigned (`k = k.view(`), or on the
    // contiguous copy of the step's input (`context.transpose(1, 2).contiguous().view(`).
    let receiver = &rest[..start];
    if !(receiver == target || receiver.ends_with(".contiguous()")) {
        return None;
    }
    let args = &rest[start + ".view(".len()..];
    let args = &args[..args.find(')')?];
    Some(args.split(',').map(|a| a.trim().replace(" * ", "·")).collect())
}

/// The step this one reshapes: the one whose tensor the line reads.
fn input_of(trace: &Trace, step: StepName) -> Option<&Step> {
    let input = match step {
        StepName::QHeads => StepName::Q,
        StepName::KHeads => StepName::K,
        StepName::VHeads => StepName::V,
        StepName::Concat => StepName::Context,
        _ => return None,
    };
    trace.steps.iter().find(|s| s.name == input)
}

/// Checks every line of `trace`; returns how many views were held to their shape paths.
fn check_lines(trace: &Trace) -> Result<usize, String> {
    let mut views = 0;
    for step in &trace.steps {
        let Some(args) = view_args(&step.pytorch) else {
            if matches!(step.name, StepName::QHeads | StepName::KHeads | StepName::VHeads | StepName::Concat)
            {
                return Err(format!("{}: no view in {:?}", step.name, step.pytorch));
            }
            continue;
        };
        let reshape = step
            .shape_path
            .iter()
            .find(|r| r.op.ends_with("view"))
            .ok_or_else(|| format!("{}: a view in the line but none in the shape path", step.name))?;
        let path: Vec<&str> = reshape.dims.iter().map(|a| a.as_str()).collect();
        if args != path {
            return Err(format!(
                "{}: line {:?} views as {args:?}, its shape path as {path:?}",
                step.name, step.pytorch
            ));
        }
        let input = input_of(trace, step.name).ok_or_else(|| format!("{}: no input step", step.name))?;
        let (numbers, viewed) = (input.data.len(), reshape.shape.iter().product::<usize>());
        if numbers != viewed {
            return Err(format!(
                "{}: {:?} views {numbers} numbers of {} as {:?}",
                step.name, step.pytorch, input.name, reshape.shape
            ));
        }
        views += 1;
    }
    Ok(views)
}

/// Every combination of the options that change a line: self- and cross-attention,
/// MHA, GQA and MQA, no RoPE or either style, ALiBi or not, positions or not, causal or
/// not.
#[test]
fn every_view_names_its_shape_path_under_every_option() {
    let mut runs = 0;
    for cross in [false, true] {
        for n_kv_heads in [4, 2, 1] {
            for rope in [None, Some(RopeStyle::Half), Some(RopeStyle::Interleaved)] {
                for alibi in [false, true] {
                    for positional in [Positional::None, Positional::Sinusoidal] {
                        for causal in [false, true] {
                            let mut s = Scenario::identity(&["the cat sat", "a dog"], 8, 4);
                            s.projections = Default::default();
                            s.n_kv_heads = Some(n_kv_heads);
                            s.kv_sentences =
                                cross.then(|| vec!["le chat".into(), "un chien court vite".into()]);
                            s.rope = rope.map(Rope::new);
                            s.alibi = alibi;
                            s.positional = positional;
                            s.mask.causal = causal;
                            let trace = run(&s).unwrap();
                            let views = check_lines(&trace).unwrap_or_else(|e| panic!("{e}\nin {s:?}"));
                            assert_eq!(views, 4, "q, k and v heads and concat");
                            runs += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(runs, 2 * 3 * 3 * 2 * 2 * 2);
}

/// The line the issue found: under GQA the keys split into `h_kv` heads.
#[test]
fn grouped_keys_and_values_split_into_h_kv_heads() {
    let mut s = Scenario::identity(&["the cat sat"], 8, 4);
    s.n_kv_heads = Some(2);
    let trace = run(&s).unwrap();
    let line = |n: &str| trace.step_named(n).unwrap().pytorch.clone();
    assert_eq!(line("k_heads"), "k = k.view(B, T, h_kv, d_k).transpose(1, 2)");
    assert_eq!(line("v_heads"), "v = v.view(B, T, h_kv, d_k).transpose(1, 2)");
    assert_eq!(line("q_heads"), "q = q.view(B, T, h, d_k).transpose(1, 2)");
    s.n_kv_heads = None;
    assert_eq!(
        run(&s).unwrap().step_named("k_heads").unwrap().pytorch,
        "k = k.view(B, T, h, d_k).transpose(1, 2)"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn random_scenarios_view_as_their_shape_paths(s in arb_scenario()) {
        let trace = run(&s).unwrap();
        prop_assert!(check_lines(&trace).is_ok(), "{:?}", check_lines(&trace));
    }
}

/// Gemma 2's scale and softcap: `scaled` is `scores · scale`, `capped` follows it with
/// `c·tanh(s / c)` and is what the mask reads; the lines say so.
#[test]
fn scale_and_softcap_lines_and_numbers() {
    let mut s = Scenario::identity(&["the cat sat on the mat"], 8, 2);
    s.projections = Default::default();
    s.scale = Some(0.125);
    s.softcap = Some(0.5);
    let trace = run(&s).unwrap();
    trace.check_invariants().unwrap();
    let step = |n: &str| trace.step_named(n).unwrap();
    assert_eq!(step("scaled").pytorch, "scores = scores * scale");
    assert_eq!(step("capped").pytorch, "scores = softcap * torch.tanh(scores / softcap)");
    let (scores, scaled, capped, masked) =
        (&step("scores").data, &step("scaled").data, &step("capped").data, &step("masked").data);
    for (((s, sc), c), m) in scores.iter().zip(scaled).zip(capped).zip(masked) {
        assert_eq!(*sc, s * 0.125);
        assert_eq!(*c, (sc / 0.5).tanh() * 0.5);
        assert!(c.abs() < 0.5);
        assert_eq!(m, c, "no mask: masked is capped");
    }
    let names: Vec<&str> = trace.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[names.iter().position(|n| *n == "scaled").unwrap() + 1], "capped");
    s.softcap = None;
    s.scale = None;
    let plain = run(&s).unwrap();
    assert!(plain.step_named("capped").is_none());
    assert_eq!(plain.step_named("scaled").unwrap().pytorch, "scores = scores / math.sqrt(d_k)");
}

/// QK-norm (Qwen3, Gemma 3): `q_norm` and `k_norm` follow the split and come before RoPE,
/// each head row `w · x / √(mean(x²) + ε)`; a weight of the wrong length is an error of
/// the `qk_norm` field.
#[test]
fn qk_norm_per_head_before_rope() {
    let mut s = Scenario::identity(&["the cat sat on the mat"], 8, 4);
    s.projections = Default::default();
    s.n_kv_heads = Some(2);
    s.rope = Some(Rope::new(RopeStyle::Half));
    s.qk_norm = Some(attention_engine::QkNorm {
        q_weight: vec![0.5, 2.0],
        k_weight: vec![],
        eps: 0.25,
        whole_projection: false,
    });
    let trace = run(&s).unwrap();
    trace.check_invariants().unwrap();
    let names: Vec<&str> = trace.steps.iter().map(|s| s.name.as_str()).collect();
    let at = |n: &str| names.iter().position(|m| *m == n).unwrap();
    assert!(at("v_heads") < at("q_norm") && at("q_norm") < at("k_norm") && at("k_norm") < at("q_rot"));
    let step = |n: &str| trace.step_named(n).unwrap();
    assert_eq!(step("q_norm").pytorch, "q = self.q_norm(q)");
    assert_eq!(step("k_norm").dims, step("k_heads").dims);
    let (heads, normed) = (&step("q_heads").data, &step("q_norm").data);
    for (x, y) in heads.rows().into_iter().zip(normed.rows()) {
        let rms = ((x[0] * x[0] + x[1] * x[1]) / 2.0 + 0.25).sqrt();
        assert!((y[0] - 0.5 * x[0] / rms).abs() < 1e-15 && (y[1] - 2.0 * x[1] / rms).abs() < 1e-15);
    }
    // the keys' weight is all ones when not given
    let (k, kn) = (&step("k_heads").data, &step("k_norm").data);
    for (x, y) in k.rows().into_iter().zip(kn.rows()) {
        let rms = ((x[0] * x[0] + x[1] * x[1]) / 2.0 + 0.25).sqrt();
        assert!((y[0] - x[0] / rms).abs() < 1e-15);
    }
    s.qk_norm = Some(attention_engine::QkNorm {
        q_weight: vec![1.0; 3],
        k_weight: vec![],
        eps: 1e-6,
        whole_projection: false,
    });
    let e = run(&s).unwrap_err();
    assert_eq!(e.field().as_str(), "qk_norm");
    assert_eq!(e.to_string(), "the QK-norm q_weight has 3 numbers, but d_k = 2: one per feature of a head");
}

/// Attention sinks (gpt-oss): each head's logit is one more column of the softmax, dropped
/// after it, so a row sums to 1 less the sink's share, and a fully blocked row is 0, not
/// NaN; the weights line says so; a wrong count is an error of the `sinks` field.
#[test]
fn sinks_take_their_share_of_each_row() {
    let mut s = Scenario::identity(&["the cat sat on the mat", "a dog"], 8, 4);
    s.projections = Default::default();
    s.n_kv_heads = Some(2);
    s.mask.causal = true;
    s.mask.padding = attention_engine::Padding::KeysAndQueries;
    s.sinks = Some(vec![0.5, -1.0, 2.0, 0.0]);
    let trace = run(&s).unwrap();
    trace.check_invariants().unwrap();
    assert!(trace.nan_rows.is_empty(), "a sink leaves no NaN row");
    let step = |n: &str| trace.step_named(n).unwrap();
    assert_eq!(
        step("weights").pytorch,
        "weights = torch.cat([scores, sinks.view(1, h, 1, 1).expand(B, h, T, 1)], dim=-1).softmax(dim=-1)[..., :-1]"
    );
    let (masked, weights) = (step("masked"), step("weights"));
    for b in 0..2 {
        for h in 0..4 {
            let (m, w) = (masked.matrix(b, h).unwrap(), weights.matrix(b, h).unwrap());
            for (i, (m_row, w_row)) in m.rows().into_iter().zip(w.rows()).enumerate() {
                let sink = s.sinks.as_ref().unwrap()[h];
                let max = m_row.iter().fold(sink, |a, &x| a.max(x));
                let sum: f64 = m_row.iter().map(|x| (x - max).exp()).sum::<f64>() + (sink - max).exp();
                for (x, y) in m_row.iter().zip(w_row) {
                    assert!((y - (x - max).exp() / sum).abs() < 1e-15, "[{b}, {h}, {i}]");
                }
                let want = 1.0 - (sink - max).exp() / sum;
                assert!((w_row.sum() - want).abs() < 1e-12 && want < 1.0);
                if trace.fully_masked_rows.contains(&[b, i]) {
                    assert!(w_row.iter().all(|&v| v == 0.0), "a fully blocked row gives all to the sink");
                }
            }
        }
    }
    assert!(!trace.fully_masked_rows.is_empty(), "the padded query rows are fully blocked");
    s.sinks = Some(vec![0.0; 3]);
    let e = run(&s).unwrap_err();
    assert_eq!(e.field().as_str(), "sinks");
    assert_eq!(e.to_string(), "there are 3 attention sinks, but h = 4: one learned logit per query head");
}
