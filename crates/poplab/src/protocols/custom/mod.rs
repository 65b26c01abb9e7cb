//! User protocols defined at run time: from a protocol file, a table, or a callback.
//!
//! A [`Custom`] protocol has states named by strings (interned to numbers as they appear), an
//! output per state, rules on ordered pairs of states, a default initial configuration and a stop
//! rule ([`StopRule`], its safe set). Rules come as
//! - an explicit table ([`Definition::rules`], or a protocol file, see [`mod@file`]): pairs not
//!   listed are null;
//! - a callback ([`Custom::from_fn`]) that the engines call the first time a pair of states meets,
//!   then memoise in one memo shared by every trial and thread: nothing is enumerated up front, so
//!   a protocol whose reachable state space is huge starts at once.
//!
//! On the agent engine a callback is called exactly for the pairs met. The count engines also
//! resolve the pairs of states present together while they skip null steps, and the `silent`
//! stop rule those of the states present: both need to know which pairs can change.
//!
//! A rule may be **randomized**: a law, a list of results with probabilities summing to at most 1
//! (the rest is null). Every engine runs such a protocol exactly (see
//! [`Protocol::randomized`]): the agent engine draws each interaction's result from the trial's
//! outcome stream; the count engine skips null steps by thinning (a pair that may change
//! something is drawn, then its result, which may change nothing); the batched engine splits a
//! batch's interactions of each pair type multinomially across the pair's results.
//!
//! Exact analysis (`poplab exact`, `verify`) takes deterministic user protocols; callback
//! protocols are treated as randomized unless declared deterministic
//! ([`Custom::from_fn`]'s `randomized` argument), since their laws are not known up front.

pub mod file;
mod rules;
mod state;
mod stop;

pub use rules::{OutputFn, RuleFn};
pub use state::{CustomState, MAX_STATES, output_name, output_named, output_names};
pub use stop::{StopMonitor, StopRule};

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    Configurations, CountStart, EngineHints, Law, Observables, Output, Protocol, ProtocolInfo, RandomizedRules,
    RuleFailure, StateError, StateHasher, StateJson,
};
use crate::rng::{PopRng, below_u64};
use rules::{Lazy, Rule, Rules, StateTable};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

/// How many agents of a state the default initial configuration has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// This many agents.
    Count(u64),
    /// `round(f n)` agents (halves away from zero), `f` in `[0, 1]`.
    Fraction(f64),
}

/// Everything that defines a table protocol, by state names.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// The protocol's name, as outputs show it.
    pub name: String,
    /// Where it came from (a file's path), as `poplab list` shows it.
    pub source: String,
    /// Every state and its output, in order.
    pub states: Vec<(String, Output)>,
    /// The rules: pair of names (initiator, responder) -> law of the result by names. Pairs not
    /// listed are null.
    pub rules: Vec<((String, String), Law<String>)>,
    /// The default initial configuration: amounts per state; the last state listed takes the
    /// agents left over, whatever its own amount (so fractions need not add up exactly).
    pub init: Vec<(String, Amount)>,
    /// The stop rule.
    pub stop: StopRule,
}

/// A user protocol, built for one population size. Cloning is cheap (the rules are shared).
#[derive(Clone)]
pub struct Custom {
    inner: Arc<Inner>,
    n: usize,
    stop: Stop,
    /// The first rule failure of this instance's runs ([`Protocol::failure`]); shared by its
    /// clones and [`Custom::with_stop`], fresh for [`Custom::with_n`].
    failure: Arc<OnceLock<RuleFailure>>,
}

/// When this instance's runs stop (the protocol's own rule unless [`Custom::with_stop`] chose
/// another).
#[derive(Clone, Copy, Debug)]
struct Stop {
    rule: StopRule,
    /// Also stop when silent.
    or_silent: bool,
    /// Whether the safe set is closed under the rules.
    closed: bool,
}

