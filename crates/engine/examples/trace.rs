//! Scenario JSON in, trace JSON out: check the app against your own PyTorch notebook.
//!
//! ```text
//! cargo run --release --example trace -- scenario.json > trace.json
//! cargo run --release --example trace -- - < scenario.json     # read standard input
//! ```
//!
//! A bad scenario exits with status 1 and one line on stderr.

use std::io::Read;
use std::process::ExitCode;

fn read(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: trace SCENARIO.json   (or - for standard input)");
        return ExitCode::from(2);
    };
    let result = read(path).and_then(|text| attention_engine::run_json(&text).map_err(|e| e.to_string()));
    match result {
        Ok(trace) => {
            // Debug builds check every invariant of the trace before printing it.
            #[cfg(debug_assertions)]
            if let Err(e) = trace.check_invariants() {
                eprintln!("internal error: {e}");
                return ExitCode::from(3);
            }
            println!("{}", trace.to_json());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
