//! `explain`: the arithmetic behind one cell, by hand (seed 003's baseball bat) and for
//! random scenarios (the terms add up to the trace's value, bad indices are errors).

use std::collections::BTreeMap;

use attention_engine::embedding::Source;
use attention_engine::{
    explain, run, top_terms, BlockReason, ExplainError, Explanation, Fill, Kind, MaskConfig, Operand,
    Padding, Positional, Projections, Scenario, StepName, Tensor, Trace,
};
use proptest::prelude::*;

mod common;
#[path = "common/mla.rs"]
mod mla_draw;
use common::arb_scenario;
use mla_draw::{arb_mla, with_mla};

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol
}

/// `|Σ terms − result| ≤ 1e-12 · max(1, |result|)`, NaN matching NaN. The engine's matrix
/// product may add in another order (and fuse multiply-adds), so the last bits may differ.
fn sum_matches(e: &Explanation) -> bool {
    let (sum, want) = (e.terms_sum(), e.result);
    if want.is_nan() || sum.is_nan() {
        return want.is_nan() && sum.is_nan();
    }
    (sum - want).abs() <= 1e-12 * want.abs().max(1.0)
}

fn ex(trace: &Trace, step: StepName, index: &[usize]) -> Explanation {
    explain(trace, step, index).unwrap_or_else(|e| panic!("{step}{index:?}: {e}"))
}

fn values(e: &Explanation) -> Vec<f64> {
    e.terms.iter().map(|t| t.value).collect()
}

fn baseball_bat() -> Trace {
    run(&Scenario::identity(&["baseball bat"], 3, 1)).unwrap()
}

/// Seed 003 by hand: baseball = (2,0,0), bat = (1,1,0) in "sports, animal, other".
#[test]
fn baseball_bat_by_hand() {
    let trace = baseball_bat();
    // x: the lexicon, with named dimensions
    let x = ex(&trace, StepName::X, &[0, 1, 0]);
    assert_eq!(x.kind, Kind::Source { source: Some(Source::Lexicon) });
    assert_eq!(x.result, 1.0);
    assert!(x.notes.iter().any(|n| n.contains("“sports”")), "{:?}", x.notes);
    assert!(x.notes.iter().any(|n| n.contains("lexicon")));

    // scores[bat, baseball] = 1·2 + 1·0 + 0·0 = 2
    let s = ex(&trace, StepName::Scores, &[0, 0, 1, 0]);
    assert_eq!(s.kind, Kind::Sum);
    assert_eq!(s.result, 2.0);
    let ops: Vec<Vec<f64>> = s.terms.iter().map(|t| t.operands.clone()).collect();
    assert_eq!(ops, vec![vec![1.0, 2.0], vec![1.0, 0.0], vec![0.0, 0.0]]);
    assert_eq!(values(&s), vec![2.0, 0.0, 0.0]);
    assert_eq!(s.terms[0].label, "q[0,0,1,0] · k[0,0,0,0]");
    assert_eq!(s.pytorch, "(q[0, 0, 1] * k[0, 0, 0]).sum()");
    assert_eq!(
        s.operands,
        vec![
            Operand { tensor: Tensor::Step(StepName::QHeads), index: vec![Some(0), Some(0), Some(1), None] },
            Operand { tensor: Tensor::Step(StepName::KHeads), index: vec![Some(0), Some(0), Some(0), None] },
        ]
    );
    assert!(s.latex.contains(r"1 \cdot 2 + 1 \cdot 0 + 0 \cdot 0 = 2"), "{}", s.latex);

    // scaled = 2 / √3 = 1.1547
    let sc = ex(&trace, StepName::Scaled, &[0, 0, 1, 0]);
    assert_eq!(sc.kind, Kind::Quotient { numerator: 2.0, denominator: 3f64.sqrt() });
    assert!(close(sc.result, 1.1547, 1e-4));
    assert_eq!(sc.pytorch, "(q[0, 0, 1] * k[0, 0, 0]).sum() / math.sqrt(d_k)");

    // nothing is masked
    let m = ex(&trace, StepName::Masked, &[0, 0, 1, 0]);
    assert!(matches!(m.kind, Kind::Masked { blocked: false, .. }));
    assert_eq!(m.result, sc.result);

    // bat's row: 2/√3 twice, so 0.5 each
    let w = ex(&trace, StepName::Weights, &[0, 0, 1, 0]);
    assert!(close(w.result, 0.5, 1e-15));
    let Kind::Softmax { max, numerator, sum } = w.kind else { panic!("{:?}", w.kind) };
    assert_eq!((max, numerator, sum), (2.0 / 3f64.sqrt(), 1.0, 2.0));
    // baseball's row: 4/√3 and 2/√3: 0.7604 and 0.2396
    let w00 = ex(&trace, StepName::Weights, &[0, 0, 0, 0]);
    let w01 = ex(&trace, StepName::Weights, &[0, 0, 0, 1]);
    assert!(close(w00.result, 0.7604, 1e-4) && close(w01.result, 0.2396, 1e-4));
    assert_eq!(values(&w01)[0], 1.0); // exp(max − max)
    assert!(close(values(&w01)[1], (-2.0 / 3f64.sqrt()).exp(), 1e-15));

    // context of bat, "sports": 0.5·2 + 0.5·1 = 1.5
    let c = ex(&trace, StepName::Context, &[0, 0, 1, 0]);
    assert_eq!(values(&c), vec![1.0, 0.5]);
    assert_eq!(c.result, 1.5);
    assert_eq!(c.pytorch, "(weights[0, 0, 1] * v[0, 0, :, 0]).sum()");

    // q = x @ I + 0: three products and a zero bias
    let q = ex(&trace, StepName::Q, &[0, 0, 0]);
    assert_eq!(q.terms.len(), 4);
    assert_eq!(q.terms[3].label, "bias b_Q[0]");
    assert_eq!(q.result, 2.0);
    assert!(sum_matches(&q));
    assert_eq!(q.pytorch, "(x[0, 0] * self.w_q.weight[0]).sum() + self.w_q.bias[0]");
    assert!(q.latex.contains(r"W^{Q}_{d,0} + b^{Q}_{0}"), "{}", q.latex);
}

