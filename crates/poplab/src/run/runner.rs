//! The type-erased protocol behind a resolved spec ([`RunSpec`](crate::spec::RunSpec)): what a
//! run, an exploration, a search and an estimate need of it, for every protocol type.

use crate::checkpoint::TrialCheckpoint;
use crate::engine::{Measure, TraceSink};
use crate::error::{Error, Result};
use crate::exact::{self, ExactReport, ExploreSettings, StartTimes, Starts, Verification};
use crate::experiment::{self, RunSettings, TrialRecord};
use crate::init::InitSpec;
use crate::protocol::{Output, Protocol};
use crate::rng::TrialStreams;
use crate::search::{SearchResult, SearchSettings};
use crate::splitting::{self, HoldingEstimate, SplittingSettings};
use serde_json::{Map, Value};
use std::path::Path;

/// What a resolved spec needs of its protocol, with the protocol's type erased.
pub(crate) trait Runner: Send + Sync {
    fn trial(
        &self,
        settings: &RunSettings,
        index: u64,
        trace: &mut dyn TraceSink,
        checkpoint: Option<TrialCheckpoint<'_>>,
    ) -> Result<TrialRecord>;
    fn exact(&self, settings: &RunSettings, max_configs: usize) -> Result<ExactReport<Map<String, Value>>>;
    fn exact_every(&self, settings: &RunSettings, max_configs: usize) -> Result<StartTimes<Map<String, Value>>>;
    fn search(
        &self,
        settings: &RunSettings,
        search: &SearchSettings,
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<SearchResult>;
    fn verify(
        &self,
        settings: &RunSettings,
        from_all: bool,
        max_configs: usize,
    ) -> Result<Verification<Map<String, Value>>>;
    fn estimate(
        &self,
        settings: &RunSettings,
        splitting: &SplittingSettings,
        done: &(dyn Fn() + Sync),
        journal: Option<&Path>,
    ) -> Result<HoldingEstimate>;
    fn holding_scores(&self) -> &'static [&'static str];
    fn state_names(&self) -> Vec<(String, Output)>;
}

pub(crate) struct Typed<P>(pub(crate) P);

impl<P: Protocol> Typed<P> {
    /// The one start configuration of an exploration.
    fn start(&self, settings: &RunSettings) -> Result<Vec<P::State>> {
        settings.init.build(&self.0, &mut TrialStreams::new(0).init)
    }

    fn explore(&self, settings: &RunSettings, max_configs: usize) -> ExploreSettings {
        ExploreSettings { graph: settings.graph.clone(), max_configs }
    }

    /// Every configuration of the protocol's listed state space.
    fn every(&self) -> Result<Starts<P::State>> {
        let states = self.0.configurations().and_then(|c| c.state_space()).ok_or_else(|| {
            Error::Init(format!(
                "{} does not list its state space (or it is too large to list), so --from all is not available; use \
                 --from default, a family or @FILE.json, or smaller parameters",
                self.0.info().name
            ))
        })?;
        Ok(Starts::Every(states))
    }

    /// The starts a user reads a worst case against: `default`, each named family this instance
    /// can build, and the spec's own start when it is a file or counts.
    fn named_starts(&self, settings: &RunSettings) -> Vec<(String, Vec<P::State>)> {
        let mut names: Vec<InitSpec> = std::iter::once(InitSpec::Default)
            .chain(self.0.info().families.iter().filter(|f| f.name != "random").map(|f| InitSpec::from_name(f.name)))
            .collect();
        if matches!(settings.init, InitSpec::Explicit(_) | InitSpec::Counts(_)) {
            names.push(settings.init.clone());
        }
        names
            .into_iter()
            .filter_map(|init| {
                let start = init.build(&self.0, &mut TrialStreams::new(0).init).ok()?;
                Some((init.name(), start))
            })
            .collect()
    }
}

impl<P: Protocol> Runner for Typed<P> {
    fn estimate(
        &self,
        settings: &RunSettings,
        splitting: &SplittingSettings,
        done: &(dyn Fn() + Sync),
        journal: Option<&Path>,
    ) -> Result<HoldingEstimate> {
        let start = self.start(settings)?;
        splitting::estimate_holding(&self.0, &settings.graph, &start, splitting, done, journal)
    }

    fn holding_scores(&self) -> &'static [&'static str] {
        crate::protocol::holding_scores(&self.0)
    }

    fn state_names(&self) -> Vec<(String, Output)> {
        self.0.observables().filter(|o| o.counts_states()).map_or_else(Vec::new, |o| o.state_names())
    }

    fn trial(
        &self,
        settings: &RunSettings,
        index: u64,
        trace: &mut dyn TraceSink,
        checkpoint: Option<TrialCheckpoint<'_>>,
    ) -> Result<TrialRecord> {
        experiment::trial(&self.0, settings, settings.engine, index, trace, checkpoint)
    }

    fn exact(&self, settings: &RunSettings, max_configs: usize) -> Result<ExactReport<Map<String, Value>>> {
        let (start, explore) = (self.start(settings)?, self.explore(settings, max_configs));
        let report = match settings.measure {
            Measure::Convergence => exact::expected_steps(&self.0, &start, &explore)?,
            Measure::Holding => exact::expected_holding_steps(&self.0, &start, &explore)?,
        };
        Ok(report.map(&|s| crate::protocol::state_to_json(&self.0, s)))
    }

    fn search(
        &self,
        settings: &RunSettings,
        search: &SearchSettings,
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<SearchResult> {
        crate::search::search(&self.0, settings, search, progress)
    }

    fn exact_every(&self, settings: &RunSettings, max_configs: usize) -> Result<StartTimes<Map<String, Value>>> {
        let named = self.named_starts(settings);
        let times =
            exact::expected_steps_from_every(&self.0, &self.every()?, &named, &self.explore(settings, max_configs))?;
        Ok(times.map(&|s| crate::protocol::state_to_json(&self.0, s)))
    }

    fn verify(
        &self,
        settings: &RunSettings,
        from_all: bool,
        max_configs: usize,
    ) -> Result<Verification<Map<String, Value>>> {
        let starts = if from_all { self.every()? } else { Starts::Configurations(vec![self.start(settings)?]) };
        let verification = exact::verify(&self.0, &starts, &self.explore(settings, max_configs))?;
        Ok(verification.map(&|s| crate::protocol::state_to_json(&self.0, s)))
    }
}
