//! `RunSpec::resolve` from a `RawSpec` made of fuzz strings (protocol name, `--set`, `--init`,
//! `--graph`, `--fault`, `--engine`, `--measure`, with `@FILE` inputs written to a temporary
//! directory): no panic, errors typed; a resolved spec runs one short trial.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::spec::{RawSpec, RunSpec};

const PROTOCOLS: [&str; 10] =
    ["threshold", "angluin", "ls-timer", "ppl", "pll", "pll-as-printed", "pll-sym", "prl", "approx-majority", "@"];

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else { return };
    let [protocol, n, params, init, graph, faults, engine, measure, file] =
        <[String; 9]>::try_from(poplab_fuzz::parts(rest, 9)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let at = |text: &str| match text.strip_prefix('@') {
        Some(_) => {
            let path = dir.path().join("input");
            std::fs::write(&path, file.as_bytes()).unwrap();
            format!("@{}", path.display())
        }
        None => text.to_string(),
    };
    // The protocol: from the registry by the first byte, or the fuzz text (`@` names the file part).
    let protocol = match PROTOCOLS.get(usize::from(head % 16)) {
        Some(&name) => at(name),
        None => protocol,
    };
    // Small populations and horizons: resolving is under test, not long runs.
    let Ok(n) = poplab::numbers::parse_u64(n.trim()) else { return };
    let mut raw = RawSpec::new(&protocol, n % 48);
    raw.params = params.split(' ').filter(|p| !p.is_empty()).map(str::to_string).collect();
    raw.init = (!init.is_empty()).then(|| at(&init));
    raw.graph = (!graph.is_empty()).then(|| at(&graph));
    raw.faults = faults.split(' ').filter(|f| !f.is_empty()).map(str::to_string).collect();
    if let Ok(engine) = engine.parse() {
        raw.engine = engine;
    }
    if let Ok(measure) = measure.parse() {
        raw.measure = measure;
    }
    raw.max_steps = 3000;
    raw.trials = 1;
    raw.threads = Some(1);
    match RunSpec::resolve(&raw) {
        Ok(spec) => {
            assert_eq!(spec.n as u64, raw.n);
            assert_ne!(spec.settings.engine, poplab::engine::Engine::Auto);
            if let Err(error) = spec.run(&|| {}) {
                poplab_fuzz::check_error(&error);
            }
        }
        Err(error) => poplab_fuzz::check_error(&error),
    }
});
