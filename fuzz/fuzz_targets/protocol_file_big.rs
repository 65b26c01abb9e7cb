//! Big valid protocol files, built from the input: up to 5000 states and 20000 rules (files of up
//! to a few MB). Each must parse, with every state and rule, within libFuzzer's `-timeout`: a
//! parse that grows faster than the file shows up as a timeout.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::protocols::custom::file;
use std::fmt::Write;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let states = 2 + usize::from(u16::from_le_bytes([data[0], data[1]])) % 5000;
    let rules_wanted = usize::from(u16::from_le_bytes([data[2], data[3]])) % 20_000;
    let body = &data[4..];
    let byte = |i: usize| usize::from(body.get(i % body.len().max(1)).copied().unwrap_or(0));
    // State names vary in length and spelling with the input; the index keeps them distinct.
    let name = |i: usize| format!("s{i}{}", "x".repeat(byte(i) % 8));
    let outputs = ["leader", "follower", "yes", "no", "undecided"];
    let mut text = String::from("name = \"big\"\n[states]\n");
    for i in 0..states {
        writeln!(text, "\"{}\" = \"{}\"", name(i), outputs[byte(i) % outputs.len()]).unwrap();
    }
    text.push_str("[rules]\n");
    let mut pairs = std::collections::HashSet::new();
    for r in 0..rules_wanted {
        let (a, b) = ((r * 7919 + byte(r)) % states, (r / states + byte(r + 1) * 31) % states);
        if !pairs.insert((a, b)) {
            continue;
        }
        let (c, d) = (byte(r + 2) % states, byte(r + 3) % states);
        // A randomized rule: two distinct results (a TOML table has each key once).
        if byte(r) % 5 == 0 && c != d {
            writeln!(
                text,
                "\"{},{}\" = {{ \"{},{}\" = 0.5, \"{},{}\" = 0.25 }}",
                name(a),
                name(b),
                name(c),
                name(d),
                name(d),
                name(c)
            )
            .unwrap();
        } else {
            writeln!(text, "\"{},{}\" = \"{},{}\"", name(a), name(b), name(c), name(d)).unwrap();
        }
    }
    writeln!(text, "[init]\n\"{}\" = 0.5\n\"{}\" = 1\n[stop]\nsafe = \"silent\"", name(0), name(1)).unwrap();
    let definition = file::parse(&text, "big.toml").unwrap_or_else(|e| panic!("a valid file is refused: {e}"));
    assert_eq!(definition.states.len(), states);
    assert_eq!(definition.rules.len(), pairs.len());
});
