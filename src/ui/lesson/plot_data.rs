//! What the embedding plot ([`crate::ui::lesson::embedding_plot`]) shows, as plain Rust: the points
//! of "baseball" and "bat" before and after attention, read from any trace with checked
//! indexing, and its caption; or why there is nothing to plot. Tested natively.

use crate::draw::embedding_plot::Point;
use crate::engine::Trace;

/// What the embedding plot shows for a trace: the points, the axes' names, and a sentence
/// about what is plotted; or why there is nothing to plot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotData {
    /// "baseball" and "bat" of sentence 1, before (x) and after (output).
    pub points: Vec<Point>,
    /// `d_model = 1`: the plot is a line.
    pub one_d: bool,
    /// The caption.
    pub caption: String,
}

/// The words the plot follows.
const PLOTTED: [&str; 2] = ["baseball", "bat"];

/// The plot of "baseball" and "bat" in sentence 1 of any trace: dimensions 1 and 2 of
/// their embedding (`x`) and of their output row, read with checked indexing. `bat_editable`
/// says whether "bat" has an explicit vector the plot may drag. `Err` says in words why
/// there is nothing to plot.
pub fn plot_data(t: &Trace, bat_editable: bool) -> Result<PlotData, String> {
    use crate::engine::StepName;
    let (Some(x), Some(out)) = (t.step(StepName::X), t.step(StepName::Output)) else {
        return Err("This trace has no x or output step to plot.".into());
    };
    let (Some(x), Some(out)) = (x.matrix(0, 0), out.matrix(0, 0)) else {
        return Err("This trace has no sentence to plot.".into());
    };
    let one_d = t.sizes.d_model < 2;
    let point = |m: &ndarray::ArrayView2<'_, f64>, i: usize| -> Option<(f64, f64)> {
        let first = *m.get((i, 0))?;
        let second = if one_d { 0.0 } else { *m.get((i, 1))? };
        Some((first, second))
    };
    let mut points = Vec::new();
    for (i, tok) in t.query_tokens(0).iter().enumerate() {
        let key = tok.to_lowercase();
        if !PLOTTED.contains(&key.as_str()) {
            continue;
        }
        let (Some(before), Some(after)) = (point(&x, i), point(&out, i)) else { continue };
        points.push(Point { label: tok.clone(), before, after, draggable: key == "bat" && bat_editable });
    }
    if points.is_empty() {
        return Err(format!(
            "This plot follows \"baseball\" and \"bat\"; {} has neither, so there is nothing to plot. \
             Type them into the sentences to see them move.",
            if t.sizes.b > 1 { "sentence 1" } else { "the sentence" }
        ));
    }
    let name =
        |d: usize| t.feature_names.as_ref().and_then(|n| n.get(d)).map_or(format!("d{d}"), |s| s.to_string());
    let mut caption = if one_d {
        format!("{} (→). d_model = 1: each word is a single number, so the plot is a line", name(0))
    } else {
        format!("{} (→) and {} (↑)", name(0), name(1))
    };
    if t.sizes.d_model > 2 {
        caption.push_str(&format!(", the first 2 of d_model = {} dimensions", t.sizes.d_model));
    }
    if t.sizes.b > 1 {
        caption.push_str("; sentence 1 of the batch");
    }
    if t.is_cross() {
        caption.push_str("; the queries' words (their keys and values come from the other sentences)");
    }
    if points.iter().any(|p| p.draggable) {
        caption.push_str(if one_d { ". Drag \"bat\" along the line" } else { ". Drag \"bat\"" });
    }
    Ok(PlotData { points, one_d, caption })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run;

    #[test]
    fn the_plot_has_points_or_a_reason_for_any_scenario() {
        for (what, scenario) in crate::lessons::tests::odd_scenarios() {
            let trace = run(&scenario).unwrap_or_else(|e| panic!("{what}: {e}"));
            match plot_data(&trace, true) {
                Ok(d) => {
                    assert!(!d.points.is_empty(), "{what}");
                    assert_eq!(d.one_d, trace.sizes.d_model == 1, "{what}");
                    assert!(!d.caption.is_empty());
                }
                Err(why) => assert!(why.contains("nothing to plot"), "{what}: {why}"),
            }
        }
    }

    #[test]
    fn the_plot_reads_the_seed_003_numbers_and_says_d_model_1() {
        let lesson = crate::lessons::baseball_bat::lesson();
        let trace = run(&lesson.steps[3].scenario).unwrap();
        let d = plot_data(&trace, true).unwrap();
        let bat = d.points.iter().find(|p| p.label == "bat").unwrap();
        assert_eq!(bat.before, (1.0, 1.0));
        assert!((bat.after.0 - 1.5).abs() < 1e-12 && (bat.after.1 - 0.5).abs() < 1e-12);
        assert!(bat.draggable && d.caption.starts_with("sports (→) and animal (↑)"), "{}", d.caption);

        let (_, one) = &crate::lessons::tests::odd_scenarios()[0];
        let d = plot_data(&run(one).unwrap(), false).unwrap();
        assert!(d.one_d && d.caption.contains("d_model = 1") && d.points.iter().all(|p| !p.draggable));
        assert_eq!(d.points.len(), 2);

        let none = run(&crate::engine::Scenario::identity(&["the cat sat"], 4, 1)).unwrap();
        assert!(plot_data(&none, true).unwrap_err().contains("neither"));
    }
}
