//! Protocol files: a user protocol in TOML.
//!
//! ```toml
//! name = "approximate-majority"
//! [states]            # every state and its output: leader | follower | yes | no | undecided
//! A = "yes"
//! B = "no"
//! U = "undecided"
//! [rules]             # "initiator,responder" = "initiator',responder'"; pairs not listed are null
//! "A,B" = "U,U"
//! "B,A" = "U,U"
//! "A,U" = "A,A"
//! "U,A" = "A,A"
//! "B,U" = "B,B"
//! "U,B" = "B,B"
//! # randomized: "X,Y" = { "X,X" = 0.5, "Y,Y" = 0.25 }   (the remaining 0.25 is null)
//! [init]              # counts (whole numbers) or fractions of n (0.6), the rest to the last state
//! A = 0.6
//! B = 0.4
//! [stop]
//! safe = "consensus"  # silent | one-leader | consensus | all-yes | all-no | time:T
//! ```
//!
//! State names are any text without a comma (spaces around names in rules are ignored). A
//! fraction `f` gives `round(f n)` agents (halves away from zero); the last state of `[init]` gets
//! the agents left over, whatever its own amount. Errors name the line and say how to fix it.

use super::{Amount, Definition, StopRule, output_named, output_names};
use crate::error::{Error, Result};
use crate::protocol::Law;
use std::collections::{HashMap, HashSet};
use toml::{Table, Value};

/// The largest protocol file read (bytes).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads the protocol file at `path`.
pub fn read(path: &str) -> Result<Definition> {
    let text = crate::files::read_limited(
        std::path::Path::new(path),
        "protocol file",
        MAX_FILE_BYTES,
        "a protocol file may take",
    )?;
    parse(&text, path)
}

