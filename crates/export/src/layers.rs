//! A run of more than one layer: every layer's weights, one function that runs a layer's
//! steps (the same NumPy code as one layer's, with `resid_out = resid_in + output` at the
//! end), the loop over the residual stream, and the names the later sections read bound
//! to the page's layer.

use std::fmt::Write as _;
use std::sync::Arc;

use super::numpy::numpy_step;
use super::values::{projections_code, py_str};
use super::Section;
use attention_engine::scenario::Scenario;
use attention_engine::step::StepName;
use attention_engine::trace::{shape_text, Trace};
use attention_engine::weights::Weights;

/// Each layer's projections, as the run drew them: layer `l` reads seed `seed + l` when
/// seeded, and the scenario's own (or the identity) in every layer otherwise. The page's
/// layer is the trace's own weights; the others are drawn again the same way.
pub(super) fn layer_weights(scenario: &Scenario, trace: &Trace) -> Vec<Arc<Weights>> {
    let z = &trace.sizes;
    (0..trace.n_layers)
        .map(|l| {
            if l + 1 == trace.layer {
                return Arc::clone(&trace.params);
            }
            attention_engine::weights::build_sized(
                &scenario.projections,
                z.d_model,
                z.n_heads * z.d_k,
                z.kv_heads() * z.d_k,
                scenario.layer_seed(l),
            )
            .unwrap_or_else(|_| Arc::clone(&trace.params))
        })
        .collect()
}

fn same_weights(a: &Weights, b: &Weights) -> bool {
    let bits = |x: &Weights| -> Vec<u64> {
        [&x.q, &x.k, &x.v, &x.o]
            .iter()
            .flat_map(|l| l.w().iter().chain(l.b().iter()).map(|v| v.to_bits()).collect::<Vec<_>>())
            .collect()
    };
    bits(a) == bits(b)
}

/// The names a layer's weights unpack into, in `layer_weights`' order.
const UNPACK: &str = "W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o";

/// Every layer's weights as `layer_weights[l]`, a tuple of the four projections' weights
/// and biases; written once when every layer has the same.
pub(super) fn weights_section(scenario: &Scenario, trace: &Trace, all: &[Arc<Weights>]) -> Section {
    let mut code = format!(
        "n_layers = {}  # attention layers, each adding to the residual stream\n\
         shown = {}  # the page's layer, counted from 0 (layer {} on the page): its steps are checked\n\n",
        trace.n_layers,
        trace.layer - 1,
        trace.layer
    );
    let shared = all.iter().zip(all.iter().skip(1)).all(|(a, b)| same_weights(a, b));
    match all.first() {
        Some(first) if shared => {
            code.push_str("# the same projections in every layer\n");
            code.push_str(&projections_code(trace, first));
            let _ = writeln!(code, "layer_weights = [({UNPACK})] * n_layers");
        }
        _ => {
            code.push_str(
                "layer_weights = []  # layer l's (W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o), l from 0\n",
            );
            for (l, w) in all.iter().enumerate() {
                let _ = writeln!(code, "\n# layer {} (seed {})", l + 1, scenario.layer_seed(l));
                code.push_str(&projections_code(trace, w));
                let _ = writeln!(code, "layer_weights.append(({UNPACK}))");
            }
        }
    }
    Section::new(
        "Weights of every layer",
        vec![
            format!("Projections: {}.", super::words::projection_words(scenario)),
            if shared {
                "Identity and explicit projections are the same in every layer.".into()
            } else {
                "Seeded projections: layer l (from 0) draws with seed + l, so layer 1 has the weights a one-layer \
                 run at the same seed has."
                    .into()
            },
            "Convention: `y = x @ W + b` with W of shape (d_model_in, d_model_out). PyTorch's `nn.Linear.weight` \
             is the transpose, `W.T`."
                .into(),
        ],
        code,
    )
}

