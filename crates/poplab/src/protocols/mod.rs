//! The protocols, one module each, and the registry that builds them by name. A built-in protocol
//! is added in two places: its module (with its [`ProtocolInfo`] and constructor) and its line in
//! the `registry!` table below (the `pub mod` beside it).
//!
//! Protocols have different state types, so code that works on "a protocol named at run time"
//! implements [`ProtocolVisitor`]: [`with_protocol`] builds the named protocol and hands it to the
//! visitor's generic `visit`, which is monomorphised per protocol (no dynamic dispatch in engines).

pub mod angluin;
pub mod approx_majority;
pub mod custom;
mod leader_count;
pub mod ls_timer;
pub mod pll;
pub mod pll_sym;
pub mod ppl;
pub mod prl;
mod search_levels;
pub mod threshold;

pub use leader_count::LeaderCount;

use crate::error::{Error, Result};
use crate::protocol::{Params, Protocol, ProtocolInfo};

/// The registry: each built-in protocol's entry and constructor, once. Gives [`PROTOCOLS`] and
/// `build`, which hands the protocol named by an entry to a visitor.
macro_rules! registry {
    ($($info:expr => $new:expr),+ $(,)?) => {
        /// Every protocol, in the order `poplab list` shows them.
        pub const PROTOCOLS: &[&ProtocolInfo] = &[$(&$info),+];

        fn build<V: ProtocolVisitor>(name: &str, n: usize, params: &Params, visitor: V) -> Result<V::Output> {
            $(if name == $info.name {
                return Ok(visitor.visit($new(n, params)?));
            })+
            Err(unknown_protocol(name))
        }
    };
}

registry! {
    threshold::INFO => threshold::Threshold::new,
    angluin::INFO => angluin::Angluin::new,
    ls_timer::INFO => ls_timer::LsTimer::new,
    ppl::INFO => ppl::Ppl::new,
    pll::INFO => pll::Pll::new,
    pll::INFO_AS_PRINTED => pll::Pll::as_printed,
    pll_sym::INFO => pll_sym::PllSym::new,
    prl::INFO => prl::Prl::new,
    approx_majority::INFO => approx_majority::ApproxMajority::new,
}

/// The document of `poplab list --json` for `chosen`: each protocol's name, summary, source,
/// parameters (name, default, doc) and initial configurations
/// ([`initial_configurations_json`]).
pub fn list_json(chosen: &[&ProtocolInfo]) -> serde_json::Value {
    let protocols: Vec<_> = chosen
        .iter()
        .map(|info| {
            serde_json::json!({
                "name": info.name,
                "summary": info.summary,
                "source": info.source,
                "params": info.params.iter().map(|p| serde_json::json!({"name": p.name, "default": p.default, "doc": p.doc})).collect::<Vec<_>>(),
                "init": initial_configurations_json(info),
            })
        })
        .collect();
    serde_json::json!({ "protocols": protocols })
}

/// The initial configurations `--init` takes for a protocol (`default`, `random`, then its
/// families), each as `{"name", "doc"}`.
pub fn initial_configurations_json(info: &ProtocolInfo) -> Vec<serde_json::Value> {
    let mut all = vec![
        serde_json::json!({"name": "default", "doc": "the protocol's own initial configuration"}),
        serde_json::json!({"name": "random", "doc": "every agent uniform over the whole state space"}),
    ];
    all.extend(
        info.families.iter().filter(|f| f.name != "random").map(|f| serde_json::json!({"name": f.name, "doc": f.doc})),
    );
    all
}

/// Code that is generic over the protocol type: [`with_protocol`] builds a protocol by name and
/// hands it to [`ProtocolVisitor::visit`] with its concrete type.
///
/// ```
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::{ProtocolVisitor, with_protocol};
///
/// /// The size of a protocol's state space, where it lists one.
/// struct StateCount;
///
/// impl ProtocolVisitor for StateCount {
///     type Output = Option<usize>;
///     fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Option<usize> {
///         protocol.configurations().and_then(|c| c.state_space()).map(|states| states.len())
///     }
/// }
///
/// assert_eq!(with_protocol("angluin", 10, &Params::default(), StateCount)?, Some(2));
/// let k4 = Params::parse(&["k=4"])?;
/// assert_eq!(with_protocol("threshold", 10, &k4, StateCount)?, Some(5)); // values 0..=k
/// let k4 = Params::parse(&["k=4"])?; // a key nobody reads is refused: angluin takes no k
/// assert!(with_protocol("angluin", 10, &k4, StateCount).is_err());
/// # Ok::<(), poplab::Error>(())
/// ```
pub trait ProtocolVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the protocol the registry built.
    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Self::Output;
}

/// The registry entry of `name`.
pub fn find(name: &str) -> Result<&'static ProtocolInfo> {
    PROTOCOLS.iter().copied().find(|info| info.name == name).ok_or_else(|| unknown_protocol(name))
}

fn unknown_protocol(name: &str) -> Error {
    Error::UnknownProtocol {
        name: name.into(),
        known: PROTOCOLS.iter().map(|info| info.name).collect::<Vec<_>>().join(", "),
    }
}

/// Builds protocol `name` for `n` agents with `params` and passes it to `visitor`. `@FILE` names
/// a protocol file ([`custom::file`]), which takes no parameters.
pub fn with_protocol<V: ProtocolVisitor>(name: &str, n: usize, params: &Params, visitor: V) -> Result<V::Output> {
    if !name.starts_with('@') {
        find(name)?;
    }
    if n < 2 {
        return Err(Error::PopulationSize {
            n: n as u64,
            reason: "a population needs at least 2 agents; use --n 2 or more".into(),
        });
    }
    match name.strip_prefix('@') {
        Some(path) => {
            let protocol = custom::Custom::new(&custom::file::read(path)?, n)?;
            params.finish(protocol.info())?;
            Ok(visitor.visit(protocol))
        }
        None => build(name, n, params, visitor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Name;
    impl ProtocolVisitor for Name {
        type Output = &'static str;
        fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> &'static str {
            protocol.info().name
        }
    }

    #[test]
    fn every_registered_protocol_builds_with_defaults() {
        for info in PROTOCOLS {
            assert_eq!(with_protocol(info.name, 10, &Params::default(), Name).unwrap(), info.name);
        }
    }

    #[test]
    fn unknown_names_and_tiny_populations_are_refused() {
        let err = with_protocol("nope", 10, &Params::default(), Name).unwrap_err();
        assert!(
            err.to_string().contains(
                "known protocols: threshold, angluin, ls-timer, ppl, pll, pll-as-printed, pll-sym, prl, approx-majority"
            ),
            "{err}"
        );
        assert!(matches!(with_protocol("angluin", 1, &Params::default(), Name), Err(Error::PopulationSize { .. })));
    }
}
