//! The configuration space: interned states, configurations, the weighted transition graph, and
//! the breadth-first exploration that builds them.

use super::fraction::{Scale, fraction};
use super::hash::FastMap;
use super::{ExploreSettings, Starts};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{Monitor, Output, Protocol};

/// No parent: a start configuration.
const NONE: u32 = u32::MAX;

/// How a configuration is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    /// The sorted vector of state indices (complete graph: agents are interchangeable).
    Multiset,
    /// The agent vector itself (rings, arc lists: positions matter).
    Agents,
}

/// What the exploration found about safety while it went (the first occurrence in breadth-first
/// order, hence at the smallest distance from a start).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SafetyFindings {
    /// A safe configuration whose outputs do not have exactly one leader (or, for predicates, do
    /// not agree), and how many such configurations there are.
    pub bad_outputs: Option<u32>,
    pub bad_outputs_count: usize,
    /// A safe configuration and a pair of states (initiator, responder) in it whose interaction
    /// changes an output, and how many safe configurations have one.
    pub output_change: Option<(u32, (u32, u32))>,
    pub output_change_count: usize,
}

/// The explored part of a protocol's configuration space, with its transition weights.
///
/// Configuration `i` is `config(i)`, a slice of `n` state indices (see [`Representation`]); its
/// successors are `successors(i)` as (configuration, weight) pairs, the probability of a move being
/// `weight / denominator()`, plus a self-loop of weight `self_weight(i)`. Configurations that were
/// not expanded (safe ones, when the exploration stops at the safe set) have no successors and a
/// self-loop weight of 0.
pub struct Space<'p, P: Protocol> {
    protocol: &'p P,
    graph: Graph,
    representation: Representation,
    n: usize,
    states: Vec<P::State>,
    outputs: Vec<Output>,
    ids: FastMap<P::State, u32>,
    /// Per ordered pair of state indices, its outcomes: a range of `outcomes`.
    transitions: FastMap<u64, (u32, u32)>,
    /// The results of a pair's interaction and their probabilities as numerators over `scale`
    /// (a deterministic protocol: one result with numerator 1, and `scale` 1).
    outcomes: Vec<((u32, u32), u32)>,
    /// The common denominator of every probability of a randomized protocol's laws met so far.
    scale: Scale,
    /// The pairs the scheduler can pick, with their weights (agent vectors only).
    arcs: Vec<(u32, u32, u32)>,
    denominator: u64,
    arena: Vec<u32>,
    index: FastMap<Box<[u32]>, u32>,
    parent: Vec<u32>,
    /// The agent vector a start configuration was given as (multisets only; rings use the config).
    start_agents: FastMap<u32, Vec<u32>>,
    starts: Vec<u32>,
    safe: Vec<bool>,
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<u32>,
    self_weight: Vec<u32>,
    /// Per configuration, the weight of the interactions that change an output (holding mode
    /// only; empty otherwise).
    broken_weight: Vec<u32>,
    /// Holding mode: every configuration is expanded and an interaction that changes an output
    /// leads to the absorbing "broken" state instead of a configuration.
    holding: bool,
    max_configs: usize,
    pub(crate) findings: SafetyFindings,
    election: bool,
}

impl<'p, P: Protocol> Space<'p, P> {
    /// Explores breadth first from `starts`. With `expand_safe = false` safe configurations are
    /// absorbing (enough for hitting times); with `true` they are expanded too (needed for closure).
    ///
    /// A randomized protocol's laws are weighed exactly: each probability is read as a fraction
    /// (see `fraction.rs`), and the weights are integers over the product of the graph's
    /// denominator and the least common multiple of the fractions' denominators. When a law met on
    /// the way needs a larger common denominator, the exploration starts again with it (the laws
    /// of a protocol file have a few denominators, so this happens once or twice).
    pub fn explore(
        protocol: &'p P,
        starts: &Starts<P::State>,
        settings: &ExploreSettings,
        expand_safe: bool,
    ) -> Result<Self> {
        Self::explore_mode(protocol, starts, settings, expand_safe, false)
    }

