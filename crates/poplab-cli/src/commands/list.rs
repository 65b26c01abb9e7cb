//! `poplab list`: the registry, as text or JSON.

use crate::cli::ListArgs;
use crate::output::write_text;
use poplab::protocols::PROTOCOLS;
use serde_json::json;
use std::fmt::Write;

pub fn list(args: &ListArgs) -> anyhow::Result<()> {
    let text = if args.json { list_json() } else { list_text() };
    write_text(None, &text)
}

fn list_json() -> String {
    let protocols: Vec<_> = PROTOCOLS
        .iter()
        .map(|info| {
            json!({
                "name": info.name,
                "summary": info.summary,
                "source": info.source,
                "params": info.params.iter().map(|p| json!({"name": p.name, "default": p.default, "doc": p.doc})).collect::<Vec<_>>(),
                "init": initial_configurations(info),
            })
        })
        .collect();
    format!("{:#}\n", json!({ "protocols": protocols }))
}

fn initial_configurations(info: &poplab::protocol::ProtocolInfo) -> Vec<serde_json::Value> {
    let mut all = vec![
        json!({"name": "default", "doc": "the protocol's own initial configuration"}),
        json!({"name": "random", "doc": "every agent uniform over the whole state space"}),
    ];
    all.extend(info.families.iter().filter(|f| f.name != "random").map(|f| json!({"name": f.name, "doc": f.doc})));
    all
}

fn list_text() -> String {
    let mut out = String::new();
    for info in PROTOCOLS {
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