/// A protocol definition from the text of a protocol file named `path` (for messages).
///
/// ```
/// use poplab::protocols::custom::{StopRule, file::parse};
///
/// let text = "name = \"p\"\n[states]\nA = \"yes\"\nB = \"no\"\n[rules]\n\"A,B\" = \"A,A\"\n\
///             [init]\nA = 0.5\nB = 0.5\n[stop]\nsafe = \"all-yes\"\n";
/// let definition = parse(text, "p.toml")?;
/// assert_eq!((definition.states.len(), definition.rules.len()), (2, 1));
/// assert_eq!(definition.stop, StopRule::AllYes);
/// // Errors name the file, the line and the fix.
/// let error = parse(&text.replace("\"A,B\"", "\"A,C\""), "p.toml").unwrap_err().to_string();
/// assert!(error.contains("'p.toml', line 6") && error.contains("state C is not in [states]"), "{error}");
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn parse(text: &str, path: &str) -> Result<Definition> {
    let fail = |line: Option<usize>, reason: String| Error::ProtocolFile { path: path.to_string(), line, reason };
    let table: Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map(|span| line_at(text, span.start));
        fail(line, format!("not valid TOML: {}", e.message()))
    })?;
    // Where each key is set, found in one pass: looking each key up in the text would make a
    // parse quadratic in the file's size.
    let lines = key_lines(text);
    let find = |section: &str, key: &str| lines.get(&(section.to_string(), key.to_string())).copied();
    for key in table.keys() {
        if !["name", "states", "rules", "init", "stop"].contains(&key.as_str()) {
            return Err(fail(
                find("", key),
                format!("unknown key '{key}'; a protocol file has name, [states], [rules], [init] and [stop]"),
            ));
        }
    }
    let name = match table.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_string(),
        Some(_) => {
            return Err(fail(find("", "name"), "name must be a non-empty string, as name = \"my-protocol\"".into()));
        }
        None => std::path::Path::new(path)
            .file_stem()
            .map_or_else(|| "user-protocol".into(), |s| s.to_string_lossy().into_owned()),
    };
    let section = |key: &str| -> Result<&Table> {
        match table.get(key) {
            Some(Value::Table(t)) => Ok(t),
            Some(_) => Err(fail(find("", key), format!("{key} must be a section, [{key}]"))),
            None => Err(fail(None, format!("the [{key}] section is missing; {}", how_to(key)))),
        }
    };

    let mut states = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (state, output) in section("states")? {
        let line = find("states", state);
        if !is_state_name(state) {
            return Err(fail(line, format!("state '{state}': a state name is non-empty text without commas")));
        }
        let output = output
            .as_str()
            .and_then(output_named)
            .ok_or_else(|| fail(line, format!("state {state}: the output must be {}", output_choices())))?;
        let name = state.trim();
        if !names.insert(name) {
            return Err(fail(
                line.or_else(|| find("states", name)),
                format!(
                    "state {name} is listed twice in [states] (names are trimmed: \"{state}\" is {name}); keep one"
                ),
            ));
        }
        states.push((name.to_string(), output));
    }
    if states.is_empty() {
        return Err(fail(find("", "states"), "[states] lists no state; list every state with its output".into()));
    }
    let names: HashSet<&str> = states.iter().map(|(s, _)| s.as_str()).collect();
    let known = |state: &str, line: Option<usize>| -> Result<String> {
        let state = state.trim();
        if names.contains(state) {
            Ok(state.to_string())
        } else {
            Err(fail(
                line,
                format!("state {state} is not in [states]; add it there with its output, as {state} = \"no\""),
            ))
        }
    };

    let mut rules = Vec::new();
    let mut pairs = HashSet::new();
    for (pair, result) in section("rules")? {
        let line = find("rules", pair);
        let (a, b) =
            split_pair(pair).ok_or_else(|| fail(line, format!("rule \"{pair}\": write the pair as \"A,B\"")))?;
        let pair_states = (known(a, line)?, known(b, line)?);
        let law: Law<String> = match result {
            Value::String(result) => {
                let (c, d) = split_pair(result)
                    .ok_or_else(|| fail(line, format!("rule \"{pair}\": write the result as \"C,D\"")))?;
                vec![((known(c, line)?, known(d, line)?), 1.0)]
            }
            Value::Table(outcomes) => {
                let mut law = Vec::new();
                for (result, p) in outcomes {
                    let (c, d) = split_pair(result).ok_or_else(|| {
                        fail(line, format!("rule \"{pair}\": write each result as \"C,D\" = probability"))
                    })?;
                    let p = p.as_float().or_else(|| p.as_integer().map(|i| i as f64)).ok_or_else(|| {
                        fail(line, format!("rule \"{pair}\": the probability of \"{result}\" must be a number"))
                    })?;
                    law.push(((known(c, line)?, known(d, line)?), p));
                }
                super::rules::check_law(&law).map_err(|e| fail(line, format!("rule \"{pair}\": {e}")))?;
                law
            }
            _ => {
                return Err(fail(
                    line,
                    format!("rule \"{pair}\": the result is \"C,D\" or a table of results with probabilities"),
                ));
            }
        };
        if !pairs.insert(pair_states.clone()) {
            return Err(fail(line, format!("rule \"{pair}\" is given twice (names are trimmed); keep one")));
        }
        rules.push((pair_states, law));
    }

    let mut init = Vec::new();
    if let Some(Value::Table(amounts)) = table.get("init") {
        for (state, amount) in amounts {
            let line = find("init", state);
            let state = known(state, line)?;
            let amount = match amount {
                Value::Integer(c) if *c >= 0 => Amount::Count(*c as u64),
                Value::Float(f) if (0.0..=1.0).contains(f) => Amount::Fraction(*f),
                _ => {
                    return Err(fail(
                        line,
                        format!(
                            "init {state}: give a count (a whole number, 600) or a fraction of n from 0 to 1 (0.6)"
                        ),
                    ));
                }
            };
            init.push((state, amount));
        }
    } else if table.contains_key("init") {
        return Err(fail(find("", "init"), "init must be a section, [init]".into()));
    }

    let stop = section("stop")?;
    for key in stop.keys() {
        if key != "safe" {
            return Err(fail(find("stop", key), format!("unknown key '{key}' in [stop]; {}", how_to("stop"))));
        }
    }
    let stop: StopRule = match stop.get("safe") {
        Some(Value::String(rule)) => rule.parse().map_err(|e: Error| fail(find("stop", "safe"), e.to_string()))?,
        _ => return Err(fail(find("stop", "safe"), how_to("stop"))),
    };
    Ok(Definition { name, source: path.to_string(), states, rules, init, stop })
}

fn how_to(section: &str) -> String {
    match section {
        "states" => "list every state with its output, as A = \"yes\"".into(),
        "rules" => "list the non-null rules, as \"A,B\" = \"U,U\"".into(),
        _ => format!("give the stop rule, as safe = \"consensus\" ({})", StopRule::choices()),
    }
}

/// The outputs a state can give, quoted, in words: `"leader", "follower", ... or "undecided"`.
fn output_choices() -> String {
    let quoted: Vec<String> = output_names().iter().map(|name| format!("\"{name}\"")).collect();
    let (last, rest) = quoted.split_last().expect("outputs exist");
    format!("{} or {last}", rest.join(", "))
}

/// Whether `name` can name a state: non-empty text without commas.
fn is_state_name(name: &str) -> bool {
    !name.trim().is_empty() && !name.contains(',')
}

/// `"A,B"` as `("A", "B")`.
fn split_pair(text: &str) -> Option<(&str, &str)> {
    let (a, b) = text.split_once(',')?;
    (!a.trim().is_empty() && !b.trim().is_empty() && !b.contains(',')).then_some((a, b))
}