    /// Explores the chain of the holding time from `starts`: every configuration is expanded, and
    /// an interaction that changes some agent's output does not lead to a configuration but to an
    /// absorbing "broken" state, whose weight is [`Space::broken_weight`]. Every explored
    /// configuration is then transient ([`Space::is_absorbing`] is false).
    pub fn explore_holding(protocol: &'p P, starts: &Starts<P::State>, settings: &ExploreSettings) -> Result<Self> {
        Self::explore_mode(protocol, starts, settings, true, true)
    }

    fn explore_mode(
        protocol: &'p P,
        starts: &Starts<P::State>,
        settings: &ExploreSettings,
        expand_safe: bool,
        holding: bool,
    ) -> Result<Self> {
        let mut scale = Scale::ONE;
        loop {
            let space = Self::explore_scaled(protocol, starts, settings, expand_safe, holding, scale)?;
            match space.scale.wanted() {
                None => return Ok(space),
                Some(larger) => scale = larger,
            }
        }
    }

    fn explore_scaled(
        protocol: &'p P,
        starts: &Starts<P::State>,
        settings: &ExploreSettings,
        expand_safe: bool,
        holding: bool,
        scale: Scale,
    ) -> Result<Self> {
        let n = protocol.n();
        let graph = settings.graph.clone();
        graph.validate(n)?;
        protocol.hints().check_graph(protocol.info().name, &graph)?;
        if settings.max_configs == 0 {
            return Err(Error::Option { option: "--max-configs", value: "0".into(), reason: "give at least 1".into() });
        }
        let representation = if graph == Graph::Complete { Representation::Multiset } else { Representation::Agents };
        let (arcs, graph_denominator) = arcs_of(&graph, n);
        let denominator = scale.check_product(graph_denominator)?;
        let mut space = Space {
            protocol,
            graph,
            representation,
            n,
            states: Vec::new(),
            outputs: Vec::new(),
            ids: FastMap::default(),
            transitions: FastMap::default(),
            outcomes: Vec::new(),
            scale,
            arcs,
            denominator,
            arena: Vec::new(),
            index: FastMap::default(),
            parent: Vec::new(),
            start_agents: FastMap::default(),
            starts: Vec::new(),
            safe: Vec::new(),
            offsets: vec![0],
            targets: Vec::new(),
            weights: Vec::new(),
            self_weight: Vec::new(),
            broken_weight: Vec::new(),
            holding,
            max_configs: settings.max_configs,
            findings: SafetyFindings::default(),
            election: true,
        };
        space.add_starts(starts)?;
        let mut buffer = Vec::with_capacity(n);
        let mut successors: Vec<(u32, u32)> = Vec::new();
        let mut next = 0usize;
        while next < space.parent.len() {
            let at = next as u32;
            next += 1;
            if space.safe[at as usize] && !expand_safe {
                space.self_weight.push(0);
                space.offsets.push(space.targets.len());
                continue;
            }
            buffer.clear();
            buffer.extend_from_slice(space.config(at));
            successors.clear();
            let (self_weight, broken) = space.expand(at, &buffer, &mut successors)?;
            if holding {
                space.broken_weight.push(broken);
            }
            successors.sort_unstable();
            let mut last = NONE;
            for &(target, weight) in &successors {
                if target == last {
                    *space.weights.last_mut().expect("an edge was pushed") += weight;
                } else {
                    space.targets.push(target);
                    space.weights.push(weight);
                    last = target;
                }
            }
            space.self_weight.push(self_weight);
            space.offsets.push(space.targets.len());
        }
        // A user rule that failed on the way acted as null: the space is not the protocol's.
        crate::protocol::check_rules(protocol)?;
        Ok(space)
    }

