"""Networks with births and deaths through `Simulation` (`poplab._network`): what the library's
network engines give Python, and the law at a glance (the KS tests against an independent
simulator are the library's, crates/poplab/tests/it/crn_law.rs)."""

import math

import pytest

from poplab import CRNNotSupported, NetworkSimulation, Reaction, Simulation, reactions_to_dict, species


def lotka_volterra():
    r, f = species("R F")
    return r, f, [(r >> 2 * r).k(1), (r + f >> 2 * f).k(1), (f >> None).k(1)]


def test_a_network_with_births_runs_on_the_network_engines():
    r, f, lv = lotka_volterra()
    sim = Simulation({r: 300, f: 200}, lv, seed=3)
    assert isinstance(sim, NetworkSimulation)
    assert sim.volume == 500.0  # the library's default: the molecules at the start
    sim.run(1.5, history_interval=0.5)
    assert sim.time == 1.5
    assert list(sim.history.index) == [0.0, 0.5, 1.0, 1.5]
    assert list(sim.history.columns) == ["R", "F"]
    assert sim.history.iloc[0].tolist() == [300, 200]
    assert sim.config_dict == dict(zip(sim.state_list, sim.config_array.tolist()))
    assert sim.reactions_fired > 0
    # The same seed, the same run.
    again = Simulation({r: 300, f: 200}, lv, seed=3)
    again.run(1.5, history_interval=0.5)
    assert again.history.equals(sim.history)


@pytest.mark.parametrize("engine", ["direct", "batched"])
def test_what_is_recorded_changes_nothing(engine):
    r, f, lv = lotka_volterra()
    run = lambda: Simulation({r: 30_000, f: 20_000}, lv, seed=5, engine=engine)  # noqa: E731
    fine, coarse, straight = run(), run(), run()
    fine.run(1.0, history_interval=0.01)
    coarse.run(1.0, history_interval=0.25)
    straight.run(1.0, history_interval=1.0)
    assert fine.config_dict == coarse.config_dict == straight.config_dict
    assert fine.reactions_fired == straight.reactions_fired
    # Every time recorded by both shows the same counts.
    for t, counts in coarse.history.iterrows():
        near = abs(fine.history.index - t).argmin()
        assert abs(fine.history.index[near] - t) < 1e-9
        assert fine.history.iloc[near].tolist() == counts.tolist(), t


def test_engines_are_chosen_by_size_or_forced():
    r, f, lv = lotka_volterra()
    assert Simulation({r: 50, f: 50}, lv, seed=1).engine == "direct"
    assert Simulation({r: 500_000, f: 500_000}, lv, seed=1).engine == "batched"
    assert Simulation({r: 50, f: 50}, lv, seed=1, engine="batched").engine == "batched"
    with pytest.raises(ValueError, match="'auto'.*'direct'.*'batched'"):
        Simulation({r: 50, f: 50}, lv, seed=1, engine="fast")


@pytest.mark.parametrize("engine", ["direct", "batched"])
def test_a_decay_has_the_exact_mean(engine):
    # A -> nothing at rate 1 from 10^4: A(1) is Binomial(10^4, e^-1); over 40 runs the mean's
    # z-score against 10^4 e^-1 (alpha = 0.001, |z| < 3.29).
    (a,) = species("A")
    p = math.exp(-1)
    values = []
    for seed in range(40):
        sim = Simulation({a: 10_000}, [(a >> None).k(1)], seed=seed, engine=engine)
        sim.run(1)
        values.append(sim.config_dict["A"])
    mean = sum(values) / len(values)
    se = math.sqrt(10_000 * p * (1 - p) / len(values))
    assert abs(mean - 10_000 * p) / se < 3.29, (mean, 10_000 * p, se)


def test_silence_ends_a_run_without_a_time():
    (a,) = species("A")
    sim = Simulation({a: 100}, [(a >> None).k(5)], seed=2)
    sim.run(stopping_interval=0.5)
    assert sim.config_dict == {"A": 0}
    assert sim.time % 0.5 == 0


def test_a_condition_stops_at_its_check():
    r, f, lv = lotka_volterra()
    sim = Simulation({r: 1000, f: 10}, lv, seed=4)
    sim.run(lambda c: c["F"] > 100, stopping_interval=0.25)
    assert sim.config_dict["F"] > 100
    assert (sim.time / 0.25).is_integer()


def test_production_from_nothing_and_reset():
    (a,) = species("A")
    sim = Simulation({a: 0}, [(None >> a).k(2), (a >> None).k(1)], seed=5, volume=50)
    sim.run(3)
    assert sim.config_dict["A"] > 0
    sim.reset()
    assert sim.time == 0 and sim.config_dict == {"A": 0}


def test_ppsims_conversion_still_refuses_births():
    r, f, lv = lotka_volterra()
    with pytest.raises(CRNNotSupported, match="conservative"):
        reactions_to_dict(lv, n=100, volume=100)


def test_bad_input_is_refused_before_anything_runs():
    r, f, lv = lotka_volterra()
    with pytest.raises(ValueError, match="volume"):
        Simulation({r: 10, f: 10}, lv, volume=0)
    with pytest.raises(ValueError, match="history_interval"):
        Simulation({r: 10, f: 10}, lv, seed=1).run(1, history_interval=0)
    with pytest.raises(ValueError, match="reactants or products"):
        Reaction(None, None)


def test_a_conservative_network_has_one_law_on_both_paths():
    # A + B <-> 2C (conservative): ppsim's conversion to pair rules (Simulation) against the
    # network engines (NetworkSimulation directly), C at time 0.5 over 400 runs each, two-sample
    # Kolmogorov-Smirnov at alpha = 0.001.
    from scipy.stats import ks_2samp

    a, b, c = species("A B C")
    crn = [(a + b | 2 * c).k(2).r(1)]
    start = {a: 40, b: 30, c: 0}
    converted, network = [], []
    for seed in range(400):
        sim = Simulation(start, crn, seed=seed)
        sim.run(0.5)
        converted.append(sim.config_dict.get(c, 0))
        net = NetworkSimulation(start, crn, seed=seed)
        net.run(0.5)
        network.append(net.config_dict["C"])
    assert ks_2samp(converted, network).pvalue > 0.001, (sum(converted) / 400, sum(network) / 400)
