//! The Leptos components. They render a [`crate::engine::Trace`] and compute nothing:
//! every number on the page is read from the trace.

pub mod app;
pub mod app_state;
pub mod cache_calculator;
pub mod card_data;
pub mod causal_corners;
pub mod challenge_editors;
pub mod challenge_panel;
pub mod challenge_text;
pub mod challenge_weights;
pub mod check_line;
pub mod controls;
pub mod decode_cache;
pub mod decode_data;
pub mod decode_position;
pub mod decode_query;
pub mod decode_view;
pub mod dom;
pub mod embedding_editor;
pub mod embedding_plot;
pub mod engine_choice;
pub mod engine_run;
pub mod engine_worker;
pub mod explain_panel;
pub mod explain_text;
pub mod explained;
pub mod explorer;
pub mod first_screen;
pub mod glossary_panel;
pub mod head_options;
pub mod header;
pub mod heatmap_card;
pub mod highlight;
pub mod io;
pub mod later;
pub mod lesson_aside;
pub mod lesson_keys;
pub mod lesson_open;
pub mod lesson_panel;
pub mod lesson_quiz;
pub mod lesson_stage;
pub mod lines_view;
pub mod mask_conventions;
pub mod matrix_table;
pub mod notices;
pub mod page_layout;
pub mod pipeline;
pub mod plot_data;
pub mod position_similarity;
pub mod scroll_region;
pub mod settings;
pub mod split_both_ways;
pub mod tensors;
pub mod text_fit;
pub mod tile_tables;
pub mod tiles_data;
pub mod tiles_picture;
pub mod tiles_view;
pub mod tiles_words;
pub mod tokens;
pub mod url;

pub use app::App;

/// The last-resort guard: if a panic still happens, the console gets the message and the
/// page shows a "reset" banner instead of freezing silently.
pub fn install_panic_guard() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(banner) = document.create_element("div") else { return };
        banner.set_class_name("al-panic");
        banner.set_attribute("role", "alert").ok();
        banner.set_attribute("data-testid", "panic").ok();
        // text only: the message is never parsed as HTML
        banner.set_text_content(Some(
            "Something went wrong inside Attention Lens and this page stopped. \
             Reload the page to reset it (your sentences are kept in the address bar).",
        ));
        if let Some(body) = document.body() {
            let _ = body.append_child(&banner);
        }
    }));
}