    fn add_starts(&mut self, starts: &Starts<P::State>) -> Result<()> {
        match starts {
            Starts::Configurations(configurations) => {
                if configurations.is_empty() {
                    return Err(Error::Init("no start configuration was given".into()));
                }
                for agents in configurations {
                    if agents.len() != self.n {
                        return Err(Error::Init(format!(
                            "a start configuration has {} agents but n = {}; give one state per agent",
                            agents.len(),
                            self.n
                        )));
                    }
                    let ids: Vec<u32> = agents.iter().map(|&s| self.intern(s)).collect();
                    let mut canonical = ids.clone();
                    if self.representation == Representation::Multiset {
                        canonical.sort_unstable();
                    }
                    let (index, new) = self.insert(&canonical, NONE)?;
                    if new {
                        self.starts.push(index);
                        if self.representation == Representation::Multiset {
                            self.start_agents.insert(index, ids);
                        }
                    }
                }
            }
            Starts::Every(states) => {
                for &s in states {
                    self.intern(s);
                }
                let q = self.states.len() as u64;
                if q == 0 {
                    return Err(Error::Init("the state space is empty".into()));
                }
                let count = match self.representation {
                    Representation::Agents => q.checked_pow(self.n as u32),
                    Representation::Multiset => multisets(q, self.n as u64),
                };
                if count.is_none_or(|c| c > self.max_configs as u64) {
                    return Err(Error::Limit {
                        reason: format!(
                            "there are {} configurations of {} agents over {q} states, more than the cap of {}; \
                             raise --max-configs or lower n (or the protocol's parameters)",
                            count.map_or("over 2^64".to_string(), |c| c.to_string()),
                            self.n,
                            self.max_configs
                        ),
                    });
                }
                let q = q as u32;
                let mut config = vec![0u32; self.n];
                loop {
                    let (index, _) = self.insert(&config, NONE)?;
                    self.starts.push(index);
                    // The next agent vector (odometer) or non-decreasing vector (multiset).
                    let Some(position) = config.iter().rposition(|&s| s + 1 < q) else { break };
                    config[position] += 1;
                    let fill = match self.representation {
                        Representation::Agents => 0,
                        Representation::Multiset => config[position],
                    };
                    config[position + 1..].iter_mut().for_each(|s| *s = fill);
                }
            }
        }
        Ok(())
    }

    /// The index of state `s`, interning it if new.
    fn intern(&mut self, s: P::State) -> u32 {
        if let Some(&id) = self.ids.get(&s) {
            return id;
        }
        let id = self.states.len() as u32;
        self.states.push(s);
        let output = self.protocol.output(s);
        if matches!(output, Output::Yes | Output::No | Output::Undecided) {
            self.election = false;
        }
        self.outputs.push(output);
        self.ids.insert(s, id);
        id
    }

    /// The outcomes of the pair of state indices `(a, b)` (cached): a range of `self.outcomes`,
    /// each result with its probability's numerator over the scale. A randomized protocol's null
    /// remainder (probabilities summing below 1) is the result `(a, b)`.
    fn step(&mut self, a: u32, b: u32) -> Result<std::ops::Range<usize>> {
        let key = (u64::from(a) << 32) | u64::from(b);
        if let Some(&(start, len)) = self.transitions.get(&key) {
            return Ok(start as usize..(start + len) as usize);
        }
        let start = self.outcomes.len();
        let (sa, sb) = (self.states[a as usize], self.states[b as usize]);
        match self.protocol.randomized() {
            None => {
                let (a2, b2) = self.protocol.transition(sa, sb);
                let result = (self.intern(a2), self.intern(b2));
                self.outcomes.push((result, 1));
            }
            Some(rules) => {
                let mut rest = self.scale.value();
                for ((a2, b2), p) in rules.law(sa, sb) {
                    let (numerator, denominator) = fraction(p).ok_or_else(|| Error::Conflict {
                        reason: format!(
                            "{}: the probability {p} of a result of the pair ({}, {}) is not a fraction with a \
                             denominator up to {}; exact analysis weighs laws exactly, so give probabilities such as \
                             0.5, 0.25 or 1/3 (or estimate with poplab run)",
                            self.protocol.info().name,
                            self.state_name(a),
                            self.state_name(b),
                            super::fraction::MAX_DENOMINATOR
                        ),
                    })?;
                    let weight = self.scale.numerator(numerator, denominator);
                    if weight == 0 {
                        continue;
                    }
                    rest = rest.saturating_sub(weight);
                    let result = (self.intern(a2), self.intern(b2));
                    self.outcomes.push((result, weight));
                }
                if rest > 0 {
                    self.outcomes.push(((a, b), rest));
                }
            }
        }
        let len = (self.outcomes.len() - start) as u32;
        self.transitions.insert(key, (start as u32, len));
        Ok(start..start + len as usize)
    }

