//! The one number formatter lives in the engine crate, so the explanations and the
//! exports write numbers as the page does: [`attention_engine::format`]. Reading a number
//! a learner typed is here: [`read_typed_number`].

pub use crate::engine::format::*;

/// A number a learner typed as an answer: a decimal with a point or a comma (0.58, 0,58,
/// as a phone's keypad may give), a fraction (1/8), or what Rust reads (-2e-1, -inf,
/// NaN). `None` for anything else, or a fraction over 0.
pub fn read_typed_number(typed: &str) -> Option<f64> {
    let t = typed.trim().replace(' ', "");
    let decimal = |s: &str| s.replace(',', ".").parse::<f64>().ok();
    match t.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (decimal(a)?, decimal(b)?);
            (b != 0.0).then(|| a / b)
        }
        None => decimal(&t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_answer_may_use_a_comma_a_fraction_or_infinity() {
        assert_eq!(read_typed_number(" 0,58 "), Some(0.58));
        assert_eq!(read_typed_number("1/8"), Some(0.125));
        assert_eq!(read_typed_number("-inf"), Some(f64::NEG_INFINITY));
        assert!(read_typed_number("NaN").is_some_and(f64::is_nan));
        for bad in ["", "1/0", "one", "1,2,3"] {
            assert_eq!(read_typed_number(bad), None, "{bad:?}");
        }
    }
}
