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
    for heading in &claims {
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

    // Every picture the report shows exists as SVG and PNG and is embedded in the page.
    let images: Vec<&str> =
        report.lines().filter_map(|l| l.strip_prefix("![")).filter_map(|l| l.split("](").nth(1)).collect();
    for image in &images {
        let svg = out.join(image.trim_end_matches(')'));
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"), "{}", svg.display());
        assert_eq!(&std::fs::read(svg.with_extension("png")).unwrap()[..4], b"\x89PNG");
    }
    assert_eq!(html.matches("<figure>").count(), images.len());
    // The pictures besides each claim's plot: a summary per paper, leader traces, the P_LL census
    // by module, the estimator against exact holding times, P_RL's space-time diagrams.
    for paper in ["000", "001", "003", "004"] {
        assert!(images.contains(&format!("plots/paper-{paper}.svg)").as_str()), "paper {paper}: {images:?}");
    }
    for picture in ["angluin-exact-leaders", "pll-stabilisation-modules", "ls-timer-holding-exact", "ppl-holding-exact"]
    {
        assert!(images.contains(&format!("plots/{picture}.svg)").as_str()), "{picture}: {images:?}");
    }
    assert!(images.iter().any(|i| i.contains("prl-spacetime-fig3")));
    // A summary figure holds a panel per claim of its paper, titled in words (not the claim's id).
    let paper = std::fs::read_to_string(out.join("plots/paper-003.svg")).unwrap();
    for title in [
        "P_LL: stabilisation time",
        "P_LL: distinct states used",
        "P_LL as printed (uncorrected Tournament): stabilisation time",
        "The Tournament erratum: P_LL against the literal text",
        "Symmetric P_LL: stabilisation time",
    ] {
        assert!(paper.contains(&format!(">\n{title}\n<")), "paper 003 has no panel '{title}'");
    }
    assert!(!paper.contains("pll-stabilisation: "), "a title names a claim's id");
    // One measure per axis: threshold-correct's runs below the threshold (no yes before the
    // horizon) and above it (converged) are two panels.
    let threshold = std::fs::read_to_string(out.join("plots/threshold-correct.svg")).unwrap();
    for title in ["Threshold predicate: time until an output changes", "Threshold predicate: time to converge"] {
        assert!(threshold.contains(&format!(">\n{title}\n<")), "threshold-correct has no panel '{title}'");
    }
    // pll and pll-as-printed are separate series, each named in the legend (SVG text sits on its own line).
    for series in ["pll: mean with 95% bootstrap interval", "pll-as-printed: mean with 95% bootstrap interval"] {
        assert!(paper.contains(&format!(">\n{series}")), "paper 003 names no series '{series}'");
    }
    let modules = std::fs::read_to_string(out.join("plots/pll-stabilisation-modules.svg")).unwrap();
    assert!(modules.contains("ended by"), "no module legend");
    assert!(modules.contains(">\nn = "), "no legend entry per n");
    let exact =
        report.lines().find(|l| l.starts_with("The estimator against exact values") && l.contains("ls-timer")).unwrap();
    assert!(exact.contains("N = 3: exact 8.8572e4"), "{exact}");
    // Identical sweeps run once: pll-states reads pll-stabilisation's trials.
    assert!(
        report
            .contains("data in data/pll-stabilisation/sweep-0/ (claim pll-stabilisation's sweep: identical, run once)")
    );
    assert!(!out.join("data/pll-states").exists());

    // Claims run side by side (the default) find what they find one after another: the same
    // sections, wall times aside, and the same plots, with one worker thread.
    let alone = std::env::temp_dir().join(format!("poplab-reproduce-test-alone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&alone);
    let ids = ["threshold-correct", "pll-stabilisation", "pll-states"];
    let mut command = Command::cargo_bin("poplab").unwrap();
    command.args(["reproduce", "--tiny", "--seed", "3", "--threads", "1", "--out"]).arg(&alone);
    for id in ids {
        command.args(["--only", id]);
    }
    command.assert().success();
    let one_by_one = std::fs::read_to_string(alone.join("report.md")).unwrap();
    // A claim's section, its wall time masked: `(_ s for N trials run now ...`.
    let section = |report: &str, id: &str| -> String {
        let from = report.split(&format!("## {id}: ")).nth(1).unwrap();
        let lines = from.split("\n## ").next().unwrap().trim_end().lines();
        lines
            .map(|l| match (l.starts_with("Verdict: **"), l.rfind(" s for ")) {
                (true, Some(at)) => format!("{}(_{}", &l[..l[..at].rfind('(').unwrap()], &l[at..]),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for id in ids {
        assert_eq!(section(&one_by_one, id), section(&report, id), "{id}");
        let plot = format!("plots/{id}.svg");
        assert_eq!(std::fs::read(alone.join(&plot)).unwrap(), std::fs::read(out.join(&plot)).unwrap(), "{plot}");
    }

    // verdicts.json holds every claim's verdict; --compare sets another reproduction's beside them.
    let verdicts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("verdicts.json")).unwrap()).unwrap();
    assert_eq!((verdicts["mode"].as_str(), verdicts["seed"].as_u64()), (Some("tiny"), Some(3)));
    let listed = verdicts["claims"].as_array().unwrap();
    assert_eq!(listed.len(), claims.len(), "{verdicts}");
    let compared = std::env::temp_dir().join(format!("poplab-reproduce-test-compared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&compared);
    Command::cargo_bin("poplab")
        .unwrap()
        .args(["reproduce", "--tiny", "--seed", "3", "--only", "pll-stabilisation", "--compare"])
        .arg(&alone)
        .arg("--out")
        .arg(&compared)
        .assert()
        .success();
    let with = std::fs::read_to_string(compared.join("report.md")).unwrap();
    let table = with.split("## --tiny against --tiny").nth(1).expect("the comparison table");
    // The same seed and design: the same verdict and exponent in both columns.
    let row = table.lines().find(|l| l.starts_with("| pll-stabilisation |")).unwrap();
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!((cells[1], cells[3]), (cells[2], cells[4]), "{row}");
    assert!(row.ends_with("| same |"), "{row}");
    // A directory without verdicts is refused before anything runs.
    let refused = Command::cargo_bin("poplab")
        .unwrap()
        .args(["reproduce", "--tiny", "--compare"])
        .arg(compared.join("data"))
        .arg("--out")
        .arg(compared.join("other"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(!compared.join("other").exists());
    let _ = std::fs::remove_dir_all(&compared);
    let _ = std::fs::remove_dir_all(&alone);
    let _ = std::fs::remove_dir_all(&out);
}
