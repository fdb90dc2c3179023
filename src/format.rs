//! The one number formatter lives in the engine crate, so the explanations and the
//! exports write numbers as the page does: [`attention_engine::format`]. Reading a number
//! a learner typed is here: [`read_typed_number`].

pub use crate::engine::format::*;

/// A number a learner typed as an answer: a decimal with a point or a comma (0.58, 0,58,
/// as a phone's keypad may give), a fraction (1/8), or what Rust reads (-2e-1, -inf,
/// NaN). A space inside a number separates thousands, in the same pattern as a
/// thousands comma (31 104 is 31104, 1 234,5 is 1234.5); any other space inside a number
/// ("1 5", "0 5") makes it unreadable, as it could mean 15 or 1.5. `None` for anything
/// else, or a fraction over 0.
///
/// A comma is a thousands separator when the number is written in the thousands
/// pattern: a first group of one to three digits that does not start with 0, then one
/// or more groups of a comma and exactly three digits, then perhaps a point and
/// decimals (31,104, 1,234,567, 1,234.5). Any other single comma is a decimal comma
/// (4,61, 0,5, 0,500, 12,3456). "1,234" could be either; it reads as 1234, because the
/// page writes its own thousands that way ([`group_digits`]: a cache of 31,104 B), and
/// a learner copying a number from the page must get that number back.
pub fn read_typed_number(typed: &str) -> Option<f64> {
    let decimal = |s: &str| {
        let s = s.trim();
        // a space separates thousands only between the digit groups before the decimals
        let (whole, decimals) = s.split_at(s.find(['.', ',']).unwrap_or(s.len()));
        let spaced_thousands = thousands_pattern(&whole.replace(' ', ",")) && !decimals.contains(' ');
        if s.contains(' ') && !spaced_thousands {
            return None;
        }
        let s = &s.replace(' ', "");
        if thousands_pattern(s) {
            s.replace(',', "").parse::<f64>().ok()
        } else {
            s.replace(',', ".").parse::<f64>().ok()
        }
    };
    let t = typed.trim();
    match t.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (decimal(a)?, decimal(b)?);
            (b != 0.0).then(|| a / b)
        }
        None => decimal(t),
    }
}

/// Whether `s` is a number with thousands commas: an optional sign, a first group of
/// one to three digits not starting with 0, at least one `,ddd` group, and perhaps a
/// point followed by digits.
fn thousands_pattern(s: &str) -> bool {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    let all_digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or("");
    let rest: Vec<&str> = groups.collect();
    !rest.is_empty()
        && all_digits(first)
        && first.len() <= 3
        && !first.starts_with('0')
        && rest.iter().all(|g| g.len() == 3 && all_digits(g))
        && fraction.is_none_or(all_digits)
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
        for bad in ["", "1/0", "one", "1,2,3", "1,23,456", "1,234,56", "1.234,5"] {
            assert_eq!(read_typed_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_comma_before_three_digit_groups_separates_thousands() {
        // The page writes thousands with commas (a cache of 31,104 B); copied back, they read as written.
        assert_eq!(read_typed_number("31,104"), Some(31104.0));
        assert_eq!(read_typed_number(&group_digits(31_104)), Some(31104.0));
        assert_eq!(read_typed_number("1,234,567"), Some(1_234_567.0));
        assert_eq!(read_typed_number("-1,234.5"), Some(-1234.5));
        assert_eq!(read_typed_number("131,072"), Some(131_072.0));
        assert_eq!(read_typed_number("31,104/2"), Some(15552.0));
        // "1,234" could be a decimal comma; it is read as the page would write 1234.
        assert_eq!(read_typed_number("1,234"), Some(1234.0));
    }

    #[test]
    fn a_space_inside_a_number_separates_thousands_or_makes_it_unreadable() {
        assert_eq!(read_typed_number("31 104"), Some(31104.0));
        assert_eq!(read_typed_number("1 234 567"), Some(1_234_567.0));
        assert_eq!(read_typed_number("-1 234,5"), Some(-1234.5));
        assert_eq!(read_typed_number(" 1 / 8 "), Some(0.125));
        // "1 5" could be 15 or 1.5: neither is guessed
        for bad in ["1 5", "0 5", "1 23", "12 3456", "1,5 0", "1 000 0", "- 1 5"] {
            assert_eq!(read_typed_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn any_other_single_comma_is_a_decimal_comma() {
        assert_eq!(read_typed_number("4,61"), Some(4.61));
        assert_eq!(read_typed_number("0,5"), Some(0.5));
        // A first group of 0 is never a thousands group.
        assert_eq!(read_typed_number("0,500"), Some(0.5));
        assert_eq!(read_typed_number("-0,125"), Some(-0.125));
        assert_eq!(read_typed_number("12,3456"), Some(12.3456));
        assert_eq!(read_typed_number("1,5e3"), Some(1500.0));
    }
}