#[test]
fn copies_name_the_cell_they_copy() {
    // d_model 4, h 2: head 1, feature 1 is column 3
    let mut s = Scenario::identity(&["baseball bat flew"], 4, 2);
    s.embeddings = BTreeMap::from([
        ("baseball".into(), vec![1.0, 2.0, 3.0, 4.0]),
        ("bat".into(), vec![5.0, 6.0, 7.0, 8.0]),
        ("flew".into(), vec![9.0, 10.0, 11.0, 12.0]),
    ]);
    let trace = run(&s).unwrap();
    let k = ex(&trace, StepName::KHeads, &[0, 1, 2, 1]);
    assert_eq!(k.kind, Kind::Copy);
    assert_eq!(k.result, 12.0);
    assert_eq!(
        k.operands,
        vec![Operand { tensor: Tensor::Step(StepName::K), index: vec![Some(0), Some(2), Some(3)] }]
    );
    let c = ex(&trace, StepName::Concat, &[0, 2, 3]);
    assert_eq!(c.kind, Kind::Copy);
    assert_eq!(c.terms[0].label, "context[0,1,2,1]");
    assert_eq!(c.result, trace.step(StepName::Context).unwrap().data[[0, 1, 2, 1]]);
    let x = ex(&trace, StepName::X, &[0, 0, 2]);
    assert_eq!(x.kind, Kind::Source { source: Some(Source::Explicit) });
    assert_eq!(x.result, 3.0);
}

#[test]
fn hashed_and_pad_tokens_say_so() {
    let mut s = Scenario::identity(&["zyzzyva quux", "zyzzyva"], 5, 1);
    s.mask.padding = Padding::Keys;
    let trace = run(&s).unwrap();
    let x = ex(&trace, StepName::X, &[0, 0, 3]);
    assert_eq!(x.kind, Kind::Source { source: Some(Source::Hashed) });
    assert!(x.notes.iter().any(|n| n.contains("FNV-1a")));
    assert!(!x.notes.iter().any(|n| n.contains("Recomputed")));
    let pad = ex(&trace, StepName::X, &[1, 1, 0]);
    assert_eq!(pad.kind, Kind::Source { source: Some(Source::Pad) });
    assert_eq!(pad.result, 0.0);
}

