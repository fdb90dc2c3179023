//! Whether a label may be wider than the box the style gives it. Only those labels get the
//! clip that ends them with an ellipsis: each clip is a paint chunk of its own, and with
//! one on each of 128 tokens and every table header, every frame of the page paid for
//! them in paint and layerizing (BENCHMARKS.md).

/// Characters of `.al-slot` (the decode view's cache strip): at most 7rem of a 0.75rem
/// monospace font, about 15 characters of 0.6em, less the padding.
pub const SLOT_FITS: usize = 12;
/// Characters of `.al-token` (the token chips): at most 14rem of a 0.85rem monospace
/// font less 0.9rem of padding, about 25 characters of 0.6em, one kept for the `°` mark.
pub const TOKEN_FITS: usize = 24;
/// Characters of a decode table's row header (`.al-table th`, at most 8rem at 0.78rem,
/// in a proportional font whose widest letters take more than 0.6em): 10 is safe.
pub const ROW_HEADER_FITS: usize = 10;

/// Whether `text` may need more than `fits` characters of its box. A character past
/// ASCII counts double (wide scripts, emoji), so a text counted as fitting has room to
/// spare; a text counted as long that fits after all only gets a clip it does not need.
pub fn may_overflow(text: &str, fits: usize) -> bool {
    text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum::<usize>() > fits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_character_counts_double() {
        assert!(!may_overflow("w21", SLOT_FITS));
        assert!(!may_overflow("<pad>", SLOT_FITS));
        assert!(!may_overflow("123456789012", SLOT_FITS));
        assert!(may_overflow("1234567890123", SLOT_FITS));
        assert!(!may_overflow("猫猫猫猫猫猫", SLOT_FITS));
        assert!(may_overflow("猫猫猫猫猫猫猫", SLOT_FITS));
        assert!(!may_overflow("", 0));
        assert!(may_overflow("a", 0));
    }
}
