"""The names the Python layer lists (graphs, outputs, stop rules, engines, measures, estimators)
against the library's own lists (`_poplab.graph_names()` and so on): its tuples are the library's,
its error messages list exactly the library's names, and so do its docstrings, so that neither a
name copied by hand nor one the library adds or renames goes unnoticed."""

import re

import pytest

import poplab
from poplab import _options, _poplab, _protocol, _simulation


def quoted(text):
    """The names a docstring quotes as ``"name"``, in order."""
    return re.findall(r'``"([^"`]+)"``', text)


def listed(text):
    """The names of a message's list ``a, b or c`` (or ``a, b, c or d``)."""
    return re.split(r", | or ", text)


def between(text, start, end):
    """The part of ``text`` from ``start`` to the next ``end`` (both left out)."""
    assert start in text, start
    return text.split(start, 1)[1].split(end, 1)[0]


GRAPHS = tuple(_poplab.graph_names())
OUTPUTS = tuple(_poplab.output_names())
STOPS = tuple(_poplab.stop_names())
ENGINES = tuple(_poplab.engine_names())
MEASURES = tuple(_poplab.measure_names())
ESTIMATORS = tuple(_poplab.estimator_names())


def test_the_libraries_lists_are_what_it_takes():
    # Each list is what the library's parser reads: every name runs.
    for graph in GRAPHS:
        assert poplab.run("angluin", 6, graph=graph, engine="agents", max_steps=10**4).summary["trials"] == 1
    rule = {("L", "L"): ("L", "F")}
    for stop in STOPS:
        _poplab.check_stop(stop)
    for output in OUTPUTS:
        protocol = poplab.Protocol(rule, output={"L": output, "F": output}, init={"L": 6}, stop="time:1")
        assert poplab.run(protocol, 6).summary["trials"] == 1
    for engine in ENGINES:
        assert poplab.run(poplab.Protocol(rule, init={"L": 6}), 6, engine=engine).summary["trials"] == 1
    for measure in MEASURES:
        assert poplab.exact("ls-timer", 4, params={"s": 8}, measure=measure)["expected_steps"] > 0
    results = [
        poplab.run("ls-timer", 4, params={"s": 8}, measure="holding", estimator=estimator, trials=2, seed=1)
        for estimator in ESTIMATORS
    ]
    assert {type(result) for result in results} == {poplab.RunResult, poplab.EstimateResult}


def test_the_python_tuples_are_the_libraries_lists():
    assert poplab.OUTPUTS == _protocol.OUTPUTS == OUTPUTS and isinstance(poplab.OUTPUTS, tuple)
    assert _options._GRAPHS == GRAPHS
    assert _simulation.STOP_RULES == STOPS
    # ppsim's simulator methods name engines of the library.
    assert set(_simulation.SIMULATOR_METHODS.values()) <= set(ENGINES)


def test_a_bad_graph_is_refused_with_exactly_the_libraries_names(tmp_path, monkeypatch):
    with pytest.raises(ValueError) as info:
        poplab.run("angluin", 10, graph="torus")
    assert listed(between(str(info.value), "is not a graph: give ", " or the path")) == list(GRAPHS)
    with pytest.raises(TypeError) as info:
        poplab.run("angluin", 10, graph=3)
    assert listed(between(str(info.value), "graph must be ", " or a path")) == list(GRAPHS)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        poplab.run("angluin", 10, graph="arcs.txt")
    assert listed(str(info.value).split("give an existing file, or ", 1)[1]) == list(GRAPHS)


def test_a_bad_stop_rule_is_refused_with_exactly_the_libraries_names():
    rule = {("L", "L"): ("L", "F")}
    with pytest.raises(ValueError) as info:
        poplab.Protocol(rule, stop="sometimes")
    assert listed(between(str(info.value), "unknown stop rule 'sometimes'; use ", " (T a parallel")) == [*STOPS, "time:T"]
    sim = poplab.Simulation({"L": 10}, rule, output={"L": "leader", "F": "follower"}, seed=1)
    with pytest.raises(ValueError) as info:
        sim.run(until="sometimes")
    assert str(info.value).split("use one of ", 1)[1].split(", ") == list(STOPS)


def test_a_bad_output_is_refused_with_exactly_the_libraries_names():
    protocol = poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": "boss", "F": "follower"}, init={"L": 6})
    with pytest.raises(ValueError) as info:
        poplab.run(protocol, 6)
    assert listed(between(str(info.value), "give one of ", " (or True/False")) == list(OUTPUTS)


def option_doc(name):
    """The entry of option ``name`` in the options' documentation (`_settings`), as `run` shows it."""
    entries = dict((tuple(sorted(names)), text) for names, text in _options._doc_entries(_options._settings.__doc__))
    text = entries[(name,)]
    assert text in poplab.run.__doc__ and text in poplab.sweep.__doc__
    return text


def test_the_options_docstrings_list_exactly_the_libraries_names():
    assert quoted(option_doc("graph")) == list(GRAPHS)
    assert quoted(option_doc("engine")) == list(ENGINES)
    assert quoted(option_doc("measure")) == list(MEASURES)
    assert quoted(option_doc("estimator")) == list(ESTIMATORS)
    assert quoted(between(poplab.exact.__doc__, "measure: ", "max_configs:")) == list(MEASURES)


def test_the_protocols_and_simulations_docstrings_list_exactly_the_libraries_names():
    protocol = poplab.Protocol.__doc__
    assert quoted(between(protocol, "``output`` maps a state to", "(``True``")) == list(OUTPUTS)
    assert quoted(between(protocol, "``stop`` is the safe set that ends a trial:", "``init``")) == [*STOPS, "time:T"]
    simulation = poplab.Simulation.__doc__
    assert quoted(between(simulation, "``graph`` (", " or a path")) == list(GRAPHS)
    assert quoted(between(simulation, "``engine`` (", ")")) == list(ENGINES)
    assert quoted(between(simulation, "``output`` (", "or True/False")) == list(OUTPUTS)
    assert quoted(between(poplab.Simulation.run.__doc__, "a stop rule name (", "on the outputs")) == list(STOPS)