#[test]
fn positions_are_explained() {
    let mut s = Scenario::identity(&["the cat sat on the mat"], 4, 2);
    s.positional = Positional::Sinusoidal;
    let trace = run(&s).unwrap();
    // PE(1, 2) = sin(1 / 10000^(2/4)) = sin(0.01)
    let pe = ex(&trace, StepName::Pe, &[0, 1, 2]);
    assert_eq!(pe.kind, Kind::Positional { pos: 1, i: 1, angle: 0.01, sine: true });
    assert_eq!(pe.result, 0.01f64.sin());
    assert_eq!(pe.pytorch, "math.sin(1 / 10000 ** (2 / 4))");
    let pe = ex(&trace, StepName::Pe, &[0, 3, 1]);
    assert!(matches!(pe.kind, Kind::Positional { pos: 3, i: 0, sine: false, .. }));
    assert_eq!(pe.result, 3f64.cos());
    // x_pe = x + PE, two terms, exact
    let xp = ex(&trace, StepName::XPe, &[0, 1, 0]);
    assert_eq!(xp.kind, Kind::Sum);
    assert_eq!(xp.terms.len(), 2);
    assert_eq!(xp.terms_sum(), xp.result);
    assert_eq!(xp.terms[1].value, 1f64.sin());
    // q reads x_pe
    let q = ex(&trace, StepName::Q, &[0, 1, 0]);
    assert!(q.terms[0].label.starts_with("x_pe[0,1,0]"), "{}", q.terms[0].label);
    assert!(sum_matches(&q));
}

#[test]
fn cross_attention_key_side_cells_index_key_tokens() {
    let mut s = Scenario::identity(&["a b"], 4, 1);
    s.kv_sentences = Some(vec!["one two three four five".into()]);
    s.positional = Positional::Sinusoidal;
    let trace = run(&s).unwrap();
    // key token 4 exists; query token 4 does not
    let k = ex(&trace, StepName::K, &[0, 4, 1]);
    assert!(k.terms[0].label.starts_with("x_kv_pe[0,4,0]"), "{}", k.terms[0].label);
    assert!(sum_matches(&k));
    assert!(matches!(
        explain(&trace, StepName::Q, &[0, 4, 1]),
        Err(ExplainError::OutOfRange { index: 4, len: 2, .. })
    ));
    // x_kv_pe at key position 4: beyond the pe step's two rows, from the formula
    let xp = ex(&trace, StepName::XKvPe, &[0, 4, 0]);
    assert_eq!(xp.terms_sum(), xp.result);
    assert_eq!(xp.terms[1].value, 4f64.sin());
    assert!(xp.notes.iter().any(|n| n.contains("same formula")));
    let x_kv = ex(&trace, StepName::XKv, &[0, 3, 0]);
    assert!(x_kv.notes.iter().any(|n| n.contains("“four”")));
    assert!(matches!(x_kv.kind, Kind::Source { source: Some(Source::Hashed) }));
    let sc = ex(&trace, StepName::Scores, &[0, 0, 1, 4]);
    assert!(sc.notes.iter().any(|n| n.contains("query “b” and key “five”")), "{:?}", sc.notes);
    let c = ex(&trace, StepName::Context, &[0, 0, 1, 3]);
    assert_eq!(c.terms.len(), 5);
    assert!(sum_matches(&c));
}

fn causal_pad(fill: Fill) -> Trace {
    let mut s = Scenario::identity(&["I bought a baseball bat", "the bat"], 3, 1);
    s.mask = MaskConfig::new(true, Padding::KeysAndQueries, fill);
    run(&s).unwrap()
}

