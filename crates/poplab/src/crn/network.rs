//! A chemical reaction network: species, reactions written as text (`R + F -> 2F`), their rate
//! constants and the volume, checked once, and the propensities of mass-action kinetics.

use crate::error::{Error, Result};

/// The most reactants a reaction may have: the engines meet molecules in pairs.
pub const MAX_REACTANTS: usize = 2;
/// The most products a reaction may have.
pub const MAX_PRODUCTS: usize = 16;

/// One reaction: its reactants and products as sorted lists of species indices (a species twice
/// for `2A`), and its rate constant.
#[derive(Clone, Debug, PartialEq)]
pub struct Reaction {
    /// The reactants, sorted, at most [`MAX_REACTANTS`] (none for `-> A`).
    pub reactants: Vec<usize>,
    /// The products, sorted (none for `A ->`).
    pub products: Vec<usize>,
    /// The rate constant `k > 0` (stochastic units, see [`Network::propensity`]).
    pub rate: f64,
}

impl Reaction {
    /// How many molecules the reaction adds (negative: removes).
    pub fn generativity(&self) -> i64 {
        self.products.len() as i64 - self.reactants.len() as i64
    }
}

/// A network: its species (in the order they were first named), reactions and volume.
///
/// ```
/// use poplab::crn::Network;
///
/// // Lotka-Volterra: prey R breed, predators F eat them and die.
/// let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 1000.0)?;
/// assert_eq!(lv.species, ["R", "F"]);
/// // A -> at rate k * #A; A + B -> at k * #A * #B / volume.
/// assert_eq!(lv.propensity(1, &[500, 200]), 500.0 * 200.0 / 1000.0);
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// The species' names; a reaction refers to a species by its index here.
    pub species: Vec<String>,
    /// The reactions.
    pub reactions: Vec<Reaction>,
    /// The volume `v > 0`, which divides the rate of two-reactant reactions and multiplies that
    /// of reactions without reactants.
    pub volume: f64,
}

impl Network {
    /// A network from reactions written as text with their rate constants, and the volume.
    ///
    /// A side is `0`, `∅` or nothing (no molecule), or terms joined by `+`; a term is a species
    /// name (a letter or `_`, then letters, digits, `_` or `'`) with an optional whole
    /// coefficient before it (`2A`, `2 A`, `2*A`). The arrow is `->` (or `-->`, `=>`, `→`).
    pub fn parse(reactions: &[(&str, f64)], volume: f64) -> Result<Self> {
        if !(volume.is_finite() && volume > 0.0) {
            return Err(bad("volume", volume.to_string(), "a finite number > 0 (molecules per unit of concentration)"));
        }
        let mut network = Network { species: Vec::new(), reactions: Vec::new(), volume };
        for &(text, rate) in reactions {
            let reaction = network.parse_reaction(text, rate)?;
            network.reactions.push(reaction);
        }
        if network.reactions.is_empty() {
            return Err(bad("reactions", String::new(), "at least one reaction, e.g. \"A + B -> 2C\""));
        }
        Ok(network)
    }

    /// The volume a network has when none is given: the number of molecules at the start (at
    /// least 1), so that concentrations are fractions of it.
    pub fn default_volume(counts: &[u64]) -> f64 {
        counts.iter().sum::<u64>().max(1) as f64
    }

