//! The documents agree with the code where a list can be read from the code: the fuzz targets,
//! the Python package's modules and the steps of CI; and with each other where they state the
//! same figure (the build time).

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_fuzzing_chapter_has_a_row_per_fuzz_target() {
    let manifest = read("fuzz/Cargo.toml");
    let targets: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|bin| bin.lines().find_map(|l| l.trim().strip_prefix("name = ")))
        .map(|name| name.trim_matches('"'))
        .collect();
    assert!(targets.len() >= 8, "{targets:?}");
    let chapter = read("docs/guide/src/fuzzing.md");
    for target in targets {
        assert!(chapter.contains(&format!("| `{target}` |")), "docs/guide/src/fuzzing.md has no row for {target}");
    }
}

#[test]
fn architecture_names_every_module_of_the_python_package() {
    let architecture = read("ARCHITECTURE.md");
    let mut modules: Vec<String> = std::fs::read_dir(repo().join("crates/poplab-py/python/poplab"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".py"))
        .collect();
    modules.sort();
    assert!(modules.len() >= 12, "{modules:?}");
    for module in modules {
        assert!(architecture.contains(&format!("`{module}`")), "ARCHITECTURE.md does not name python/poplab/{module}");
    }
}

#[test]
fn the_summaries_of_ci_name_every_script_it_runs() {
    let ci = read(".ci/run");
    let scripts: Vec<&str> = ci
        .lines()
        .filter(|l| l.starts_with("step ") || l.contains(" step "))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("scripts/")))
        .collect();
    assert!(scripts.len() >= 6, "{scripts:?}");
    for summary in ["ARCHITECTURE.md", "docs/guide/src/layout.md"] {
        let text = read(summary);
        for script in &scripts {
            assert!(text.contains(script), "{summary} does not say that CI runs {script}");
        }
    }
}

/// The minutes of `... about M minutes` after `lead` in `text`.
fn minutes_after(text: &str, lead: &str) -> String {
    let at = text.find(lead).unwrap_or_else(|| panic!("no '{lead}'")) + lead.len();
    text[at..].split_whitespace().next().unwrap_or_default().to_string()
}

#[test]
fn the_readme_and_the_installing_chapter_state_the_same_build_time() {
    let readme = minutes_after(&read("README.md"), "build about");
    let installing = minutes_after(&read("docs/guide/src/installing.md"), "The release build takes about");
    assert!(readme.parse::<f64>().is_ok(), "README.md: build about {readme} minutes");
    assert_eq!(readme, installing, "README.md and docs/guide/src/installing.md state different build times");
}