#[test]
fn masked_cells_say_why() {
    let trace = causal_pad(Fill::NegInf);
    let causal = ex(&trace, StepName::Masked, &[0, 0, 1, 3]);
    assert_eq!(
        causal.kind,
        Kind::Masked { blocked: true, reasons: vec![BlockReason::Causal], fill: f64::NEG_INFINITY }
    );
    assert_eq!(causal.result, f64::NEG_INFINITY);
    assert!(causal.notes.iter().any(|n| n.contains("causal")));
    assert!(causal.pytorch.starts_with("float('-inf')"));
    // sentence 1 has 2 real tokens: row 3 is a pad query, key 4 a pad key, 4 > 3 too
    let pad = ex(&trace, StepName::Masked, &[1, 0, 3, 4]);
    let Kind::Masked { blocked: true, reasons, .. } = &pad.kind else { panic!("{:?}", pad.kind) };
    assert_eq!(reasons, &[BlockReason::Causal, BlockReason::PadKey, BlockReason::PadQuery]);
    let kept = ex(&trace, StepName::Masked, &[0, 0, 3, 1]);
    assert!(matches!(kept.kind, Kind::Masked { blocked: false, .. }));
    assert_eq!(kept.result, ex(&trace, StepName::Scaled, &[0, 0, 3, 1]).result);
    // JSON writes the fill as a string
    let json = serde_json::to_value(&causal).unwrap();
    assert_eq!(json["result"], "-Infinity");
    assert_eq!(json["kind"]["fill"], "-Infinity");
    assert_eq!(json["kind"]["reasons"][0], "causal");
}

#[test]
fn a_fully_masked_row_is_nan_under_neg_inf_and_uniform_under_large_negative() {
    let trace = causal_pad(Fill::NegInf);
    let w = ex(&trace, StepName::Weights, &[1, 0, 3, 0]);
    assert!(w.result.is_nan());
    assert!(matches!(w.kind, Kind::Softmax { max, .. } if max == f64::NEG_INFINITY));
    assert!(w.notes.iter().any(|n| n.contains("0/0") && n.contains("NaN")), "{:?}", w.notes);
    let c = ex(&trace, StepName::Context, &[1, 0, 3, 0]);
    assert!(c.result.is_nan() && c.terms_sum().is_nan());
    assert!(c.notes.iter().any(|n| n.contains("NaN")));
    let o = ex(&trace, StepName::Output, &[1, 3, 2]);
    assert!(o.result.is_nan() && o.terms_sum().is_nan());
    // a blocked key in a normal row: exactly 0
    let w = ex(&trace, StepName::Weights, &[0, 0, 1, 2]);
    assert_eq!(w.result, 0.0);
    assert!(w.notes.iter().any(|n| n.contains("exactly 0")));

    let trace = causal_pad(Fill::LargeNegative);
    let w = ex(&trace, StepName::Weights, &[1, 0, 3, 1]);
    assert!(close(w.result, 0.2, 1e-15));
    assert!(w.notes.iter().any(|n| n.contains("uniform") && n.contains("1/5")), "{:?}", w.notes);
}

/// Real scores below −1e9 (embeddings of 1e5 with opposite signs): the causal query
/// attends to the future under −1e9, and the explanation says so.
#[test]
fn the_large_negative_leak_is_explained() {
    let mut s = Scenario::identity(&["up"], 1, 1);
    s.embeddings = BTreeMap::from([("up".into(), vec![1e5]), ("down".into(), vec![-1e5])]);
    s.kv_sentences = Some(vec!["down up".into()]);
    s.mask = MaskConfig::new(true, Padding::None, Fill::LargeNegative);
    // cross, causal: query 0 may see key 0 ("down": -1e10), not key 1 ("up": +1e10)
    let trace = run(&s).unwrap();
    let blocked = ex(&trace, StepName::Weights, &[0, 0, 0, 1]);
    assert_eq!(blocked.result, 1.0);
    assert!(blocked.notes.iter().any(|n| n.contains("leaks")), "{:?}", blocked.notes);
    let real = ex(&trace, StepName::Weights, &[0, 0, 0, 0]);
    assert_eq!(real.result, 0.0);
    assert!(real.notes.iter().any(|n| n.contains("below the fill")), "{:?}", real.notes);
}

