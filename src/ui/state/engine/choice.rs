//! Where the engine runs, as plain Rust: the page's own limits on a scenario, the work
//! a run costs, and whether it belongs in the engine worker; [`run`] and [`run_reusing`]
//! for the page's one engine memo. Tested natively.

use crate::engine::error::Field;
use crate::engine::{self, EngineError, Scenario, Trace};

use crate::ui::state::settings::UI_MAX_D_MODEL;

/// Where the engine runs: `?engine=sync` or `?engine=worker` force one (for tests and
/// benchmarks); otherwise by size ([`belongs_in_worker`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineMode {
    /// By the size of the work ([`belongs_in_worker`]).
    #[default]
    Auto,
    /// Always on the page (`?engine=sync`).
    Sync,
    /// Always in the worker when within the page's limits (`?engine=worker`).
    Worker,
}

impl EngineMode {
    /// The mode a link's `engine` value asks for: `sync`, `worker`, anything else (or
    /// nothing) [`EngineMode::Auto`].
    pub fn from_query(value: Option<&str>) -> Self {
        match value {
            Some("sync") => Self::Sync,
            Some("worker") => Self::Worker,
            _ => Self::Auto,
        }
    }

    /// The link's `engine` value for this mode; none for [`EngineMode::Auto`].
    pub fn query_value(self) -> Option<&'static str> {
        match self {
            Self::Auto => None,
            Self::Sync => Some("sync"),
            Self::Worker => Some("worker"),
        }
    }

    /// Whether the engine worker computes `scenario` (the page's engine memo asks, while
    /// the worker works): `last_run` is the scenario of the trace on screen, which the
    /// engine would reuse from.
    pub fn runs_in_worker(self, scenario: &Scenario, last_run: Option<&Scenario>) -> bool {
        match self {
            Self::Sync => false,
            Self::Worker => check_page_limits(scenario).is_ok(),
            Self::Auto => belongs_in_worker(scenario, last_run),
        }
    }

    /// Whether, once `scenario` ran on the page, the worker gets ready for the next run:
    /// in [`EngineMode::Auto`], a page whose whole run is large (the runs that are large
    /// come from a new seed, h or d_model; typing is mostly done on the page).
    pub fn readies_worker(self, scenario: &Scenario) -> bool {
        match self {
            Self::Sync => false,
            Self::Worker => true,
            Self::Auto => belongs_in_worker(scenario, None),
        }
    }
}

/// The page's own limits on a scenario, stricter than the engine's (the command line may
/// use up to [`engine::limits::MAX_D_MODEL`]): a `d_model` over [`UI_MAX_D_MODEL`] is an error
/// for that control, shown like the engine's own errors.
///
/// # Errors
/// [`EngineError::TooLarge`] for `d_model`.
pub fn check_page_limits(scenario: &Scenario) -> Result<(), EngineError> {
    if scenario.d_model > UI_MAX_D_MODEL {
        return Err(EngineError::TooLarge {
            what: "d_model".into(),
            value: scenario.d_model,
            max: UI_MAX_D_MODEL,
            field: Field::DModel,
        });
    }
    Ok(())
}

/// The engine's work for a scenario, in multiply-adds: the four projections
/// (`B·(2·T_q + 2·T_k)·d_model²`) and the two attention products (`2·B·h·T_q·T_k·d_k`),
/// plus 16 per attention cell for the scale, mask, `exp` and the copies the trace keeps,
/// once per layer. `None` when the sentences do not tokenize (the engine's error then comes at once).
pub fn engine_work(scenario: &Scenario) -> Option<u64> {
    let q = engine::tokenize::batch(&scenario.sentences).ok()?;
    let (b, t_q) = (q.b() as u64, q.t as u64);
    let t_k = match &scenario.kv_sentences {
        Some(kv) => engine::tokenize::batch(kv).ok()?.t as u64,
        None => t_q,
    };
    let (d, h) = (scenario.d_model as u64, scenario.n_heads.max(1) as u64);
    let cells = b * h * t_q * t_k;
    // every layer does the same work again
    let layers = scenario.layers().max(1) as u64;
    Some(layers * (b * (2 * t_q + 2 * t_k) * d * d + 2 * cells * (d / h) + 16 * cells))
}

