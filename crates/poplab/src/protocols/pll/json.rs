//! P_LL states as JSON objects keyed by the paper's variable names (the writer is
//! `Common::to_json` of `core`).

use super::core::{self, COMMON_KEYS};
use super::{Group, Pll, State, Status};
use crate::protocol::{StateError, json_bool, json_expect_keys, json_uint};
use serde_json::{Map, Value};

impl Pll {
    /// [`crate::protocol::StateJson::state_from_json`]: the six common variables and exactly the
    /// additional variables of the agent's group.
    pub(super) fn parse_json(&self, object: &Map<String, Value>) -> Result<State, StateError> {
        let status = core::status_from_json(object, &[("X", Status::X), ("A", Status::A), ("B", Status::B)])?;
        let epoch = core::epoch_from_json(object)?;
        let (extra, group_name): (&[&str], &str) = match (status, epoch) {
            (Status::X, _) => (&[], "V_X"),
            (Status::B, _) => (&["count"], "V_B"),
            (Status::A, 1) => (&["level_q", "done"], "V_A ∩ V_1"),
            (Status::A, 2) => (&["rand"], "V_A ∩ V_2"),
            (Status::A, _) => (&["level_b"], "V_A ∩ V_3"),
        };
        let keys: Vec<&str> = COMMON_KEYS.iter().chain(extra).copied().collect();
        if let Some(extra_key) = object.keys().find(|k| !keys.contains(&k.as_str())) {
            if ["count", "level_q", "done", "rand", "level_b"].contains(&extra_key.as_str()) {
                return Err(StateError::NotItsVariable {
                    key: extra_key.clone(),
                    agent: format!("group {group_name} (status {}, epoch {epoch})", status.letter()),
                    variables: format!(
                        "additional variables: {}",
                        if extra.is_empty() { "none".to_string() } else { extra.join(", ") }
                    ),
                });
            }
            json_expect_keys(object, &keys)?;
        }
        let group = Group::of(epoch, self.core.additional_from_json(object, status, epoch)?);
        let init = core::init_from_json(object)?;
        let state = State {
            leader: json_bool(object, "leader")?,
            tick: json_bool(object, "tick")?,
            init,
            color: json_uint(object, "color", 2)? as u8,
            group,
        };
        self.check_state(state)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{a2, pll};
    use super::*;
    use crate::protocol::{Protocol, StateJson};
    use crate::rng::PopRng;
    use rand_core::SeedableRng;

    #[test]
    fn json_round_trip_and_group_checks() {
        let p = pll(1000);
        let mut rng = PopRng::seed_from_u64(3);
        let mut seen = [0u32; 5];
        for _ in 0..20_000 {
            let s = p.random_state(&mut rng);
            assert_eq!(p.check_state(s), Ok(s));
            assert_eq!(p.state_from_json(&p.state_to_json(s)), Ok(s));
            seen[match s.group {
                Group::X { .. } => 0,
                Group::B { .. } => 1,
                Group::A1 { .. } => 2,
                Group::A2 { .. } => 3,
                Group::A3 { .. } => 4,
            }] += 1;
        }
        // Group weights 3 : 3 c_max : 2 (c_max + 1) : rand_max : c_max + 1 = 3 : 1230 : 822 : 31 : 411.
        let expected = [3.0, 1230.0, 822.0, 31.0, 411.0].map(|w| 20_000.0 * w / 2497.0);
        let chi2: f64 = seen.iter().zip(expected).map(|(&o, e)| (f64::from(o) - e).powi(2) / e).sum();
        assert!(chi2 < 18.47, "chi2 = {chi2}, seen = {seen:?}");
        assert_eq!(p.state_count(), 48 * 2497);

        let parse = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        let ok = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":7}"#;
        assert_eq!(parse(ok), Ok(a2(true, 7)));
        let x = r#"{"leader":true,"tick":false,"status":"X","epoch":1,"init":1,"color":0}"#;
        assert_eq!(parse(x), Ok(State::INITIAL));
        let wrong_group = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"level_q":7}"#;
        assert!(parse(wrong_group).unwrap_err().to_string().contains("not a variable of group V_A ∩ V_2"));
        let missing = r#"{"leader":true,"tick":false,"status":"B","epoch":2,"init":2,"color":1}"#;
        assert!(parse(missing).unwrap_err().to_string().contains("missing key \"count\""));
        let too_big = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":32}"#;
        assert!(parse(too_big).is_err());
        let zero = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":0}"#;
        assert!(parse(zero).is_err());
        let count = r#"{"leader":false,"tick":false,"status":"B","epoch":1,"init":1,"color":1,"count":410}"#;
        assert!(parse(count).is_err());
        let bad_status = r#"{"leader":false,"tick":false,"status":"Y","epoch":1,"init":1,"color":1}"#;
        assert!(parse(bad_status).is_err());
        let bad_epoch = r#"{"leader":false,"tick":false,"status":"X","epoch":0,"init":1,"color":1}"#;
        assert!(parse(bad_epoch).is_err());
        let unknown = r#"{"leader":false,"tick":false,"status":"X","epoch":1,"init":1,"color":1,"foo":1}"#;
        assert!(parse(unknown).unwrap_err().to_string().contains("unknown key \"foo\""));
    }
}
