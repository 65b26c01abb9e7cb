//! Interaction graphs and the uniformly random scheduler on each (PROTOCOLS.md section 1).
//!
//! A [`Graph`] names the arcs along which agents may interact; a [`Scheduler`] picks one ordered
//! pair (initiator, responder) per step. The random schedulers pick each arc with equal
//! probability; [`Replay`] plays a given list of pairs, so that a paper's hand-made execution
//! becomes a deterministic test.

use crate::error::{Error, Result};
use crate::rng::{Below32, PopRng};
use rand_core::Rng;
use std::sync::Arc;

/// The interaction graph: which ordered pairs (initiator, responder) can meet.
///
/// ```
/// use poplab::graph::{Graph, Scheduler};
/// use poplab::rng::TrialStreams;
///
/// let ring: Graph = "ring".parse()?;
/// assert_eq!(ring, Graph::DirectedRing);
/// // On the directed ring the initiator's right neighbour responds.
/// let mut scheduler = ring.scheduler(5)?;
/// let mut rng = TrialStreams::new(1).schedule;
/// for _ in 0..100 {
///     let (u, v) = scheduler.next_pair(&mut rng);
///     assert_eq!(v, (u + 1) % 5);
/// }
/// // An arc list (`--graph @FILE`) must connect every agent.
/// let star = Graph::parse_arcs("0 1\n0 2\n0 3  # a star\n")?;
/// assert!(star.validate(4).is_ok());
/// let apart = Graph::parse_arcs("0 1\n2 3\n")?;
/// assert!(apart.validate(4).unwrap_err().to_string().contains("2 groups"));
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Graph {
    /// Every ordered pair `(u, v)`, `u != v`, with probability `1 / (n (n - 1))`.
    Complete,
    /// Arcs `(u_i, u_{i+1 mod n})`: the initiator is the left agent, the responder the right one.
    DirectedRing,
    /// Edges `{u_i, u_{i+1 mod n}}`, each step one edge and a fair orientation.
    UndirectedRing,
    /// Any directed graph, each step one listed arc uniformly. Shared, so that a graph is cloned
    /// at no cost (each run keeps its own).
    Arcs(Arc<[(u32, u32)]>),
}

impl Graph {
    /// The graphs known by name, in the order messages list them ([`Graph::names`]).
    pub const NAMED: [Graph; 3] = [Graph::Complete, Graph::DirectedRing, Graph::UndirectedRing];