/// The 1-based line of byte offset `at`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The 1-based line where each key is first set, by (section, key) (`""`: the top level, where a
/// section's own name is found at its header `[name]`), found in the text.
fn key_lines(text: &str) -> HashMap<(String, String), usize> {
    let mut lines = HashMap::new();
    let mut current = String::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(header) = trimmed.strip_prefix('[') {
            current = header.trim_end_matches(']').trim().to_string();
            lines.entry((String::new(), current.clone())).or_insert(i + 1);
            continue;
        }
        let Some((lhs, _)) = trimmed.split_once('=') else { continue };
        let lhs = lhs.trim().trim_matches('"').trim_matches('\'');
        lines.entry((current.clone(), lhs.to_string())).or_insert(i + 1);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAJORITY: &str = r#"
name = "am"
[states]
A = "yes"
B = "no"
U = "undecided"
[rules]
"A,B" = "U,U"
"A,U" = { "A,A" = 0.5, "U,U" = 0.25 }
[init]
A = 0.6
B = 0.4
[stop]
safe = "consensus"
"#;

    #[test]
    fn a_file_is_read() {
        let d = parse(MAJORITY, "am.toml").unwrap();
        assert_eq!(d.name, "am");
        assert_eq!(d.states.len(), 3);
        assert_eq!(d.rules[1].1, vec![(("A".into(), "A".into()), 0.5), (("U".into(), "U".into()), 0.25)]);
        assert_eq!(d.init[0], ("A".into(), Amount::Fraction(0.6)));
        assert_eq!(d.stop, StopRule::Consensus);
    }

    /// Found by the fuzz target `protocol_file_big`: a file of 5000 states and 20000 rules (0.9
    /// MB) took 27 s of CPU to parse (every key's line was looked up by scanning the text, every
    /// state name and every pair by scanning a list); now one pass each.
    #[test]
    fn a_big_file_parses_in_time_linear_in_its_size() {
        use std::fmt::Write;
        let (states, rules) = (5000, 20_000);
        let mut text = String::from("name = \"big\"\n[states]\n");
        for i in 0..states {
            writeln!(text, "\"s{i}xxx\" = \"no\"").unwrap();
        }
        text.push_str("[rules]\n");
        for r in 0..rules {
            let (a, b) = (r % states, r / states);
            writeln!(text, "\"s{a}xxx,s{b}xxx\" = \"s{b}xxx,s{a}xxx\"").unwrap();
        }
        text.push_str("[init]\n\"s0xxx\" = 0.5\n[stop]\nsafe = \"silent\"\n");
        let started = std::time::Instant::now();
        let definition = parse(&text, "big.toml").unwrap();
        let took = started.elapsed();
        assert_eq!((definition.states.len(), definition.rules.len()), (states, rules));
        // About 0.1 s; the quadratic parse took 27 s.
        assert!(took < std::time::Duration::from_secs(8), "{took:?}");
        // Lines are still found: the last rule, given twice.
        let twice = text.replace("[init]", "\"s0xxx, s3xxx\" = \"s0xxx,s0xxx\"\n[init]");
        let error = parse(&twice, "big.toml").unwrap_err().to_string();
        assert!(
            error.contains(&format!("line {}: rule \"s0xxx, s3xxx\" is given twice", states + rules + 4)),
            "{error}"
        );
    }

    fn error(text: &str) -> String {
        parse(text, "p.toml").unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        let unknown = MAJORITY.replace("\"A,B\" = \"U,U\"", "\"A,B\" = \"U,Z\"");
        assert_eq!(
            error(&unknown),
            "protocol file 'p.toml', line 8: state Z is not in [states]; add it there with its output, as Z = \"no\""
        );
        let above = MAJORITY.replace("\"U,U\" = 0.25", "\"U,U\" = 0.75");
        assert!(
            error(&above).contains("line 9: rule \"A,U\": the probabilities sum to 1.25, above 1"),
            "{}",
            error(&above)
        );
        let no_output = MAJORITY.replace("U = \"undecided\"", "U = \"maybe\"");
        let must_be = "line 6: state U: the output must be \"leader\", \"follower\", \"yes\", \"no\" or \"undecided\"";
        assert!(error(&no_output).ends_with(must_be), "{}", error(&no_output));
        let no_stop = MAJORITY.replace("[stop]\nsafe = \"consensus\"", "");
        let give = "the [stop] section is missing; give the stop rule, as safe = \"consensus\" (silent, one-leader, \
                    consensus, all-yes, all-no or time:T)";
        assert!(error(&no_stop).ends_with(give), "{}", error(&no_stop));
        let bad_rule = MAJORITY.replace("safe = \"consensus\"", "safe = \"majority\"");
        assert!(error(&bad_rule).contains("line 14: unknown stop rule 'majority'"), "{}", error(&bad_rule));
        assert!(error("name = [").contains("line 1: not valid TOML"));
        assert!(error(&MAJORITY.replace("[init]", "[inits]")).contains("unknown key 'inits'"));
    }
}
