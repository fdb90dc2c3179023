//! Numbers as JSON: the non-finite ones written and read as `"NaN"`, `"Infinity"` and
//! `"-Infinity"`, a step's `data` as a flat list, and [`TensorJson`], a tensor on its own.

use ndarray::ArrayD;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

/// Writes a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` for the non-finite ones.
pub(super) fn serialize_number<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_str(non_finite_name(*v))
    }
}

/// The JSON (and JavaScript) spelling of a non-finite number.
pub fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_number(&self.0, s)
    }
}

/// Reads a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
pub(super) fn deserialize_number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    d.deserialize_any(NumberVisitor)
}

struct NumberVisitor;

impl Visitor<'_> for NumberVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number or \"NaN\", \"Infinity\", \"-Infinity\"")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_number(d).map(Number)
    }
}

/// Reads `data` as a flat list of numbers.
pub(super) fn deserialize_flat<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    struct Flat;
    impl<'de> Visitor<'de> for Flat {
        type Value = Vec<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of numbers")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(Number(v)) = seq.next_element()? {
                out.push(v);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Flat)
}

pub(super) fn serialize_data<S: Serializer>(data: &ArrayD<f64>, s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(data.len()))?;
    for &v in data {
        seq.serialize_element(&Number(v))?;
    }
    seq.end()
}

/// A tensor on its own as JSON: `{"shape": [...], "data": [...]}`, the numbers row-major
/// and the non-finite ones as strings, as in a trace's steps (for `trace --decode` and
/// `trace --tiled`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorJson {
    /// Axis sizes.
    pub shape: Vec<usize>,
    /// The numbers, row-major.
    #[serde(serialize_with = "serialize_data")]
    pub data: ArrayD<f64>,
}

impl<D: ndarray::Dimension> From<ndarray::Array<f64, D>> for TensorJson {
    fn from(a: ndarray::Array<f64, D>) -> Self {
        let a = a.into_dyn();
        Self { shape: a.shape().to_vec(), data: a.as_standard_layout().into_owned() }
    }
}

/// A list of numbers as JSON, the non-finite ones as strings.
pub(crate) fn serialize_numbers<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for &x in v {
        seq.serialize_element(&Number(x))?;
    }
    seq.end()
}
