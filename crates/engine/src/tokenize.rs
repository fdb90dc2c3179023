//! Sentences to tokens, and a batch of sentences to a padded `B × T` grid.
//!
//! Words and punctuation become tokens, split on Unicode word boundaries (UAX #29, via
//! `unicode-segmentation`), so "don't" stays one token, "bat." is two, and an emoji with
//! a skin tone or a zero-width-joiner family stays whole. Case is kept for display and
//! ignored for lookup.

use unicode_segmentation::UnicodeSegmentation;

use crate::error::{EngineError, Field};
use crate::limits;

/// The token that fills shorter sentences up to the batch's longest, T.
pub const PAD: &str = "<pad>";

/// One token: the text as typed and the key it is looked up by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// As typed, for display.
    pub text: String,
    /// Lower-cased, for embedding lookup. `"<pad>"` for padding.
    pub key: String,
    /// True for the `<pad>` tokens added by batching.
    pub is_pad: bool,
}

impl Token {
    fn word(text: &str) -> Self {
        Self { text: text.to_owned(), key: text.to_lowercase(), is_pad: false }
    }

    fn pad() -> Self {
        Self { text: PAD.to_owned(), key: PAD.to_owned(), is_pad: true }
    }
}

/// Splits one sentence into tokens: every Unicode word segment that is not white space.
pub fn tokenize(sentence: &str) -> Vec<Token> {
    sentence.split_word_bounds().filter(|s| !s.chars().all(char::is_whitespace)).map(Token::word).collect()
}

/// A batch of sentences padded to a common length T.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// `B × T` tokens; row `b` is sentence `b` followed by `T - lengths[b]` pads.
    pub tokens: Vec<Vec<Token>>,
    /// The number of real (non-pad) tokens in each sentence.
    pub lengths: Vec<usize>,
    /// T: the longest sentence's length.
    pub t: usize,
}

impl Batch {
    /// B: the number of sentences.
    pub fn b(&self) -> usize {
        self.tokens.len()
    }

    /// The display text of every token, `B × T`.
    pub fn texts(&self) -> Vec<Vec<String>> {
        self.tokens.iter().map(|row| row.iter().map(|t| t.text.clone()).collect()).collect()
    }
}

/// Tokenizes every sentence and pads the batch to the longest.
///
/// # Errors
/// [`EngineError::NoSentences`], [`EngineError::EmptySentence`], or
/// [`EngineError::TooLarge`] for more than [`limits::MAX_BATCH`] sentences or more than
/// [`limits::MAX_TOKENS`] tokens in one sentence.
pub fn batch(sentences: &[String]) -> Result<Batch, EngineError> {
    if sentences.is_empty() {
        return Err(EngineError::NoSentences);
    }
    if sentences.len() > limits::MAX_BATCH {
        return Err(EngineError::TooLarge {
            what: "B (sentences)".into(),
            value: sentences.len(),
            max: limits::MAX_BATCH,
            field: Field::Sentences,
        });
    }
    let mut tokens = Vec::with_capacity(sentences.len());
    for (i, sentence) in sentences.iter().enumerate() {
        let row = tokenize(sentence);
        if row.is_empty() {
            return Err(EngineError::EmptySentence { index: i + 1 });
        }
        if row.len() > limits::MAX_TOKENS {
            return Err(EngineError::TooLarge {
                what: format!("T (tokens in sentence {})", i + 1),
                value: row.len(),
                max: limits::MAX_TOKENS,
                field: Field::Sentences,
            });
        }
        tokens.push(row);
    }
    let lengths: Vec<usize> = tokens.iter().map(Vec::len).collect();
    let t = lengths.iter().copied().max().unwrap_or(0);
    for row in &mut tokens {
        row.resize_with(t, Token::pad);
    }
    Ok(Batch { tokens, lengths, t })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_and_punctuation_are_tokens() {
        let cases: &[(&str, &[&str])] = &[
            ("I bought a baseball bat", &["I", "bought", "a", "baseball", "bat"]),
            ("The cat sat on the mat.", &["The", "cat", "sat", "on", "the", "mat", "."]),
            ("don't, stop!", &["don't", ",", "stop", "!"]),
            ("  spaced   out  ", &["spaced", "out"]),
            (
                "<script>alert(1)</script>",
                &["<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">"],
            ),
            ("👍🏽 ok", &["👍🏽", "ok"]),
            ("👨‍👩‍👧 family", &["👨‍👩‍👧", "family"]),
            ("café naïve", &["café", "naïve"]),
        ];
        for (input, want) in cases {
            assert_eq!(texts(input), *want, "tokenize({input:?})");
        }
    }

    #[test]
    fn lookup_key_ignores_case_display_keeps_it() {
        let t = &tokenize("The BAT")[1];
        assert_eq!((t.text.as_str(), t.key.as_str()), ("BAT", "bat"));
    }

    #[test]
    fn batch_pads_to_the_longest() {
        let b = batch(&["this is a sample sequence".into(), "the cat sat on the mat .".into()]).unwrap();
        assert_eq!((b.b(), b.t), (2, 7));
        assert_eq!(b.lengths, vec![5, 7]);
        assert_eq!(b.texts()[0][5..], [PAD.to_string(), PAD.to_string()]);
        assert!(b.tokens[0][6].is_pad && !b.tokens[1][6].is_pad);
    }

    #[test]
    fn batch_errors() {
        assert_eq!(batch(&[]), Err(EngineError::NoSentences));
        assert_eq!(batch(&["a".into(), "   ".into()]), Err(EngineError::EmptySentence { index: 2 }));
        let long = "w ".repeat(limits::MAX_TOKENS + 1);
        assert!(
            matches!(batch(&[long]), Err(EngineError::TooLarge { value, .. }) if value == limits::MAX_TOKENS + 1)
        );
        let many = vec!["a".to_string(); limits::MAX_BATCH + 1];
        assert!(matches!(batch(&many), Err(EngineError::TooLarge { .. })));
    }
}