    /// A state for messages: its JSON form, or its `Debug` form.
    fn state_name(&self, s: u32) -> String {
        let object = crate::protocol::state_to_json(self.protocol, self.states[s as usize]);
        serde_json::Value::Object(object).to_string()
    }

    /// Finds or adds a configuration; returns its index and whether it is new.
    fn insert(&mut self, config: &[u32], parent: u32) -> Result<(u32, bool)> {
        if let Some(&index) = self.index.get(config) {
            return Ok((index, false));
        }
        if self.parent.len() >= self.max_configs {
            return Err(Error::Limit {
                reason: format!(
                    "more than {} configurations are reachable; raise --max-configs or lower n (or the protocol's \
                     parameters)",
                    self.max_configs
                ),
            });
        }
        let index = self.parent.len() as u32;
        self.arena.extend_from_slice(config);
        self.index.insert(config.into(), index);
        self.parent.push(parent);
        let agents: Vec<P::State> = config.iter().map(|&s| self.states[s as usize]).collect();
        let safe = self.protocol.monitor(&agents, &self.graph).is_safe();
        self.safe.push(safe);
        if safe && !self.outputs_are_specified(config) {
            self.findings.bad_outputs_count += 1;
            self.findings.bad_outputs.get_or_insert(index);
        }
        Ok((index, true))
    }

    /// Exactly one leader (elections), or every agent giving the same answer, not undecided
    /// (predicates).
    fn outputs_are_specified(&self, config: &[u32]) -> bool {
        if self.election {
            config.iter().filter(|&&s| self.outputs[s as usize] == Output::Leader).count() == 1
        } else {
            let first = self.outputs[config[0] as usize];
            first != Output::Undecided && config.iter().all(|&s| self.outputs[s as usize] == first)
        }
    }

