//! The one number formatter: the page, the lessons, the drawings, the explanations (their
//! words and their LaTeX) and the Python exports all write numbers with these functions,
//! so a value is written the same way everywhere.
//!
//! The forms, none of which ever prints `-0`:
//! - [`exact`]: the shortest text that reads back to the same f64 (`0.7604349`…), for
//!   `data-value`, tables' exact values, CSV and explanations; `NaN`, `Infinity`,
//!   `-Infinity` as JavaScript spells them.
//! - [`short`]: two decimals as the seeds print them (`0.76`), `-inf`, `NaN`, and
//!   `-1e9` style for magnitudes of 10⁴ and more.
//! - [`tick`]: an axis tick, `2`, `0.5`, `-1.25`, trimmed of trailing zeros.
//! - [`reading`]: a number in a sentence of an explanation: four decimals trimmed of
//!   trailing zeros (`0.25`, `-0.5`, `2`), `-1e9` for large whole numbers, four
//!   significant digits in scientific form for tiny or huge ones, and `-inf`, `inf`,
//!   `NaN` as in the tables.
//! - [`tex`]: [`reading`] as LaTeX (`\infty`, `1.5 \times 10^{-7}`).
//! - [`python`]: a Python literal that reads back to the same f64 (`float('-inf')`).

use crate::trace::non_finite_name;

/// Turns `-0` (and anything that rounds to it) into `0`.
fn no_negative_zero(s: String) -> String {
    let digits_are_zero = s.trim_start_matches('-').chars().all(|c| matches!(c, '0' | '.'));
    if s.starts_with('-') && digits_are_zero {
        s.trim_start_matches('-').to_owned()
    } else {
        s
    }
}

/// The exact text of a number: shortest round-trip form, or `NaN`/`Infinity`/`-Infinity`.
pub fn exact(v: f64) -> String {
    if v.is_finite() {
        no_negative_zero(format!("{v}"))
    } else {
        non_finite_name(v).to_owned()
    }
}

/// Two decimals, as the seeds print them; `-inf`, `inf`, `NaN`; `-1e9` beyond 10⁴.
pub fn short(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else if v == f64::INFINITY {
        "inf".into()
    } else if v.abs() >= 1e4 {
        format!("{v:.0e}")
    } else {
        no_negative_zero(format!("{v:.2}"))
    }
}

/// `decimals` decimals (e.g. `√3 = 1.7321`), never `-0.0000`.
pub fn fixed(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        no_negative_zero(format!("{v:.decimals$}"))
    } else {
        short(v)
    }
}

/// An axis tick: up to two decimals, trailing zeros trimmed (`2`, `0.5`, `-1.25`).
pub fn tick(v: f64) -> String {
    if !v.is_finite() {
        return short(v);
    }
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.').to_owned();
    no_negative_zero(s)
}

/// A number in the words of an explanation: see the [module docs](self).
pub fn reading(v: f64) -> String {
    if !v.is_finite() {
        return short(v);
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1e4 {
        return if v.fract() == 0.0 { short(v) } else { format!("{v:.4e}") };
    }
    if v.fract() == 0.0 {
        return format!("{v:.0}");
    }
    if a >= 1e-3 {
        let s = format!("{v:.4}");
        return no_negative_zero(s.trim_end_matches('0').trim_end_matches('.').to_owned());
    }
    format!("{v:.4e}")
}

/// [`reading`] as LaTeX: `\mathrm{NaN}`, `\infty`, `m \times 10^{e}`.
pub fn tex(v: f64) -> String {
    if v.is_nan() {
        return r"\mathrm{NaN}".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { r"\infty".into() } else { r"-\infty".into() };
    }
    let s = reading(v);
    match s.split_once('e') {
        Some((m, e)) => format!(r"{m} \times 10^{{{e}}}"),
        None => s,
    }
}

/// A Python literal for the number, read back to the same f64: `0.1`, `-0.0`,
/// `float('nan')`, `float('-inf')`.
pub fn python(v: f64) -> String {
    round_trip(v, ["float('nan')", "float('inf')", "float('-inf')"])
}

/// The number as NumPy reads it from text (`np.array(text.split(), dtype=float)`): `nan`,
/// `inf`, `-inf`, else the shortest round-trip form.
pub fn python_text(v: f64) -> String {
    round_trip(v, ["nan", "inf", "-inf"])
}

/// The shortest round-trip form of `v`, or NaN, +∞ and −∞ written as `specials`.
fn round_trip(v: f64, [nan, inf, neg_inf]: [&str; 3]) -> String {
    if v.is_nan() {
        nan.into()
    } else if v.is_infinite() {
        if v > 0.0 { inf } else { neg_inf }.into()
    } else {
        format!("{v:?}")
    }
}

/// A whole number with thousands separators: `1,073,741,824`.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_negative_zero() {
        for v in [-0.0, -1e-9, -0.001, -0.004999] {
            assert!(!short(v).starts_with('-'), "{v}: {}", short(v));
            assert!(!tick(v).starts_with('-'), "{v}: {}", tick(v));
            assert!(!fixed(v, 2).starts_with('-'), "{v}");
        }
        assert_eq!(exact(-0.0), "0");
        assert_eq!(tick(-0.0), "0");
        assert_eq!(short(-0.006), "-0.01");
        assert_eq!(exact(-1e-300).parse::<f64>(), Ok(-1e-300)); // tiny, but not zero
    }

    #[test]
    fn forms() {
        assert_eq!(short(0.7604), "0.76");
        assert_eq!(short(-1e9), "-1e9");
        assert_eq!(short(f64::NEG_INFINITY), "-inf");
        assert_eq!(exact(f64::NAN), "NaN");
        assert_eq!(exact(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(exact(0.5), "0.5");
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(-1.25), "-1.25");
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(fixed(3f64.sqrt(), 4), "1.7321");
        assert_eq!(reading(0.25), "0.25");
        assert_eq!(reading(-0.5), "-0.5");
        assert_eq!(reading(2.0), "2");
        assert_eq!(reading(1.0 / 3.0), "0.3333");
        assert_eq!(reading(-1e9), "-1e9");
        assert_eq!(reading(f64::NEG_INFINITY), "-inf", "as the tables write it");
        assert_eq!(reading(-0.00001), "-1.0000e-5");
        assert_eq!(reading(-0.00004), "-4.0000e-5");
        assert_eq!(reading(-1e-9 * 0.0), "0");
        assert_eq!(tex(1.5e-7), r"1.5000 \times 10^{-7}");
        assert_eq!(tex(f64::NEG_INFINITY), r"-\infty");
        assert_eq!(python(f64::NEG_INFINITY), "float('-inf')");
        assert_eq!(python(0.1), "0.1");
        assert_eq!(python(-0.0), "-0.0");
        assert_eq!(python_text(f64::NAN), "nan");
    }
}
