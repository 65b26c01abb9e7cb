//! `pll-sym` states as JSON objects: P_LL's fields (from `core`) plus `ready`, `status_l`, `coin`.

use super::{Coin, Group, PllSym, State, Status};
use crate::protocol::{StateError, json_bool, json_expect_keys, json_uint};
use crate::protocols::pll::core::{self, Additional, COMMON_KEYS};
use serde_json::{Map, Value};

/// The values of `coin`, as its error says them.
const COINS: &str = "\"J\", \"K\", \"F0\" or \"F1\"";

impl PllSym {
    /// The paper's names: `leader`, `tick`, `status`, `epoch`, `init`, `color`, the group's
    /// additional variables (`count`; `level_q`, `done`; `rand`; `level_b` and, for a leader,
    /// `ready`), `status_l` for agents of status A or B in epoch 3, and `coin` (J, K, F0, F1) for a
    /// follower.
    pub(super) fn to_json(state: State) -> Map<String, Value> {
        let mut map = state.common().to_json();
        if let Group::A3 { ready, .. } = state.group
            && state.leader
        {
            map.insert("ready".into(), Value::Bool(ready));
        }
        if state.has_status_l() {
            map.insert("status_l".into(), Value::from(state.status_l));
        }
        if !state.leader {
            map.insert("coin".into(), Value::from(state.coin.letter()));
        }
        map
    }

    /// Reads exactly the keys [`PllSym::to_json`] writes for such an agent.
    pub(super) fn parse_json(&self, object: &Map<String, Value>) -> Result<State, StateError> {
        let status =
            core::status_from_json(object, &[("X", Status::X), ("Y", Status::Y), ("A", Status::A), ("B", Status::B)])?;
        let epoch = core::epoch_from_json(object)?;
        let leader = json_bool(object, "leader")?;
        let mut keys: Vec<&str> = COMMON_KEYS.to_vec();
        keys.extend_from_slice(match (status, epoch) {
            (Status::X | Status::Y, _) => &[],
            (Status::B, _) => &["count"],
            (Status::A, 1) => &["level_q", "done"],
            (Status::A, 2) => &["rand"],
            (Status::A, _) => &["level_b"],
        });
        if status == Status::A && epoch == 3 && leader {
            keys.push("ready");
        }
        let has_status_l = epoch == 3 && matches!(status, Status::A | Status::B);
        if has_status_l {
            keys.push("status_l");
        }
        if !leader {
            keys.push("coin");
        }
        if let Some(extra) = object.keys().find(|k| !keys.contains(&k.as_str()))
            && ["count", "level_q", "done", "rand", "level_b", "ready", "status_l", "coin"].contains(&extra.as_str())
        {
            return Err(StateError::NotItsVariable {
                key: extra.clone(),
                agent: format!(
                    "a {} of status {} in epoch {epoch}",
                    if leader { "leader" } else { "follower" },
                    status.letter()
                ),
                variables: format!("variables: {}", keys.join(", ")),
            });
        }
        json_expect_keys(object, &keys)?;
        let additional = self.core.additional_from_json(object, status.as_pll(), epoch)?;
        let ready = matches!(additional, Additional::LevelB(_)) && leader && json_bool(object, "ready")?;
        let group = Group::of(status == Status::Y, epoch, additional, ready);
        let coin = if leader {
            Coin::J
        } else {
            match object.get("coin") {
                Some(Value::String(s)) => *Coin::ALL
                    .iter()
                    .find(|c| c.letter() == s)
                    .ok_or_else(|| StateError::value("coin", COINS, format!("\"{s}\"")))?,
                Some(other) => return Err(StateError::value("coin", COINS, other)),
                None => return Err(StateError::Missing("coin".into())),
            }
        };
        let init = core::init_from_json(object)?;
        let state = State {
            leader,
            coin,
            tick: json_bool(object, "tick")?,
            init,
            color: json_uint(object, "color", 2)? as u8,
            status_l: if has_status_l { json_uint(object, "status_l", 1)? as u8 } else { 0 },
            group,
        };
        self.check_state(state)
    }
}
