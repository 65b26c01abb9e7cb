"""ppsim's Simulation API beyond running: state_list (reachable states), reactions,
enabled_reactions, null_probability, rule, time_to_steps, set_config,
sample_future_configuration, snapshots, run(timer=True), and the refusal of non-conservative CRNs."""

import math
import pickle
import sys

import numpy as np
import pytest
from scipy import stats

import poplab
from poplab import HistoryPlotter, RuleError, Simulation, Snapshot, StatePlotter, TimeUpdate

ALPHA = 0.001
MAJORITY = {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "U"): ("B", "B")}


def discrete_averaging(a, b):
    avg = (a + b) / 2
    return math.floor(avg), math.ceil(avg)


def counter(a, b):
    return a + 1, b


# state_list: ppsim's reachable states.


def test_state_list_of_discrete_averaging_is_every_value_between():
    sim = Simulation({0: 500, 50: 500}, discrete_averaging, seed=1)
    assert sim.state_list == list(range(51))
    assert sim.config_array.tolist() == [500] + [0] * 49 + [500]
    assert list(sim.history.columns) == [str(i) for i in range(51)]
    # The lazy listing is another thing: the states met so far, fewer before a run.
    assert len(sim.states_met) < 51


def test_state_list_of_a_dict_rule_holds_its_states_as_ppsim():
    rule = {**MAJORITY, ("X", "Y"): ("Z", "Z")}
    sim = Simulation({"A": 5, "B": 5}, rule, seed=1)
    assert sim.state_list == ["A", "B", "U", "X", "Y", "Z"]


def test_an_unbounded_rule_falls_back_to_the_states_met(monkeypatch):
    monkeypatch.setattr(Simulation, "MAX_ENUMERATED_STATES", 40)
    sim = Simulation({0: 10}, counter, seed=1)
    with pytest.warns(UserWarning, match="more than 40 states are reachable"):
        listed = sim.state_list
    assert listed == sorted(sim.states_met)
    before = len(sim.state_list)
    sim.run(3)
    assert len(sim.state_list) > before and sim.state_list == sorted(sim.states_met)
    assert sim.config_array.sum() == 10 and len(sim.config_array) == len(sim.state_list)


def test_a_rule_failing_during_the_enumeration_raises_rule_error():
    def broken(a, b):
        if a == 2:
            raise KeyError("boom")
        return discrete_averaging(a, b)

    sim = Simulation({0: 5, 4: 5}, broken, seed=1)
    with pytest.raises(RuleError, match="reachable states were enumerated: KeyError") as info:
        sim.state_list
    assert isinstance(info.value.__cause__, KeyError)


def test_the_reachable_states_are_enumerated_on_first_use_only():
    # ppsim enumerates at construction; poplab when state_list (or what reads it) is first asked
    # for: a run that never reads it calls the rule only for the pairs it meets.
    calls = []

    def averaging(a, b):
        calls.append((a, b))
        return discrete_averaging(a, b)

    sim = Simulation({0: 50, 50: 50}, averaging, seed=1)
    # Construction meets the initial states' pairs only (the engine's first table).
    assert set(calls) <= {(a, b) for a in (0, 50) for b in (0, 50)}
    sim.run(0.2)
    during_run = len(calls)
    assert len(sim.state_list) == 51 and len(calls) > during_run
    # The same trajectory as a simulation that enumerated first.
    eager = Simulation({0: 50, 50: 50}, discrete_averaging, seed=1)
    assert len(eager.state_list) == 51
    eager.run(0.2)
    assert eager.steps == sim.steps and eager.config_dict == sim.config_dict


# rule, time_to_steps.


def test_rule_gives_the_users_rule_as_given():
    sim = Simulation({"A": 5, "B": 5}, MAJORITY, seed=1)
    assert sim.rule("A", "B") == ("U", "U") and sim.rule("B", "A") is None

    def mutating(a, b, k):
        a.append(k)

    sim = Simulation({(): 2}, lambda a, b, k: (a + (k,), b) if len(a) < 2 else None, k=7, seed=1)
    assert sim.rule((), ()) == ((7,), ())
    lists = Simulation({"x": 2}, lambda a, b: None, seed=1)
    assert lists.rule("x", "y") == ("x", "y")  # None gives its arguments back, as in ppsim


def test_time_to_steps_is_floor_of_time_n():
    sim = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1)
    assert [sim.time_to_steps(t) for t in (0, 0.0015, 2.5, 1e6)] == [0, 1, 2500, 10**9]


# reactions, enabled_reactions, null_probability.


