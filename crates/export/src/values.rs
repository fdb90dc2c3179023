//! Writing Python values: strings and lists of strings, numbers (shortest round-trip),
//! arrays (a list literal, or a text block past [`LITERAL_LIMIT`] numbers), a layer's
//! weight and bias, and the Python names of the axes.

use std::fmt::Write as _;

use super::LITERAL_LIMIT;
use attention_engine::step::Axis;
use attention_engine::trace::Step;
use attention_engine::weights::Linear;

/// A Python string literal (JSON's escapes are Python's too).
pub(super) fn py_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

/// A list of Python strings on one line.
pub(super) fn py_str_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| py_str(s.as_ref())).collect();
    format!("[{}]", parts.join(", "))
}

/// A Python literal: the one formatter's [`attention_engine::format::python`].
pub(super) fn py_number(v: f64) -> String {
    attention_engine::format::python(v)
}

/// A number in a text block NumPy reads: [`attention_engine::format::python_text`].
fn text_number(v: f64) -> String {
    attention_engine::format::python_text(v)
}

/// `np.array([...]).reshape(shape)` (or `numbers("""...""").reshape(shape)` for a big
/// array), one row of `row_len` numbers per line, indented by `indent` spaces.
pub(super) fn py_array(values: &[f64], row_len: usize, shape: &str, indent: usize) -> String {
    let pad = " ".repeat(indent + 4);
    let row_len = row_len.max(1);
    let mut out = String::new();
    let big = values.len() > LITERAL_LIMIT;
    out.push_str(if big { "numbers(\"\"\"\n" } else { "np.array([\n" });
    for row in values.chunks(row_len) {
        if big {
            let parts: Vec<String> = row.iter().map(|&v| text_number(v)).collect();
            let _ = writeln!(out, "{}", parts.join(" "));
        } else {
            let parts: Vec<String> = row.iter().map(|&v| py_number(v)).collect();
            let _ = writeln!(out, "{pad}{},", parts.join(", "));
        }
    }
    if big {
        let _ = write!(out, "\"\"\").reshape({shape})");
    } else {
        let _ = write!(out, "{}]).reshape({shape})", " ".repeat(indent));
    }
    out
}

/// A weight matrix (`np.eye` when it is exactly the identity) or bias (`np.zeros` when it
/// is exactly zero).
/// `inp` and `out` are the Python names of the input and output widths (`d_model`,
/// `h_kv * d_k` for the keys and values of grouped-query attention, `h * d_k` for heads of
/// a size of their own).
pub(super) fn py_linear(name: &str, layer: &Linear, inp: &str, out: &str) -> String {
    let identity = layer
        .w()
        .indexed_iter()
        .all(|((i, j), &v)| v.to_bits() == if i == j { 1f64 } else { 0f64 }.to_bits());
    let w = if identity && out == inp {
        format!("np.eye({inp})  # exactly the identity")
    } else if identity {
        format!("np.eye({inp}, {out})  # exactly the identity's first {out} columns")
    } else {
        let flat: Vec<f64> = layer.w().iter().copied().collect();
        py_array(&flat, layer.w().ncols(), &format!("{inp}, {out}"), 0)
    };
    let b = if layer.b().iter().all(|&v| v.to_bits() == 0) {
        format!("np.zeros({out})  # exactly zero")
    } else {
        let flat: Vec<f64> = layer.b().iter().copied().collect();
        py_array(&flat, flat.len(), out, 0)
    };
    format!("W_{name} = {w}\nb_{name} = {b}\n")
}

/// `W_q = …`, `b_q = …` and the same for k, v and o: one layer's projections `w`.
pub(super) fn projections_code(
    trace: &attention_engine::trace::Trace,
    w: &attention_engine::weights::Weights,
) -> String {
    let q = if trace.layout().wide { "h * d_k" } else { "d_model" };
    let kv = if trace.is_grouped() { "h_kv * d_k" } else { q };
    [
        ("q", &w.q, "d_model", q),
        ("k", &w.k, "d_model", kv),
        ("v", &w.v, "d_model", kv),
        ("o", &w.o, q, "d_model"),
    ]
    .into_iter()
    .map(|(name, layer, inp, out)| py_linear(name, layer, inp, out))
    .collect()
}

/// The Python name of an axis size.
fn axis_symbol(axis: Axis) -> &'static str {
    match axis {
        Axis::B => "B",
        Axis::H => "h",
        Axis::T | Axis::TQ => "T",
        Axis::TK => "T_k",
        Axis::DModel => "d_model",
        Axis::DK => "d_k",
        Axis::HKv => "h_kv",
        Axis::KvWidth => "h_kv * d_k",
        Axis::QWidth => "h * d_k",
        Axis::One => "1",
        Axis::Group => "h // h_kv",
        Axis::QRank => "r_q",
        Axis::KvRank => "r_kv",
        Axis::KvAWidth => "r_kv + d_rope",
        Axis::KvBWidth => "h * (d_nope + d_v)",
        Axis::NopeV => "d_nope + d_v",
        Axis::DNope => "d_nope",
        Axis::DRope => "d_rope",
        Axis::DV => "d_v",
        Axis::VWidth => "h * d_v",
    }
}

pub(super) fn shape_symbols(step: &Step) -> String {
    step.dims.iter().map(|&a| axis_symbol(a)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{parse_array, same_bits};

    #[test]
    fn big_arrays_are_text_blocks_that_round_trip() {
        let values: Vec<f64> = (0..LITERAL_LIMIT + 3)
            .map(|i| match i {
                0 => f64::NAN,
                1 => f64::NEG_INFINITY,
                2 => -1e9,
                _ => (i as f64).sqrt() * 1e-7 - 0.3,
            })
            .collect();
        let text = py_array(&values, 8, "B, T, d_model", 0);
        assert!(text.starts_with("numbers(\"\"\"\nnan -inf -1000000000.0 "), "{}", &text[..40]);
        let got = parse_array(&format!("A = {text}"), "A");
        assert!(same_bits(&got, values.iter().copied()));
        let small = py_array(&values[..6], 3, "2, 3", 0);
        assert_eq!(
            small,
            format!(
                "np.array([\n    float('nan'), float('-inf'), -1000000000.0,\n    {:?}, {:?}, {:?},\n]).reshape(2, 3)",
                values[3], values[4], values[5]
            )
        );
        assert_eq!(py_number(0.1), "0.1");
        assert_eq!(py_number(1e-7), "1e-7");
        assert_eq!(py_number(f64::INFINITY), "float('inf')");
        assert_eq!("1e-7".parse::<f64>().unwrap(), 1e-7);
    }
}
