"""The search for slow starts and exact analysis from every configuration, from Python."""

import json

import pytest

import poplab
from conftest import REPO


def slow_corner():
    """Epidemic of Y; N agents make the first Y rarely; dormant D agents wake rarely."""
    return poplab.Protocol(
        {
            ("Y", "N"): ("Y", "Y"),
            ("Y", "D"): ("Y", "N"),
            ("N", "N"): {("Y", "N"): 0.00001},
            ("D", "D"): {("N", "D"): 0.001},
        },
        output={"Y": "yes", "N": "no", "D": "no"},
        stop="all-yes",
        name="slow-corner-py",
        init={"Y": 0.1, "N": 0.9},
    )


SLOW_CORNER = str(REPO / "examples" / "protocols" / "slow-corner.toml")


def test_exact_from_every_start_names_the_dormant_corner_as_the_worst():
    every = poplab.exact("@" + SLOW_CORNER, 6, start="all")
    assert every["worst"]["start"] == [{"state": "D"}] * 6
    assert every["worst"]["ties"] == 1
    assert every["families"]["default"]["share_of_worst"] < 0.001
    with pytest.raises(ValueError, match="start='all'"):
        poplab.exact("angluin", 5, start="default")
    # A protocol written in Python does not list its state space: said, not guessed.
    with pytest.raises(ValueError, match="does not list its state space"):
        poplab.exact(slow_corner(), 6, start="all")


def test_the_search_finds_the_exact_worst_and_gives_a_python_protocols_objects_back():
    worst = poplab.exact("@" + SLOW_CORNER, 6, start="all")["worst"]
    found = poplab.search("@" + SLOW_CORNER, 6, budget="30c", trials=200, seed=3)
    # The exact worst lies in the interval of the start found, and so does that start's own value.
    low, high = found["worst"]["ci95"]
    assert low <= worst["expected_parallel_time"] <= high, found["worst"]
    own = poplab.exact("@" + SLOW_CORNER, 6, init=found["worst"]["start"])
    assert low <= own["expected_parallel_time"] <= high
    # The same protocol written in Python: its states come back as its own objects, and `run`
    # takes the start found.
    protocol = slow_corner()
    mine = poplab.search(protocol, 6, budget="30c", trials=20, seed=3)
    assert set(mine["worst"]["start"]) <= {"Y", "N", "D"} and len(mine["worst"]["start"]) == 6
    assert mine["worst"]["mean_parallel_time"] > 100 * mine["families"][0]["mean_parallel_time"], mine
    again = poplab.run(protocol, 6, init=mine["worst"]["start"], trials=5, seed=1)
    assert again.summary["converged"] == 5


def test_search_gives_the_document_of_the_command_line(cli):
    args = ["search", "prl", "--n", "6", "--budget", "12c", "--trials", "5", "--seed", "2", "--json"]
    document = json.loads(cli(*args))
    mine = poplab.search("prl", 6, budget="12c", trials=5, seed=2)
    for key in ("worst", "top", "families"):
        assert mine[key] == document[key]
    assert mine["budget"]["candidates"] == document["budget"]["candidates"] <= 12
    with pytest.raises(ValueError, match="--budget"):
        poplab.search("prl", 6, budget="12")
    with pytest.raises(ValueError, match="holding"):
        poplab.search("ls-timer", 4, params={"s": 6}, measure="holding", budget="4c")
