//! The end of the file: the page's numbers (`EXPECTED`, `EXPECTED_MASK`) and the check of
//! every step against them, which prints `N passed, M failed`.

use std::fmt::Write as _;

use super::values::{py_array, py_str, shape_symbols};
use super::{Section, Target, ATOL, RTOL};
use attention_engine::step::StepName;
use attention_engine::trace::{shape_text, Trace};

pub(super) fn expected_section(trace: &Trace) -> Section {
    let mut c = String::from("STEPS = [");
    let names: Vec<&str> = trace.steps.iter().map(|s| s.name.as_str()).collect();
    c.push_str(&names.iter().map(|n| py_str(n)).collect::<Vec<_>>().join(", "));
    c.push_str("]\nSHAPES = {\n");
    for step in &trace.steps {
        let _ = writeln!(
            c,
            "    {}: {},",
            py_str(step.name.as_str()),
            py_str(&shape_text(&step.dims, &step.shape))
        );
    }
    c.push_str("}\n\n# The mask the page used, one query row per string (1 = blocked).\nEXPECTED_MASK = np.array([[c == \"1\" for c in row] for row in [\n");
    let [_, _, t_k] = trace.mask.shape;
    for row in trace.mask.blocked.chunks(t_k.max(1)) {
        let bits: String = row.iter().map(|&b| if b { '1' } else { '0' }).collect();
        let _ = writeln!(c, "    \"{bits}\",");
    }
    c.push_str("]]).reshape(B, T, T_k)\n\nEXPECTED = {}\n");
    for step in &trace.steps {
        let flat: Vec<f64> = step.data.iter().copied().collect();
        let row_len = step.shape.last().copied().unwrap_or(1);
        let _ = writeln!(
            c,
            "EXPECTED[{}] = {}",
            py_str(step.name.as_str()),
            py_array(&flat, row_len, &shape_symbols(step), 0)
        );
    }
    if trace.n_layers > 1 {
        let _ = writeln!(
            c,
            "\n# The whole residual stream, resid[0] (what layer 1 reads) to resid[n_layers].\nEXPECTED_RESID = {}",
            py_array(&trace.resid, trace.sizes.d_model, "n_layers + 1, B, T, d_model", 0)
        );
    }
    Section::new(
        "The page's numbers",
        vec!["Every step as the page computed it (EXPECTED), and the mask it used.".into()],
        c,
    )
}

