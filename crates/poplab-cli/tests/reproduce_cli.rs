//! `poplab reproduce --tiny`: every claim gets its plots, a table and a verdict line.

use assert_cmd::Command;

#[test]
fn a_tiny_reproduction_writes_the_report_plots_and_verdicts() {
    let out = std::env::temp_dir().join(format!("poplab-reproduce-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    Command::cargo_bin("poplab")
        .unwrap()
        .args(["reproduce", "--tiny", "--seed", "3", "--out"])
        .arg(&out)
        .assert()
        .success();

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(report.contains("master seed 3"));
    let claims: Vec<&str> = report.lines().filter_map(|l| l.strip_prefix("## ")).filter(|h| h.contains(": ")).collect();
    assert!(claims.len() >= 8, "{claims:?}");
    for heading in claims {
        let id = heading.split(':').next().unwrap();
        let svg = std::fs::read_to_string(out.join("plots").join(format!("{id}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{id}: not an SVG document");
        let png = std::fs::read(out.join("plots").join(format!("{id}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{id}: not a PNG file");
        assert!(html.contains(&format!("\">{id}: ")), "{id} missing from index.html");
        let section = report.split(&format!("## {heading}")).nth(1).unwrap();
        let verdict =
            section.lines().find(|l| l.starts_with("Verdict: **")).unwrap_or_else(|| panic!("{id}: no verdict"));
        assert!(["consistent", "inconsistent", "inconclusive"].iter().any(|v| verdict.contains(&format!("**{v}**"))));
    }
    assert!(html.contains("<svg") && html.starts_with("<!DOCTYPE html>"));
    // The contents list links every claim's heading, and verdict cells are coloured.
    assert!(html.contains("<nav><h2>Contents</h2>") && html.contains("<a href=\"#verdicts\">"));
    assert!(html.contains("<td class=\"consistent\">consistent</td>"));
}
