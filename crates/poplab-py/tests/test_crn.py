"""ppsim's chemical reaction networks on poplab: the notation (species, ``+``, ``>>``, ``|``,
``.k``, ``.r``, units), ppsim's conversion to pair transitions (`reactions_to_dict`, pinned against
ppsim 0.1.6's own output), the refusal of non-conservative networks, and the law of a run in
continuous time against independent simulations written here (the pair-interaction chain with a
Poisson clock, and Gillespie's algorithm on the reactions) and against known laws."""

import math
import pickle
import random

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import poplab
from poplab import CRNNotSupported, NetworkSimulation, RateConstantUnits, Reaction, Simulation, Specie, reactions_to_dict, species
from poplab.crn import Expression

ALPHA = 0.001


# The notation.


def test_reactions_are_written_as_in_ppsim():
    a, b, c, d = species("A B C D")
    rxn = a + b >> 2 * c
    assert rxn.reactants == Expression([a, b]) and rxn.products == Expression([c, c])
    assert (rxn.rate_constant, rxn.reversible, rxn.rate_constant_units) == (1.0, False, RateConstantUnits.stochastic)
    assert str(rxn) == "A + B -->(1.0) C + C"
    split = a >> b + c
    assert (split.num_reactants(), split.num_products(), split.is_conservative()) == (1, 2, False)
    double = (2 * a >> c + d).k(3)
    assert double.reactants.species == [a, a] and double.symmetric() and double.rate_constant == 3
    assert (a * 2).species == [a, a] and (2 * (a + b)).species == [a, b, a, b]
    # ppsim's order when a species is added to an expression: the expression first.
    assert (a + (b + c)).species == [b, c, a]
    both = (a + b | c + d).k(0.5).r(4)
    assert both.reversible and (both.rate_constant, both.rate_constant_reverse) == (0.5, 4)
    assert str(both) == "A + B (4)<-->(0.5) C + D"
    assert repr(a >> b) == "Reaction(Expression(species=[Specie(name='A')]), Expression(species=[Specie(name='B')]), 1.0)"
    assert species(["X", " Y "]) == (Specie("X"), Specie("Y")) and str(Specie("X")) == "X"
    assert sorted([c, a, b]) == [a, b, c] and a == Specie("A") and hash(a) == hash(Specie("A"))
    mass = (a + b >> c + d).k(9028, units=RateConstantUnits.mass_action)
    assert mass.rate_constant_stochastic == 9028 / poplab.avogadro
    assert poplab.concentration_to_count(80e-9, 1e-6) == round(6.02214076e23 * 80e-9 * 1e-6)


def test_notation_errors_are_ppsims():
    a, b = species("A B")
    with pytest.raises(ValueError, match="duplicates"):
        species("A A")
    with pytest.raises(ValueError, match="irreversible"):
        (a >> b).r(2)
    with pytest.raises(ValueError, match="unimolecular"):
        (a >> b).k(2, units=RateConstantUnits.mass_action)
    with pytest.raises(ValueError, match="reverse is unimolecular"):
        (a | b).r(2, units=RateConstantUnits.mass_action)
    with pytest.raises(ValueError, match="Type of reactants"):
        Reaction("A", b)
    with pytest.raises(ValueError, match="reactants or products"):
        Reaction(Expression([]), None)
    # One side may be empty (batss's `f >> None`): a network with deaths.
    assert len(Reaction(Expression([]), b).reactants) == 0
    with pytest.raises(TypeError):
        2.5 * a


# ppsim's conversion: reactions_to_dict as ppsim 0.1.6 returns it (crn.py, run there on the same
# networks; state names for Specie objects).