    /// The names of the graphs known by name ([`Graph::NAMED`]), as [`Graph::from_name`] reads
    /// them and messages (and the Python package) list them.
    pub fn names() -> Vec<&'static str> {
        Self::NAMED.iter().filter_map(Graph::known_name).collect()
    }

    /// The name of a graph known by name; `None` for an arc list.
    fn known_name(&self) -> Option<&'static str> {
        match self {
            Graph::Complete => Some("complete"),
            Graph::DirectedRing => Some("ring"),
            Graph::UndirectedRing => Some("undirected-ring"),
            Graph::Arcs(_) => None,
        }
    }

    /// The name used in outputs and on the command line.
    pub fn name(&self) -> String {
        match self {
            Graph::Arcs(arcs) => format!("arcs({})", arcs.len()),
            named => named.known_name().unwrap_or_default().into(),
        }
    }

    /// Parses a name of [`Graph::names`]: `complete`, `ring` (alias `directed-ring`) or
    /// `undirected-ring`.
    pub fn from_name(name: &str) -> Result<Self> {
        let known = if name == "directed-ring" { "ring" } else { name };
        Self::NAMED.into_iter().find(|graph| graph.known_name() == Some(known)).ok_or_else(|| {
            Error::Graph(format!(
                "unknown graph '{name}'; use {} or @FILE with one arc 'u v' per line",
                Self::names().join(", ")
            ))
        })
    }

    /// Reads an arc list: one `u v` pair (initiator, responder) per line; `#` starts a comment.
    pub fn parse_arcs(text: &str) -> Result<Self> {
        let mut arcs = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> =
                line.split(|c: char| c.is_whitespace() || c == ',').filter(|f| !f.is_empty()).collect();
            let parsed: Option<Vec<u32>> = fields.iter().map(|f| f.parse().ok()).collect();
            match parsed.as_deref() {
                Some(&[u, v]) => arcs.push((u, v)),
                _ => {
                    return Err(Error::Graph(format!(
                        "line {}: expected two agent indices 'u v', found '{line}'",
                        index + 1
                    )));
                }
            }
        }
        Ok(Graph::Arcs(arcs.into()))
    }

    /// Checks that the graph is usable for `n` agents: an arc list must name agents `0..n`, have
    /// no self-loops, and connect every agent (otherwise some agents could never meet and a run
    /// would only end at its horizon).
    pub fn validate(&self, n: usize) -> Result<()> {
        if let Graph::Arcs(arcs) = self {
            check_pairs(arcs, n)?;
            if n / 2 > arcs.len() {
                return Err(Error::Graph(format!(
                    "{} arcs touch at most {} of the n = {n} agents, and an agent without an arc never meets \
                     anyone; give arcs that connect every agent, or a smaller n",
                    arcs.len(),
                    2 * arcs.len()
                )));
            }
            let components = components(n, arcs);
            if components.len() > 1 {
                let first: Vec<String> = components.iter().take(3).map(|c| describe(c)).collect();
                return Err(Error::Graph(format!(
                    "the arcs split the {n} agents into {} groups that never meet ({}{}), so no run could \
                     involve them all; add arcs that connect the groups",
                    components.len(),
                    first.join("; "),
                    if components.len() > 3 { "; ..." } else { "" }
                )));
            }
        }
        Ok(())
    }

    /// The uniformly random scheduler on this graph for `n` agents (validated first).
    pub fn scheduler(&self, n: usize) -> Result<RandomScheduler> {
        self.validate(n)?;
        let n32 = u32::try_from(n).map_err(|_| Error::PopulationSize {
            n: n as u64,
            reason: "the agent-array engine supports at most 4294967295 agents".into(),
        })?;
        if n32 < 2 {
            return Err(Error::PopulationSize { n: n as u64, reason: "a population needs at least 2 agents".into() });
        }
        Ok(match self {
            Graph::Complete => RandomScheduler::Complete { first: Below32::new(n32), second: Below32::new(n32 - 1) },
            Graph::DirectedRing => RandomScheduler::DirectedRing { arc: Below32::new(n32), n: n32 },
            Graph::UndirectedRing => RandomScheduler::UndirectedRing { edge: Below32::new(n32), n: n32 },
            Graph::Arcs(arcs) => RandomScheduler::Arcs { arc: Below32::new(arcs.len() as u32), arcs: arcs.to_vec() },
        })
    }
}

impl std::str::FromStr for Graph {
    type Err = Error;

    /// A graph by name (see [`Graph::from_name`]); arc lists come from files ([`Graph::parse_arcs`]).
    fn from_str(name: &str) -> Result<Self> {
        Graph::from_name(name)
    }
}

/// Refuses an empty list, agents outside `0..n` and self-loops.
fn check_pairs(arcs: &[(u32, u32)], n: usize) -> Result<()> {
    if arcs.is_empty() {
        return Err(Error::Graph("the arc list is empty; give at least one arc 'u v'".into()));
    }
    for (i, &(u, v)) in arcs.iter().enumerate() {
        if u as usize >= n || v as usize >= n {
            return Err(Error::Graph(format!(
                "arc {} ({u}, {v}) names an agent outside 0..{n}; agents are numbered from 0 to n - 1",
                i + 1
            )));
        }
        if u == v {
            return Err(Error::Graph(format!("arc {} ({u}, {v}) is a self-loop; an agent cannot meet itself", i + 1)));
        }
    }
    Ok(())
}