/// The part of [`engine_work`] the engine still has to do after computing `previous`
/// (the scenario of the page's last trace): the engine copies every sentence whose inputs
/// did not change ([`engine::run_reusing`]), so typing in one sentence of four costs a
/// quarter of the work. Counted conservatively: only when nothing but the sentences'
/// texts changed and the padded length T and the number of sentences are the same, and
/// only the sentences changed in place (the engine also finds moved ones). `None` when
/// the sentences do not tokenize.
pub fn work_to_do(scenario: &Scenario, previous: Option<&Scenario>) -> Option<u64> {
    let all = engine_work(scenario)?;
    let Some(p) = previous else { return Some(all) };
    // every field named, so that a new one is a compile error here, not a missed change
    let Scenario {
        sentences,
        kv_sentences,
        d_model,
        n_heads,
        d_head,
        embeddings,
        projections,
        seed,
        mask,
        positional,
        n_kv_heads,
        rope,
        alibi,
        scale,
        softcap,
        qk_norm,
        sinks,
        mla,
        n_layers,
        layer,
    } = scenario;
    let same_setup = (&p.kv_sentences, p.d_model, p.n_heads, p.d_head, &p.embeddings)
        == (kv_sentences, *d_model, *n_heads, *d_head, embeddings)
        && (&p.projections, p.seed, &p.mask, &p.positional) == (projections, *seed, mask, positional)
        && (p.n_kv_heads, p.rope, p.alibi) == (*n_kv_heads, *rope, *alibi)
        && (p.scale, p.softcap, &p.qk_norm, &p.sinks) == (*scale, *softcap, qk_norm, sinks)
        && &p.mla == mla
        // the engine copies from a one-layer run only
        && (p.n_layers, p.layer) == (*n_layers, *layer)
        && scenario.layers() == 1
        && p.sentences.len() == sentences.len();
    let same_t = || {
        let t = |s: &Scenario| engine::tokenize::batch(&s.sentences).ok().map(|b| b.t);
        t(p).is_some_and(|t_p| Some(t_p) == t(scenario))
    };
    if !same_setup || !same_t() {
        return Some(all);
    }
    let b = scenario.sentences.len().max(1) as u64;
    let changed = scenario.sentences.iter().zip(&p.sentences).filter(|(a, b)| a != b).count() as u64;
    Some(all * changed / b)
}

/// From this much [`work_to_do`] on, the page runs the engine in its worker (see README,
/// "Large inputs"): typing in one 128-token sentence at d_model = 256 (44 M, alone or one
/// of four) is computed on the page, a fresh run of the whole stress page (176 M) in the
/// worker. Chosen from `e2e/bench/crossover.mjs`'s measurements (the engine on the page
/// against the worker's round trip): BENCHMARKS.md.
pub const WORKER_MIN_WORK: u64 = 48_000_000;

/// True when the scenario's engine run belongs in the worker: its [`work_to_do`] after
/// `previous` is large enough, and it is within the page's limits (an error is shown at
/// once, without a round trip).
pub fn belongs_in_worker(scenario: &Scenario, previous: Option<&Scenario>) -> bool {
    check_page_limits(scenario).is_ok()
        && work_to_do(scenario, previous).is_some_and(|w| w >= WORKER_MIN_WORK)
}

/// [`engine::run`] within the page's limits ([`check_page_limits`]), for the page's one
/// engine memo: a typed `d_model = 100000` is then a clear error next to the field
/// rather than silently cut to the limit.
///
/// # Errors
/// As [`check_page_limits`], then as [`engine::run`].
pub fn run(scenario: &Scenario) -> Result<Trace, EngineError> {
    run_reusing(scenario, None)
}

