"""The protocols of ppsim's README (Doty & Severson), in ppsim's API, as its README writes them:
approximate majority (example 1), discrete averaging (example 2), and the leader election of
"Simple and Efficient Leader Election" (SOSA 2018) with an `Agent` dataclass (example 3). Shared by
the in-process benchmark (scripts/bench/ppsim_inprocess.py) and the tests of `poplab.Simulation`
(crates/poplab-py/tests/test_simulation.py), so both run the very same code.

The README computes `Ulogn = u * int(np.log2(n))` with `u` still bound to the string 'U' of
example 1, which neither ppsim nor Python can compare with an int once markers appear; `U = 2`
is the integer that reproduces the README's outputs (384 states, counters up to 59 at n = 10^9).
"""
import dataclasses
from dataclasses import dataclass
from math import ceil, floor

try:
    import numpy as np
except ImportError:  # plain python3, for --help; the tools' venvs have numpy
    np = None

ANGLUIN = {('L', 'L'): ('L', 'F')}

# README example 1
a, b, u = 'A', 'B', 'U'
approximate_majority = {
    (a, b): (u, u),
    (a, u): (a, a),
    (b, u): (b, b)
}


# README example 2
def discrete_averaging(a, b):
    avg = (a + b) / 2
    return floor(avg), ceil(avg)


def three_consecutive_values(config):
    states = config.keys()
    return max(states) - min(states) <= 2


# README example 3
@dataclass(unsafe_hash=True)
class Agent:
    role: str = 'contender'
    flip_bit: int = 0
    marker: int = 0
    phase: str = 'marking'
    counter: int = 0


def leader_election(v: Agent, u: Agent, loglogn: int, Ulogn: int):
    # marking phase
    if v.phase == 'marking':
        if v.counter >= 3 * loglogn and u.flip_bit == 0:
            v.phase = 'tournament'
        else:
            v.counter += 1
        if v.counter == 4 * loglogn:
            v.marker = 1
            v.phase = 'tournament'

    if v.phase == 'tournament':
        if v.role == 'contender':
            if u.marker and v.counter <= Ulogn:
                v.counter += 1
            if v.counter < u.counter:
                v.role = 'minion'
            if u.role == 'contender' and v.counter == u.counter and v.flip_bit < u.flip_bit:
                v.role = 'minion'
        v.counter = max(v.counter, u.counter)

    v.flip_bit = 1 - v.flip_bit

    return v


def transition(v: Agent, u: Agent, loglogn: int, Ulogn: int):
    return leader_election(v, dataclasses.replace(u), loglogn, Ulogn), leader_election(u, dataclasses.replace(v), loglogn, Ulogn)


def one_leader(config):
    leader_states = [state for state in config.keys() if state.role == 'contender']
    return len(leader_states) == 1 and config[leader_states[0]] == 1


U = 2  # the README's `u` for Ulogn (see above)