/// The agents of each weakly connected component of `arcs` over `n` agents, smallest first.
fn components(n: usize, arcs: &[(u32, u32)]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for &(u, v) in arcs {
        let (a, b) = (root(&mut parent, u as usize), root(&mut parent, v as usize));
        parent[a.max(b)] = a.min(b);
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

/// A component for messages: `agents 0-3` or `agent 7` or `agents 4, 9, 12, ...`.
fn describe(agents: &[usize]) -> String {
    match agents {
        [one] => format!("agent {one}"),
        [first, .., last] if last - first + 1 == agents.len() => format!("agents {first}-{last}"),
        _ => {
            let shown: Vec<String> = agents.iter().take(4).map(usize::to_string).collect();
            format!("agents {}{}", shown.join(", "), if agents.len() > 4 { ", ..." } else { "" })
        }
    }
}

/// Chooses who interacts at each step. Engines are generic over it, so the choice is inlined.
pub trait Scheduler: Send {
    /// The next (initiator, responder) pair.
    fn next_pair(&mut self, rng: &mut PopRng) -> (u32, u32);

    /// Fills `out` with the next pairs, exactly as repeated calls of [`Scheduler::next_pair`]
    /// would; engines draw pairs in blocks through it.
    fn fill(&mut self, rng: &mut PopRng, out: &mut [(u32, u32)]) {
        for slot in out {
            *slot = self.next_pair(rng);
        }
    }

    /// How many pairs this scheduler can produce at most (`None`: unlimited).
    fn limit(&self) -> Option<u64> {
        None
    }
}

/// The uniformly random scheduler of each [`Graph`].
#[derive(Clone, Debug)]
pub enum RandomScheduler {
    /// Both agents from one 64-bit draw: the initiator from the high half, the responder from the
    /// low half among the other `n - 1` agents.
    Complete {
        /// The initiator among `n`.
        first: Below32,
        /// The responder among the other `n - 1`.
        second: Below32,
    },
    /// One arc `i`, pair `(i, i + 1 mod n)`.
    DirectedRing {
        /// The arc among `n`.
        arc: Below32,
        /// The ring size.
        n: u32,
    },
    /// One edge `i` from the high half, its orientation from the lowest bit.
    UndirectedRing {
        /// The edge among `n`.
        edge: Below32,
        /// The ring size.
        n: u32,
    },
    /// One listed arc.
    Arcs {
        /// The arc among the listed ones.
        arc: Below32,
        /// The arcs.
        arcs: Vec<(u32, u32)>,
    },
}

#[inline(always)]
fn complete_pair(first: Below32, second: Below32, rng: &mut PopRng) -> (u32, u32) {
    loop {
        let bits = rng.next_u64();
        if let (Some(u), Some(v)) = (first.map((bits >> 32) as u32), second.map(bits as u32)) {
            return (u, v + u32::from(v >= u));
        }
    }
}

#[inline(always)]
fn directed_ring_pair(arc: Below32, n: u32, rng: &mut PopRng) -> (u32, u32) {
    let i = arc.sample(rng);
    (i, if i + 1 == n { 0 } else { i + 1 })
}

#[inline(always)]
fn undirected_ring_pair(edge: Below32, n: u32, rng: &mut PopRng) -> (u32, u32) {
    loop {
        let bits = rng.next_u64();
        if let Some(i) = edge.map((bits >> 32) as u32) {
            let j = if i + 1 == n { 0 } else { i + 1 };
            return if bits & 1 == 0 { (i, j) } else { (j, i) };
        }
    }
}

impl Scheduler for RandomScheduler {
    #[inline]
    fn next_pair(&mut self, rng: &mut PopRng) -> (u32, u32) {
        match self {
            RandomScheduler::Complete { first, second } => complete_pair(*first, *second, rng),
            RandomScheduler::DirectedRing { arc, n } => directed_ring_pair(*arc, *n, rng),
            RandomScheduler::UndirectedRing { edge, n } => undirected_ring_pair(*edge, *n, rng),
            RandomScheduler::Arcs { arc, arcs } => arcs[arc.sample(rng) as usize],
        }
    }

    /// One match per block, and the generator's state in registers (a local copy) while drawing.
    fn fill(&mut self, rng: &mut PopRng, out: &mut [(u32, u32)]) {
        let mut local = rng.clone();
        match self {
            RandomScheduler::Complete { first, second } => {
                out.iter_mut().for_each(|slot| *slot = complete_pair(*first, *second, &mut local))
            }
            RandomScheduler::DirectedRing { arc, n } => {
                out.iter_mut().for_each(|slot| *slot = directed_ring_pair(*arc, *n, &mut local))
            }
            RandomScheduler::UndirectedRing { edge, n } => {
                out.iter_mut().for_each(|slot| *slot = undirected_ring_pair(*edge, *n, &mut local))
            }
            RandomScheduler::Arcs { arc, arcs } => {
                out.iter_mut().for_each(|slot| *slot = arcs[arc.sample(&mut local) as usize])
            }
        }
        *rng = local;
    }
}

/// Plays a fixed list of (initiator, responder) pairs, then stops the run.
///
/// ```
/// use poplab::engine::{AgentRun, Watch};
/// use poplab::graph::{Graph, Replay};
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::angluin::Angluin;
/// use poplab::rng::TrialStreams;
///
/// // Three leaders: agent 0 meets agent 1, then agent 2 meets agent 0.
/// let protocol = Angluin::new(3, &Params::default())?;
/// let graph = Graph::Complete;
/// let replay = Replay::new(vec![(0, 1), (2, 0)], 3)?;
/// let agents = protocol.initial_configuration();
/// let mut run = AgentRun::new(&protocol, &graph, agents, replay, TrialStreams::new(0).schedule);
/// assert!(run.advance(2, Watch::SafeSet)); // one leader after exactly 2 steps
/// assert_eq!(run.agents(), [false, false, true]); // each responder became a follower
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Replay {
    pairs: Vec<(u32, u32)>,
    next: usize,
}

impl Replay {
    /// A replay of `pairs` for `n` agents; every index must be below `n` and no pair a self-loop.
    pub fn new(pairs: Vec<(u32, u32)>, n: usize) -> Result<Self> {
        if !pairs.is_empty() {
            check_pairs(&pairs, n).map_err(|e| match e {
                Error::Graph(reason) => Error::Graph(format!("replay schedule: {reason}")),
                other => other,
            })?;
        }
        Ok(Self { pairs, next: 0 })
    }
}

impl Scheduler for Replay {
    fn next_pair(&mut self, _rng: &mut PopRng) -> (u32, u32) {
        let pair = self.pairs[self.next];
        self.next += 1;
        pair
    }

    fn limit(&self) -> Option<u64> {
        Some((self.pairs.len() - self.next) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn frequencies(graph: &Graph, n: usize, draws: usize) -> std::collections::HashMap<(u32, u32), usize> {
        let mut scheduler = graph.scheduler(n).unwrap();
        let mut rng = PopRng::seed_from_u64(5);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            *counts.entry(scheduler.next_pair(&mut rng)).or_insert(0) += 1;
        }
        counts
    }

    /// Chi-square statistic of observed counts against equal expected counts over `cells` cells.
    fn chi_square(counts: &std::collections::HashMap<(u32, u32), usize>, cells: usize, draws: usize) -> f64 {
        let expected = draws as f64 / cells as f64;
        assert_eq!(counts.len(), cells, "some pair never appeared or an impossible pair appeared");
        counts.values().map(|&c| (c as f64 - expected).powi(2) / expected).sum()
    }

    #[test]
    fn complete_graph_pairs_are_uniform_over_ordered_pairs() {
        // n = 5: 20 ordered pairs, 19 degrees of freedom, critical value 43.82 at alpha = 0.001.
        let counts = frequencies(&Graph::Complete, 5, 200_000);
        assert!(counts.keys().all(|&(u, v)| u != v && u < 5 && v < 5));
        let chi2 = chi_square(&counts, 20, 200_000);
        assert!(chi2 < 43.82, "chi2 = {chi2}");
    }

    #[test]
    fn directed_ring_uses_left_initiator() {
        let counts = frequencies(&Graph::DirectedRing, 6, 60_000);
        assert!(counts.keys().all(|&(u, v)| v == (u + 1) % 6));
        // 6 arcs, 5 degrees of freedom, critical value 20.52.
        assert!(chi_square(&counts, 6, 60_000) < 20.52);
    }

    #[test]
    fn undirected_ring_uses_both_orientations() {
        let counts = frequencies(&Graph::UndirectedRing, 5, 100_000);
        assert!(counts.keys().all(|&(u, v)| v == (u + 1) % 5 || u == (v + 1) % 5));
        // 10 arcs, 9 degrees of freedom, critical value 27.88.
        assert!(chi_square(&counts, 10, 100_000) < 27.88);
    }

    #[test]
    fn the_named_graphs_are_read_by_their_names_and_listed_in_the_message() {
        assert_eq!(Graph::names(), ["complete", "ring", "undirected-ring"]);
        for graph in Graph::NAMED {
            assert_eq!(Graph::from_name(&graph.name()).unwrap(), graph);
        }
        assert_eq!(Graph::from_name("directed-ring").unwrap(), Graph::DirectedRing);
        let message = Graph::from_name("torus").unwrap_err().to_string();
        assert!(message.contains("unknown graph 'torus'; use complete, ring, undirected-ring or @FILE"), "{message}");
    }

    #[test]
    fn arc_lists_parse_and_validate() {
        let graph = Graph::parse_arcs("# star\n0 1\n0,2\n\n1 2 # last\n").unwrap();
        assert_eq!(graph, Graph::Arcs(vec![(0, 1), (0, 2), (1, 2)].into()));
        assert!(graph.validate(3).is_ok());
        assert!(graph.validate(2).unwrap_err().to_string().contains("outside 0..2"));
        assert!(Graph::parse_arcs("0 1 2").is_err());
        assert!(Graph::Arcs(vec![(1, 1)].into()).validate(3).unwrap_err().to_string().contains("self-loop"));
        assert!(Graph::Arcs(vec![].into()).validate(3).is_err());
        let split = Graph::Arcs(vec![(0, 1), (2, 3)].into()).validate(4).unwrap_err().to_string();
        assert!(split.contains("2 groups that never meet (agents 0-1; agents 2-3)"), "{split}");
        let isolated = Graph::Arcs(vec![(0, 1), (1, 2)].into()).validate(4).unwrap_err().to_string();
        assert!(isolated.contains("(agents 0-2; agent 3)"), "{isolated}");
        // A short list for a huge population is refused without a table of every agent.
        let huge = Graph::Arcs(vec![(0, 1), (1, 0)].into()).validate(usize::MAX / 2).unwrap_err().to_string();
        assert!(huge.contains("2 arcs touch at most 4 of the n"), "{huge}");
        assert!(Graph::Arcs(vec![(0, 1), (2, 1)].into()).validate(3).is_ok());
    }

    #[test]
    fn replay_plays_its_pairs_then_reports_its_limit() {
        let mut replay = Replay::new(vec![(0, 1), (2, 0)], 3).unwrap();
        let mut rng = PopRng::seed_from_u64(0);
        assert_eq!(replay.limit(), Some(2));
        assert_eq!(replay.next_pair(&mut rng), (0, 1));
        assert_eq!(replay.next_pair(&mut rng), (2, 0));
        assert_eq!(replay.limit(), Some(0));
        assert!(Replay::new(vec![(0, 3)], 3).is_err());
    }
}