struct Inner {
    info: &'static ProtocolInfo,
    states: RwLock<StateTable>,
    /// The states known before any run (declared ones): [`Protocol::random_state`] draws from them.
    declared: Vec<CustomState>,
    rules: Rules,
    init: Vec<(CustomState, Amount)>,
    /// The protocol's own stop rule.
    stop: StopRule,
    randomized: bool,
}

impl std::fmt::Debug for Custom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom").field("name", &self.inner.info.name).field("n", &self.n).finish_non_exhaustive()
    }
}

/// The registry-style entry of a user protocol: leaked once per distinct (name, source), so that
/// [`Protocol::info`] can hand out a `'static` reference.
fn info_for(name: &str, source: &str) -> &'static ProtocolInfo {
    static INFOS: Mutex<Vec<&'static ProtocolInfo>> = Mutex::new(Vec::new());
    let mut infos = INFOS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(info) = infos.iter().find(|i| i.name == name && i.source == source) {
        return info;
    }
    let info: &'static ProtocolInfo = Box::leak(Box::new(ProtocolInfo {
        name: Box::leak(name.to_string().into_boxed_str()),
        summary: "a user protocol",
        source: Box::leak(source.to_string().into_boxed_str()),
        params: &[],
        families: &[],
    }));
    infos.push(info);
    info
}

impl Custom {
    /// The table protocol of `definition`, for `n` agents. Refuses unknown states in rules or the
    /// initial configuration, laws whose probabilities exceed 1, and initial amounts beyond `n`.
    ///
    /// ```
    /// use poplab::exact::{ExploreSettings, expected_steps};
    /// use poplab::protocol::{Output, Protocol};
    /// use poplab::protocols::custom::{Amount, Custom, Definition, StopRule};
    ///
    /// // angluin's election as a table: (L, L) -> (L, F), every other pair null.
    /// let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    /// let definition = Definition {
    ///     name: "election".into(),
    ///     source: "an example".into(),
    ///     states: vec![("L".into(), Output::Leader), ("F".into(), Output::Follower)],
    ///     rules: vec![(pair("L", "L"), vec![(pair("L", "F"), 1.0)])],
    ///     init: vec![("L".into(), Amount::Fraction(1.0)), ("F".into(), Amount::Count(0))],
    ///     stop: StopRule::OneLeader,
    /// };
    /// let protocol = Custom::new(&definition, 10)?;
    /// // Exactly (n - 1)^2 = 81 expected steps, as the built-in angluin.
    /// let start = protocol.initial_configuration();
    /// let report = expected_steps(&protocol, &start, &ExploreSettings::default())?;
    /// assert!((report.expected_steps - 81.0).abs() < 1e-9);
    /// // A rule naming a state that is not listed is refused.
    /// let rules = vec![(pair("L", "X"), vec![(pair("L", "L"), 1.0)])];
    /// let error = Custom::new(&Definition { rules, ..definition }, 10).unwrap_err();
    /// assert!(error.to_string().contains("unknown state X"), "{error}");
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn new(definition: &Definition, n: usize) -> Result<Self> {
        let bad = |reason: String| Error::Rule { protocol: definition.name.clone(), reason };
        if definition.states.is_empty() {
            return Err(bad("a protocol needs at least one state".into()));
        }
        if definition.states.len() > MAX_STATES {
            return Err(bad(format!("at most {MAX_STATES} states")));
        }
        let mut table = StateTable::default();
        for (name, output) in &definition.states {
            if table.get(name).is_some() {
                return Err(bad(format!("state {name} is listed twice")));
            }
            table.intern(name, *output);
        }
        let state = |name: &str| table.get(name).ok_or_else(|| bad(format!("unknown state {name}")));
        let mut rules = HashMap::default();
        let mut randomized = false;
        for ((a, b), law) in &definition.rules {
            let pair = (state(a)?, state(b)?);
            rules::check_law(law).map_err(|e| bad(format!("rule ({a}, {b}): {e}")))?;
            let law = law.iter().map(|((c, d), p)| Ok(((state(c)?, state(d)?), *p))).collect::<Result<Vec<_>>>()?;
            let rule = Rule::of_law(pair, law);
            randomized |= matches!(rule, Rule::Random { .. });
            if rules.insert(pair, rule).is_some() {
                return Err(bad(format!("rule ({a}, {b}) is given twice")));
            }
        }
        let init = definition.init.iter().map(|(name, amount)| Ok((state(name)?, *amount))).collect::<Result<_>>()?;
        let declared: Vec<CustomState> =
            definition.states.iter().map(|(name, _)| table.get(name).expect("interned")).collect();
        let inner = Inner {
            info: info_for(&definition.name, &definition.source),
            states: RwLock::new(table),
            declared,
            rules: Rules::Table(rules),
            init,
            stop: definition.stop,
            randomized,
        };
        Self::for_n(Arc::new(inner), n)
    }

