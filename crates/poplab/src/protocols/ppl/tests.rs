use super::*;
use crate::protocol::Monitor;
use rand_core::SeedableRng;

/// t_virus = 3, t_max = 10, t_emit = 8.
fn small() -> Ppl {
    Ppl::new(4, &Params::parse(&["t_virus=3", "t_max=10", "t_emit=8"]).unwrap()).unwrap()
}

/// A follower, unshielded, no virus, with the given timers.
fn follower(timer_l: u32, timer_i: u32) -> PplState {
    PplState { leader: false, shield: false, timer_l, virus: 0, timer_i }
}

fn leader(timer_l: u32, timer_i: u32) -> PplState {
    PplState { leader: true, ..follower(timer_l, timer_i) }
}

fn with_virus(s: PplState, virus: u32) -> PplState {
    PplState { virus, ..s }
}

fn shielded(s: PplState) -> PplState {
    PplState { shield: true, ..s }
}

#[test]
fn line_1_larger_value_propagation_of_timer_l() {
    let p = small();
    let (a, b) = p.transition(follower(3, 5), follower(7, 5));
    assert_eq!((a.timer_l, b.timer_l), (6, 6));
    let (a, b) = p.transition(follower(9, 5), follower(2, 5));
    assert_eq!((a.timer_l, b.timer_l), (8, 8));
    assert!(!a.leader && !b.leader);
    // max(t - 1, 0) at 2: no timeout yet.
    let (a, b) = p.transition(follower(2, 5), follower(0, 5));
    assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (1, 1, false, false));
}

#[test]
fn line_2_timeout_makes_both_agents_leaders_and_line_3_resets() {
    let p = small();
    for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let (a, b) = p.transition(follower(x, 5), follower(y, 5));
        assert!(a.leader && b.leader, "timers {x}, {y}");
        assert_eq!((a.timer_l, b.timer_l), (10, 10));
    }
}

#[test]
fn line_3_a_leader_resets_both_timers_whatever_its_role() {
    let p = small();
    let (a, b) = p.transition(leader(4, 5), follower(2, 5));
    assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (10, 10, true, false));
    let (a, b) = p.transition(follower(2, 5), leader(0, 5));
    assert_eq!((a.timer_l, b.timer_l, a.leader, b.leader), (10, 10, false, true));
    // Two leaders meet: no line of Algorithm 1 removes either without a virus.
    let (a, b) = p.transition(leader(4, 5), leader(6, 5));
    assert!(a.leader && b.leader);
}

#[test]
fn line_4_viruses_spread_with_decreasing_ttl() {
    let p = small();
    let (a, b) = p.transition(with_virus(follower(5, 5), 3), follower(5, 5));
    assert_eq!((a.virus, b.virus), (2, 2));
    let (a, b) = p.transition(follower(5, 5), with_virus(follower(5, 5), 1));
    assert_eq!((a.virus, b.virus), (0, 0));
}

#[test]
fn line_5_viruses_kill_unshielded_leaders_only() {
    let p = small();
    // Responder leader unshielded, virus arrives with ttl 3 -> 2 > 0: killed.
    let (_, b) = p.transition(with_virus(follower(5, 5), 3), leader(5, 5));
    assert!(!b.leader);
    assert_eq!(b.timer_l, 10, "line 3 ran before line 5");
    // Shielded leader survives.
    let (_, b) = p.transition(with_virus(follower(5, 5), 3), shielded(leader(5, 5)));
    assert!(b.leader);
    // Initiator leader killed too.
    let (a2, _) = p.transition(leader(5, 5), with_virus(follower(5, 5), 2));
    assert!(!a2.leader);
    // A virus of ttl 1 dies in the interaction and kills nobody.
    let (_, b) = p.transition(with_virus(follower(5, 5), 1), leader(5, 5));
    assert!(b.leader);
    // A timeout leader killed at once by a virus present in the pair.
    let (a, b) = p.transition(with_virus(follower(0, 5), 2), follower(1, 5));
    assert!(!a.leader && !b.leader);
    assert_eq!((a.timer_l, b.timer_l), (10, 10));
}

#[test]
fn line_6_individual_timers_count_down_to_zero_not_below() {
    let p = small();
    let (a, b) = p.transition(follower(5, 4), follower(5, 7));
    assert_eq!((a.timer_i, b.timer_i), (3, 6));
    // Followers at 1 reach 0 and are restarted by line 9 without anything else.
    let (a, b) = p.transition(follower(5, 1), follower(5, 0));
    assert_eq!((a.timer_i, b.timer_i), (8, 8));
    assert_eq!((a.virus, b.virus, a.shield, b.shield), (0, 0, false, false));
}