#[test]
fn bad_requests_are_errors() {
    let trace = baseball_bat();
    assert_eq!(explain(&trace, StepName::Pe, &[0, 0, 0]), Err(ExplainError::NoSuchStep(StepName::Pe)));
    assert_eq!(explain(&trace, StepName::XKv, &[0, 0, 0]), Err(ExplainError::NoSuchStep(StepName::XKv)));
    assert_eq!(
        explain(&trace, StepName::Scores, &[0, 0, 0]),
        Err(ExplainError::WrongRank { step: StepName::Scores, expected: 4, found: 3 })
    );
    assert!(matches!(
        explain(&trace, StepName::Weights, &[0, 1, 0, 0]),
        Err(ExplainError::OutOfRange { index: 1, .. })
    ));
    assert!(explain(&trace, StepName::X, &[]).is_err());
    assert!(explain(&trace, StepName::Output, &[usize::MAX, 0, 0]).is_err());
    // a trace cut short does not panic either
    let mut broken = trace.clone();
    let params = std::sync::Arc::make_mut(&mut broken.params);
    params.o = attention_engine::weights::Linear::new(ndarray::Array2::zeros((1, 1)), params.o.b().clone());
    assert!(matches!(explain(&broken, StepName::Output, &[0, 0, 2]), Err(ExplainError::Inconsistent(_))));
    let mut broken = trace;
    broken.steps.retain(|s| s.name != StepName::QHeads);
    assert!(matches!(explain(&broken, StepName::Scores, &[0, 0, 0, 0]), Err(ExplainError::Inconsistent(_))));
}

#[test]
fn long_sums_list_the_largest_terms_and_the_rest() {
    // d_model 20 → 21 terms for q (20 products and the bias)
    let mut s = Scenario::identity(&["zyzzyva"], 20, 1);
    s.projections = Projections::Named(attention_engine::ProjectionKind::Seeded);
    let trace = run(&s).unwrap();
    let q = ex(&trace, StepName::Q, &[0, 0, 7]);
    assert_eq!(q.terms.len(), 21);
    let (top, rest) = top_terms(&q, 16);
    assert_eq!(top.len(), 16);
    assert!(top.windows(2).all(|w| w[0].value.abs() >= w[1].value.abs()));
    let smallest_top = top.last().unwrap().value.abs();
    let others: Vec<f64> =
        q.terms.iter().filter(|t| !top.iter().any(|u| std::ptr::eq(*u, *t))).map(|t| t.value).collect();
    assert_eq!(others.len(), 5);
    assert!(others.iter().all(|v| v.abs() <= smallest_top));
    assert!(close(top.iter().map(|t| t.value).sum::<f64>() + rest, q.result, 1e-12));
    assert!(q.latex.contains(r"\cdots"));
    let (all, rest) = top_terms(&q, 100);
    assert_eq!((all.len(), rest), (21, 0.0));
}

#[test]
fn every_step_explains_and_serialises() {
    let mut s = Scenario::identity(&["the cat sat", "the bat"], 4, 2);
    s.kv_sentences = Some(vec!["a dog".into(), "the mat was cold".into()]);
    s.positional = Positional::Sinusoidal;
    s.mask = MaskConfig { window: Some(2), ..MaskConfig::new(true, Padding::KeysAndQueries, Fill::NegInf) };
    s.n_kv_heads = Some(1);
    s.rope = Some(attention_engine::Rope::new(attention_engine::RopeStyle::Half));
    s.alibi = true;
    s.scale = Some(0.4);
    s.softcap = Some(1.5);
    s.qk_norm = Some(attention_engine::QkNorm {
        q_weight: vec![1.5, 0.5],
        k_weight: vec![],
        eps: 1e-6,
        whole_projection: false,
    });
    let trace = run(&s).unwrap();
    // every step but MLA's own, which replace k, v and k_heads (explained apart below), and
    // the residual stream's, which need more than one layer of self-attention (tests/layers.rs)
    assert_eq!(
        trace.steps.len(),
        StepName::ALL.iter().filter(|s| !s.is_mla_only() && !s.is_layered_only()).count()
    );
    for step in &trace.steps {
        let index = vec![0; step.shape.len()];
        let e = ex(&trace, step.name, &index);
        assert!(
            !e.formula.is_empty() && !e.pytorch.is_empty() && !e.latex.is_empty() && !e.notes.is_empty(),
            "{}",
            step.name
        );
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains(step.name.as_str()));
    }
}