    /// A callback protocol for `n` agents: `states` are the states known up front with their
    /// outputs (the initial ones at least), `rule` gives a pair's law the first time the pair
    /// meets, `output` the output of a state first met as a result. `randomized` says whether
    /// `rule` may return laws with more than one result (`false` lets exact analysis run it; a
    /// random law from such a protocol is then an error).
    ///
    /// ```
    /// use poplab::experiment::{RunSettings, Summary, run_trials};
    /// use poplab::protocol::{Law, Output};
    /// use poplab::protocols::custom::{Amount, Custom, StopRule};
    ///
    /// // A randomized election: two leaders meet, and the responder steps down with probability
    /// // 1/2. Twice angluin's steps: 2 (n - 1)^2 = 722 expected for n = 20.
    /// let rule = |a: &str, b: &str| -> Result<Option<Law<String>>, String> {
    ///     Ok((a == "L" && b == "L").then(|| vec![(("L".to_string(), "F".to_string()), 0.5)]))
    /// };
    /// let output = |s: &str| -> Result<Output, String> {
    ///     Ok(if s == "L" { Output::Leader } else { Output::Follower })
    /// };
    /// let protocol = Custom::from_fn(
    ///     "coin-election",
    ///     &[("L".into(), Output::Leader)], // F is met first as a result: `output` names it
    ///     Box::new(rule),
    ///     Box::new(output),
    ///     &[("L".into(), Amount::Fraction(1.0))],
    ///     StopRule::OneLeader,
    ///     true, // randomized
    ///     20,
    /// )?;
    /// let settings = RunSettings { trials: 400, seed: 1, ..RunSettings::default() };
    /// let summary = Summary::of(&run_trials(&protocol, &settings, &|| {})?, 20);
    /// assert_eq!(summary.converged, 400);
    /// assert!((summary.mean_steps.unwrap() / 722.0 - 1.0).abs() < 0.15);
    /// // Each pair was resolved once, for all 400 trials: at most (L, L), (L, F), (F, L), (F, F).
    /// assert!(protocol.resolved_pairs() <= 4);
    /// # Ok::<(), poplab::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn from_fn(
        name: &str,
        states: &[(String, Output)],
        rule: Box<RuleFn>,
        output: Box<OutputFn>,
        init: &[(String, Amount)],
        stop: StopRule,
        randomized: bool,
        n: usize,
    ) -> Result<Self> {
        let bad = |reason: String| Error::Rule { protocol: name.to_string(), reason };
        let mut table = StateTable::default();
        for (state, output) in states {
            table.intern(state, *output);
        }
        let lookup = |s: &str| table.get(s).ok_or_else(|| bad(format!("the initial state {s} has no output")));
        let init = init.iter().map(|(s, amount)| Ok((lookup(s)?, *amount))).collect::<Result<_>>()?;
        let declared = states.iter().map(|(s, _)| table.get(s).expect("interned")).collect();
        let lazy = Lazy::new(
            if randomized {
                rule
            } else {
                Box::new(move |a: &str, b: &str| {
                    let law = rule(a, b)?;
                    match law.as_deref() {
                        None | Some([]) | Some([(_, 1.0)]) => Ok(law),
                        Some(_) => {
                            Err("the protocol was declared deterministic but this rule's result is random".into())
                        }
                    }
                })
            },
            output,
        );
        let inner = Inner {
            info: info_for(name, "callback"),
            states: RwLock::new(table),
            declared,
            rules: Rules::Lazy(Box::new(lazy)),
            init,
            stop,
            randomized,
        };
        Self::for_n(Arc::new(inner), n)
    }

    /// This protocol for `n` agents (rules, states, memo and stop rule shared, a declared closed
    /// safe set too; rule failures recorded afresh).
    pub fn with_n(&self, n: usize) -> Result<Self> {
        check_population(n)?;
        Ok(Self { n, failure: Arc::default(), ..self.clone() })
    }

    fn for_n(inner: Arc<Inner>, n: usize) -> Result<Self> {
        check_population(n)?;
        let rule = inner.stop;
        let mut protocol =
            Self { inner, n, stop: Stop { rule, or_silent: false, closed: false }, failure: Arc::default() };
        protocol.stop.closed = protocol.closed(rule);
        Ok(protocol)
    }

    /// This protocol (rules, states and memo shared) with runs stopping at `rule`, and also as soon
    /// as they are silent when `or_silent` (as ppsim's simulations do).
    pub fn with_stop(&self, rule: StopRule, or_silent: bool) -> Self {
        let mut protocol = Self { stop: Stop { rule, or_silent, closed: false }, ..self.clone() };
        protocol.stop.closed = protocol.closed(rule);
        protocol
    }

    /// This protocol with its stop rule's safe set taken as closed under the rules (never left once
    /// entered), as its user declares: the batched engine then checks it once per batch (and
    /// replays the batch that enters it) instead of after every interaction. A set that is in fact
    /// left can then be missed when it is entered and left within one batch.
    pub fn declared_closed(mut self) -> Self {
        self.stop.closed = true;
        self
    }

    /// Whether `rule`'s safe set is closed under the rules: checked on tables; for callbacks, only
    /// silence is known to be (and a union with it is closed when the other set is).
    fn closed(&self, rule: StopRule) -> bool {
        match &self.inner.rules {
            Rules::Table(rules) => closed_under(rule, rules),
            Rules::Lazy(_) => rule == StopRule::Silent,
        }
    }

    /// The stop rule.
    pub fn stop(&self) -> StopRule {
        self.stop.rule
    }

    /// Whether runs also stop when silent ([`Custom::with_stop`]).
    pub fn stops_when_silent(&self) -> bool {
        self.stop.or_silent || self.stop.rule == StopRule::Silent
    }

    /// How many pairs a callback protocol resolved so far (0 for tables): every trial of every
    /// instance sharing the rules counts once per distinct pair met.
    pub fn resolved_pairs(&self) -> u64 {
        match &self.inner.rules {
            Rules::Table(_) => 0,
            Rules::Lazy(lazy) => lazy.resolved(),
        }
    }

    /// The state named `name`, if known (declared, or met in some run).
    pub fn state(&self, name: &str) -> Option<CustomState> {
        self.states().get(name)
    }

    /// The state named `name`, declared now if it is new to a callback protocol (its output asked
    /// of the output callback), so that an initial configuration can name states no run has met
    /// yet. A table protocol knows all its states: an unknown name is an error.
    pub fn declare(&self, name: &str) -> Result<CustomState> {
        if let Some(state) = self.state(name) {
            return Ok(state);
        }
        let protocol = self.inner.info.name.to_string();
        match &self.inner.rules {
            Rules::Table(_) => Err(Error::Rule { protocol, reason: format!("unknown state {name}") }),
            Rules::Lazy(lazy) => lazy
                .intern(name, &self.inner.states)
                .map_err(|reason| Error::Rule { protocol, reason: format!("state {name}: {reason}") }),
        }
    }

    /// The name of `state`.
    pub fn name(&self, state: CustomState) -> String {
        self.states().name(state).to_string()
    }

    /// How many states are known so far (declared, or met in some run).
    pub fn known_states(&self) -> usize {
        self.states().len()
    }

    fn states(&self) -> std::sync::RwLockReadGuard<'_, StateTable> {
        self.inner.states.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The rule of `pair`, resolved now if need be, given to `then`. A callback that fails is
    /// recorded as this instance's [`Protocol::failure`] (the first one only) and its pair acts
    /// as null; once a failure is recorded, unresolved pairs act as null without calling back.
    #[inline]
    fn with_rule<T>(&self, pair: (CustomState, CustomState), then: impl FnOnce(&Rule) -> T) -> T {
        match &self.inner.rules {
            Rules::Table(rules) => match rules.get(&pair) {
                Some(rule) => then(rule),
                None => then(&Rule::Null),
            },
            Rules::Lazy(lazy) => {
                let mut then = Some(then);
                if let Some(result) = lazy.known(pair, |rule| (then.take().expect("called once"))(rule)) {
                    return result;
                }
                let then = then.take().expect("called once");
                if self.failure.get().is_some() {
                    return then(&Rule::Null);
                }
                match lazy.resolve(pair, &self.inner.states) {
                    Ok(rule) => then(&rule),
                    Err((pair, reason)) => {
                        let _ =
                            self.failure.set(RuleFailure { protocol: self.inner.info.name.to_string(), pair, reason });
                        then(&Rule::Null)
                    }
                }
            }
        }
    }

    /// Whether `pair`'s rule is null (resolving it if need be).
    pub(crate) fn rule_is_null(&self, a: CustomState, b: CustomState) -> bool {
        self.with_rule((a, b), Rule::is_null)
    }

    /// The default initial configuration as (state, count) pairs: every state listed but the last
    /// gets its amount, the last the agents left over; refuses amounts beyond `n`.
    fn default_counts(&self) -> std::result::Result<Vec<(CustomState, u64)>, String> {
        let n = self.n as u64;
        let init = &self.inner.init;
        let mut counts: Vec<(CustomState, u64)> = Vec::with_capacity(init.len());
        let mut total = 0u64;
        for &(state, amount) in init.iter().take(init.len().saturating_sub(1)) {
            let given = match amount {
                Amount::Count(c) => c,
                Amount::Fraction(f) => (f * n as f64).round() as u64,
            };
            total = total.saturating_add(given);
            if total > n {
                return Err(format!(
                    "{}: the initial configuration asks for {total} agents before its last state but n = {n}; lower \
                     the counts or raise --n",
                    self.inner.info.name
                ));
            }
            counts.push((state, given));
        }
        if let Some(&(last, _)) = init.last() {
            counts.push((last, n - total));
        }
        if counts.is_empty() {
            return Err(format!(
                "{} has no initial configuration; give one in [init] or with --init counts:STATE=COUNT,...",
                self.inner.info.name
            ));
        }
        counts.retain(|c| c.1 > 0);
        Ok(counts)
    }
}

