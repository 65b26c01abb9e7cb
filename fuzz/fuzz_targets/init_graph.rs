//! Initial configurations (`InitSpec`: names, `counts:`, JSON text) and interaction graphs (names,
//! arc lists, `@FILE` arc lists through `spec::read_graph`): no panic; what prints parses back to
//! itself; a graph that validates gives a scheduler.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::spec::read_graph;

fuzz_target!(|data: &[u8]| {
    let [name, json, arcs, size] = <[String; 4]>::try_from(poplab_fuzz::parts(data, 4)).unwrap();
    match name.parse::<InitSpec>() {
        Ok(spec) => {
            if let InitSpec::Counts(_) | InitSpec::Default | InitSpec::Random = spec {
                assert_eq!(spec.name().parse::<InitSpec>().ok(), Some(spec.clone()), "{name}");
            }
        }
        Err(error) => poplab_fuzz::check_error(&error),
    }
    match InitSpec::from_json(&json) {
        Ok(spec) => assert!(matches!(spec, InitSpec::Explicit(_) | InitSpec::Counts(_)), "{spec:?}"),
        Err(error) => poplab_fuzz::check_error(&error),
    }
    match name.parse::<Graph>() {
        Ok(graph) => assert_eq!(graph.name().parse::<Graph>().ok(), Some(graph)),
        Err(error) => poplab_fuzz::check_error(&error),
    }
    let n = size.bytes().fold(0usize, |n, b| n.wrapping_mul(31).wrapping_add(usize::from(b))) % 70;
    match Graph::parse_arcs(&arcs) {
        Ok(Graph::Arcs(list)) => {
            let printed: String = list.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
            assert_eq!(Graph::parse_arcs(&printed).ok(), Some(Graph::Arcs(list.clone())));
            let graph = Graph::Arcs(list);
            match graph.validate(n) {
                Ok(()) if n >= 2 => assert!(graph.scheduler(n).is_ok()),
                Ok(()) => {}
                Err(error) => poplab_fuzz::check_error(&error),
            }
        }
        Ok(other) => panic!("an arc list parsed as {other:?}"),
        Err(error) => poplab_fuzz::check_error(&error),
    }
    // The same text as an @FILE, read with the size limit for n agents.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("arcs.txt");
    std::fs::write(&path, arcs.as_bytes()).unwrap();
    match read_graph(&format!("@{}", path.display()), n) {
        Ok(graph) => assert_eq!(Graph::parse_arcs(&arcs).ok(), Some(graph)),
        Err(error) => poplab_fuzz::check_error(&error),
    }
});