PINNED = {
    "readme": (
        {("A", "B"): {("C", "C"): 0.035705781503000286}, ("B", "A"): {("C", "C"): 0.035705781503000286},
         ("C", "A"): {("D", "A"): 0.7143537479759977}, ("C", "B"): {("D", "B"): 0.7143537479759977},
         ("C", "C"): {("A", "B"): 0.2856462520240023, ("D", "C"): 0.7143537479759977},
         ("C", "D"): {("D", "D"): 0.7143537479759977}},
        6.999333333333333,
    ),
    "readme_volume_1": (
        {("A", "B"): {("C", "C"): 0.12192118226600986}, ("B", "A"): {("C", "C"): 0.12192118226600986},
         ("C", "A"): {("D", "A"): 0.024630541871921183}, ("C", "B"): {("D", "B"): 0.024630541871921183},
         ("C", "C"): {("A", "B"): 0.9753694581280788, ("D", "C"): 0.024630541871921183},
         ("C", "D"): {("D", "D"): 0.024630541871921183}},
        203.0,
    ),
    "majority": (
        {("A", "B"): ("U", "U"), ("A", "U"): ("A", "A"), ("B", "A"): ("U", "U"), ("B", "U"): ("B", "B"),
         ("U", "A"): ("A", "A"), ("U", "B"): ("B", "B")},
        0.495,
    ),
    "mass_action": (
        {("A", "B"): ("U", "U"), ("A", "U"): {("A", "A"): 0.3262073548958795}, ("B", "A"): ("U", "U"),
         ("B", "U"): {("B", "B"): 0.20104120513956578}, ("U", "A"): {("A", "A"): 0.3262073548958795},
         ("U", "B"): {("B", "B"): 0.20104120513956578}},
        3.611199919046728e-07,
    ),
    "dimer": (
        {("A", "B"): {("C", "D"): 0.6666666666666667}, ("B", "A"): {("C", "D"): 0.6666666666666667},
         ("C", "D"): ("A", "B"), ("D", "C"): ("A", "B")},
        1.4625,
    ),
    "chain": (
        {("s0", "s0"): {("s1", "s0"): 0.5}, ("s0", "s1"): {("s1", "s1"): 0.5}, ("s0", "s2"): {("s1", "s2"): 0.5},
         ("s1", "s0"): ("s2", "s0"), ("s1", "s1"): ("s2", "s1"), ("s1", "s2"): ("s2", "s2")},
        2,
    ),
}


def networks():
    """(name, reactions, n, volume) of the pinned networks."""
    a, b, c, d = species("A B C D")
    readme = [(a + b | 2 * c).k(0.5).r(4), (c >> d).k(5)]
    x, y, u = species("A B U")
    units = RateConstantUnits.mass_action
    s = species("s0 s1 s2")
    return [
        ("readme", readme, 3000, 3000),
        ("readme_volume_1", readme, 100, 1),
        ("majority", [x + y >> 2 * u, x + u >> 2 * x, y + u >> 2 * y], 100, 100),
        ("mass_action", [(x + y >> 2 * u).k(9028, units=units), (x + u >> 2 * x).k(2945, units=units),
                         (y + u >> 2 * y).k(1815, units=units)], 48177126, 1e-6),
        ("dimer", [(a + b | c + d).k(2).r(3)], 40, 40),
        ("chain", [s[0] >> s[1], (s[1] >> s[2]).k(2)], 1000, 1000),
    ]


def by_name(rule):
    """A converted rule with species names for Specie objects."""
    named = {}
    for (x, y), out in rule.items():
        if isinstance(out, dict):
            named[(x.name, y.name)] = {(c.name, d.name): p for (c, d), p in out.items()}
        else:
            named[(x.name, y.name)] = (out[0].name, out[1].name)
    return named


@pytest.mark.parametrize("name, rxns, n, volume", networks(), ids=[net[0] for net in networks()])
def test_reactions_to_dict_is_ppsims(name, rxns, n, volume):
    before = [(str(r), r.rate_constant) for r in rxns]
    rule, max_rate = reactions_to_dict(rxns, n, volume)
    expected, expected_max = PINNED[name]
    assert max_rate == pytest.approx(expected_max, rel=1e-12)
    got = by_name(rule)
    assert got.keys() == expected.keys()
    for pair, out in expected.items():
        if isinstance(out, dict):
            assert got[pair].keys() == out.keys() and all(got[pair][k] == pytest.approx(p, rel=1e-12) for k, p in out.items())
        else:
            assert got[pair] == out
    # The reactions given are left as they were (ppsim copies them too).
    assert [(str(r), r.rate_constant) for r in rxns] == before


