//! The engine's errors in the page's words: a message about a setting names it by the
//! label of its control, as the learner reads it beside the field.

/// The engine's names for the settings that the page's controls label otherwise, and the
/// labels: an error under a control speaks of what the learner sees there.
const PAGE_NAMES: [(&str, &str); 4] =
    [("n_layers", "layers"), ("keep_first", "kept first keys"), ("n_kv_heads", "h_kv"), ("n_heads", "h")];

/// An engine error's message in the page's words: each setting named by its control's
/// label ([`PAGE_NAMES`]), and the shown layer's `layer = ` as "layer shown = ". Only whole
/// names are replaced (`n_heads` inside `n_kv_heads` is not).
pub fn page_words(message: &str) -> String {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(|c: char| is_name(c)) {
        out.push_str(&rest[..start]);
        let word_end = rest[start..].find(|c: char| !is_name(c)).map_or(rest.len(), |e| start + e);
        let word = &rest[start..word_end];
        let after = &rest[word_end..];
        match PAGE_NAMES.iter().find(|(engine, _)| *engine == word) {
            // "h (n_heads)": the label already said, its engine name in brackets goes
            Some((_, label)) if out.ends_with(&format!("{label} (")) && after.starts_with(')') => {
                out.truncate(out.len() - 2);
                rest = &after[1..];
                continue;
            }
            Some((_, label)) => out.push_str(label),
            None if word == "layer" && after.starts_with(" = ") => out.push_str("layer shown"),
            None => out.push_str(word),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::page_words;
    use crate::engine::{run, Scenario};

    /// The engine's errors about layers and kept first keys, as the page words them.
    #[test]
    fn errors_speak_of_the_controls_labels() {
        let words = |f: &dyn Fn(&mut Scenario)| {
            let mut s = Scenario::identity(&["a b c"], 4, 2);
            f(&mut s);
            page_words(&run(&s).unwrap_err().to_string())
        };
        assert_eq!(words(&|s| s.n_layers = Some(9)), "layers = 9: the explorer runs 1 to 4 attention layers");
        assert_eq!(
            words(&|s| {
                s.n_layers = Some(2);
                s.layer = Some(3);
            }),
            "layer shown = 3, but the run has layers = 2: pick a layer from 1 to 2"
        );
        let keep = words(&|s| s.mask.keep_first = Some(2));
        assert!(keep.starts_with("kept first keys = 2 keeps the first keys"), "{keep}");
        assert!(!keep.contains("keep_first"), "{keep}");
        let heads = words(&|s| s.n_kv_heads = Some(3));
        assert!(heads.starts_with("h_kv = 3 does not divide h = 2"), "{heads}");
        assert_eq!(page_words("n_kv_heads must be at least 1, got 0"), "h_kv must be at least 1, got 0");
        assert_eq!(page_words("the layer shown"), "the layer shown");
        assert_eq!(words(&|s| s.n_heads = 100), "h = 100 is over the limit of 64");
    }
}
