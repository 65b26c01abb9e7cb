//! `poplab list`: the registry, as text or JSON.

use crate::cli::ListArgs;
use crate::output::write_text;
use poplab::protocol::ProtocolInfo;
use poplab::protocols::PROTOCOLS;
use poplab::protocols::custom::{Amount, Definition, output_name};
use serde_json::json;
use std::fmt::Write;

pub fn list(args: &ListArgs) -> anyhow::Result<()> {
    let chosen: Vec<&ProtocolInfo> = match args.protocol.as_deref() {
        Some(file) if file.starts_with('@') => {
            let definition = poplab::protocols::custom::file::read(&file[1..])?;
            let text = if args.json { definition_json(&definition) } else { definition_text(&definition) };
            return write_text(None, &text);
        }
        Some(name) => vec![poplab::protocols::find(name)?],
        None => PROTOCOLS.to_vec(),
    };
    let text = if args.json { list_json(&chosen) } else { list_text(&chosen) };
    write_text(None, &text)
}

/// The amount of a state in `[init]`, as the file gives it.
fn amount(amount: Amount) -> serde_json::Value {
    match amount {
        Amount::Count(c) => json!(c),
        Amount::Fraction(f) => json!(f),
    }
}

fn definition_json(d: &Definition) -> String {
    let rules: Vec<_> = d
        .rules
        .iter()
        .map(|((a, b), law)| {
            json!({
                "pair": [a, b],
                "results": law.iter().map(|((c, e), p)| json!({"result": [c, e], "probability": p})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let document = json!({
        "name": d.name,
        "source": d.source,
        "states": d.states.iter().map(|(s, o)| json!({"name": s, "output": output_name(*o)})).collect::<Vec<_>>(),
        "rules": rules,
        "init": d.init.iter().map(|(s, a)| json!({"state": s, "amount": amount(*a)})).collect::<Vec<_>>(),
        "stop": d.stop.name(),
    });
    format!("{document:#}\n")
}

fn definition_text(d: &Definition) -> String {
    let mut out = String::new();
    let randomized = d.rules.iter().filter(|(_, law)| !matches!(law.as_slice(), [(_, p)] if *p >= 1.0)).count();
    let _ = writeln!(out, "{}\n  a user protocol\n  source: {}", d.name, d.source);
    let _ = writeln!(out, "  states ({}):", d.states.len());
    for (state, output) in &d.states {
        let _ = writeln!(out, "    {state:<14} {}", output_name(*output));
    }
    let _ = writeln!(
        out,
        "  rules: {} non-null pairs listed, {randomized} randomized; every other pair is null",
        d.rules.len()
    );
    let init: Vec<String> = d.init.iter().map(|(s, a)| format!("{s} = {}", amount(*a))).collect();
    let _ = writeln!(out, "  initial configuration: {} (the last state takes the agents left over)", init.join(", "));
    let _ = writeln!(out, "  stop rule (safe set): {}", d.stop.name());
    out
}

fn list_json(chosen: &[&ProtocolInfo]) -> String {
    format!("{:#}\n", poplab::protocols::list_json(chosen))
}

fn initial_configurations(info: &ProtocolInfo) -> Vec<serde_json::Value> {
    poplab::protocols::initial_configurations_json(info)
}

fn list_text(chosen: &[&ProtocolInfo]) -> String {
    let mut out = String::new();
    for info in chosen {
        let _ = writeln!(out, "{}\n  {}\n  source: {}", info.name, info.summary, info.source);
        if info.params.is_empty() {
            let _ = writeln!(out, "  parameters: none");
        } else {
            let _ = writeln!(out, "  parameters (--set KEY=VALUE):");
            for p in info.params {
                let _ = writeln!(out, "    {:<14} default {:<12} {}", p.name, p.default, p.doc);
            }
        }
        let _ = writeln!(out, "  initial configurations (--init):");
        for family in initial_configurations(info) {
            let _ = writeln!(
                out,
                "    {:<14} {}",
                family["name"].as_str().unwrap_or(""),
                family["doc"].as_str().unwrap_or("")
            );
        }
        out.push('\n');
    }
    out
}