fn check_population(n: usize) -> Result<()> {
    if n < 2 {
        return Err(Error::PopulationSize { n: n as u64, reason: "a population needs at least 2 agents".into() });
    }
    Ok(())
}

/// Whether no table rule leads from the stop rule's safe set out of it.
fn closed_under(stop: StopRule, rules: &HashMap<(CustomState, CustomState), Rule, StateHasher>) -> bool {
    let outputs = |(a, b): (CustomState, CustomState)| (a.output(), b.output());
    safe_set_is_closed(
        stop,
        rules.iter().map(|(&pair, rule)| (outputs(pair), rule.law().into_iter().map(|(r, _)| outputs(r)))),
    )
}

/// Whether no rule leads from the stop rule's safe set out of it, given each rule by the outputs
/// of its pair and of its possible results (a rule that may return the pair itself, or that is
/// null, changes nothing). Silent is always closed; a fixed time never (it is no set). For
/// answers: no rule between two agents giving the safe answer (consensus: either answer)
/// produces another output; one-leader: no rule between pairs other than two leaders changes the
/// number of leaders. States that no rule names are inert and change nothing.
///
/// ```
/// use poplab::protocol::Output::{Follower, Leader, No, Yes};
/// use poplab::protocols::custom::{StopRule, safe_set_is_closed};
///
/// // Exact majority's rules by outputs: strong A meets strong B (both weak now), and so on.
/// let majority = [((Yes, No), vec![(Yes, No)]), ((Yes, No), vec![(Yes, Yes)]), ((No, Yes), vec![(No, No)])];
/// assert!(safe_set_is_closed(StopRule::Consensus, majority.clone()));
/// // A rule turning one of two yes agents to no leaves "all yes".
/// let leaky = [((Yes, Yes), vec![(Yes, No)])];
/// assert!(!safe_set_is_closed(StopRule::AllYes, leaky));
/// // angluin: only two leaders change the number of leaders.
/// assert!(safe_set_is_closed(StopRule::OneLeader, [((Leader, Leader), vec![(Leader, Follower)])]));
/// ```
pub fn safe_set_is_closed<R: IntoIterator<Item = (Output, Output)>>(
    stop: StopRule,
    rules: impl IntoIterator<Item = ((Output, Output), R)> + Clone,
) -> bool {
    // Only pairs of agents that both give the safe answer `o` meet in a safe configuration.
    let keeps = |answers: &[Output]| {
        rules.clone().into_iter().all(|((a, b), results)| {
            a != b || !answers.contains(&a) || results.into_iter().all(|(c, d)| c == a && d == a)
        })
    };
    match stop {
        StopRule::Silent => true,
        StopRule::AllYes => keeps(&[Output::Yes]),
        StopRule::AllNo => keeps(&[Output::No]),
        StopRule::Consensus => keeps(&[Output::Yes, Output::No]),
        StopRule::OneLeader => rules.into_iter().all(|(pair, results)| {
            let leaders = |(x, y): (Output, Output)| u8::from(x == Output::Leader) + u8::from(y == Output::Leader);
            leaders(pair) == 2 || results.into_iter().all(|result| leaders(result) == leaders(pair))
        }),
        StopRule::Time(_) => false,
    }
}