#[test]
fn line_7_initiator_leader_emits_a_virus_and_shields_itself() {
    let p = small();
    let (a, b) = p.transition(leader(10, 1), follower(5, 5));
    assert!(a.leader && a.shield);
    assert_eq!(a.virus, 3, "t_virus");
    assert_eq!(b.virus, 0, "the responder is not infected in the same interaction");
    assert_eq!(a.timer_i, 8, "line 9 restarts the timer");
    // Only an initiator leader emits: a follower initiator at timer_I 1 does nothing.
    let (a, _) = p.transition(follower(5, 1), follower(5, 5));
    assert_eq!((a.virus, a.shield), (0, false));
}

#[test]
fn line_8_responder_leader_loses_its_shield() {
    let p = small();
    let (a, b) = p.transition(follower(5, 5), shielded(leader(10, 1)));
    assert!(b.leader && !b.shield);
    assert_eq!((a.virus, b.virus), (0, 0), "a responder emits no virus");
    assert_eq!(b.timer_i, 8);
    // Both timers run out: the initiator emits, the responder is unshielded, in the same step.
    let (a, b) = p.transition(leader(10, 1), shielded(leader(10, 1)));
    assert!(a.shield && a.virus == 3 && b.leader && !b.shield && b.virus == 0);
}

#[test]
fn line_9_only_expired_timers_restart() {
    let p = small();
    let (a, b) = p.transition(leader(10, 2), shielded(leader(10, 3)));
    assert_eq!((a.timer_i, b.timer_i), (1, 2));
    assert!(!a.shield && b.shield, "nothing happens before timer_I reaches 0");
}

#[test]
fn derived_constants_follow_the_paper() {
    // N = 100: ceil(ln 100) = 5, t_virus = 300, t_max = t_emit = 12 * 300 * 5 = 18000.
    let p = Ppl::new(100, &Params::default()).unwrap();
    assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (300, 18_000, 18_000));
    let params = p.params();
    for (key, value) in [("N", 100.0), ("c", 1.0), ("virus_factor", 60.0), ("emit_factor", 12.0)] {
        assert_eq!(params[key].as_f64(), Some(value), "{key}");
    }
    assert_eq!(params["t_max"], Value::from(18_000));
    assert_eq!(params["ceil_ln_N"], Value::from(5));
    // N = 10: ceil(ln 10) = 3; c = 2, small factors.
    let p = Ppl::new(10, &Params::parse(&["c=2", "virus_factor=0.5", "emit_factor=0.25", "N=12"]).unwrap()).unwrap();
    // ceil(ln 12) = 3: t_virus = round(1.5) = 2, t_max = round(0.25 * 2 * 2 * 3) = 3.
    assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (2, 3, 3));
    // Tiny factors still give timers of at least 1.
    let p = Ppl::new(10, &Params::parse(&["virus_factor=0.01", "emit_factor=0.01"]).unwrap()).unwrap();
    assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (1, 1, 1));
    // Given lengths win; the others keep their formula, computed with the given t_virus.
    let p = Ppl::new(10, &Params::parse(&["t_virus=2", "t_max=6", "virus_factor=9"]).unwrap()).unwrap();
    assert_eq!((p.t_virus(), p.t_max(), p.t_emit()), (2, 6, 72));
    assert_eq!(p.params()["t_max_source"], Value::from("given"));
    assert_eq!(p.params()["t_emit_source"], Value::from("formula"));
}

#[test]
fn parameter_errors_say_how_to_fix() {
    let err = |items: &[&str]| Ppl::new(10, &Params::parse(items).unwrap()).unwrap_err().to_string();
    let e = err(&["N=9"]);
    assert!(e.contains("N >= n = 10") && e.contains("at least 10"), "{e}");
    let e = err(&["c=0.5"]);
    assert!(e.contains("c >= 1"), "{e}");
    assert!(err(&["c=0"]).contains("greater than 0"));
    assert!(err(&["virus_factor=0"]).contains("greater than 0"));
    assert!(err(&["emit_factor=-2"]).contains("greater than 0"));
    assert!(err(&["t_virus=0"]).contains("from 1"));
    assert!(err(&["t_max=0"]).contains("from 1"));
    assert!(err(&["t_emit=0"]).contains("from 1"));
    assert!(err(&["emit_factor=1e12"]).contains("32-bit"));
    assert!(err(&["s=4"]).contains("no parameter 's'"));
}