/// `attention_layer(l, resid_in)`: every step of one layer, in the page's order and with
/// its words as comments, ending in the residual add; then the loop over the layers and
/// the page's layer's steps in `numpy_steps`.
pub(super) fn layers_section(trace: &Trace, x_in: &str, table: bool) -> Section {
    let layer_steps: Vec<StepName> = trace
        .steps
        .iter()
        .map(|s| s.name)
        .filter(|n| {
            !matches!(n, StepName::X | StepName::Pe | StepName::XPe | StepName::XKv | StepName::XKvPe)
        })
        .collect();
    let mut code = String::from(
        "def attention_layer(l, resid_in):\n    \
         \"\"\"Layer l (counted from 0) on the residual stream resid[l], (B, T, d_model): every step of the\n    \
         layer by the page's names, the last resid_out = resid[l + 1].\"\"\"\n",
    );
    let _ = writeln!(code, "    {UNPACK} = layer_weights[l]");
    for step in &trace.steps {
        if !layer_steps.contains(&step.name) {
            continue;
        }
        let _ = writeln!(code, "    # ── {}: {}", step.name, step.op.lines().next().unwrap_or_default());
        for (i, line) in step.pytorch.lines().enumerate() {
            let _ = writeln!(code, "    # {}{line}", if i == 0 { "PyTorch: " } else { "  " });
        }
        let _ = writeln!(code, "    # Shape: {}", shape_text(&step.dims, &step.shape));
        for line in numpy_step(step.name, "resid_in", "resid_in", table, trace).lines() {
            let _ = writeln!(code, "    {line}");
        }
    }
    let names: Vec<String> = layer_steps.iter().map(|n| format!("{}: {n}", py_str(n.as_str()))).collect();
    let _ = writeln!(code, "    return {{{}}}\n\n", names.join(", "));
    let _ = write!(
        code,
        "resid = [{x_in}]  # resid[0]: what layer 1 reads\n\
         layer_steps = []  # each layer's steps\n\
         for l in range(n_layers):\n    \
         layer_steps.append(attention_layer(l, resid[-1]))\n    \
         resid.append(layer_steps[-1][\"resid_out\"])\n\
         resid = np.stack(resid)  # (n_layers + 1, B, T, d_model)\n\
         numpy_steps.update(layer_steps[shown])  # the page's layer\n\
         print(f\"{{n_layers}} layers run; the page shows layer {{shown + 1}}\")\n\n\
         # The page's layer by name, for the decoding and tiles below: its input, weights and heads.\n\
         resid_in = numpy_steps[\"resid_in\"]\n\
         {UNPACK} = layer_weights[shown]\n"
    );
    for name in [StepName::QRot, StepName::QNorm, StepName::QHeads, StepName::KRep, StepName::KRot]
        .into_iter()
        .chain([StepName::KNorm, StepName::KHeads, StepName::VRep, StepName::VHeads, StepName::Weights])
        .filter(|n| trace.step(*n).is_some())
    {
        let _ = writeln!(code, "{name} = numpy_steps[{}]", py_str(name.as_str()));
    }
    Section::new(
        "The layers and the residual stream",
        vec![
            format!(
                "{} attention layers, each the whole pipeline above run on the residual stream: resid[0] is the \
                 embeddings{}, and resid[l+1] = resid[l] + attn_l(resid[l]) (`x = x + attn(x)` in PyTorch). \
                 The page shows layer {}: its steps are checked one by one below, and the whole stream \
                 (EXPECTED_RESID) too.",
                trace.n_layers,
                if x_in == "x" { "" } else { " plus the positions (added once, before layer 1)" },
                trace.layer
            ),
            format!("Each step's words are comments inside `attention_layer`, as the page writes them for layer {}.", trace.layer),
        ],
        code,
    )
}

#[cfg(test)]
mod tests {
    use crate::fixtures::{assert_contains_all, parse_array, same_bits};
    use crate::{notebook, python_script, refusal};
    use attention_engine::scenario::{Fill, MaskConfig, Padding, ProjectionKind, Projections, Scenario};

    fn layered(projections: ProjectionKind, layer: Option<usize>) -> Scenario {
        let mut s = Scenario::identity(&["a b c d", "c d"], 4, 2);
        s.projections = Projections::Named(projections);
        s.seed = 3;
        s.n_layers = Some(3);
        s.layer = layer;
        s.mask = MaskConfig {
            causal: true,
            padding: Padding::Keys,
            fill: Fill::LargeNegative,
            window: Some(2),
            ..MaskConfig::default()
        };
        s
    }

    #[test]
    fn every_layer_runs_and_the_stream_is_checked() {
        let s = layered(ProjectionKind::Seeded, Some(2));
        assert!(refusal(&s).is_none());
        let trace = attention_engine::run(&s).unwrap();
        let script = python_script(&s, &trace);
        assert_contains_all(
            &script,
            &[
                "n_layers = 3  #",
                "shown = 1  #",
                "def attention_layer(l, resid_in):",
                "    resid_out = resid_in + output  # the residual add",
                "    q = resid_in @ W_q + b_q",
                "torch_resid.append(torch_resid[-1] + output)  # the residual add",
                "report(*compare(resid, EXPECTED_RESID), \"numpy\", \"resid, every layer\")",
                "report(*compare(torch_resid.detach().numpy(), EXPECTED_RESID)",
            ],
        );
        // the whole stream, and the page's layer's steps, bit for bit
        assert!(same_bits(&parse_array(&script, "EXPECTED_RESID"), trace.resid.iter().copied()));
        for step in &trace.steps {
            let got = parse_array(&script, &format!("EXPECTED[\"{}\"]", step.name));
            assert!(same_bits(&got, step.data.iter().copied()), "{}", step.name);
        }
        // seeded: each layer's own weights, layer l drawn with seed + l (the page's layer is
        // the trace's); the one-layer run at seed 3 + l has them too
        for l in 0..3 {
            let mut one = s.clone();
            (one.n_layers, one.layer, one.seed) = (None, None, s.layer_seed(l));
            let w = attention_engine::run(&one).unwrap().params;
            let block = &script[script.find(&format!("# layer {} (seed {})", l + 1, 3 + l)).unwrap()..];
            assert!(same_bits(&parse_array(block, "W_k"), w.k.w().iter().copied()), "layer {l}");
        }
        assert_eq!(script.matches("layer_weights.append((").count(), 3);
        // one layer's file is unchanged: no layers, no stream
        let mut one = s.clone();
        (one.n_layers, one.layer) = (None, None);
        let script = python_script(&one, &attention_engine::run(&one).unwrap());
        assert!(!script.contains("attention_layer") && !script.contains("EXPECTED_RESID"));
        assert!(!script.contains("resid") && script.contains("output = mha(x, x_kv, mask_t, torch_steps)"));
    }

    #[test]
    fn identity_layers_share_their_weights_and_the_notebook_has_the_layers() {
        let s = layered(ProjectionKind::Identity, None);
        let trace = attention_engine::run(&s).unwrap();
        let script = python_script(&s, &trace);
        assert!(script.contains("layer_weights = [(W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o)] * n_layers"));
        assert!(script.contains("shown = 2  #") && !script.contains("layer_weights.append"));
        let nb = notebook(&s, &trace);
        assert_contains_all(
            &nb,
            &["The layers and the residual stream", "Heatmaps of the weights", "assert failed == 0"],
        );
    }
}