impl Protocol for Custom {
    type State = CustomState;
    type Monitor = StopMonitor;

    fn info(&self) -> &'static ProtocolInfo {
        self.inner.info
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("stop".into(), Value::String(self.stop.rule.name()));
        params
    }

    #[inline]
    fn transition(&self, a: CustomState, b: CustomState) -> (CustomState, CustomState) {
        self.with_rule((a, b), |rule| match rule {
            Rule::To(c, d) => (*c, *d),
            Rule::Null | Rule::Random { .. } => (a, b),
        })
    }

    #[inline(always)]
    fn output(&self, state: CustomState) -> Output {
        state.output()
    }

    fn initial_configuration(&self) -> Vec<CustomState> {
        let counts = self.initial_counts();
        counts.iter().flat_map(|&(s, c)| std::iter::repeat_n(s, c as usize)).collect()
    }

    fn random_state(&self, rng: &mut PopRng) -> CustomState {
        let declared = &self.inner.declared;
        declared[below_u64(rng, declared.len() as u64) as usize]
    }

    fn monitor(&self, agents: &[CustomState], graph: &Graph) -> StopMonitor {
        StopMonitor::of_agents(self, agents, graph)
    }

    fn hints(&self) -> EngineHints {
        EngineHints {
            safe_set_is_closed: self.stop.closed,
            auto_batches: true,
            horizon: self.stop.rule.horizon(self.n),
            only_graph: None,
        }
    }

    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn randomized(&self) -> Option<&dyn RandomizedRules<CustomState>> {
        if self.inner.randomized { Some(self) } else { None }
    }

    fn configurations(&self) -> Option<&dyn Configurations<CustomState>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<CustomState>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<CustomState>> {
        Some(self)
    }

    #[inline]
    fn failure(&self) -> Option<&RuleFailure> {
        self.failure.get()
    }
}