#[test]
fn safe_set_predicates() {
    let p = small(); // t_max = 10, t_emit = 8
    let safe_leader = shielded(leader(10, 4));
    let f = follower(5, 0);
    assert!(p.l1(&[safe_leader, f]) && !p.l1(&[f, f]) && !p.l1(&[safe_leader, leader(10, 1)]));
    assert!(p.g_half(&[f, safe_leader]) && !p.g_half(&[follower(4, 0), safe_leader]));
    assert!(p.l_safe(&[f, safe_leader]));
    assert!(!p.l_safe(&[f, shielded(leader(10, 3))]), "timer_I 3 < t_emit / 2 = 4");
    assert!(!p.l_safe(&[f, leader(10, 8)]), "unshielded");
    assert!(!p.l_safe(&[shielded(follower(10, 8))]), "not a leader");
    assert!(p.v_clean(&[f, safe_leader]) && !p.v_clean(&[with_virus(f, 1), safe_leader]));
    // S = L1 ∩ G_half ∩ (L_safe ∪ V_clean).
    assert!(p.in_safe_set(&[f, safe_leader]));
    assert!(p.in_safe_set(&[f, leader(10, 0)]), "V_clean suffices");
    assert!(p.in_safe_set(&[with_virus(f, 2), safe_leader]), "L_safe suffices");
    assert!(!p.in_safe_set(&[with_virus(f, 2), leader(10, 0)]), "neither L_safe nor V_clean");
    assert!(!p.in_safe_set(&[follower(4, 0), safe_leader]), "G_half fails");
    // Odd t_max: 2 * timer_L >= t_max.
    let p = Ppl::new(2, &Params::parse(&["t_max=5", "t_emit=5", "t_virus=1"]).unwrap()).unwrap();
    assert!(!p.g_half(&[follower(2, 0)]) && p.g_half(&[follower(3, 0)]));
    assert!(!p.l_safe(&[shielded(leader(5, 2))]) && p.l_safe(&[shielded(leader(5, 3))]));
}

#[test]
fn monitor_counts_agree_with_the_predicates() {
    let p = small();
    let agents = [with_virus(follower(2, 0), 1), shielded(leader(10, 4)), leader(3, 0)];
    let mut m = p.monitor(&agents, &Graph::Complete);
    assert_eq!((m.leaders(), m.low_timers(), m.virus_carriers(), m.safe_leaders()), (2, 2, 1, 1));
    assert!(!m.is_safe());
    // Replace the third agent and the first one.
    m.record([agents[2], agents[0]], [follower(10, 0), follower(10, 0)]);
    assert_eq!((m.leaders(), m.low_timers(), m.virus_carriers(), m.safe_leaders()), (1, 0, 0, 1));
    assert!(m.is_safe());
    assert!(p.in_safe_set(&[follower(10, 0), shielded(leader(10, 4)), follower(10, 0)]));
}

#[test]
fn families_are_as_documented() {
    let p = small();
    let mut rng = PopRng::seed_from_u64(0);
    let all = p.family_configuration("all-leaders", &mut rng).unwrap();
    assert_eq!(all, p.initial_configuration());
    assert!(all.iter().all(|a| a.leader && !a.shield && a.virus == 0 && a.timer_l == 10 && a.timer_i == 8));
    let none = p.family_configuration("no-leader", &mut rng).unwrap();
    assert!(none.iter().all(|a| !a.leader && a.timer_l == 10 && a.virus == 0));
    let storm = p.family_configuration("virus-storm", &mut rng).unwrap();
    assert!(storm.iter().all(|a| a.virus == 3 && !(a.leader && a.shield)));
    let safe = p.family_configuration("safe", &mut rng).unwrap();
    assert!(p.in_safe_set(&safe) && p.l_safe(&safe) && p.v_clean(&safe));
    assert!(p.monitor(&safe, &Graph::Complete).is_safe());
    for family in INFO.families {
        let agents = p.family_configuration(family.name, &mut rng).unwrap();
        assert_eq!(agents.len(), 4, "{}", family.name);
    }
    assert!(p.family_configuration("random", &mut rng).is_none());
}

