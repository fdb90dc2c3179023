//! Scenario JSON in, trace JSON out: check the app against your own PyTorch notebook.
//!
//! ```text
//! cargo run --release --example trace -- scenario.json > trace.json
//! cargo run --release --example trace -- - < scenario.json     # read standard input
//! cargo run --release --example trace -- --python scenario.json > attention.py
//! cargo run --release --example trace -- --notebook scenario.json > attention.ipynb
//! cargo run --release --example trace -- --decode scenario.json > decoded.json
//! cargo run --release --example trace -- --tiled 4 scenario.json > tiles.json
//! cargo run --release --example trace -- --explain scenario.json > cells.json
//! cargo run --release --example trace -- --train config.json > run.json
//! cargo run --release --example trace -- --by-hand step.json > step.json
//! ```
//!
//! `--decode` prints the scenario decoded token by token with a key/value cache
//! (`{"positions": [...]}`, see `attention_engine::decode`); `--tiled BLOCK` prints the
//! context computed tile by tile with an online softmax (`{"block", "tiles", "context"}`,
//! see `attention_engine::tiled`). `--explain` prints the explanation (the page's panel)
//! of a few cells of every step: the first, the middle and the last, and for the mask a
//! blocked and a kept one (`{"cells": [Explanation, ...]}`), so a check can run each
//! cell's PyTorch line. `--train` reads a training configuration instead of a
//! scenario, trains, and prints `params_init`, `batches`, `steps`, `grads_first` and
//! `params_final` (see `attention_engine::train` and the README). `--by-hand` reads
//! `{"x", "w_q"?, "w_k"?, "w_v"?, "query", "target", "lr"}` and prints one SGD step on W_Q
//! through that attention row with every intermediate (`attention_engine::train::by_hand`).
//!
//! `--python` writes one self-contained Python file that recomputes every step in NumPy
//! (and PyTorch, when installed) and checks it against the engine's numbers;
//! `--notebook` writes the same as a Jupyter notebook.
//!
//! A bad scenario exits with status 1 and one line on stderr.

use std::io::{Read, Write};
use std::process::ExitCode;

use attention_engine::Scenario;
use attention_export as export;

const USAGE: &str =
    "usage: trace [--python | --notebook | --decode | --explain | --tiled BLOCK] SCENARIO.json   (or - for standard input)\n       trace --train CONFIG.json\n       trace --by-hand STEP.json";

fn read(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

/// A command that reads one JSON file and prints one JSON answer.
type JsonCommand = fn(&str) -> Result<String, String>;

#[derive(Clone, Copy)]
enum Output {
    Trace,
    Python,
    Notebook,
    Decode,
    Tiled(usize),
    Explain,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = args.as_slice() {
        let json: Option<JsonCommand> = match flag.as_str() {
            "--train" => Some(|t| attention_engine::train::report_json(t).map_err(|e| e.to_string())),
            "--by-hand" => Some(attention_engine::train::by_hand::one_step_json),
            _ => None,
        };
        if let Some(json) = json {
            return match read(path).and_then(|t| json(&t)) {
                Ok(text) => print(text),
                Err(message) => {
                    eprintln!("error: {message}");
                    ExitCode::FAILURE
                }
            };
        }
    }
    let (output, path) = match args.as_slice() {
        [flag, path] if flag == "--python" => (Output::Python, path),
        [flag, path] if flag == "--notebook" => (Output::Notebook, path),
        [flag, path] if flag == "--decode" => (Output::Decode, path),
        [flag, path] if flag == "--explain" => (Output::Explain, path),
        [flag, block, path] if flag == "--tiled" => match block.parse() {
            Ok(block) => (Output::Tiled(block), path),
            Err(_) => {
                eprintln!("error: --tiled needs a block size (a whole number ≥ 1), not \"{block}\"");
                return ExitCode::from(2);
            }
        },
        [path] if !path.starts_with("--") => (Output::Trace, path),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = read(path).and_then(|text| {
        let scenario = Scenario::from_json(&text).map_err(|e| e.to_string())?;
        let trace = attention_engine::run(&scenario).map_err(|e| e.to_string())?;
        Ok((scenario, trace))
    });
    let (scenario, trace) = match result {
        Ok(pair) => pair,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    // Debug builds check every invariant of the trace before printing it.
    #[cfg(debug_assertions)]
    if let Err(e) = trace.check_invariants() {
        eprintln!("internal error: {e}");
        return ExitCode::from(3);
    }
    let text = match output {
        Output::Trace => Ok(trace.to_json()),
        Output::Python | Output::Notebook if export::refusal(&scenario).is_some() => {
            Err(export::refusal(&scenario).unwrap_or_default())
        }
        Output::Python => Ok(export::python_script(&scenario, &trace)),
        Output::Notebook => Ok(export::notebook(&scenario, &trace)),
        Output::Decode => attention_engine::decode(&scenario).map(|d| d.to_json()).map_err(|e| e.to_string()),
        Output::Tiled(block) => {
            attention_engine::tiled(&scenario, block).map(|t| t.to_json()).map_err(|e| e.to_string())
        }
        Output::Explain => Ok(explained_cells(&trace)),
    };
    match text {
        Ok(text) => print(text),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The explanations of a few cells of every step, as JSON: the first, middle and last
/// cell, and where the mask blocks some cells of a step, its first blocked and first kept
/// cell too; under multi-head latent attention every cell of its own steps (its
/// projections, norms, slices, RoPE layouts and concatenations, whose explanations differ
/// from column to column). A cell the panel cannot explain is left out (the page says why
/// for it).
fn explained_cells(trace: &attention_engine::Trace) -> String {
    use attention_engine::StepName;
    let mut cells = Vec::new();
    for step in &trace.steps {
        let count: usize = step.shape.iter().product();
        let latent = trace.mla.is_some()
            && (step.name.is_mla_only()
                || matches!(
                    step.name,
                    StepName::Q | StepName::QHeads | StepName::VHeads | StepName::QRot | StepName::KRot
                ));
        let mut flats =
            if latent { (0..count).collect() } else { vec![0, count / 2, count.saturating_sub(1)] };
        if step.name == StepName::Masked {
            let blocked = |x: &f64| *x == trace.mask.fill_value;
            flats.extend(step.data.iter().position(blocked));
            flats.extend(step.data.iter().position(|x| !blocked(x)));
        }
        flats.sort_unstable();
        flats.dedup();
        for flat in flats.into_iter().filter(|&f| f < count) {
            let mut index = vec![0; step.shape.len()];
            let mut rest = flat;
            for (axis, &len) in step.shape.iter().enumerate().rev() {
                index[axis] = rest % len;
                rest /= len;
            }
            if let Ok(e) = attention_engine::explain::explain(trace, step.name, &index) {
                cells.push(e);
            }
        }
    }
    serde_json::json!({ "cells": cells }).to_string()
}

/// Writes `text` (and a final newline) to standard output.
fn print(mut text: String) -> ExitCode {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    // A reader that stops early (`| head`) closes the pipe: that is not an error.
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}
