//! More than one attention layer: the residual stream, `resid[l+1] = resid[l] +
//! attn_l(resid[l])`, every layer the whole one-layer pipeline on its own input.

use std::path::Path;

use attention_engine::error::Field;
use attention_engine::{
    explain, run, EngineError, Fill, Padding, Rope, RopeStyle, Scenario, StepName, Trace,
};
use ndarray::{Array2, Array3, Axis};

fn layered(mut s: Scenario, n_layers: usize, layer: Option<usize>) -> Scenario {
    s.n_layers = Some(n_layers);
    s.layer = layer;
    s
}

fn data3(trace: &Trace, name: StepName) -> Array3<f64> {
    trace.step(name).unwrap().data.clone().into_dimensionality().unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

fn assert_close3(got: &Array3<f64>, want: &Array3<f64>, tol: f64, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w, tol), "{what}[{i}]: {g} != {w}");
    }
}

/// Every fixture scenario, as its file says it.
fn fixture_scenarios() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out: Vec<(String, Scenario)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.strip_suffix(".scenario.json")?.to_owned();
            Some((name, Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap()))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 10, "{} fixtures", out.len());
    out
}

#[test]
fn one_layer_is_the_run_of_before_byte_for_byte() {
    for (name, s) in fixture_scenarios() {
        let plain = run(&s).unwrap().to_json();
        for one in [layered(s.clone(), 1, None), layered(s.clone(), 1, Some(1))] {
            assert_eq!(run(&one).unwrap().to_json(), plain, "{name}");
        }
        assert!(
            !plain.contains("\"n_layers\"") && !plain.contains("\"resid") && !plain.contains("\"layer\"")
        );
        // a scenario of one layer is written as before: no n_layers key
        let json = layered(s.clone(), 1, None).to_json();
        assert!(!json.contains("n_layers"), "{name}: {json}");
        assert_eq!(json, s.to_json());
    }
}

/// Two tokens, `d_model = 2`, one head, identity projections, embeddings `e_1` and `e_2`:
/// every number of two layers written out by hand.
#[test]
fn two_layers_by_hand() {
    let mut s = Scenario::identity(&["p r"], 2, 1);
    s.embeddings.insert("p".into(), vec![1.0, 0.0]);
    s.embeddings.insert("r".into(), vec![0.0, 1.0]);
    let s = layered(s, 2, None);

    // one layer on rows x: scores x xᵀ / √2, softmax per row, weights @ x (W_O = I)
    let attend = |x: [[f64; 2]; 2]| -> [[f64; 2]; 2] {
        let dot = |a: [f64; 2], b: [f64; 2]| (a[0] * b[0] + a[1] * b[1]) / 2f64.sqrt();
        let mut out = [[0.0; 2]; 2];
        for i in 0..2 {
            let (s0, s1) = (dot(x[i], x[0]), dot(x[i], x[1]));
            let m = s0.max(s1);
            let (e0, e1) = ((s0 - m).exp(), (s1 - m).exp());
            let (w0, w1) = (e0 / (e0 + e1), e1 / (e0 + e1));
            out[i] = [w0 * x[0][0] + w1 * x[1][0], w0 * x[0][1] + w1 * x[1][1]];
        }
        out
    };
    let add = |a: [[f64; 2]; 2], b: [[f64; 2]; 2]| {
        [[a[0][0] + b[0][0], a[0][1] + b[0][1]], [a[1][0] + b[1][0], a[1][1] + b[1][1]]]
    };
    let resid0 = [[1.0, 0.0], [0.0, 1.0]];
    // layer 1: a = e^{1/√2}; token p puts a/(a+1) on itself, so resid[1] = [[1 + a/(a+1), 1/(a+1)], ...]
    let a = (1.0 / 2f64.sqrt()).exp();
    let out1 = attend(resid0);
    assert!(close(out1[0][0], a / (a + 1.0), 1e-15) && close(out1[0][1], 1.0 / (a + 1.0), 1e-15));
    let resid1 = add(resid0, out1);
    let out2 = attend(resid1);
    let resid2 = add(resid1, out2);
    let arr = |m: [[f64; 2]; 2]| Array3::from_shape_fn((1, 2, 2), |(_, i, c)| m[i][c]);

    let last = run(&s).unwrap();
    last.check_invariants().unwrap();
    assert_eq!((last.n_layers, last.layer), (2, 2));
    assert_close3(&data3(&last, StepName::ResidIn), &arr(resid1), 1e-14, "layer 2 resid_in");
    assert_close3(&data3(&last, StepName::Output), &arr(out2), 1e-14, "layer 2 output");
    assert_close3(&data3(&last, StepName::ResidOut), &arr(resid2), 1e-14, "layer 2 resid_out");
    // the whole stream, resid[0..=2]
    for (l, want) in [resid0, resid1, resid2].into_iter().enumerate() {
        assert_close3(&last.resid_at(l).unwrap().to_owned(), &arr(want), 1e-14, &format!("resid[{l}]"));
    }
    assert!(last.resid_at(3).is_none());

    let first = run(&layered(s.clone(), 2, Some(1))).unwrap();
    first.check_invariants().unwrap();
    assert_eq!(first.layer, 1);
    assert_close3(&data3(&first, StepName::ResidIn), &arr(resid0), 0.0, "layer 1 resid_in");
    assert_close3(&data3(&first, StepName::Output), &arr(out1), 1e-14, "layer 1 output");
    assert_close3(&data3(&first, StepName::ResidOut), &arr(resid1), 1e-14, "layer 1 resid_out");
    // both traces carry the same stream, and layer 1's is the one-layer run
    assert_eq!(first.resid, last.resid);
    let one = run(&layered(s.clone(), 1, None)).unwrap();
    assert_eq!(one.step(StepName::Weights), first.step(StepName::Weights));
    // the title says which layer
    assert_eq!(last.step_title(StepName::Weights), "layer 2 · weights");
    assert_eq!(one.step_title(StepName::Weights), "weights");
    assert_eq!(last.step_title(StepName::X), "x");
    // d_model = 2: 4·4 + 4·2 = 24 numbers a layer, 48 in two
    assert_eq!(last.parameters(), Some(("4·d_model² + 4·d_model".to_owned(), 24)));
    assert_eq!((last.parameters_total(), one.parameters_total()), (Some(48), Some(24)));
}