    /// The index of species `name`, if the network names it.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.species.iter().position(|s| s == name)
    }

    fn parse_reaction(&mut self, text: &str, rate: f64) -> Result<Reaction> {
        let arrow = ["-->", "->", "=>", "→"].iter().find_map(|a| text.find(a).map(|i| (i, a.len())));
        let Some((at, len)) = arrow else {
            return Err(bad("reaction", text.into(), "reactants, an arrow `->` and products, e.g. \"A + B -> 2C\""));
        };
        let (left, right) = (&text[..at], &text[at + len..]);
        if !(rate.is_finite() && rate > 0.0) {
            return Err(bad("rate", format!("{rate} (reaction {text:?})"), "a finite rate constant > 0"));
        }
        let reactants = self.side(left, text)?;
        let products = self.side(right, text)?;
        if reactants.len() > MAX_REACTANTS {
            return Err(bad(
                "reaction",
                text.into(),
                "at most two reactants: molecules meet in pairs (write a three-body reaction as two steps)",
            ));
        }
        if products.len() > MAX_PRODUCTS {
            return Err(bad("reaction", text.into(), &format!("at most {MAX_PRODUCTS} products")));
        }
        Ok(Reaction { reactants, products, rate })
    }

    fn side(&mut self, side: &str, text: &str) -> Result<Vec<usize>> {
        let side = side.trim();
        let mut molecules = Vec::new();
        if side.is_empty() || side == "0" || side == "∅" {
            return Ok(molecules);
        }
        for term in side.split('+') {
            let term = term.trim();
            let digits = term.find(|c: char| !c.is_ascii_digit()).unwrap_or(term.len());
            let name = term[digits..].trim_start().trim_start_matches('*').trim_start();
            let ok_name = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '\'');
            let count: usize = if digits == 0 { 1 } else { term[..digits].parse().unwrap_or(usize::MAX) };
            if !ok_name || count == 0 || count > MAX_PRODUCTS {
                return Err(bad(
                    "reaction",
                    text.into(),
                    &format!("terms such as `A`, `2B` or `2 * B` joined by `+` (not {term:?})"),
                ));
            }
            let index = match self.index(name) {
                Some(i) => i,
                None => {
                    self.species.push(name.to_string());
                    self.species.len() - 1
                }
            };
            molecules.extend(std::iter::repeat_n(index, count));
        }
        molecules.sort_unstable();
        Ok(molecules)
    }

    /// The propensity of reaction `r` at the counts `x` (one per species), in reactions per unit
    /// of time: `k v` without reactants, `k #A` for `A -> ...`, `k #A #B / v` for `A + B -> ...`
    /// and `k #A (#A - 1) / (2 v)` for `2A -> ...` (ppsim's units, those of Gillespie's method
    /// with `c = k / v`).
    pub fn propensity(&self, r: usize, x: &[u64]) -> f64 {
        let reaction = &self.reactions[r];
        let k = reaction.rate;
        match reaction.reactants[..] {
            [] => k * self.volume,
            [a] => k * x[a] as f64,
            [a, b] if a == b => k * x[a] as f64 * x[a].saturating_sub(1) as f64 / (2.0 * self.volume),
            [a, b] => k * x[a] as f64 * x[b] as f64 / self.volume,
            _ => unreachable!("at most two reactants, checked by parse"),
        }
    }

    /// The largest number of molecules one reaction adds (0 if none adds any).
    pub fn generativity(&self) -> usize {
        self.reactions.iter().map(|r| r.generativity().max(0) as usize).max().unwrap_or(0)
    }

    /// Counts for the species from `(name, count)` pairs; species not named start at 0.
    pub fn counts(&self, named: &[(&str, u64)]) -> Result<Vec<u64>> {
        let mut x = vec![0; self.species.len()];
        for &(name, count) in named {
            let Some(i) = self.index(name) else {
                return Err(bad(
                    "species",
                    name.into(),
                    &format!("one of the network's species: {}", self.species.join(", ")),
                ));
            };
            x[i] = count;
        }
        Ok(x)
    }
}

fn bad(option: &'static str, value: String, reason: &str) -> Error {
    Error::Option { option, value, reason: reason.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_coefficients_and_arrows() {
        let n = Network::parse(&[("2A + B --> 0", 1.0)], 1.0);
        assert!(n.is_err(), "three reactants");
        let n = Network::parse(&[("2A -> D", 0.5), ("D → 2 * A", 2.0), ("-> A", 3.0), ("A' + _x => ∅", 1.0)], 10.0)
            .unwrap();
        assert_eq!(n.species, ["A", "D", "A'", "_x"]);
        assert_eq!(n.reactions[0].reactants, [0, 0]);
        assert_eq!(n.reactions[1].products, [0, 0]);
        assert!(n.reactions[2].reactants.is_empty());
        assert!(n.reactions[3].products.is_empty());
        assert_eq!(n.generativity(), 1);
        assert_eq!(n.propensity(0, &[5, 0, 0, 0]), 0.5 * 5.0 * 4.0 / 20.0);
        assert_eq!(n.propensity(2, &[0; 4]), 30.0);
    }

    #[test]
    fn bad_input_names_the_reaction() {
        for (text, rate, says) in [
            ("A + B", 1.0, "arrow"),
            ("A -> B", 0.0, "rate"),
            ("A -> B", f64::NAN, "rate"),
            ("A -> 2", 1.0, "terms"),
            ("0A -> B", 1.0, "terms"),
            ("A + -> B", 1.0, "terms"),
            ("A + B + C -> D", 1.0, "two reactants"),
        ] {
            let message = Network::parse(&[(text, rate)], 1.0).unwrap_err().to_string();
            assert!(message.contains(says), "{text}: {message}");
        }
        assert!(Network::parse(&[("A -> B", 1.0)], 0.0).unwrap_err().to_string().contains("volume"));
        let n = Network::parse(&[("A -> B", 1.0)], 1.0).unwrap();
        assert!(n.counts(&[("C", 1)]).unwrap_err().to_string().contains("A, B"));
    }
}
