//! Export the trace or the scenario as JSON, import a scenario, and the shared colour
//! scale switch. An import replaces the explorer's inputs; in a lesson the lesson's words
//! then follow the imported numbers, or say that they do not apply.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use attention_export::refusal;

use crate::engine::Scenario;

use attention_worker::protocol::ExportKind;

use crate::ui::state::{app_state::AppState, engine::export};
use crate::ui::{
    platform::{address, clipboard, files},
    state::settings::{self, Settings},
    widgets::fields::CheckField,
};

/// The import/export row.
#[component]
pub fn ImportExport(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let AppState { text, settings, view: view_state, import_error, run, shown, .. } = state;
    let export_trace = move |_| {
        if let Some(t) = shown.get_untracked() {
            files::download_text("trace.json", "application/json", &format!("{}\n", t.to_json()));
        }
    };
    // An <iframe> of this exact state in embed mode (only the figure and its caption).
    let embed_code = RwSignal::new(None::<String>);
    let copy_embed = move |_| {
        let href = address::href();
        let src = crate::ui::state::url::with_flag(&href, "embed=1");
        let step = view_state.with_untracked(|v| v.step);
        let code = format!(
            "<iframe src=\"{}\" title=\"Attention Lens: {step}\" width=\"720\" height=\"520\" loading=\"lazy\" style=\"border:0\"></iframe>",
            src.replace('"', "%22")
        );
        clipboard::copy_text(&code);
        embed_code.set(Some(code));
    };
    let export_scenario = move |_| {
        let s = run.with_untracked(|r| r.scenario.to_json());
        files::download_text("scenario.json", "application/json", &format!("{s}\n"));
    };
    let on_import = move |ev: leptos::ev::Event| import_file(&ev, text, settings, import_error);
    view! {
        <div class="al-row al-io">
            <button type="button" on:click=export_trace data-testid="export-trace">
                "Export trace JSON"
            </button>
            <button type="button" on:click=export_scenario data-testid="export-scenario">
                "Export scenario JSON"
            </button>
            <PythonExport state=state />
            <button
                type="button"
                on:click=copy_embed
                data-testid="copy-embed"
                title="Copy an <iframe> that shows this figure in slides or a course page"
            >
                "Copy embed code"
            </button>
            <label class="al-file">
                "Import scenario JSON "
                <input
                    type="file"
                    accept=".json,application/json"
                    data-testid="import-scenario"
                    on:change=on_import
                />
            </label>
            <CheckField
                testid="shared-scale"
                checked=Signal::derive(move || view_state.with(|v| v.shared_scale))
                on_change=Callback::new(move |c: bool| view_state.update(|v| v.shared_scale = c))
            >
                "one colour scale for all heads"
            </CheckField>
            {move || {
                embed_code
                    .get()
                    .map(|code| {
                        view! {
                            <label class="al-field al-embed-field">
                                <span>"Embed code (copied): paste it into a slide or a course page"</span>
                                <input
                                    type="text"
                                    readonly=true
                                    class="al-embed-code"
                                    data-testid="embed-code"
                                    prop:value=code
                                />
                            </label>
                        }
                    })
            }}
            {move || {
                import_error
                    .get()
                    .map(|e| {
                        view! {
                            <p class="al-error" data-testid="error" role="alert">
                                {e}
                            </p>
                        }
                    })
            }}
        </div>
    }
}

/// The Python script's and the notebook's buttons, and why a run cannot be written. The
/// exported files recompute every step with NumPy (and PyTorch when it is installed) and
/// check them against this page's numbers. The engine worker writes them
/// (`engine::export`): while it does, the button says so and both wait.
#[component]
fn PythonExport(
    /// The page's state.
    state: AppState,
) -> impl IntoView {
    let run = state.run;
    let writing = RwSignal::new(None::<ExportKind>);
    let export_error = RwSignal::new(None::<String>);
    let export_file = move |kind: ExportKind| {
        if writing.get_untracked().is_some() {
            return;
        }
        let scenario = run.with_untracked(|r| r.scenario.clone());
        writing.set(Some(kind));
        export_error.set(None);
        export::request(kind, &scenario, move |result| {
            writing.set(None);
            match result {
                Ok(text) => match kind {
                    ExportKind::Script => files::download_text("attention_lens.py", "text/x-python", &text),
                    ExportKind::Notebook => {
                        files::download_text("attention_lens.ipynb", "application/x-ipynb+json", &text);
                    }
                },
                Err(why) => export_error.set(Some(why)),
            }
        });
    };
    // a run the files cannot write (more than one layer) is refused by name beside them
    let refused_why = Memo::new(move |_| {
        run.with(|r| refusal(&r.scenario)).map(|why| crate::ui::state::field_words::page_words(&why))
    });
    let refused = move || refused_why.with(Option::is_some);
    // the button of one kind of file: "Writing the file…" while the worker writes it
    let button = move |kind: ExportKind, testid: &'static str, title: &'static str, idle: &'static str| {
        view! {
            <button
                type="button"
                on:click=move |_| export_file(kind)
                disabled=move || refused() || writing.get().is_some()
                aria-busy=move || (writing.get() == Some(kind)).then_some("true")
                data-testid=testid
                title=title
            >
                {move || if writing.get() == Some(kind) { "Writing the file…" } else { idle }}
            </button>
        }
    };
    view! {
        {button(
            ExportKind::Script,
            "export-python",
            "A Python script that recomputes every step with NumPy (and PyTorch) and checks this page's numbers",
            "Download Python",
        )}
        {button(
            ExportKind::Notebook,
            "export-notebook",
            "The same as a Jupyter notebook, a markdown cell of words before each step",
            "Download notebook",
        )}
        {move || {
            refused_why
                .get()
                .map(|why| {
                    view! {
                        <p class="al-hint" data-testid="export-refusal">
                            {why}
                        </p>
                    }
                })
        }}
        {move || {
            export_error
                .get()
                .map(|why| {
                    view! {
                        <p class="al-error" data-testid="export-error" role="alert">
                            {why}
                        </p>
                    }
                })
        }}
    }
}

/// Reads the scenario file the import field was given into the page's sentences and
/// settings, or says beside the field why it cannot.
fn import_file(
    ev: &leptos::ev::Event,
    text: RwSignal<String>,
    settings: RwSignal<Settings>,
    import_error: RwSignal<Option<String>>,
) {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
    let promise = file.text();
    // the same file can be imported again after an edit
    input.set_value("");
    leptos::task::spawn_local(async move {
        let text_value = wasm_bindgen_futures::JsFuture::from(promise).await.ok().and_then(|v| v.as_string());
        match text_value.map(|t| Scenario::from_json(&t)) {
            Some(Ok(s)) => {
                let (t, st) = settings::from_scenario(&s);
                import_error.set(None);
                settings.set(st);
                text.set(t);
            }
            Some(Err(e)) => import_error.set(Some(e.to_string())),
            None => import_error.set(Some("the file could not be read as text".into())),
        }
    });
}