#[test]
fn seeded_layers_draw_seed_plus_l_and_read_the_stream() {
    let mut s = Scenario::identity(&["the cat sat on the mat", "a dog"], 8, 2);
    s.projections = attention_engine::Projections::Named(attention_engine::ProjectionKind::Seeded);
    s.seed = 7;
    s.positional = attention_engine::Positional::Sinusoidal;
    s.mask.causal = true;
    s.mask.padding = Padding::Keys;
    let three = layered(s.clone(), 3, None);
    let shown = run(&layered(s.clone(), 3, Some(2))).unwrap();
    shown.check_invariants().unwrap();
    // layer 2 (l = 1) uses seed 7 + 1: the weights a one-layer run at seed 8 uses
    let mut at8 = s.clone();
    at8.seed = 8;
    assert_eq!(*shown.params, *run(&at8).unwrap().params);
    assert_ne!(*shown.params, *run(&s).unwrap().params);
    assert_eq!(three.layer_seed(0), 7);
    // its q is resid[1] @ W_Q: resid_in is what the projection read
    let x = data3(&shown, StepName::ResidIn);
    let q = data3(&shown, StepName::Q);
    let w_q: &Array2<f64> = shown.params.q.w();
    for b in 0..2 {
        let want = x.index_axis(Axis(0), b).dot(w_q);
        for (g, w) in q.index_axis(Axis(0), b).iter().zip(want.iter()) {
            assert!(close(*g, *w, 1e-12));
        }
    }
    // and resid[1] is layer 1's resid_out; every shown layer agrees on the stream
    let first = run(&layered(s.clone(), 3, Some(1))).unwrap();
    assert_eq!(data3(&first, StepName::ResidOut), x);
    let last = run(&three).unwrap();
    assert_eq!(last.resid, shown.resid);
    assert_eq!(last.resid_at(3).unwrap().to_owned(), data3(&last, StepName::ResidOut));
    // the positions are added once, before layer 1
    assert_eq!(first.resid_at(0).unwrap().to_owned(), data3(&first, StepName::XPe));
}

#[test]
fn layers_with_every_option_keep_the_invariants_and_explain_themselves() {
    let mut s = Scenario::identity(&["the cat sat on the warm mat", "a dog barked"], 8, 4);
    s.projections = attention_engine::Projections::Named(attention_engine::ProjectionKind::Seeded);
    s.seed = 9;
    s.n_kv_heads = Some(2);
    s.rope = Some(Rope::new(RopeStyle::Half));
    s.alibi = true;
    s.mask.causal = true;
    s.mask.padding = Padding::KeysAndQueries;
    s.mask.fill = Fill::LargeNegative;
    s.mask.window = Some(3);
    for layer in 1..=4 {
        let t = run(&layered(s.clone(), 4, Some(layer))).unwrap();
        t.check_invariants().unwrap();
        // every explained cell recomputes to the trace's number (no "Recomputed" note)
        for (name, index) in [
            (StepName::ResidIn, vec![1, 2, 3]),
            (StepName::Q, vec![0, 4, 1]),
            (StepName::K, vec![1, 1, 2]),
            (StepName::Output, vec![0, 5, 7]),
            (StepName::ResidOut, vec![0, 5, 7]),
        ] {
            let e = explain(&t, name, &index).unwrap();
            assert!(
                !e.formula.is_empty() && !e.pytorch.is_empty() && !e.latex.is_empty() && !e.notes.is_empty()
            );
            assert!(e.notes.iter().all(|n| !n.contains("Recomputed")), "layer {layer} {name}: {:?}", e.notes);
        }
        let out = explain(&t, StepName::ResidOut, &[1, 0, 0]).unwrap();
        assert_eq!(out.terms.len(), 2);
    }
}