/// The result is always the trace's value, bit for bit (NaN for NaN).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// A QK-norm cell (`q_norm`, `k_norm`, per head or over the whole projection) is one term,
/// `w · x / rms`, as MLA's RMSNorms are: x is the head's cell it reads, the rms is that of the
/// row the norm takes (the head's d_k numbers, or over the whole projection every head's
/// numbers of the token, plus ε), w is the scenario's weight for that number, and w · x / rms
/// gives the cell.
fn normed_cell_explains_itself(
    trace: &Trace,
    s: &Scenario,
    name: StepName,
    index: &[usize],
) -> Result<(), TestCaseError> {
    let e = ex(trace, name, index);
    let value = trace.step(name).unwrap().data[ndarray::IxDyn(index)];
    prop_assert_eq!(&e.kind, &Kind::Sum);
    prop_assert!(sum_matches(&e), "{}{:?}: Σ terms {} vs {}", name, index, e.terms_sum(), e.result);
    prop_assert_eq!(e.terms.len(), 1);
    let t = &e.terms[0];
    prop_assert_eq!(t.kind, attention_engine::explain::TermKind::Normed);
    let [w, x, rms] = t.operands[..] else { panic!("{name}{index:?}: {:?}", t.operands) };
    let keys = name == StepName::KNorm;
    let from = trace.step(if keys { StepName::KHeads } else { StepName::QHeads }).unwrap();
    prop_assert!(same(x, from.data[ndarray::IxDyn(index)]), "{}{:?}: x {}", name, index, x);
    let norm = s.qk_norm.as_ref().unwrap();
    let (b, h, t, j) = (index[0], index[1], index[2], index[3]);
    let (heads, d_k) = (from.shape[1], from.shape[3]);
    let at = |hh: usize, c: usize| from.data[ndarray::IxDyn(&[b, hh, t, c])];
    let row: Vec<f64> = if norm.whole_projection {
        (0..heads).flat_map(|hh| (0..d_k).map(move |c| (hh, c))).map(|(hh, c)| at(hh, c)).collect()
    } else {
        (0..d_k).map(|c| at(h, c)).collect()
    };
    let mean = row.iter().map(|v| v * v).sum::<f64>() / row.len() as f64;
    prop_assert!(
        (rms - (mean + norm.eps).sqrt()).abs() <= 1e-12 * rms.max(1.0),
        "{}{:?}: rms {}",
        name,
        index,
        rms
    );
    let wi = if norm.whole_projection { h * d_k + j } else { j };
    prop_assert_eq!(w, norm.weight(keys, norm.weight_len(heads, d_k))[wi], "{}{:?}: w_{}", name, index, wi);
    prop_assert!(
        (w * x / rms - value).abs() <= 1e-12 * value.abs().max(1.0),
        "{}{:?}: {} {} {}",
        name,
        index,
        w,
        x,
        rms
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// One cell of every step explains itself: its result is the trace's value, a sum's terms
    /// add up to it, and a bad index is an error. Every cell of QK-norm's `q_norm` and
    /// `k_norm` is one `w · x / rms` term ([`normed_cell_explains_itself`]).
    #[test]
    fn every_cell_explains_itself(s in arb_scenario(), picks in prop::collection::vec(any::<prop::sample::Index>(), 4)) {
        let trace = run(&s).unwrap();
        for step in &trace.steps {
            let index: Vec<usize> = step.shape.iter().zip(&picks).map(|(&len, p)| p.index(len)).collect();
            let e = explain(&trace, step.name, &index).unwrap_or_else(|err| panic!("{}{index:?}: {err}", step.name));
            let value = step.data[ndarray::IxDyn(&index)];
            prop_assert!(same(e.result, value), "{}{:?}: result {} vs trace {}", step.name, index, e.result, value);
            prop_assert!(!e.notes.iter().any(|n| n.contains("Recomputed")), "{}{:?}: {:?}", step.name, index, e.notes);
            // a dimension beyond RoPE's rotary fraction is not turned: a copy
            let unturned = matches!(step.name, StepName::QRot | StepName::KRot)
                && trace.rope.is_some_and(|r| index[3] >= r.rotary_dims(step.shape[3]));
            if unturned {
                prop_assert_eq!(&e.kind, &Kind::Copy);
            } else if matches!(step.name, StepName::XPe | StepName::XKvPe | StepName::Q | StepName::K | StepName::V
                | StepName::QRot | StepName::KRot | StepName::Alibi | StepName::Biased
                | StepName::Scores | StepName::Context | StepName::Output) {
                prop_assert_eq!(&e.kind, &Kind::Sum);
                prop_assert!(sum_matches(&e), "{}{:?}: Σ terms {} vs {}", step.name, index, e.terms_sum(), e.result);
            }
            if matches!(step.name, StepName::QNorm | StepName::KNorm) {
                for (i, _) in step.data.indexed_iter() {
                    normed_cell_explains_itself(&trace, &s, step.name, ndarray::Dimension::slice(&i))?;
                }
            }
            // one past the end on any axis is an error, as is a wrong rank
            for axis in 0..index.len() {
                let mut bad = index.clone();
                bad[axis] = step.shape[axis];
                let is_out_of_range = matches!(explain(&trace, step.name, &bad), Err(ExplainError::OutOfRange { .. }));
                prop_assert!(is_out_of_range);
            }
            let mut longer = index.clone();
            longer.push(0);
            let is_wrong_rank = matches!(explain(&trace, step.name, &longer), Err(ExplainError::WrongRank { .. }));
            prop_assert!(is_wrong_rank);
        }
        for name in StepName::ALL {
            if trace.step(name).is_none() {
                prop_assert_eq!(explain(&trace, name, &[0, 0, 0]), Err(ExplainError::NoSuchStep(name)));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Under multi-head latent attention every cell explains itself from the trace's own
    /// tensors and MLA's weights: with or without the query's compression, RoPE of each
    /// layout (DeepSeek-V3's gathered pairs, V2's in place), cross-attention and batches.
    /// Every cell of MLA's own steps: a projection's, RMSNorm's or RoPE's terms add up to
    /// the cell, and a slice or concatenation copies the one cell it names. The score's
    /// first d_nope products are q_nope · k_nope and the rest q_rot · k_rot, and the
    /// absorbed form gives the same score.
    #[test]
    fn latent_cells_explain_themselves(
        s in arb_scenario(),
        draw in arb_mla(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 4),
    ) {
        let s = with_mla(s, draw);
        let m = s.mla.clone().unwrap();
        let trace = run(&s).unwrap();
        for step in &trace.steps {
            let own = step.name.is_mla_only()
                || matches!(step.name, StepName::Q | StepName::QHeads | StepName::VHeads | StepName::QRot | StepName::KRot);
            let indices: Vec<Vec<usize>> = if own {
                step.data.indexed_iter().map(|(i, _)| ndarray::Dimension::slice(&i).to_vec()).collect()
            } else {
                vec![step.shape.iter().zip(&picks).map(|(&len, p)| p.index(len)).collect()]
            };
            for index in indices {
                let e = explain(&trace, step.name, &index).unwrap_or_else(|err| panic!("{}{index:?}: {err}", step.name));
                let value = step.data[ndarray::IxDyn(&index)];
                prop_assert!(same(e.result, value), "{}{:?}: result {} vs trace {}", step.name, index, e.result, value);
                prop_assert!(!e.notes.iter().any(|n| n.contains("Recomputed")), "{}{:?}: {:?}", step.name, index, e.notes);
                prop_assert!(!e.pytorch.is_empty() && !e.latex.is_empty() && !e.formula.is_empty());
                match step.name {
                    StepName::QA | StepName::Q | StepName::KvA | StepName::KvB | StepName::QANorm | StepName::CKv
                    | StepName::QRot | StepName::KRot | StepName::Scores | StepName::Context | StepName::Output => {
                        prop_assert_eq!(&e.kind, &Kind::Sum);
                        prop_assert!(sum_matches(&e), "{}{:?}: Σ terms {} vs {}", step.name, index, e.terms_sum(), e.result);
                        if matches!(step.name, StepName::QANorm | StepName::CKv) {
                            // one term, w · x / rms: the weight, the number it reads and the row's rms
                            prop_assert_eq!(e.terms.len(), 1);
                            let t = &e.terms[0];
                            prop_assert_eq!(t.kind, attention_engine::explain::TermKind::Normed);
                            let [w, x, rms] = t.operands[..] else { panic!("{}{index:?}: {:?}", step.name, t.operands) };
                            let from = if step.name == StepName::CKv { StepName::KvA } else { StepName::QA };
                            let read = trace.step(from).unwrap().data[ndarray::IxDyn(&index)];
                            prop_assert!(same(x, read), "{}{:?}: x {} vs {} {}", step.name, index, x, from, read);
                            let width = trace.step(step.name).unwrap().shape[2];
                            let row: Vec<f64> =
                                (0..width).map(|d| trace.step(from).unwrap().data[ndarray::IxDyn(&[index[0], index[1], d])]).collect();
                            let mean = row.iter().map(|v| v * v).sum::<f64>() / width as f64;
                            prop_assert!((rms - (mean + m.eps).sqrt()).abs() <= 1e-12 * rms.max(1.0), "rms {}", rms);
                            prop_assert!((w * x / rms - value).abs() <= 1e-12 * value.abs().max(1.0), "{} {} {}", w, x, rms);
                        }
                    }
                    StepName::KPe | StepName::KNope | StepName::VHeads | StepName::QHeads | StepName::QCat
                    | StepName::KCat => {
                        prop_assert_eq!(&e.kind, &Kind::Copy);
                        prop_assert_eq!(e.terms.len(), 1);
                        prop_assert!(same(e.terms[0].value, value), "{}{:?}", step.name, index);
                        // the one cell it copies is the one it names
                        let Some(Operand { tensor: Tensor::Step(from), index: at }) = e.operands.first() else {
                            panic!("{}{index:?}: {:?}", step.name, e.operands)
                        };
                        let at: Vec<usize> = at.iter().map(|i| i.unwrap()).collect();
                        let copied = trace.step(*from).unwrap().data[ndarray::IxDyn(&at)];
                        prop_assert!(same(copied, value), "{}{:?} from {}{:?}", step.name, index, from, at);
                    }
                    _ => {}
                }
            }
            if step.name == StepName::KCat {
                // the shared RoPE key: the same cell of k_rot (k_pe) for every head
                let d_nope = m.qk_nope_head_dim;
                let at = |h: usize| explain(&trace, StepName::KCat, &[0, h, 0, d_nope]).unwrap().operands;
                prop_assert_eq!(at(0), at(step.shape[1] - 1));
            }
            let index: Vec<usize> = step.shape.iter().zip(&picks).map(|(&len, p)| p.index(len)).collect();
            let e = explain(&trace, step.name, &index).unwrap();
            if step.name == StepName::Scores {
                prop_assert_eq!(e.terms.len(), m.d_k());
                let part = |ts: &[attention_engine::Term]| ts.iter().fold(0.0, |a, t| a + t.value);
                let (nope, rope) = e.terms.split_at(m.qk_nope_head_dim);
                let said = e.notes.iter().find(|n| n.contains("q_nope · k_nope")).cloned().unwrap_or_default();
                prop_assert!(said.contains(&attention_engine::format::reading(part(nope))), "{}", said);
                prop_assert!(said.contains(&attention_engine::format::reading(part(rope))), "{}", said);
                prop_assert_eq!(
                    e.notes.iter().any(|n| n.contains("W_UK absorbed")),
                    s.rope.is_some(),
                    "{:?}", e.notes
                );
                let n = m.qk_nope_head_dim;
                let (head, tail) = (format!(":{n}]"), format!("{n}:]"));
                prop_assert!(e.pytorch.contains(&head) && e.pytorch.contains(&tail), "{}", e.pytorch);
            }
        }
        // k, v, k_heads and the rest MLA replaces are not in its trace: nothing is refused
        for name in StepName::ALL {
            if trace.step(name).is_none() {
                prop_assert_eq!(explain(&trace, name, &[0, 0, 0]), Err(ExplainError::NoSuchStep(name)));
            }
        }
    }
}
