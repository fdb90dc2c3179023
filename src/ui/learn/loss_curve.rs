//! The run's loss and accuracy curve, drawn with plotters ([`crate::draw::curve`]) as the
//! answers arrive, and the same in words and a table of sampled steps for screen readers.

use leptos::html;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

use crate::draw::curve::{draw_curve, Curve, CurveLayout};
use crate::draw::Canvas;
use crate::engine::train::StepStats;
use crate::format::fixed;

use crate::ui::learn::run::LearnRun;
use crate::ui::learn::settings::LearnSettings;
use crate::ui::platform::{canvas, screen};

/// Rows in the table of sampled steps.
const SAMPLES: usize = 8;

/// Up to `n` steps spread evenly over the run, the first and the last included.
pub fn sampled(history: &[StepStats], n: usize) -> Vec<StepStats> {
    let len = history.len();
    if len <= n {
        return history.to_vec();
    }
    let mut picked: Vec<usize> = (0..n).map(|k| k * (len - 1) / (n - 1).max(1)).collect();
    picked.dedup();
    picked.into_iter().filter_map(|i| history.get(i).copied()).collect()
}

/// A percentage of a fraction, one decimal.
pub fn percent(fraction: f64) -> String {
    format!("{}%", fixed(fraction * 100.0, 1))
}

/// Draws `curve` on `el`, sized to `layout`, its labels' size in `data-font-px`: the
/// Learn view's curve and the induction lesson's recorded one.
pub fn draw_loss_curve(el: &web_sys::HtmlCanvasElement, layout: &CurveLayout, curve: &Curve) {
    let dpr = screen::dpr();
    canvas::size(el, layout.width, layout.height, dpr);
    // the labels' size as drawn, CSS px, for the tests (on screen: times the canvas's scale)
    let _ = el.set_attribute("data-font-px", &layout.font.to_string());
    let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
    if let Err(e) =
        draw_curve(Canvas { area: &backend.into_drawing_area(), theme: &screen::theme(), dpr }, curve, layout)
    {
        leptos::logging::warn!("drawing the loss curve failed: {e:?}");
    }
}

/// The curve's figure: its canvas (drawn by the owner with [`draw_loss_curve`]), then
/// the children (the caption, a table).
#[component]
pub fn LossCurveFigure(
    /// The figure's test id.
    testid: &'static str,
    /// The canvas.
    canvas: NodeRef<html::Canvas>,
    /// The caption and what follows it.
    children: Children,
) -> impl IntoView {
    view! {
        <figure class="al-learn-curve" data-testid=testid>
            <canvas
                node_ref=canvas
                role="img"
                aria-label="The loss and the accuracy of each training step's batch, against the step"
            ></canvas>
            {children()}
        </figure>
    }
}

/// The curve, its caption and its table.
#[component]
pub fn LossCurve(
    /// The training run.
    run: LearnRun,
    /// The widest the picture may be, CSS pixels.
    #[prop(into)]
    max_width: Signal<f64>,
) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let layout = Memo::new(move |_| CurveLayout::new(max_width.get().min(640.0), 220.0));
    // the x axis spans the run so far, in steps of 100, so it does not move every answer
    let x_max = move || run.steps_done.get().div_ceil(100).max(1) * 100;
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let (layout, x_max) = (layout.get(), x_max());
        let marker = run.scrubbed.with(|c| c.as_ref().map(|c| c.step));
        run.history.with(|h| {
            let points: Vec<_> = h.iter().map(|s| (s.step, s.loss, s.accuracy)).collect();
            draw_loss_curve(&el, &layout, &Curve { points: &points, x_max, marker });
        });
    });
    let last = move || run.history.with(|h| h.last().copied());
    let summary = move || match last() {
        None => "No step taken yet: press Play or One step.".to_owned(),
        Some(s) => format!(
            "Step {} of {}: the batch's loss was {} and its accuracy {} (before the step's update).",
            s.step + 1,
            run.settings.with(LearnSettings::budget),
            fixed(s.loss, 3),
            percent(s.accuracy)
        ),
    };
    view! {
        <LossCurveFigure testid="learn-curve" canvas=canvas>
            <figcaption>
                "Each step's batch: its loss (cross-entropy, nats, left axis) and accuracy (right axis), before the update. "
                <span data-testid="learn-curve-summary">{summary}</span>
            </figcaption>
            <details class="al-table">
                <summary>"Table of sampled steps"</summary>
                <table data-testid="learn-curve-table">
                    <caption>"Loss and accuracy at steps spread over the run"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"step"</th>
                            <th scope="col">"loss"</th>
                            <th scope="col">"accuracy"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            run.history
                                .with(|h| sampled(h, SAMPLES))
                                .into_iter()
                                .map(|s| {
                                    view! {
                                        <tr>
                                            <td>{s.step + 1}</td>
                                            <td>{fixed(s.loss, 3)}</td>
                                            <td>{percent(s.accuracy)}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </details>
        </LossCurveFigure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(n: usize) -> Vec<StepStats> {
        (0..n).map(|step| StepStats { step, loss: 1.0, accuracy: 0.5 }).collect()
    }

    #[test]
    fn samples_spread_over_the_run_with_its_ends() {
        let steps = |v: Vec<StepStats>| v.into_iter().map(|s| s.step).collect::<Vec<_>>();
        assert_eq!(steps(sampled(&stats(100), 8)), vec![0, 14, 28, 42, 56, 70, 84, 99]);
        assert_eq!(steps(sampled(&stats(3), 8)), vec![0, 1, 2]);
        assert!(sampled(&[], 8).is_empty());
        assert_eq!(steps(sampled(&stats(9), 8)).len(), 8);
        assert_eq!(percent(0.975), "97.5%");
    }
}