impl CountStart<Custom> for Custom {
    /// The default configuration ([`Configurations::family_unavailable`] refuses it where it
    /// cannot be built: none given, or more agents than `n`).
    fn initial_counts(&self) -> Vec<(CustomState, u64)> {
        self.default_counts().unwrap_or_default()
    }

    fn monitor_of_counts(&self, counts: &[(CustomState, u64)]) -> StopMonitor {
        StopMonitor::of_counts(self, counts)
    }
}

impl RandomizedRules<CustomState> for Custom {
    fn law(&self, a: CustomState, b: CustomState) -> Law<CustomState> {
        self.with_rule((a, b), Rule::law)
    }

    #[inline]
    fn draw(&self, a: CustomState, b: CustomState, rng: &mut PopRng) -> (CustomState, CustomState) {
        self.with_rule((a, b), |rule| rule.draw((a, b), rng))
    }
}

impl Configurations<CustomState> for Custom {
    fn family_unavailable(&self, name: &str) -> Option<String> {
        (name == "default").then(|| self.default_counts().err()).flatten()
    }

    fn state_space(&self) -> Option<Vec<CustomState>> {
        matches!(self.inner.rules, Rules::Table(_)).then(|| self.inner.declared.clone())
    }
}

/// A time series counts the agents in each state, by the state's number in order of interning
/// (declared states first, in the order listed).
impl Observables<CustomState> for Custom {
    fn counts_states(&self) -> bool {
        true
    }

