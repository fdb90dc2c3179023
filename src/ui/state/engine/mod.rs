//! Where the engine runs: the choice between the page and the worker (`choice`), the
//! memo that runs it (`run`), the worker's channel (`worker`), and the Python export, which
//! a worker writes (`export`).

pub mod choice;
pub mod export;
pub mod run;
pub mod worker;
