//! Every output of the engine for a fixed set of scenarios, written to a folder, so that a
//! refactoring can be shown to change no byte of what the engine produces.
//!
//! ```text
//! cargo run --example dump -- OUT_DIR
//! find OUT_DIR -type f | sort | xargs cat | sha256sum      # before and after: equal
//! ```
//!
//! The scenarios are the engine's test fixtures (`crates/engine/tests/fixtures`,
//! `crates/engine/tests/golden`) and the fuzz corpus seeds (`fuzz/corpus/scenario_json`):
//! together self- and cross-attention, batches of several sentences with padding, causal
//! and window masks, both fills, sinusoidal positions, RoPE in both pairings, ALiBi and
//! grouped- and multi-query attention. For each one it writes the trace JSON, the Python
//! script, the notebook, the decoding, the tiled run (block 2) and, for every step, the
//! explanation of its first, middle and last cell and the error for an index one past the
//! end. A scenario the engine refuses is written as its error message.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attention_engine::{explain, Scenario};
use attention_export as export;

const SOURCES: [&str; 3] = ["tests/fixtures", "tests/golden", "../../fuzz/corpus/scenario_json"];

fn scenarios() -> Result<Vec<PathBuf>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in SOURCES {
        let dir = root.join(dir);
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let is_scenario = name.ends_with(".scenario.json") || name.starts_with("seed-");
            if is_scenario && name.ends_with(".json") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    Ok(paths)
}

/// The explanations of one trace: for each step, the first, middle and last cell, then
/// the error for the index one past the end of the first axis.
fn explanations(trace: &attention_engine::Trace) -> String {
    let mut out = String::new();
    for step in &trace.steps {
        let last: Vec<usize> = step.shape.iter().map(|&n| n.saturating_sub(1)).collect();
        let middle: Vec<usize> = step.shape.iter().map(|&n| n / 2).collect();
        let first = vec![0; step.shape.len()];
        let mut past = first.clone();
        if let (Some(p), Some(&n)) = (past.first_mut(), step.shape.first()) {
            *p = n;
        }
        for index in [first, middle, last, past] {
            let text = match explain(trace, step.name, &index) {
                Ok(e) => serde_json::to_string_pretty(&e).unwrap_or_else(|e| format!("unserializable: {e}")),
                Err(e) => format!("error: {e}"),
            };
            let _ = writeln!(out, "== {} {:?}\n{text}", step.name.as_str(), index);
        }
    }
    out
}

fn dump(path: &Path, out: &Path) -> Result<(), String> {
    let dir = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("top");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("scenario");
    let stem = format!("{dir}__{}", name.trim_end_matches(".json"));
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let write = |suffix: &str, body: String| {
        let file = out.join(format!("{stem}.{suffix}"));
        std::fs::write(&file, body).map_err(|e| format!("cannot write {}: {e}", file.display()))
    };
    let scenario = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => return write("error", e.to_string()),
    };
    let trace = match attention_engine::run(&scenario) {
        Ok(t) => t,
        Err(e) => return write("error", e.to_string()),
    };
    write("trace.json", trace.to_json())?;
    write("py", export::python_script(&scenario, &trace))?;
    write("ipynb", export::notebook(&scenario, &trace))?;
    write("explain.txt", explanations(&trace))?;
    let decoded = attention_engine::decode(&scenario).map_or_else(|e| format!("error: {e}"), |d| d.to_json());
    write("decode.json", decoded)?;
    let tiled = attention_engine::tiled(&scenario, 2).map_or_else(|e| format!("error: {e}"), |t| t.to_json());
    write("tiled.json", tiled)
}

fn main() -> ExitCode {
    let Some(out) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: dump OUT_DIR");
        return ExitCode::from(2);
    };
    let result = std::fs::create_dir_all(&out)
        .map_err(|e| format!("cannot create {}: {e}", out.display()))
        .and_then(|()| scenarios())
        .and_then(|paths| paths.iter().try_for_each(|p| dump(p, &out)).map(|()| paths.len()));
    match result {
        Ok(n) => {
            println!("{n} scenarios written to {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
