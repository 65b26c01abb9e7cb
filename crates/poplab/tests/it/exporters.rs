//! Snapshot tests of every output format, without the binary: the JSON document, the CSV rows and
//! the time series of a run, and the files of a sweep directory. A change to any format shows up
//! here as a diff of the snapshot in `tests/it/snapshots/` (review it, then accept it with
//! `INSTA_UPDATE=always cargo test -p poplab --test it exporters::`).

use poplab::engine::{Engine, TraceEvery};
use poplab::export::{Csv, Exporter, Json, Trace};
use poplab::spec::{RawSpec, RunResult, RunSpec};
use poplab::sweep::{SweepSpec, fits_json};
use std::collections::HashSet;

fn run(raw: RawSpec) -> RunResult {
    RunSpec::resolve(&raw).unwrap().run(&|| {}).unwrap()
}

/// angluin at n = 8 on the agent array, with a fault, a time series and a census.
fn faulted() -> RawSpec {
    RawSpec {
        trials: 3,
        seed: 1,
        engine: Engine::Agents,
        faults: vec!["50:2".into()],
        trace_every: Some(TraceEvery::Steps(40)),
        census: true,
        threads: Some(1),
        ..RawSpec::new("angluin", 8)
    }
}

fn faulted_run() -> RunResult {
    run(faulted())
}

#[test]
fn the_json_document() {
    insta::assert_snapshot!(Json.export(&faulted_run()).unwrap());
}

#[test]
fn the_json_document_of_censored_trials() {
    let result = run(RawSpec {
        trials: 2,
        max_steps: 5,
        measure: poplab::engine::Measure::Holding,
        ..RawSpec::new("angluin", 5)
    });
    insta::assert_snapshot!(Json.export(&result).unwrap());
}

#[test]
fn the_csv_rows() {
    insta::assert_snapshot!(Csv.export(&faulted_run()).unwrap());
}

#[test]
fn the_time_series() {
    insta::assert_snapshot!(Trace.export(&faulted_run()).unwrap());
}

#[test]
fn the_streamed_time_series_equals_the_one_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.csv");
    let spec = RunSpec::resolve(&faulted()).unwrap();
    let streamed = poplab::export::run_traced(&spec, &|| {}, &path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), Trace.export(&faulted_run()).unwrap());
    assert_eq!(streamed.records.iter().map(|r| r.steps).collect::<Vec<_>>(), {
        faulted_run().records.iter().map(|r| r.steps).collect::<Vec<_>>()
    });
}

#[test]
fn the_files_of_a_sweep() {
    let mut spec = SweepSpec {
        params: vec![("k".into(), vec!["3".into(), "5".into()])],
        ..SweepSpec::new("threshold", &[10, 20])
    };
    spec.template = RawSpec { trials: 3, seed: 2, max_steps: 3000, ..spec.template };
    let cells = spec.resolve().unwrap();
    let rows = spec.collect(&cells, &HashSet::new()).unwrap();
    let trials = spec.trials_csv(&cells, &rows);
    let summaries = spec.summarise(&cells, &rows);
    insta::assert_snapshot!("sweep_json", spec.definition(&cells));
    insta::assert_snapshot!("trials_csv", trials);
    insta::assert_snapshot!("summary_csv", spec.summary_csv(&summaries));
    insta::assert_snapshot!("summary_json", spec.summary_json(&cells, &summaries));
    insta::assert_snapshot!("fits_json", fits_json(&summaries));
}