def test_reactions_in_ppsims_notation():
    sim = Simulation({0: 5, 50: 5}, discrete_averaging, seed=1)
    lines = sim.reactions.splitlines()
    # Every pair two or more apart averages; width 2 (the widest state, 50), right-justified.
    assert len(lines) == sum(1 for i in range(51) for j in range(i) if i - j >= 2)
    assert " 0,  2  -->   1,  1" in lines and "48, 50  -->  49, 49" in lines
    law = {("x", "r"): {("x", "p"): 0.25, ("x", "r"): 0.75}}  # the null outcome is no reaction
    assert Simulation({"x": 1, "r": 9}, law, seed=1).reactions == "r, x  -->  p, x      with probability 0.25"
    one_way = Simulation({"x": 1, "r": 9}, law, transition_order="asymmetric", seed=1)
    assert one_way.reactions == "r, x  -->  p, x      with probability 0.125"


def test_enabled_reactions_are_those_of_present_states():
    sim = Simulation({24: 1, 26: 1, 25: 8}, discrete_averaging, seed=1)
    assert sim.enabled_reactions == "24, 26  -->  25, 25"
    sim = Simulation({"A": 1, "B": 1}, MAJORITY, seed=1)
    assert sim.enabled_reactions == "A, B  -->  U, U"


@pytest.mark.parametrize("order, share", [("symmetric", 1.0), ("asymmetric", 0.5)])
def test_null_probability_equals_the_closed_form(order, share):
    counts = {"A": 37, "B": 21, "U": 42}
    sim = Simulation(counts, MAJORITY, transition_order=order, seed=1)
    pairs = 100 * 99 / 2
    expected = 1 - share * (37 * 21 + 37 * 42 + 21 * 42) / pairs
    assert sim.null_probability == pytest.approx(expected, rel=1e-12)
    # An imbalanced rock-paper-scissors: laws (the rest of 1 is null); given for one order, so
    # asymmetric counts each at half its probability.
    r, p, s = "rock", "paper", "scissors"
    rps = {(r, s): {(r, r): 0.9}, (p, r): {(p, p): 0.6}, (s, p): {(s, s): 0.3}}
    sim = Simulation({r: 10, p: 20, s: 30}, rps, transition_order=order, seed=1)
    expected = 1 - share * (0.9 * 10 * 30 + 0.6 * 20 * 10 + 0.3 * 30 * 20) / (60 * 59 / 2)
    assert sim.null_probability == pytest.approx(expected, rel=1e-12)


def test_null_probability_is_the_engines_law_of_one_step():
    # Leader election from 50 leaders of 100: a step is non-null with probability C(50,2)/C(100,2).
    sim = Simulation({"L": 50, "F": 50}, {("L", "L"): ("L", "F")}, seed=3)
    p = 1 - sim.null_probability
    assert p == pytest.approx(1225 / 4950)
    samples = sim.sample_future_configuration(0.01, num_samples=3000)  # one interaction each
    changed = int((samples["L"] == 49).sum())
    assert set(samples["L"]) <= {49, 50}
    assert stats.binomtest(changed, 3000, p).pvalue > ALPHA


def test_null_probability_is_refused_off_the_complete_graph():
    sim = Simulation({"L": 10}, {("L", "L"): ("L", "F")}, graph="ring", seed=1)
    with pytest.raises(ValueError, match="complete graph"):
        sim.null_probability


# set_config, sample_future_configuration.