def test_reactions_to_dict_adds_what_ppsim_overwrote_and_pads_with_other_species():
    a, b, x = species("A B X")
    # A -> B padded with B gives (A, B) -> (B, B), as A + B -> B + B does: both rates count.
    rule, max_rate = reactions_to_dict([a >> b, (a + b >> 2 * b).k(2)], 10, 10)
    assert max_rate == pytest.approx(1 + 2 * 9 / 20)
    assert rule[(a, b)] == ((b, b))
    # Species only present (not in any reaction) catalyse unimolecular reactions too.
    rule, _ = reactions_to_dict([a >> b], 10, 10, species=[x])
    assert rule[(a, x)] == (b, x)


def test_ppsims_conversion_refuses_non_conservative_networks_which_run_elsewhere():
    a, b, c = species("A B C")
    for rxn, text in [(a >> b + c, "A -->(1.0) B + C"), (a + b >> c, "A + B -->(1.0) C"), (a >> 2 * a, "A -->(1.0) A + A")]:
        with pytest.raises(CRNNotSupported, match=r"takes only conservative networks") as refusal:
            reactions_to_dict([a + b >> 2 * c, rxn], 10, 10)
        assert text in str(refusal.value)
        # ppsim raised ValueError: code catching that still does.
        assert isinstance(refusal.value, ValueError) and isinstance(refusal.value, NotImplementedError)
        # Simulation runs it on the network engines instead (tests/test_network.py).
        assert isinstance(Simulation({a: 5, b: 5}, [rxn], seed=1), NetworkSimulation)
    assert isinstance(Simulation({a: 5, b: 5}, [(a + b | c).k(1)], seed=1), NetworkSimulation)
    with pytest.raises(ValueError, match="one or two reactants"):
        Simulation({a: 5}, [3 * a >> 3 * b])
    with pytest.raises(TypeError, match="list of ppsim's reactions"):
        Simulation({"A": 5}, [("A", "B")])
    with pytest.raises(ValueError, match="empty list"):
        Simulation({"A": 5}, [])


# Simulation of a network: its settings.


def test_a_network_runs_in_continuous_time_in_its_units():
    a, b, c, d = species("A B C D")
    crn = [(a + b | 2 * c).k(0.5).r(4), (c >> d).k(5)]
    sim = Simulation({a: 2000, b: 1000}, crn, seed=1)
    rule, max_rate = reactions_to_dict(crn, 3000, 3000)
    assert sim.continuous_time and sim.volume == 3000 and sim.transition_order == "asymmetric"
    assert sim.steps_per_time_unit == pytest.approx(3000 * max_rate) == 20998.0  # ppsim's
    assert sim.rule(c, c) == rule[(c, c)] and sim.rule(a, c) is None
    sim.run(2, 0.5)
    assert sim.times == [0.0, 0.5, 1.0, 1.5, 2.0] and sim.time == 2.0
    assert sim.history.index.name == "time (continuous units)" and list(sim.history.columns) == ["A", "B", "C", "D"]
    assert (sim.history.sum(axis=1) == 3000).all()
    # Steps are a Poisson number: about steps_per_time_unit per unit of time.
    assert abs(sim.steps - 2 * sim.steps_per_time_unit) < 6 * math.sqrt(2 * sim.steps_per_time_unit)
    sim.run()  # until silent: A + B -> 2C until B is gone, then every C becomes D
    assert sim.config_dict == {a: 1000, d: 2000} and sim.silent()
    assert sim.time > 2 and sim.times[-1] == sim.time
    # ppsim's (1.0.2's, for the same Simulation) to the last digit.
    assert sim.reactions == README_REACTIONS


README_REACTIONS = """\
A, B  -->  C, C      with probability 0.035705781503000286
A, C  -->  A, D      with probability 0.35717687398799886
B, C  -->  B, D      with probability 0.35717687398799886
C, C  -->  A, B      with probability 0.2856462520240023
C, C  -->  C, D      with probability 0.7143537479759977
C, D  -->  D, D      with probability 0.35717687398799886"""