pub(super) fn check_section(trace: &Trace, target: Target) -> Section {
    let fill = trace.mask.config.fill.pytorch();
    let mut c = format!(
        "RTOL, ATOL = {RTOL:?}, {ATOL:?}\n\n\n\
         def compare(got, want):\n    \
         \"\"\"True when got matches want: NaN equals NaN, infinities must be equal, and other numbers\n    \
         may differ by RTOL relative or ATOL times the step's largest magnitude (at least 1, the fill\n    \
         left out). Also returns a few words on the largest error.\"\"\"\n    \
         got = np.asarray(got, dtype=np.float64)\n    \
         if got.shape != want.shape:\n        \
         return False, f\"shape {{got.shape}}, expected {{want.shape}}\"\n    \
         finite = want[np.isfinite(want) & (want != {fill})]\n    \
         scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0\n    \
         with np.errstate(invalid=\"ignore\"):\n        \
         err = np.abs(got - want)\n        \
         close = err <= np.maximum(RTOL * np.abs(want), ATOL * scale)\n    \
         same = close | (np.isnan(got) & np.isnan(want)) | (got == want)\n    \
         bad = np.flatnonzero(~same)\n    \
         if bad.size:\n        \
         i = np.unravel_index(bad[0], want.shape)\n        \
         return False, f\"{{bad.size}} of {{want.size}} numbers differ, first at {{i}}: got {{got[i]!r}}, expected {{want[i]!r}}\"\n    \
         finite_err = err[np.isfinite(err)]\n    \
         worst = float(finite_err.max()) if finite_err.size else 0.0\n    \
         nans = int(np.isnan(want).sum())\n    \
         return True, f\"max |error| {{worst:.1e}}\" + (f\", {{nans}} NaN as expected\" if nans else \"\")\n\n\n\
         passed = failed = 0\n\n\n\
         def report(ok, detail, who, name):\n    \
         global passed, failed\n    \
         passed, failed = passed + ok, failed + (not ok)\n    \
         print(f\"{{'ok  ' if ok else 'FAIL'}}  {{who:<5}}  {{name:<8}}  {{SHAPES.get(name, '')}}  {{detail}}\")\n\n\n\
         same_mask = mask.shape == EXPECTED_MASK.shape and bool((mask == EXPECTED_MASK).all())\n\
         report(same_mask, \"blocked pairs as on the page\" if same_mask else \"the mask differs from the page's\", \"numpy\", \"mask\")\n\
         for name in STEPS:\n    \
         report(*compare(numpy_steps[name], EXPECTED[name]), \"numpy\", name)\n"
    );
    if trace.n_layers > 1 {
        c.push_str("report(*compare(resid, EXPECTED_RESID), \"numpy\", \"resid, every layer\")\n");
    }
    c.push_str(
        "report(*compare(tiled_context, EXPECTED[\"context\"]), \"numpy\", \"context, tile by tile\")\n",
    );
    // MLA's file decodes with a cache of latents (NumPy, and PyTorch absorbed)
    if trace.mla.is_some() {
        let k_rope = if trace.step(StepName::KRot).is_some() { "k_rot" } else { "k_pe" };
        c.push_str(&format!(
            "if mla_decoded is not None:  # rows with a key to attend to (a fully blocked row under -1e9 differs)\n    \
             live = ~EXPECTED_MASK.all(axis=-1)[:, :, None]\n    \
             report(*compare(np.where(live, mla_decoded, EXPECTED[\"output\"]), EXPECTED[\"output\"]), \"numpy\", \"output, decoded\")\n    \
             report(*compare(c_cache, EXPECTED[\"c_kv\"][:, cached]), \"numpy\", \"c_kv, cached at the end\")\n    \
             report(*compare(k_rot_cache, EXPECTED[\"{k_rope}\"][:, :, cached]), \"numpy\", \"{k_rope}, cached at the end\")\n    \
             report(*compare(np.concatenate(absorbed_scores), np.concatenate(raw_scores)), \"numpy\", \"decoded scores, W_UK absorbed\")\n\
             if torch_mla:\n    \
             decoded_t = np.where(live, torch_mla[\"decoded\"].numpy(), EXPECTED[\"output\"])\n    \
             report(*compare(decoded_t, EXPECTED[\"output\"]), \"torch\", \"output, decoded, W_UK and W_UV absorbed\")\n    \
             report(*compare(torch_mla[\"c_kv\"].numpy(), EXPECTED[\"c_kv\"][:, torch_mla[\"cached\"]]), \"torch\", \"c_kv, cached at the end\")\n"
        ));
    } else {
        c.push_str(
            "if decoded is not None:  # rows with a key to attend to (a fully blocked row under -1e9 differs)\n    \
             live = ~EXPECTED_MASK.all(axis=-1)[:, :, None]\n    \
             report(*compare(np.where(live, decoded, EXPECTED[\"output\"]), EXPECTED[\"output\"]), \"numpy\", \"output, decoded\")\n",
        );
    }
    c.push_str(
        &"if torch is not None:\n    \
         for name in STEPS:\n        \
         report(*compare(torch_steps[name].detach().numpy(), EXPECTED[name]), \"torch\", name)\n    \
         TORCH_RESID\
         live = torch_sdpa[\"live\"].numpy()[:, None, :, None]  # rows with a key to attend to\n    \
         if \"context\" in torch_sdpa:  # not with a softcap or sinks, which SDPA does not have\n        \
         sdpa = np.where(live, torch_sdpa[\"context\"].detach().numpy(), EXPECTED[\"context\"])\n        \
         report(*compare(sdpa, EXPECTED[\"context\"]), \"torch\", \"F.scaled_dot_product_attention\")\n    \
         if \"decoded\" in torch_sdpa:\n        \
         report(*compare(torch_sdpa[\"decoded\"].detach().numpy(), EXPECTED[\"context\"]), \"torch\", \"decoded, causal_lower_right\")\n"
            .replace(
                "TORCH_RESID",
                if trace.n_layers > 1 {
                    "report(*compare(torch_resid.detach().numpy(), EXPECTED_RESID), \"torch\", \"resid, every layer\")\n    "
                } else {
                    ""
                },
            ),
    );
    c.push_str("print(f\"{passed} passed, {failed} failed\")\n");
    match target {
        Target::Script => c.push_str("sys.exit(1 if failed else 0)\n"),
        Target::Notebook => c.push_str("assert failed == 0, f\"{failed} checks failed\"\n"),
    }
    Section::new(
        "Check every step against the page",
        vec![format!(
            "NaN equals NaN; other numbers must agree to {RTOL:e} relative (or {ATOL:e} times the step's largest \
             magnitude). The NumPy results above were computed from the inputs, never copied from EXPECTED."
        )],
        c,
    )
}
