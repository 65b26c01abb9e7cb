//! Every integration test of the library, in one test binary (one link instead of one per file):
//! each module was a file of its own under `tests/`. Run one with its module path, e.g.
//! `cargo test -p poplab --test it value_stability::`.

#[path = "../common/mod.rs"]
mod common;

mod angluin_runs_vs_closed_form;
mod approx_majority_runs;
mod batched_engine;
mod crn_law;
mod custom_protocols;
mod determinism;
mod engines_agree;
mod exact_agreement;
mod exact_holding;
mod exact_prl;
mod exact_solver_closed_forms;
mod exporters;
mod ls_timer_runs;
mod observation_invariance;
mod pll_quick_elimination;
mod pll_runs;
mod pll_sym_runs;
mod ppl_runs;
mod prl_runs;
mod replay;
mod search_vs_exact;
mod splitting_holding;
mod threshold_runs;
mod value_stability;
mod verdict_characteristics;
