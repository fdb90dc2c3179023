//! The run as one Python script: the sections as comments (wrapped at 96 characters) and
//! code, in one file that ends with `sys.exit`.

use std::fmt::Write as _;

use super::sections::sections;
use super::Target;
use attention_engine::scenario::Scenario;
use attention_engine::trace::Trace;

/// The run as one self-contained Python file. Run it with `python3 file.py` (NumPy
/// needed, PyTorch optional): it prints one line per checked step and ends with
/// `N passed, M failed`.
pub fn python_script(scenario: &Scenario, trace: &Trace) -> String {
    let sections = sections(scenario, trace, Target::Script);
    let mut out = String::from("#!/usr/bin/env python3\n");
    for (n, section) in sections.iter().enumerate() {
        if n > 0 {
            out.push_str("\n\n");
            let rule = "─".repeat(72usize.saturating_sub(section.heading.chars().count() + 6));
            let _ = writeln!(out, "# ── {} {rule}", section.heading);
        } else {
            let _ = writeln!(out, "# {}", section.heading);
            out.push_str("#\n");
        }
        for (i, paragraph) in section.prose.iter().enumerate() {
            if i > 0 && n == 0 {
                out.push_str("#\n");
            }
            for line in paragraph.lines() {
                if line.is_empty() {
                    out.push_str("#\n");
                }
                for wrapped in wrap(line, 96) {
                    let _ = writeln!(out, "# {wrapped}");
                }
            }
        }
        if n == 0 {
            out.push('\n');
        }
        out.push_str(&section.code);
        if !section.code.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Splits a line of prose into lines of at most `width` characters at spaces, keeping
/// its indentation on the continuation lines.
fn wrap(line: &str, width: usize) -> Vec<String> {
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if current.is_empty() {
            current.push_str(&indent);
            if !lines.is_empty() {
                current.push_str("  ");
            }
        } else {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{assert_contains_all, bat_trace, parse_array, same_bits, seeded_cross};
    use crate::notebook::markdown;
    use attention_engine::scenario::{Fill, MaskConfig};

    #[test]
    fn script_has_every_step_in_order_with_its_pytorch_line() {
        let (s, trace) = bat_trace(Fill::NegInf);
        let script = python_script(&s, &trace);
        assert!(script.starts_with("#!/usr/bin/env python3\n"));
        let mut at = 0;
        for step in &trace.steps {
            let name = step.name.as_str();
            let heading = format!("\n# ── {name} ─");
            let pos =
                script[at..].find(&heading).unwrap_or_else(|| panic!("no section {name} after {at}")) + at;
            at = pos + heading.len();
            let section = &script[pos..pos + script[pos + 1..].find("\n# ── ").unwrap() + 1];
            assert!(section.contains(&format!("# PyTorch: `{}`", step.pytorch)), "{section}");
            assert!(section.contains(&format!("numpy_steps[\"{name}\"] = {name}\n")), "{section}");
            assert!(script.contains(&format!("EXPECTED[\"{name}\"] = ")), "{name}");
        }
        // The mask is rebuilt from the lengths, not copied; the check ends with the summary.
        assert_contains_all(
            &script,
            &[
                "lengths = [5, 3]",
                "mask |= np.triu(np.ones((T, T_k), dtype=bool), k=1)",
                "print(f\"{passed} passed, {failed} failed\")\nsys.exit(1 if failed else 0)\n",
                "fill = float('-inf')",
                "scores = scores.masked_fill(mask.unsqueeze(1), float('-inf'))",
                "q = q.view(B, T, h, d_k).transpose(1, 2)",
                "weights = scores.softmax(dim=-1)",
                "W_q = np.eye(d_model)",
            ],
        );
        // Fully masked rows under -inf: NaN written as float('nan').
        assert!(trace.nan_rows.len() == 2 && script.contains("float('nan')"));
        // The numpy pipeline never reads EXPECTED: EXPECTED comes after it.
        let first_expected = script.find("EXPECTED[").unwrap();
        assert!(script.rfind("numpy_steps[\"output\"] = output").unwrap() < first_expected);
    }

    #[test]
    fn numbers_and_weights_round_trip_bit_for_bit() {
        let s = seeded_cross();
        let trace = attention_engine::run(&s).unwrap();
        let script = python_script(&s, &trace);
        for step in &trace.steps {
            let got = parse_array(&script, &format!("EXPECTED[\"{}\"]", step.name));
            assert!(same_bits(&got, step.data.iter().copied()), "{}", step.name);
        }
        let w = &trace.params;
        for (name, layer) in [("W_q", &w.q), ("W_k", &w.k), ("W_v", &w.v), ("W_o", &w.o)] {
            let got = parse_array(&script, name);
            assert!(same_bits(&got, layer.w().iter().copied()), "{name}");
        }
        assert_contains_all(&script, &["b_q = np.zeros(d_model)  # exactly zero", "seed 3"]);
        // Cross-attention: keys from x_kv (with positions), T_k of its own, a T_q × T_k mask.
        assert_contains_all(
            &script,
            &[
                "T_k = 7",
                "k = x_kv_pe @ W_k + b_k",
                "x_kv_pe = x_kv + sinusoidal(T_k, d_model)",
                "kv_tokens = [",
                ".reshape(B, h, T, T_k)",
            ],
        );
        let mask_rows = script.matches("\n    \"").count();
        assert!(mask_rows >= 2 * 5, "{mask_rows}");
    }

    #[test]
    fn markdown_and_comments() {
        assert_eq!(markdown("padded with <pad>, `x <pad>` *"), "padded with &lt;pad&gt;, `x <pad>` \\*");
        assert_eq!(wrap("  aa bb cc", 7), vec!["  aa bb", "    cc"]);
        let (s, trace) = bat_trace(Fill::NegInf);
        let script = python_script(&s, &trace);
        let comments = script.lines().filter(|l| l.starts_with('#'));
        assert!(comments.clone().all(|l| l.chars().count() <= 100), "a comment line is too long");
        assert!(comments.clone().any(|l| l.contains("2 query row(s) are blocked entirely")));
        // A sentence with a quote and a newline stays one line of valid Python.
        let mut odd = Scenario::identity(&["say \"hi\"\nnow"], 2, 1);
        odd.mask = MaskConfig::default();
        let script = python_script(&odd, &attention_engine::run(&odd).unwrap());
        assert!(script.contains(r#"sentences = ["say \"hi\"\nnow"]"#));
    }
}
