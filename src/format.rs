//! The one number formatter of the page, the lessons and the drawings.
//!
//! Three forms, none of which ever prints `-0`:
//! - [`exact`]: the shortest text that reads back to the same f64 (`0.7604349`…), for
//!   `data-value`, tables' exact values, CSV and explanations; `NaN`, `Infinity`,
//!   `-Infinity` as JavaScript spells them.
//! - [`short`]: two decimals as the seeds print them (`0.76`), `-inf`, `NaN`, and
//!   `-1e9` style for magnitudes of 10⁴ and more.
//! - [`tick`]: an axis tick, `2`, `0.5`, `-1.25`, trimmed of trailing zeros.

use crate::engine::trace::non_finite_name;

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
    }
}
