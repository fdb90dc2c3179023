//! The run as a Jupyter notebook (nbformat 4.4): a markdown cell of words and a code cell
//! per section (the sections include the notebook's own: a heatmap of the weights per head).

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::sections::sections;
use super::Target;
use attention_engine::scenario::Scenario;
use attention_engine::trace::Trace;

/// The run as a Jupyter notebook (nbformat 4.4, JSON): the same code as
/// [`python_script`](super::python_script) split into cells, a markdown cell of words before each step, and a
/// heatmap per head of the weights when matplotlib is installed.
pub fn notebook(scenario: &Scenario, trace: &Trace) -> String {
    let mut cells = Vec::new();
    for (n, section) in sections(scenario, trace, Target::Notebook).into_iter().enumerate() {
        let level = if n == 0 { "#" } else { "###" };
        let mut md = format!("{level} {}\n", markdown(&section.heading));
        for paragraph in &section.prose {
            md.push('\n');
            for line in paragraph.lines() {
                // A line break inside a paragraph: two spaces, as markdown wants.
                let _ = writeln!(md, "{}  ", markdown(line));
            }
        }
        cells.push(json!({"cell_type": "markdown", "metadata": {}, "source": source_lines(md.trim_end())}));
        cells.push(json!({
            "cell_type": "code",
            "execution_count": null,
            "metadata": {},
            "outputs": [],
            "source": source_lines(section.code.trim_end()),
        }));
    }
    let doc = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 4,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| String::from("{}"))
}

/// A cell's `source`: its lines, each but the last ending in `\n`.
fn source_lines(text: &str) -> Value {
    Value::Array(text.split_inclusive('\n').map(|l| Value::String(l.to_owned())).collect())
}

/// Markdown for a line of prose: `<` and `>` outside backticks become entities (so
/// `<pad>` is not read as an HTML tag) and `*` is escaped.
pub(super) fn markdown(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '*' if !in_code => out.push_str("\\*"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{assert_contains_all, bat_trace};
    use crate::python_script;
    use attention_engine::scenario::Fill;

    #[test]
    fn notebook_is_valid_nbformat_with_words_before_every_step() {
        let (s, trace) = bat_trace(Fill::LargeNegative);
        let nb: Value = serde_json::from_str(&notebook(&s, &trace)).unwrap();
        assert_eq!(nb["nbformat"], 4);
        assert_eq!(nb["nbformat_minor"], 4);
        let cells = nb["cells"].as_array().unwrap();
        let mut code = String::new();
        for cell in cells {
            let source = cell["source"].as_array().unwrap();
            let lines: Vec<&str> = source.iter().map(|l| l.as_str().unwrap()).collect();
            for l in &lines[..lines.len().saturating_sub(1)] {
                assert!(l.ends_with('\n'), "{l:?}");
            }
            assert!(!lines.last().unwrap().ends_with('\n'));
            assert!(cell["metadata"].is_object());
            match cell["cell_type"].as_str().unwrap() {
                "code" => {
                    assert!(cell["execution_count"].is_null());
                    assert_eq!(cell["outputs"], json!([]));
                    code.push_str(&lines.concat());
                    code.push('\n');
                }
                "markdown" => assert!(cell.get("outputs").is_none()),
                other => panic!("cell type {other}"),
            }
        }
        for step in &trace.steps {
            let heading = format!("### {}", step.name);
            let i = cells
                .iter()
                .position(|c| c["source"][0].as_str().map(str::trim_end) == Some(heading.as_str()))
                .unwrap();
            let md: String =
                cells[i]["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
            assert!(md.contains(&markdown(&step.op)), "{md}");
            assert_eq!(cells[i + 1]["cell_type"], "code");
            assert!(code.contains(&format!("numpy_steps[\"{}\"]", step.name)));
        }
        assert_contains_all(
            &code,
            &["import matplotlib.pyplot as plt", "scores.masked_fill(mask.unsqueeze(1), -1e9)"],
        );
        assert!(code.trim_end().ends_with("assert failed == 0, f\"{failed} checks failed\""));
        // The notebook's code is the script's, but for the heatmap and the last line.
        let script = python_script(&s, &trace);
        assert!(script.contains(&code[code.find("EXPECTED = {}").unwrap()..code.find("RTOL").unwrap()]));
    }
}