    /// Pushes the successors of configuration `at` (its contents in `config`) with their weights;
    /// returns the self-loop weight and (holding mode) the weight of the output-changing
    /// interactions, which lead to no configuration.
    fn expand(&mut self, at: u32, config: &[u32], out: &mut Vec<(u32, u32)>) -> Result<(u32, u32)> {
        let check_outputs = self.safe[at as usize];
        let mut self_weight = 0u32;
        let mut broken = 0u32;
        let mut changed_output = None;
        let mut next = config.to_vec();
        match self.representation {
            Representation::Agents => {
                for arc in 0..self.arcs.len() {
                    let (u, v, arc_weight) = self.arcs[arc];
                    let (a, b) = (config[u as usize], config[v as usize]);
                    for outcome in self.step(a, b)? {
                        let ((a2, b2), numerator) = self.outcomes[outcome];
                        let w = arc_weight * numerator;
                        if (a2, b2) == (a, b) {
                            self_weight += w;
                            continue;
                        }
                        if self.holding && self.changes_output((a, b), (a2, b2)) {
                            broken += w;
                            continue;
                        }
                        if check_outputs && self.changes_output((a, b), (a2, b2)) {
                            changed_output.get_or_insert((a, b));
                        }
                        next[u as usize] = a2;
                        next[v as usize] = b2;
                        let (target, _) = self.insert(&next, at)?;
                        next[u as usize] = a;
                        next[v as usize] = b;
                        out.push((target, w));
                    }
                }
            }
            Representation::Multiset => {
                // Runs of equal states: (state, count, first position).
                let mut runs: Vec<(u32, u32, usize)> = Vec::new();
                for (position, &s) in config.iter().enumerate() {
                    match runs.last_mut() {
                        Some(run) if run.0 == s => run.1 += 1,
                        _ => runs.push((s, 1, position)),
                    }
                }
                for i in 0..runs.len() {
                    for j in 0..runs.len() {
                        let (p, cp, first_p) = runs[i];
                        let (q, cq, first_q) = runs[j];
                        let pair_weight = if i == j { cp * (cp - 1) } else { cp * cq };
                        if pair_weight == 0 {
                            continue;
                        }
                        for outcome in self.step(p, q)? {
                            let ((a2, b2), numerator) = self.outcomes[outcome];
                            let w = pair_weight * numerator;
                            if (a2, b2) == (p, q) {
                                self_weight += w;
                                continue;
                            }
                            if self.holding && self.changes_output((p, q), (a2, b2)) {
                                broken += w;
                                continue;
                            }
                            if check_outputs && self.changes_output((p, q), (a2, b2)) {
                                changed_output.get_or_insert((p, q));
                            }
                            next.copy_from_slice(config);
                            let second = if i == j { first_q + 1 } else { first_q };
                            next[first_p] = a2;
                            next[second] = b2;
                            next.sort_unstable();
                            let (target, _) = self.insert(&next, at)?;
                            if target == at {
                                // A non-null pair that only swaps states (threshold's (0, x) -> (x, 0))
                                // leaves the multiset as it was: a self-loop.
                                self_weight += w;
                            } else {
                                out.push((target, w));
                            }
                        }
                    }
                }
            }
        }
        if let Some(pair) = changed_output {
            self.findings.output_change_count += 1;
            self.findings.output_change.get_or_insert((at, pair));
        }
        Ok((self_weight, broken))
    }

    fn changes_output(&self, before: (u32, u32), after: (u32, u32)) -> bool {
        let o = |s: u32| self.outputs[s as usize];
        o(before.0) != o(after.0) || o(before.1) != o(after.1)
    }

    /// The protocol explored.
    pub fn protocol(&self) -> &P {
        self.protocol
    }

    /// The interaction graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The number of agents.
    pub fn n(&self) -> usize {
        self.n
    }

    /// How configurations are stored.
    pub fn representation(&self) -> Representation {
        self.representation
    }

    /// The number of configurations explored.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether nothing was explored (never true after a successful exploration).
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The interned states, indexed by state index.
    pub fn states(&self) -> &[P::State] {
        &self.states
    }

    /// Configuration `i` as state indices.
    pub fn config(&self, i: u32) -> &[u32] {
        let start = i as usize * self.n;
        &self.arena[start..start + self.n]
    }

    /// Configuration `i` as states (sorted by state index for multisets).
    pub fn agents(&self, i: u32) -> Vec<P::State> {
        self.config(i).iter().map(|&s| self.states[s as usize]).collect()
    }

    /// The index of a configuration given as an agent vector, if it was explored.
    pub fn find(&self, agents: &[P::State]) -> Option<u32> {
        let mut ids = agents.iter().map(|s| self.ids.get(s).copied()).collect::<Option<Vec<u32>>>()?;
        if self.representation == Representation::Multiset {
            ids.sort_unstable();
        }
        self.index.get(ids.as_slice()).copied()
    }

    /// The start configurations' indices.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Whether configuration `i` is in the safe set.
    pub fn is_safe(&self, i: u32) -> bool {
        self.safe[i as usize]
    }

    /// The successors of configuration `i` (other than itself) with their weights.
    pub fn successors(&self, i: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.offsets[i as usize]..self.offsets[i as usize + 1];
        self.targets[range.clone()].iter().copied().zip(self.weights[range].iter().copied())
    }

    /// The successors' indices of configuration `i`.
    pub(crate) fn targets_of(&self, i: u32) -> &[u32] {
        &self.targets[self.offsets[i as usize]..self.offsets[i as usize + 1]]
    }