#[test]
fn random_states_are_uniform_over_each_domain() {
    let p = Ppl::new(4, &Params::parse(&["t_virus=2", "t_max=3", "t_emit=1"]).unwrap()).unwrap();
    let mut rng = PopRng::seed_from_u64(9);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20_000 {
        let s = p.random_state(&mut rng);
        assert!(s.timer_l <= 3 && s.virus <= 2 && s.timer_i <= 1);
        seen.insert(s);
    }
    // 2 * 2 * 4 * 3 * 2 = 96 states, each with probability 1/96.
    assert_eq!(seen.len(), 96);
}

#[test]
fn json_round_trip_and_domain_checks() {
    let p = small();
    let state = PplState { leader: true, shield: false, timer_l: 10, virus: 3, timer_i: 8 };
    let object = p.state_to_json(state);
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort();
    assert_eq!(keys, ["leader", "shield", "timer_i", "timer_l", "virus"]);
    assert_eq!(p.state_from_json(&object), Ok(state));
    let read = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
    let base = r#""leader": true, "shield": true, "timer_l": 10, "virus": 3"#;
    assert!(read(&format!("{{{base}, \"timer_i\": 8}}")).is_ok());
    assert!(read(&format!("{{{base}, \"timer_i\": 9}}")).unwrap_err().to_string().contains("from 0 to 8"));
    assert!(read(&format!("{{{base}}}")).unwrap_err().to_string().contains("missing key \"timer_i\""));
    assert!(
        read(&format!("{{{base}, \"timer_i\": 1, \"timer\": 1}}")).unwrap_err().to_string().contains("unknown key")
    );
    assert!(
        read(r#"{"leader": true, "shield": true, "timer_l": 11, "virus": 0, "timer_i": 0}"#)
            .unwrap_err()
            .to_string()
            .contains("timer_l")
    );
    assert!(
        read(r#"{"leader": true, "shield": true, "timer_l": 0, "virus": 4, "timer_i": 0}"#)
            .unwrap_err()
            .to_string()
            .contains("virus")
    );
    assert!(read(r#"{"leader": true, "shield": 0, "timer_l": 0, "virus": 0, "timer_i": 0}"#).is_err());
}

#[test]
fn trace_counts_carriers_shielded_leaders_and_min_timer() {
    let p = small();
    let agents = [with_virus(follower(7, 0), 1), shielded(leader(10, 0)), shielded(follower(4, 0)), leader(9, 0)];
    assert_eq!(p.trace_columns(), ["virus_carriers", "shielded_leaders", "min_timer_l"]);
    assert_eq!(p.trace_values(&crate::protocol::tally(&agents)), vec![1.0, 1.0, 4.0]);
}

#[test]
fn leader_threat_rises_along_both_ways_to_lose_the_leader() {
    let p = Ppl::new(4, &Params::parse(&["t_virus=6", "t_max=40", "t_emit=40"]).unwrap()).unwrap();
    let score = |agents: &[PplState]| p.holding_score(0, agents).unwrap();
    let safe = p.family_configuration("safe", &mut PopRng::seed_from_u64(0)).unwrap();
    assert_eq!((score(&safe), p.holding_score(1, &safe), p.holding_score(2, &safe)), (0, Some(0), None));
    // Timeouts: two low timers score higher than one, and lower timers higher still.
    let mut one_low = safe.clone();
    one_low[1].timer_l = 5;
    let mut two_low = one_low.clone();
    two_low[2].timer_l = 5;
    let mut lower = two_low.clone();
    lower[2].timer_l = 2;
    lower[1].timer_l = 2;
    assert!(score(&one_low) < score(&two_low) && score(&two_low) < score(&lower));
    // Suicides: a fresh virus scores above 0; the same virus later in the leader's timer_I, or
    // with the shield dropped, scores higher; more carriers of an unshielded leader's virus higher
    // still. (The shielded cost leaves out the final meeting with a carrier, so a shielded leader
    // whose virus will outlive its timer_I can score above an unshielded one with one carrier.)
    let mut fresh = safe.clone();
    fresh[0].virus = 6;
    let mut later = fresh.clone();
    later[0].timer_i = 10;
    let mut unshielded = later.clone();
    unshielded[0].shield = false;
    let mut spread = unshielded.clone();
    spread[3].virus = 5;
    let steps = [score(&fresh), score(&later), score(&unshielded), score(&spread)];
    assert!(0 < steps[0] && steps[0] < steps[1] && steps[0] < steps[2] && steps[2] < steps[3], "{steps:?}");
    // A virus of 1 cannot kill (lines 4-5): no suicide threat.
    let mut spent = later.clone();
    spent[0].virus = 1;
    assert_eq!(score(&spent), 0);
}