/// [`run`], taking from the `previous` trace the projections of the sentences that did
/// not change ([`engine::run_reusing`]: the same numbers, bit for bit, sooner).
///
/// # Errors
/// As [`run`].
pub fn run_reusing(scenario: &Scenario, previous: Option<&Trace>) -> Result<Trace, EngineError> {
    check_page_limits(scenario)?;
    engine::run_reusing(scenario, previous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::state::settings::{scenario, Settings, DEFAULT_TEXT};

    #[test]
    fn the_engine_mode_round_trips_through_its_link_value() {
        for mode in [EngineMode::Auto, EngineMode::Sync, EngineMode::Worker] {
            assert_eq!(EngineMode::from_query(mode.query_value()), mode);
        }
        assert_eq!(EngineMode::from_query(Some("gpu")), EngineMode::Auto);
    }

    #[test]
    fn the_page_limits_d_model_with_an_error_for_the_field() {
        let (mut sc, _) = scenario("a b", &Settings::default());
        assert!(run(&sc).is_ok());
        sc.d_model = 100_000;
        let e = run(&sc).unwrap_err();
        assert_eq!(e.field(), crate::engine::error::Field::DModel);
        assert_eq!(e.to_string(), "d_model = 100000 is over the limit of 512");
        sc.d_model = UI_MAX_D_MODEL;
        assert!(check_page_limits(&sc).is_ok());
        sc.d_model = UI_MAX_D_MODEL + 2;
        assert!(check_page_limits(&sc).is_err(), "the engine would run it; the page does not");
    }

    #[test]
    fn large_runs_go_to_the_worker() {
        let mut s = Settings::default();
        // the default page: a few thousand multiply-adds
        let (small, _) = scenario(DEFAULT_TEXT, &s);
        assert!(!belongs_in_worker(&small, None));
        // the stress page: B = 4, T = 128, d_model = 256, h = 8
        let stress = stress_page(&mut s, "w0");
        // 4·512·256² + 2·524 288·32 + 16·524 288
        assert_eq!(engine_work(&stress), Some(134_217_728 + 33_554_432 + 8_388_608));
        assert!(belongs_in_worker(&stress, None));
        // over the page's d_model limit: an error at once, not a round trip
        let mut over = stress.clone();
        over.d_model = UI_MAX_D_MODEL + 8;
        assert!(!belongs_in_worker(&over, None));
        // no sentences: the engine's error at once
        let (empty, _) = scenario("", &s);
        assert!(!belongs_in_worker(&empty, None));
    }

    #[test]
    fn each_mode_says_where_a_run_goes() {
        let mut s = Settings::default();
        let (small, _) = scenario(DEFAULT_TEXT, &s);
        let stress = stress_page(&mut s, "w0");
        let typed = stress_page(&mut s, "w0x");
        let mut over = stress.clone();
        over.d_model = UI_MAX_D_MODEL + 8;
        for sc in [&small, &stress, &typed, &over] {
            assert!(!EngineMode::Sync.runs_in_worker(sc, None) && !EngineMode::Sync.readies_worker(sc));
            assert!(EngineMode::Worker.readies_worker(sc));
            assert_eq!(EngineMode::Auto.readies_worker(sc), belongs_in_worker(sc, None));
            for last in [None, Some(&stress)] {
                assert_eq!(EngineMode::Auto.runs_in_worker(sc, last), belongs_in_worker(sc, last));
            }
        }
        // the worker mode sends everything within the page's limits, small or not
        assert!(EngineMode::Worker.runs_in_worker(&small, None));
        assert!(EngineMode::Worker.runs_in_worker(&typed, Some(&stress)));
        assert!(!EngineMode::Worker.runs_in_worker(&over, None));
        // Auto: the whole stress page goes, one sentence typed in it stays
        assert!(EngineMode::Auto.runs_in_worker(&stress, None));
        assert!(!EngineMode::Auto.runs_in_worker(&typed, Some(&stress)));
        assert!(EngineMode::Auto.readies_worker(&typed) && !EngineMode::Auto.readies_worker(&small));
    }

    /// The stress page (B = 4, T = 128, d_model = 256, h = 8) with `first` as the first
    /// word of the first sentence.
    fn stress_page(s: &mut Settings, first: &str) -> Scenario {
        let words: Vec<String> = (0..128).map(|i| format!("w{i}")).collect();
        let mut text = vec![words.join(" "); 4].join("\n");
        text.replace_range(0..2, first);
        s.d_model = 256;
        s.n_heads = 8;
        scenario(&text, s).0
    }

    #[test]
    fn typing_in_one_sentence_is_a_quarter_of_the_stress_page_and_stays_here() {
        let mut s = Settings::default();
        let before = stress_page(&mut s, "w0");
        let typed = stress_page(&mut s, "w0x");
        let all = engine_work(&typed).unwrap();
        assert_eq!(work_to_do(&typed, Some(&before)), Some(all / 4));
        assert!(!belongs_in_worker(&typed, Some(&before)), "one sentence of four: on the page");
        // nothing changed: nothing to do
        assert_eq!(work_to_do(&typed, Some(&typed)), Some(0));
        // everything else changed: the whole run, in the worker
        let mut seed = typed.clone();
        seed.seed += 1;
        assert_eq!(work_to_do(&seed, Some(&typed)), Some(engine_work(&seed).unwrap()));
        assert!(belongs_in_worker(&seed, Some(&typed)));
        let mut causal = typed.clone();
        causal.mask.causal = !causal.mask.causal;
        assert!(belongs_in_worker(&causal, Some(&typed)));
        // a new word makes T longer: every sentence is padded anew, the whole run
        let mut longer = typed.clone();
        longer.sentences[0] = format!("{} more", longer.sentences[0].split_once(' ').unwrap().1);
        longer.sentences[1].push_str(" more");
        assert!(work_to_do(&longer, Some(&typed)) == engine_work(&longer));
        // another number of sentences: the whole run
        let mut fewer = typed.clone();
        fewer.sentences.pop();
        assert_eq!(work_to_do(&fewer, Some(&typed)), engine_work(&fewer));
        // two sentences of four changed: half
        let mut two = typed.clone();
        two.sentences[2] = two.sentences[2].replacen("w0", "w1", 1);
        two.sentences[3] = two.sentences[3].replacen("w0", "w2", 1);
        assert_eq!(work_to_do(&two, Some(&typed)), Some(engine_work(&two).unwrap() / 2));
        assert!(belongs_in_worker(&two, Some(&typed)));
    }
}