    /// The weight of the self-loop of configuration `i`.
    pub fn self_weight(&self, i: u32) -> u32 {
        self.self_weight[i as usize]
    }

    /// The weight of the interactions of configuration `i` that change some agent's output, which
    /// lead to the absorbing "broken" state (0 unless the space was built by
    /// [`Space::explore_holding`]).
    pub fn broken_weight(&self, i: u32) -> u32 {
        self.broken_weight.get(i as usize).copied().unwrap_or(0)
    }

    /// Whether the space is the chain of the holding time ([`Space::explore_holding`]).
    pub fn is_holding(&self) -> bool {
        self.holding
    }

    /// Whether configuration `i` is absorbing for [`hitting_times`](super::hitting_times): a safe
    /// configuration of an exploration that stops at the safe set; never in holding mode (there
    /// only the "broken" state absorbs).
    pub fn is_absorbing(&self, i: u32) -> bool {
        !self.holding && self.safe[i as usize]
    }

    /// The common denominator of the weights.
    pub fn denominator(&self) -> u64 {
        self.denominator
    }

    /// The number of edges between distinct configurations.
    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    /// Whether the protocol's outputs are leader/follower (else yes/no).
    pub fn is_election(&self) -> bool {
        self.election
    }

    /// The breadth-first parent of configuration `i` (`None` for a start).
    pub fn parent(&self, i: u32) -> Option<u32> {
        let p = self.parent[i as usize];
        (p != NONE).then_some(p)
    }

    /// The pairs of agents the scheduler can pick (for the complete graph every ordered pair).
    fn pairs(&self) -> Vec<(u32, u32)> {
        match self.representation {
            Representation::Agents => self.arcs.iter().map(|&(u, v, _)| (u, v)).collect(),
            Representation::Multiset => {
                let n = self.n as u32;
                (0..n).flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| (u, v))).collect()
            }
        }
    }

    /// Whether `agents` (a concrete agent vector) is configuration `target`.
    fn is_config(&self, agents: &[P::State], target: u32) -> bool {
        self.find(agents) == Some(target)
    }

    /// The results an interaction of states `(a, b)` can have: the one result of a deterministic
    /// protocol, or every result of positive probability of a randomized one's law (the pair
    /// itself for the null remainder).
    fn results(&self, a: P::State, b: P::State) -> Vec<(P::State, P::State)> {
        match self.protocol.randomized() {
            None => vec![self.protocol.transition(a, b)],
            Some(rules) => {
                let law = rules.law(a, b);
                let total: f64 = law.iter().map(|(_, p)| p).sum();
                let mut results: Vec<_> = law.into_iter().filter(|&(_, p)| p > 0.0).map(|(r, _)| r).collect();
                if total < 1.0 {
                    results.push((a, b));
                }
                results
            }
        }
    }

    /// Every interaction the scheduler can pick in `agents` with each of its results: the pair of
    /// agents and the agent vector after it.
    fn moves<'a>(&'a self, agents: &'a [P::State]) -> impl Iterator<Item = Move<P::State>> + 'a {
        self.pairs().into_iter().flat_map(move |(u, v)| {
            self.results(agents[u as usize], agents[v as usize]).into_iter().map(move |(a, b)| {
                let mut after = agents.to_vec();
                after[u as usize] = a;
                after[v as usize] = b;
                ((u, v), after)
            })
        })
    }

    /// A shortest schedule from a start to configuration `target` (see [`Path`]).
    pub fn schedule_to(&self, target: u32) -> Path<P::State> {
        let mut chain = vec![target];
        while let Some(p) = self.parent(*chain.last().expect("non-empty")) {
            chain.push(p);
        }
        chain.reverse();
        let start = chain[0];
        let initial: Vec<P::State> = match self.start_agents.get(&start) {
            Some(ids) => ids.iter().map(|&s| self.states[s as usize]).collect(),
            None => self.agents(start),
        };
        let mut path = Path { start: initial.clone(), schedule: Vec::with_capacity(chain.len() - 1), end: initial };
        for &next in &chain[1..] {
            path.push(
                self.pair_leading_to(&path.end, next)
                    .expect("a breadth-first parent has an interaction leading to its child"),
            );
        }
        path
    }

    /// A pair of agents of `agents` holding states `(a, b)` whose interaction changes an output if
    /// one of its results does, and the agent vector after it.
    pub(crate) fn pair_with_states(&self, agents: &[P::State], a: u32, b: u32) -> Option<Move<P::State>> {
        let (a, b) = (self.states[a as usize], self.states[b as usize]);
        let output = |s: P::State| self.protocol.output(s);
        let holds = |&((u, v), _): &Move<P::State>| agents[u as usize] == a && agents[v as usize] == b;
        let changes = |((u, v), after): &Move<P::State>| {
            output(after[*u as usize]) != output(a) || output(after[*v as usize]) != output(b)
        };
        self.moves(agents).filter(holds).find(changes).or_else(|| self.moves(agents).find(holds))
    }

    /// A pair of agents of `agents` whose interaction can lead to configuration `to`, and the agent
    /// vector after it.
    pub(crate) fn pair_leading_to(&self, agents: &[P::State], to: u32) -> Option<Move<P::State>> {
        self.moves(agents).find(|(_, after)| self.is_config(after, to))
    }
}