def test_volume_and_time_units():
    a, b, u = species("A B U")
    units = RateConstantUnits.mass_action
    rates = [(a + b >> 2 * u).k(9028, units=units), (a + u >> 2 * a).k(2945, units=units),
             (b + u >> 2 * b).k(1815, units=units)]
    sim = Simulation({a: 450, b: 550}, rates, volume=1e-18, time_units="seconds", seed=2)
    _, max_rate = reactions_to_dict(rates, 1000, 1e-18)
    assert sim.volume == 1e-18 and sim.steps_per_time_unit == pytest.approx(1000 * max_rate)
    sim.run(0.5, 0.25)
    assert isinstance(sim.history.index, pd.TimedeltaIndex)
    assert list(sim.history.index) == [pd.Timedelta(seconds=t) for t in (0, 0.25, 0.5)]
    assert sim.times == [0.0, 0.25, 0.5]
    with pytest.raises(ValueError, match="time_units"):
        Simulation({a: 5, b: 5}, rates, time_units="fortnights")
    with pytest.raises(ValueError, match="volume"):
        Simulation({a: 5, b: 5}, rates, volume=0)
    with pytest.raises(ValueError, match="complete graph"):
        Simulation({a: 5, b: 5}, rates, graph="ring")
    with pytest.raises(ValueError, match="make a new Simulation"):
        sim.reset({a: 5, b: 5})
    with pytest.raises(ValueError, match="make a new Simulation"):
        sim.set_config({a: 5, b: 5})


def test_the_seed_fixes_the_run_and_a_pickle_goes_on_on_it():
    a, b, c, d = species("A B C D")
    crn = [(a + b | c + d).k(2).r(3)]

    def history(seed):
        sim = Simulation({a: 500, b: 400}, crn, seed=seed)
        sim.run(3, 0.1)
        return sim

    one, two = history(7), history(7)
    assert one.times == two.times and one.history.equals(two.history) and one.steps == two.steps
    assert not history(8).history.equals(one.history)
    sim = Simulation({a: 500, b: 400}, crn, seed=7)
    sim.run(1.5, 0.1)
    saved = pickle.dumps(sim)
    sim.run(1.5, 0.1)
    again = pickle.loads(saved)
    again.run(1.5, 0.1)
    assert again.history.equals(sim.history) and again.times == sim.times and again.steps == sim.steps


def test_continuous_time_for_a_protocol():
    sim = Simulation({"L": 100}, {("L", "L"): ("L", "F")}, continuous_time=True, seed=3)
    assert sim.steps_per_time_unit == 100
    sim.run(100, 10)
    assert sim.time == 100.0 and sim.history.index.name == "time (continuous units)"
    assert abs(sim.steps - 10_000) < 6 * 100
    sim.run()  # to the exact interaction that leaves one leader
    assert sim.config_dict["L"] == 1 and sim.time > 100 and sim.times[-1] == sim.time


# The law of a run.


def dimer():
    a, b, c, d = species("A B C D")
    return (a, b, c, d), [(a + b | c + d).k(2).r(3)]


def pair_chain(rule, rate, config, t, rng):
    """The pair-interaction chain of a converted rule in continuous time, directly: interactions at
    the events of a Poisson process of ``rate`` per unit of time, each of a uniformly random
    ordered pair of distinct agents, with the rule's outcome (a law's missing probability: null)."""
    agents = [s for s, k in config.items() for _ in range(k)]
    clock = rng.expovariate(rate)
    while clock < t:
        i, j = rng.sample(range(len(agents)), 2)
        out = rule.get((agents[i], agents[j]))
        if out is not None:
            law = out if isinstance(out, dict) else {out: 1.0}
            x, acc = rng.random(), 0.0
            for (c, d), p in law.items():
                acc += p
                if x < acc:
                    agents[i], agents[j] = c, d
                    break
        clock += rng.expovariate(rate)
    return agents


