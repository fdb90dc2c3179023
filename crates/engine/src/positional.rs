//! The sinusoidal positional encoding of "Attention Is All You Need" (§3.5).
//!
//! For position `pos` (from 0) and column `c` of `d_model`, with `i = c / 2`:
//! `PE(pos, 2i) = sin(pos / 10000^(2i/d_model))`, `PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))`.
//! An odd `d_model` follows the same per-column rule (its last column is a sine).
//! It is added at every position, `<pad>` included, as the Annotated Transformer's
//! `PositionalEncoding` does.
//!
//! `pow`, `sin` and `cos` are the `libm` crate's, one pure-Rust implementation, so the
//! table is the same to the bit in the browser and natively (training starts from it).

use ndarray::Array2;

/// The angle `pos / 10000^(2i/d_model)` of column `c` (`i = c / 2`).
pub fn angle(pos: usize, c: usize, d_model: usize) -> f64 {
    let two_i = (c - c % 2) as f64;
    pos as f64 / libm::pow(10000.0, two_i / d_model as f64)
}

/// `PE(pos, c)`: the sine of the angle for even columns, the cosine for odd ones.
pub fn value(pos: usize, c: usize, d_model: usize) -> f64 {
    let a = angle(pos, c, d_model);
    if c.is_multiple_of(2) {
        libm::sin(a)
    } else {
        libm::cos(a)
    }
}

/// The `(T, d_model)` table of [`value`].
pub fn table(t: usize, d_model: usize) -> Array2<f64> {
    Array2::from_shape_fn((t, d_model), |(pos, c)| value(pos, c, d_model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rows_are_the_papers() {
        let pe = table(3, 4);
        // pos 0: sin 0, cos 0, sin 0, cos 0
        assert_eq!(pe.row(0).to_vec(), vec![0.0, 1.0, 0.0, 1.0]);
        // pos 1: sin 1, cos 1, sin(1/100), cos(1/100)   (10000^(2/4) = 100)
        let want = [1f64.sin(), 1f64.cos(), 0.01f64.sin(), 0.01f64.cos()];
        for (got, want) in pe.row(1).iter().zip(want) {
            assert!((got - want).abs() < 1e-15);
        }
    }

    #[test]
    fn odd_d_model_ends_in_a_sine() {
        let pe = table(2, 3);
        let a = 1.0 / 10000f64.powf(2.0 / 3.0);
        assert!((pe[(1, 2)] - a.sin()).abs() < 1e-15);
    }
}
