//! Where the engine runs: the choice between the page and the worker (`choice`), the
//! memo that runs it (`run`), and the worker's channel (`worker`).

pub mod choice;
pub mod run;
pub mod worker;