#[test]
fn bad_layer_counts_are_refused_by_name() {
    let s = Scenario::identity(&["a b c"], 4, 2);
    let e = run(&layered(s.clone(), 0, None)).unwrap_err();
    assert_eq!(e, EngineError::ZeroSize { what: "n_layers", field: Field::NLayers });
    let e = run(&layered(s.clone(), 5, None)).unwrap_err();
    assert_eq!(e.field(), Field::NLayers);
    assert!(e.to_string().starts_with("n_layers = 5: the explorer runs 1 to 4"), "{e}");
    assert!(run(&layered(s.clone(), 4, None)).is_ok());
    for layer in [0, 3] {
        let e = run(&layered(s.clone(), 2, Some(layer))).unwrap_err();
        assert_eq!(e, EngineError::NoSuchLayer { layer, n_layers: 2 });
        assert_eq!(e.field(), Field::Layer);
        assert!(e.to_string().contains("pick a layer from 1 to 2"), "{e}");
    }
    // JSON: n_layers is read, and written only above 1
    let json = layered(s.clone(), 3, Some(2)).to_json();
    assert!(json.contains("\"n_layers\": 3") && json.contains("\"layer\": 2"), "{json}");
    assert_eq!(Scenario::from_json(&json).unwrap(), layered(s.clone(), 3, Some(2)));
    let trace = run(&layered(s.clone(), 3, Some(2))).unwrap();
    let back = Trace::from_json(&trace.to_json()).unwrap();
    assert_eq!((back.n_layers, back.layer, &back.resid), (3, 2, &trace.resid));
}

#[test]
fn cross_attention_nan_rows_decoding_and_export_refuse_more_than_one_layer() {
    let mut cross = Scenario::identity(&["a b"], 2, 1);
    cross.kv_sentences = Some(vec!["c d e".into()]);
    let e = run(&layered(cross.clone(), 2, None)).unwrap_err();
    assert_eq!(e.field(), Field::NLayers);
    assert!(e.to_string().contains("cross-attention runs one layer only"), "{e}");
    assert!(run(&layered(cross, 1, None)).is_ok());

    // a fully masked -inf row is NaN, and would reach every row of the next layer
    let mut pad = Scenario::identity(&["a b c", "d"], 2, 1);
    pad.mask.padding = Padding::KeysAndQueries;
    let e = run(&layered(pad.clone(), 2, None)).unwrap_err();
    assert!(e.to_string().contains("query 2 of sentence 2 is fully masked"), "{e}");
    pad.mask.fill = Fill::LargeNegative;
    run(&layered(pad.clone(), 2, None)).unwrap().check_invariants().unwrap();
    // with one layer it is today's NaN row
    pad.mask.fill = Fill::NegInf;
    assert!(!run(&pad).unwrap().nan_rows.is_empty());

    let mut causal = Scenario::identity(&["a b c"], 2, 1);
    causal.mask.causal = true;
    let two = layered(causal.clone(), 2, None);
    for e in [attention_engine::decode(&two).unwrap_err(), attention_engine::tiled(&two, 2).unwrap_err()] {
        assert_eq!(e.field(), Field::NLayers);
        assert!(e.to_string().contains("decoding and tiles views run one layer"), "{e}");
    }
    // layers are exported; MLA's export writes one layer, so MLA with layers is refused by name
    assert!(attention_export::refusal(&two).is_none());
    assert!(attention_export::refusal(&causal).is_none());
    let mut latent = two.clone();
    latent.mla = Some(attention_engine::Mla::sized(2, 1, 2, 1));
    let why = attention_export::refusal(&latent).unwrap();
    assert!(why.contains("n_layers = 2 with multi-head latent attention"), "{why}");
}

#[test]
fn a_stream_that_overflows_is_an_error() {
    let mut s = Scenario::identity(&["a b"], 2, 1);
    s.embeddings.insert("a".into(), vec![1e30, -1e30]);
    s.embeddings.insert("b".into(), vec![1e30, 1e30]);
    s.projections = attention_engine::Projections::Explicit(Box::new(attention_engine::ExplicitWeights {
        w_q: vec![vec![1e30, 0.0], vec![0.0, 1e30]],
        b_q: vec![],
        w_k: vec![vec![1e30, 0.0], vec![0.0, 1e30]],
        b_k: vec![],
        w_v: vec![vec![1e30, 0.0], vec![0.0, 1e30]],
        b_v: vec![],
        w_o: vec![vec![1e30, 0.0], vec![0.0, 1e30]],
        b_o: vec![],
    }));
    // one layer of these numbers is finite (1e30 inputs are within the limits) ...
    run(&s).unwrap().check_invariants().unwrap();
    // ... but each layer multiplies them by ~1e90: by layer 3 the scores are infinite
    let e = run(&layered(s, 4, None)).unwrap_err();
    assert_eq!(e.field(), Field::NLayers);
    assert!(e.to_string().contains("the residual stream after layer"), "{e}");
}