def gillespie_dimer(counts, k, r, volume, t, rng):
    """Gillespie's algorithm on A + B <-> C + D (rates k and r, bimolecular: divided by the volume):
    the count of C at time ``t``."""
    a, b, c, d = counts
    clock = 0.0
    while True:
        forward, backward = k * a * b / volume, r * c * d / volume
        total = forward + backward
        if total == 0:
            return c
        clock += rng.expovariate(total)
        if clock >= t:
            return c
        if rng.random() * total < forward:
            a, b, c, d = a - 1, b - 1, c + 1, d + 1
        else:
            a, b, c, d = a + 1, b + 1, c - 1, d - 1


def two_sample_chi2(x, y):
    """The p-value of a chi-square test that samples ``x`` and ``y`` of whole numbers have one law,
    on the values (tails pooled) where both together have at least 10."""
    values = np.arange(min(min(x), min(y)), max(max(x), max(y)) + 1)
    table = np.array([[np.sum(np.asarray(s) == v) for v in values] for s in (x, y)])
    bins, current = [], np.zeros(2, dtype=int)
    for column in table.T:
        current = current + column
        if current.sum() >= 10:
            bins.append(current)
            current = np.zeros(2, dtype=int)
    if current.sum():
        bins[-1] = bins[-1] + current
    return stats.chi2_contingency(np.array(bins).T)[1]


def test_the_law_of_a_reversible_network_is_the_pair_chains_and_gillespies():
    (a, b, c, d), crn = dimer()
    n, t, trials = 40, 0.25, 1500
    sim = Simulation({a: 20, b: 20}, crn, seed=11)
    ours = []
    for i in range(trials):
        if i:
            sim.reset()
        sim.run(t, history_interval=math.inf)
        ours.append(sim.config_dict.get(c, 0))
    rule, max_rate = reactions_to_dict(crn, n, n)
    rng = random.Random(20240611)
    chain = [pair_chain(rule, n * max_rate, {a: 20, b: 20}, t, rng).count(c) for _ in range(trials)]
    gillespie = [gillespie_dimer((20, 20, 0, 0), 2, 3, n, t, rng) for _ in range(trials)]
    assert two_sample_chi2(ours, chain) > ALPHA
    assert two_sample_chi2(ours, gillespie) > ALPHA
    # And the chi-square test sees a wrong clock: the same chain at 0.8 times the rate.
    slow = [pair_chain(rule, 0.8 * n * max_rate, {a: 20, b: 20}, t, rng).count(c) for _ in range(trials)]
    assert two_sample_chi2(ours, slow) < ALPHA


def test_unimolecular_decay_keeps_each_molecule_with_probability_exp_minus_k_t():
    # ppsim pads A -> B with every species as a catalyst; X (present, in no reaction) catalyses too.
    a, b, x = species("A B X")
    k, t, n_a = 0.5, 1.0, 200
    sim = Simulation({a: n_a, x: 100}, [(a >> b).k(k)], seed=5)
    samples = sim.sample_future_configuration(t, num_samples=2000)["A"].to_numpy()
    p = math.exp(-k * t)
    # Each A is still there with probability exp(-k t), independently: Binomial(200, p).
    edges = np.arange(0, n_a + 2) - 0.5
    observed, _ = np.histogram(samples, bins=edges)
    expected = stats.binom.pmf(np.arange(0, n_a + 1), n_a, p) * len(samples)
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > ALPHA


def test_the_time_of_silence_is_the_time_of_the_last_reaction():
    # 20 molecules of A decaying at rate 1: silence comes at the last decay, the maximum of 20
    # exponential times, whose mean is the harmonic number H_20 and variance sum 1/i^2.
    a, b = species("A B")
    sim = Simulation({a: 20}, [a >> b], seed=9)
    times = []
    for i in range(600):
        if i:
            sim.reset()
        sim.run(history_interval=math.inf)
        times.append(sim.time)
    mean = sum(1 / i for i in range(1, 21))
    sd = math.sqrt(sum(1 / i**2 for i in range(1, 21)) / len(times))
    assert abs(np.mean(times) - mean) < 4 * sd
    # Not rounded to a grid (ppsim's time stops at multiples of its stopping interval).
    assert len(set(times)) == len(times)
