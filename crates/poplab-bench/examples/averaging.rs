//! The README's discrete averaging (ppsim's example 2, 51 states) as `poplab.Simulation` runs it,
//! for profilers: `averaging N [SEED]` runs `{0: N/2, 50: N/2}` on the batched engine, a sample
//! every `N/10` steps and a check every `N` steps until at most three consecutive values are
//! present (`sim.run(three_consecutive_values, 0.1)` in `scripts/bench/ppsim_inprocess.py`); prints
//! the steps, the parallel time and the wall seconds.
use poplab::engine::{Engine, LiveRun, SampleSteps};
use poplab::graph::Graph;
use poplab::protocol::{Law, Output};
use poplab::protocols::custom::{Amount, Custom, StopRule};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().expect("averaging N [SEED]").parse().expect("N an integer");
    let seed: u64 = args.next().map_or(1, |s| s.parse().expect("SEED an integer"));
    let rule = |a: &str, b: &str| -> Result<Option<Law<String>>, String> {
        let (a, b): (u32, u32) = (a.parse().map_err(|_| "a number")?, b.parse().map_err(|_| "a number")?);
        let (lo, hi) = ((a + b) / 2, (a + b).div_ceil(2));
        // As `poplab.Simulation` on the complete graph: a swap changes no count, so it is null.
        let null = (lo, hi) == (a, b) || (lo, hi) == (b, a);
        Ok((!null).then(|| vec![((lo.to_string(), hi.to_string()), 1.0)]))
    };
    let output = |_: &str| -> Result<Output, String> { Ok(Output::No) };
    let states = [("0".to_string(), Output::No), ("50".to_string(), Output::No)];
    let init = [("0".to_string(), Amount::Count(n / 2)), ("50".to_string(), Amount::Count(n - n / 2))];
    let protocol = Custom::from_fn(
        "averaging",
        &states,
        Box::new(rule),
        Box::new(output),
        &init,
        StopRule::Silent,
        // As `poplab.Simulation`: a rule function may return a law at any time.
        true,
        n as usize,
    )
    .expect("a valid protocol")
    .with_stop(StopRule::Silent, true);
    let counts = [(protocol.state("0").unwrap(), n / 2), (protocol.state("50").unwrap(), n - n / 2)];
    let mut run = LiveRun::new(protocol, Graph::Complete, &counts, Engine::Batched, seed).expect("a run");
    let tenth = u128::from((n / 10).max(1));
    let mut samples = SampleSteps::new((1..).map(move |i| i * tenth));
    let mut rows = 0u64;
    let start = Instant::now();
    loop {
        let until = run.step() + u128::from(n);
        let silent = run.advance(until, true, &mut samples, &mut |_, _| rows += 1).expect("no failing rule");
        let values: Vec<u32> = run.counts().iter().map(|(s, _)| run.protocol().name(*s).parse().unwrap()).collect();
        let spread = values.iter().max().unwrap() - values.iter().min().unwrap();
        if silent || spread <= 2 {
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let steps = run.step();
    println!("n {n} seed {seed} steps {steps} time {:.2} rows {rows} seconds {seconds:.3}", steps as f64 / n as f64);
}