/// One interaction of a schedule: the pair of agents (initiator, responder) and the agent vector
/// after it.
pub(crate) type Move<S> = ((u32, u32), Vec<S>);

/// A schedule from a start configuration: the pairs (initiator, responder) to play with
/// [`crate::graph::Replay`], and the agent vector they lead to (for a randomized protocol, with
/// results of positive probability).
#[derive(Clone, Debug)]
pub struct Path<S> {
    /// The start, as an agent vector.
    pub start: Vec<S>,
    /// The pairs played.
    pub schedule: Vec<(u32, u32)>,
    /// The agent vector after the schedule.
    pub end: Vec<S>,
}

impl<S> Path<S> {
    /// Plays one more interaction: its pair and the agent vector after it.
    pub(crate) fn push(&mut self, (pair, after): Move<S>) {
        self.schedule.push(pair);
        self.end = after;
    }
}

/// The weighted pairs of a graph and the common denominator (agent-vector representation).
fn arcs_of(graph: &Graph, n: usize) -> (Vec<(u32, u32, u32)>, u64) {
    let n32 = n as u32;
    match graph {
        Graph::Complete => {
            let arcs: Vec<_> =
                (0..n32).flat_map(|u| (0..n32).filter(move |&v| v != u).map(move |v| (u, v, 1))).collect();
            (arcs, (n * (n - 1)) as u64)
        }
        Graph::DirectedRing => ((0..n32).map(|i| (i, (i + 1) % n32, 1)).collect(), n as u64),
        Graph::UndirectedRing => {
            let arcs = (0..n32).flat_map(|i| [(i, (i + 1) % n32, 1), ((i + 1) % n32, i, 1)]).collect();
            (arcs, 2 * n as u64)
        }
        Graph::Arcs(arcs) => (arcs.iter().map(|&(u, v)| (u, v, 1)).collect(), arcs.len() as u64),
    }
}

/// The number of multisets of size `k` over `q` types, `C(q + k - 1, k)`, if it fits in a `u64`.
fn multisets(q: u64, k: u64) -> Option<u64> {
    let top = u128::from(q + k - 1);
    let m = u128::from(k.min(q - 1));
    let mut result: u128 = 1;
    for i in 1..=m {
        result = result * (top - m + i) / i;
        if result > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(result).ok()
}

#[cfg(test)]
mod tests {
    use super::multisets;

    #[test]
    fn multiset_counts() {
        assert_eq!(multisets(2, 50), Some(51));
        assert_eq!(multisets(3, 2), Some(6));
        assert_eq!(multisets(1, 7), Some(1));
        assert_eq!(multisets(10, 3), Some(220));
        assert_eq!(multisets(4, 10), Some(286));
    }
}