    #[inline]
    fn state_number(&self, state: CustomState) -> Option<u32> {
        Some(state.id())
    }

    fn state_names(&self) -> Vec<(String, Output)> {
        self.states().named()
    }
}

impl StateJson<CustomState> for Custom {
    fn state_to_json(&self, state: CustomState) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert("state".into(), Value::String(self.name(state)));
        object
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> std::result::Result<CustomState, StateError> {
        crate::protocol::json_expect_keys(object, &["state"])?;
        let name = match object.get("state") {
            Some(Value::String(name)) => name,
            Some(other) => return Err(StateError::value("state", "a state name", other)),
            None => return Err(StateError::Missing("state".into())),
        };
        self.state(name).ok_or_else(|| {
            let known: Vec<String> = self.inner.declared.iter().take(20).map(|&s| self.name(s)).collect();
            StateError::UnknownState { name: name.clone(), known: known.join(", ") }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;
    use crate::experiment::{RunSettings, run_trials};
    use crate::protocol::Params;
    use crate::protocols::angluin::Angluin;
    use crate::protocols::approx_majority::ApproxMajority;

    fn example(name: &str) -> Definition {
        file::read(&format!("{}/../../examples/protocols/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    fn steps<P: Protocol>(protocol: &P, engine: Engine) -> Vec<u128> {
        let settings = RunSettings { trials: 6, seed: 5, threads: Some(1), engine, ..RunSettings::default() };
        run_trials(protocol, &settings, &|| {}).unwrap().iter().map(|r| r.steps.0).collect()
    }

    /// The example files that copy a built-in intern their states in the built-in's order, so
    /// with the same seeds every engine takes the very same steps on both (the batched engine
    /// batches both: their safe sets are closed).
    #[test]
    fn table_twins_take_the_built_ins_steps() {
        let majority = Custom::new(&example("approximate-majority.toml"), 1000).unwrap();
        let built_in = ApproxMajority::new(1000, &Params::parse(&["a=0.6"]).unwrap()).unwrap();
        let angluin = Custom::new(&example("angluin.toml"), 300).unwrap();
        let election = Angluin::new(300, &Params::default()).unwrap();
        assert!(majority.hints().safe_set_is_closed && angluin.hints().safe_set_is_closed);
        for engine in [Engine::Agents, Engine::Counts, Engine::Batched] {
            assert_eq!(steps(&majority, engine), steps(&built_in, engine), "approx-majority, {engine:?}");
            assert_eq!(steps(&angluin, engine), steps(&election, engine), "angluin, {engine:?}");
        }
    }
}
