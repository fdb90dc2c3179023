//! Writing numbers and indices: the labels' `0,1,2`, PyTorch's `0, 1, 2`, numbers in
//! words and in LaTeX, a LaTeX sum of terms, and the [`Term`]s themselves (a product, a
//! plain value, a bias, an RMSNorm's number).

use super::explanation::{Term, TermKind};
use crate::format;

/// `0,1,2`: an index as the labels write it.
pub(super) fn comma(index: &[usize]) -> String {
    index.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// `0, 1, 2`: an index as PyTorch writes it.
pub(super) fn py(index: &[usize]) -> String {
    index.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// A number in an explanation's words: the one formatter's [`format::reading`].
pub(super) fn num(v: f64) -> String {
    format::reading(v)
}

/// A number for LaTeX: [`format::tex`].
pub(super) fn tex(v: f64) -> String {
    format::tex(v)
}

/// A factor in a LaTeX product: negatives in parentheses.
pub(super) fn tex_factor(v: f64) -> String {
    if v < 0.0 {
        format!("({})", tex(v))
    } else {
        tex(v)
    }
}

/// The terms as a LaTeX sum, eliding the middle of long ones.
pub(super) fn tex_terms(terms: &[Term]) -> String {
    let one = |t: &Term| match t.operands.as_slice() {
        [a, b] => format!(r"{} \cdot {}", tex_factor(*a), tex_factor(*b)),
        _ => tex_factor(t.value),
    };
    if terms.len() <= 8 {
        terms.iter().map(one).collect::<Vec<_>>().join(" + ")
    } else {
        let head: Vec<String> = terms.iter().take(3).map(one).collect();
        let tail = terms.last().map(one).unwrap_or_default();
        format!(r"{} + \cdots + {tail}", head.join(" + "))
    }
}

pub(super) fn tex_name(name: &str, index: &[usize]) -> String {
    format!(r"\mathrm{{{}}}_{{{}}}", name.replace('_', r"\_"), comma(index))
}

pub(super) fn product(label: String, a: f64, b: f64) -> Term {
    Term { label, kind: TermKind::Product, operands: vec![a, b], value: a * b }
}

/// An RMSNorm's number, `w · x / rms` ([`TermKind::Normed`]): its operands the weight, the
/// number read and the row's rms, its value the norm's own `w · (x · inv_rms)`.
pub(super) fn normed_term(label: String, w: f64, x: f64, inv_rms: f64) -> Term {
    Term { label, kind: TermKind::Normed, operands: vec![w, x, 1.0 / inv_rms], value: w * (x * inv_rms) }
}

pub(super) fn plain(label: String, value: f64) -> Term {
    Term { label, kind: TermKind::Value, operands: vec![], value }
}

pub(super) fn bias_term(label: String, value: f64) -> Term {
    Term { label, kind: TermKind::Bias, operands: vec![], value }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(2.0), "2");
        assert_eq!(num(1.0 / 3f64.sqrt() * 2.0), "1.1547");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert_eq!(num(1e-9), "1.0000e-9");
        assert_eq!(tex(f64::NEG_INFINITY), r"-\infty");
        assert_eq!(tex(1e-9), r"1.0000 \times 10^{-9}");
    }
}