def test_set_config_changes_the_configuration_at_the_current_time():
    n = 10**4
    sim = Simulation({"A": n // 2 + 100, "B": n // 2 - 100}, MAJORITY, seed=2)
    sim.run(2)
    rows = len(sim.history)
    sim.set_config({"A": 10, "B": 10, "U": n - 21})  # one agent fewer, as rps_oscillator removes x
    assert sim.time == 2.0 and sim.population == n - 1 and sim.n == n
    assert len(sim.history) == rows + 1 and sim.history.index[-1] == 2.0
    assert sim.history.iloc[-1].tolist() == [10, 10, n - 21]
    sim.run(1)
    assert sim.time == 3.0 and sum(sim.config_dict.values()) == n - 1
    assert (sim.history.iloc[rows:].sum(axis=1) == n - 1).all()
    sim.set_config(np.array([n, 0, 0]))  # counts in the order of state_list
    assert sim.config_dict == {"A": n} and sim.population == n
    again = pickle.loads(pickle.dumps(sim))
    assert again.config_dict == {"A": n} and again.time == 3.0


def test_set_config_continues_the_same_way_for_the_same_seed():
    def trajectory():
        sim = Simulation({"A": 600, "B": 400}, MAJORITY, seed=5)
        sim.run(1)
        sim.set_config({"A": 500, "B": 500})
        sim.run(2)
        return sim.history

    assert trajectory().equals(trajectory())


def test_sample_future_configuration_rows_sum_to_n_and_leave_the_simulation():
    n = 1000
    sim = Simulation({"A": 550, "B": 450}, MAJORITY, seed=4)
    sim.run(1)
    before = (sim.steps, sim.config_dict)
    samples = sim.sample_future_configuration(3, num_samples=200)
    assert samples.shape == (200, 3) and samples.index.name == "trial #"
    assert list(samples.columns) == list(sim.history.columns)
    assert (samples.sum(axis=1) == n).all()
    assert (sim.steps, sim.config_dict) == before
    # The samples differ from one another (independent draws) and B declines on average.
    assert samples.drop_duplicates().shape[0] > 100
    assert samples["B"].mean() < before[1]["B"]
    # A silent configuration stays where it is.
    sim.run()
    assert (sim.sample_future_configuration(5, num_samples=3).to_numpy() == sim.config_array).all()


# Snapshots.


@pytest.fixture
def agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


class Recorder(Snapshot):
    def __init__(self):
        super().__init__()
        self.update_time = 0.0
        self.seen = []

    def update(self, index=None):
        super().update(index)
        self.seen.append((self.time, self.config.copy()))


def test_snapshots_are_updated_while_running_and_can_go_back():
    sim = Simulation({"A": 600, "B": 400}, MAJORITY, seed=1)
    recorder = Recorder()
    sim.add_snapshot(recorder)
    sim.run(5, history_interval=0.5)
    times = [t for t, _ in recorder.seen]
    assert times[0] == 0.0 and times[-1] == 5.0 and len(times) >= 6 and times == sorted(times)
    assert all(config.sum() == 1000 for _, config in recorder.seen)
    sim.set_snapshot_index(3)
    assert recorder.time == 1.5 and (recorder.config == sim.configs[3]).all()
    sim.set_snapshot_time(2.2)
    assert recorder.time == 2.5
    sim.set_snapshot_time(99)
    assert recorder.time == 5.0


def test_state_plotter_shows_counts_and_categories(agg):
    sim = Simulation({0: 50, 50: 50}, discrete_averaging, seed=1)
    bars = StatePlotter(yscale="symlog")
    sim.add_snapshot(bars)
    assert len(bars.ax.patches) == 51 and bars.ax.get_yscale() == "symlog"
    sim.run(2)
    assert [r.get_height() for r in bars.ax.patches] == sim.config_array.tolist()
    assert bars.ax.get_title() == "Time  2.000"
    parity = StatePlotter(state_map=lambda s: s % 3 if s < 30 else None)
    sim.add_snapshot(parity)
    config = sim.config_array
    assert parity.categories == [0, 1, 2]
    assert [r.get_height() for r in parity.ax.patches] == [config[i:30:3].sum() for i in range(3)]


def test_plotters_follow_the_states_a_run_meets(agg, monkeypatch):
    # An unbounded rule: state_list lists the states met, and a run meets new ones. A plotter added
    # before the run follows them (it raised a shape mismatch in matmul on the next update).
    monkeypatch.setattr(Simulation, "MAX_ENUMERATED_STATES", 40)
    sim = Simulation({0: 10}, counter, seed=1)
    with pytest.warns(UserWarning):
        sim.state_list
    parity = StatePlotter(state_map=lambda s: s % 2)
    every = StatePlotter()
    lines = HistoryPlotter(state_map=lambda s: s % 2)
    for snapshot in (parity, every, lines):
        sim.add_snapshot(snapshot)
    before = len(sim.state_list)
    sim.run(3)
    sim.run(2)
    assert len(sim.state_list) > before
    config = sim.config_array
    assert parity.categories == [0, 1]
    assert [r.get_height() for r in parity.ax.patches] == [config[0::2].sum(), config[1::2].sum()]
    assert [r.get_height() for r in every.ax.patches] == config.tolist()
    assert every.categories == sim.state_list
    drawn = {line.get_label(): line.get_ydata()[-1] for line in lines.ax.get_lines()}
    assert drawn == {"0": config[0::2].sum(), "1": config[1::2].sum()}


def test_history_plotter_draws_the_history(agg):
    sim = Simulation({"A": 600, "B": 400}, MAJORITY, seed=1)
    lines = HistoryPlotter(state_map=lambda s: "decided" if s != "U" else "undecided")
    sim.add_snapshot(lines)
    sim.run(4)
    drawn = {line.get_label(): list(line.get_ydata()) for line in lines.ax.get_lines()}
    assert set(drawn) == {"decided", "undecided"}
    assert drawn["undecided"] == sim.history["U"].tolist()
    assert lines.ax.get_ylim()[1] == pytest.approx(1100)


def test_snapshot_slider_with_and_without_ipywidgets(monkeypatch):
    sim = Simulation({"A": 60, "B": 40}, MAJORITY, seed=1)
    recorder = Recorder()
    sim.add_snapshot(recorder)
    sim.run(3)
    with pytest.raises(ValueError, match="'index' or 'time'"):
        sim.snapshot_slider("row")
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        pass
    else:
        slider = sim.snapshot_slider("index")
        slider.children[0].value = 2
        assert recorder.time == 2.0
        assert sim.snapshot_slider("time").children[0].max == 3.0
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ImportError, match="set_snapshot_index"):
        sim.snapshot_slider()


def test_snapshots_are_not_pickled():
    sim = Simulation({"A": 60, "B": 40}, MAJORITY, seed=1)
    sim.add_snapshot(Recorder())
    sim.run(2)
    again = pickle.loads(pickle.dumps(sim))
    assert again.snapshots == [] and again.state_list == ["A", "B", "U"] and again.history.equals(sim.history)


# run(timer=True).


def test_timer_without_tqdm_writes_a_bar_to_stderr(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    sim = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1)
    sim.run(4, timer=True)
    err = capsys.readouterr().err
    assert "100%|####################| 4.000/4 time simulated" in err
    assert sim.snapshots == []  # the bar was the run's own
    sim.run(timer=True)  # until silent: no bound, the time simulated
    assert capsys.readouterr().err.rstrip().endswith(f"{sim.time - 4:.3f} time simulated")


def test_timer_with_tqdm(capsys):
    tqdm = pytest.importorskip("tqdm")
    sim = Simulation({"L": 1000}, {("L", "L"): ("L", "F")}, seed=1)
    bar = TimeUpdate(time_bound=3)
    assert isinstance(bar.pbar, tqdm.std.tqdm)
    sim.add_snapshot(bar)
    sim.run(3)
    assert bar.pbar.n == 3.0
    bar.pbar.close()
    sim.snapshots.clear()
    sim.run(2, timer=True)
    assert "time simulated" in capsys.readouterr().err and sim.snapshots == []


# CRNs: conservative ones run as ppsim's (tests/test_crn.py), the others on the network engines
# (tests/test_network.py); a list of other things is refused.


def test_non_conservative_crns_run_and_lists_that_are_not_reactions_are_refused():
    a, b = poplab.species("A B")
    assert isinstance(Simulation({a: 5}, [a >> 2 * a], seed=1), poplab.NetworkSimulation)
    with pytest.raises(TypeError, match="list of ppsim's reactions"):
        Simulation({"A": 5}, [("A", "B")])
    # ppsim ignores volume for a protocol; time_units shows its times as durations.
    sim = Simulation({"A": 5, "B": 5}, MAJORITY, volume=10, time_units="s", seed=1)
    sim.run(1)
    assert not sim.continuous_time and sim.time == 1.0 and str(sim.history.index[-1]) == "0 days 00:00:01"


def test_reset_to_another_number_of_agents_makes_it_n():
    # ppsim's majority notebook resets 5 * 10^8 agents to 10^9; here at a small scale.
    sim = Simulation({"A": 300, "B": 200}, MAJORITY, seed=1)
    sim.run(2)
    sim.reset({"A": 501, "B": 499})
    assert sim.n == sim.population == 1000 and sim.time == 0.0
    sim.run(4, 0.5)
    assert sim.steps == 4000 and sim.times[-1] == 4.0 and (sim.history.sum(axis=1) == 1000).all()
    sim.reset()  # back to the constructor's configuration
    assert sim.n == 500 and sim.config_dict == {"A": 300, "B": 200}
    with pytest.raises(ValueError, match="has 1 agents"):
        sim.reset({"A": 1})


def test_the_run_takes_the_enumerated_results_and_calls_the_rule_only_for_new_states():
    calls = []

    def averaging(a, b):
        calls.append((a, b))
        return discrete_averaging(a, b)

    sim = Simulation({0: 50, 8: 50}, averaging, seed=1)
    assert sim.state_list == list(range(9))
    enumerated = len(calls)
    sim.run(5)
    assert len(calls) == enumerated, "the run called the rule for pairs the enumeration had met"
    sim.set_config({0: 10, 20: 90})  # 20 and what it reaches are new: the rule is asked about them
    sim.run(1)
    assert any(20 in pair for pair in calls[enumerated:])
