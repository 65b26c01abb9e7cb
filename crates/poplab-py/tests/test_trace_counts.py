"""Counts per state and per output in traces of user protocols, and the figures of `plot()`."""

import io
import math

import numpy as np
import pandas as pd
import pytest

import poplab
from conftest import REPO

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAJORITY = REPO / "examples" / "protocols" / "approximate-majority.toml"


def election():
    return poplab.Protocol({("L", "L"): ("L", "F")}, output={"L": "leader", "F": "follower"}, init={"L": 1.0})


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("engine", ["agents", "counts", "batched"])
def test_counts_sum_to_n_and_equal_the_built_in_twins_counts(engine):
    # approximate-majority.toml is approx-majority (a = 0.6) as a table: the same trajectory for
    # the same seed, so its states' counts are the built-in's own columns, sample by sample.
    n = 300
    frame = poplab.trace(MAJORITY, n, every=37, seed=4, engine=engine)
    twin = poplab.trace("approx-majority", n, every=37, seed=4, engine=engine, params={"a": 0.6})
    states = ["state=A", "state=B", "state=U"]
    outputs = ["output=yes", "output=no", "output=undecided"]
    assert frame.columns.tolist() == ["step", "parallel_time", "leaders", *outputs, *states]
    assert len(frame) > 5
    assert (frame[states].sum(axis=1) == n).all()
    assert (frame[outputs].sum(axis=1) == n).all()
    assert frame["step"].tolist() == twin["step"].tolist()
    assert frame[states].to_numpy().tolist() == twin[["count_a", "count_b", "count_u"]].to_numpy().tolist()
    assert (frame["leaders"] == frame["output=yes"]).all()
    assert frame[states].iloc[0].tolist() == [180, 120, 0]


def test_a_python_protocol_counts_its_states_by_name_and_matches_its_run():
    n = 40
    frame = poplab.trace(election(), n, every=50, seed=2)
    assert frame.columns.tolist() == [
        "step", "parallel_time", "leaders", "output=leader", "output=follower", "state=L", "state=F",
    ]
    assert (frame[["state=L", "state=F"]].sum(axis=1) == n).all()
    assert (frame["state=L"] == frame["leaders"]).all()
    assert (frame["output=leader"] == frame["state=L"]).all()
    # Leaders only ever step down, from n to the one left at the trial's last step.
    assert frame["state=L"].is_monotonic_decreasing
    assert frame["state=L"].iloc[0] == n and frame["state=L"].iloc[-1] == 1
    run = poplab.run(election(), n, seed=2, trials=1)
    assert int(frame["step"].iloc[-1]) == int(run.trials["steps"][0])


def test_states_that_are_not_strings_are_named_by_their_repr():
    # A counter up to 3: states 0..3 (ints), met as the run goes.
    counter = poplab.Protocol(lambda a, b: (min(a + 1, 3), b), output=lambda s: "yes" if s == 3 else "no",
                              init={0: 1.0}, stop="all-yes")
    frame = poplab.trace(counter, 6, every=3, seed=1)
    states = [c for c in frame.columns if c.startswith("state=")]
    assert states == ["state=0", "state=1", "state=2", "state=3"]
    assert (frame[states].sum(axis=1) == 6).all()
    assert frame["state=3"].iloc[-1] == 6
    assert frame.columns.tolist()[3:5] == ["output=yes", "output=no"]


def test_a_trace_file_has_the_same_counts(cli, tmp_path):
    path = tmp_path / "trace.csv"
    cli("run", f"@{MAJORITY}", "--n", "200", "--trials", "2", "--seed", "7", "--trace", str(path),
        "--trace-every", "50")
    written = pd.read_csv(path)
    frame = poplab.trace(MAJORITY, 200, every=50, seed=7, trial=1)
    mine = written[written["trial"] == 1].drop(columns="trial").reset_index(drop=True)
    assert mine.columns.tolist() == frame.columns.tolist()
    assert mine.drop(columns="parallel_time").astype(int).values.tolist() == frame.drop(
        columns="parallel_time").astype(int).values.tolist()


def test_a_trace_frame_plots_counts_as_steps_one_measure_per_axis():
    frame = poplab.trace(MAJORITY, 50, every=25, seed=1)
    axis = frame.plot()  # one panel: each state has an output of its own
    lines = axis.get_lines()
    assert [line.get_label() for line in lines] == ["A", "B", "U"]
    assert all(line.get_drawstyle() == "steps-post" for line in lines)
    assert axis.get_ylabel() == "agents per state"
    assert lines[0].get_ydata().tolist() == frame["state=A"].tolist()
    # Two states share an output: a panel of outputs below the states'.
    shared = poplab.Protocol({("L", "L"): ("L", "F"), ("F", "L"): ("G", "L")},
                             output={"L": "leader", "F": "follower", "G": "follower"}, init={"L": 1.0})
    frame = poplab.trace(shared, 20, every=10, seed=1)
    states_axis, outputs_axis = frame.plot()
    assert [line.get_label() for line in states_axis.get_lines()] == ["L", "F", "G"]
    assert outputs_axis.get_ylabel() == "agents per output"
    assert outputs_axis.get_lines()[1].get_ydata().tolist() == (frame["state=F"] + frame["state=G"]).tolist()
    # A built-in: leaders, and each own column on an axis of its own.
    ppl = poplab.trace("ppl", 64, every=640, seed=1)
    axes = ppl.plot()
    assert [a.get_ylabel() for a in axes][1:] == ppl.columns.tolist()[3:]
    # pandas' own plotting is still there, with arguments.
    assert frame.plot(x="step", y="leaders").get_lines()[0].get_drawstyle() == "default"
    assert frame.plot.line(x="step", y="leaders").get_lines()[0].get_xdata().tolist() == frame["step"].tolist()


def test_a_run_plots_the_share_of_trials_converged_as_a_staircase():
    result = poplab.run("angluin", 40, trials=30, seed=3)
    axis = result.plot()
    [line] = axis.get_lines()
    assert line.get_drawstyle() == "steps-post"
    times = np.sort(result.trials["parallel_time"].to_numpy(dtype=float))
    assert line.get_xdata().tolist() == [0.0, *times.tolist()]
    assert line.get_ydata()[-1] == 1.0 and line.get_ydata()[0] == 0.0
    # Censored trials never converge: the staircase ends below 1.
    censored = poplab.run("angluin", 40, trials=10, seed=3, max_steps=1500)
    share = censored.plot().get_lines()[0].get_ydata()[-1]
    assert share == pytest.approx((censored.trials["outcome"] == "converged").mean())
    assert share < 1


def test_a_sweep_plots_means_with_bootstrap_intervals_and_a_smooth_fit_on_log_axes():
    result = poplab.sweep("threshold", [20, 40, 80], params={"k": [2, 4]}, trials=12, seed=1)
    axis = result.plot()
    assert (axis.get_xscale(), axis.get_yscale()) == ("log", "log")
    fits = [line for line in axis.get_lines() if line.get_label().startswith("fit")]
    assert len(fits) == 2
    for fit in fits:
        xs = fit.get_xdata()
        assert len(xs) == 200 and xs[0] == 20 and xs[-1] == pytest.approx(80)
    trials = result.trials
    for container, k in zip(axis.containers, [2, 4]):
        xs, means = container.lines[0].get_data()
        segments = container.lines[2][0].get_segments()
        for x, mean, segment in zip(xs, means, segments):
            times = trials[(trials["n"] == x) & (trials["k"] == k)]["parallel_time"].to_numpy(dtype=float)
            assert mean == pytest.approx(times.mean())
            low, high = segment[0][1], segment[1][1]
            assert (low, high) == pytest.approx(poplab._plot.bootstrap_mean_interval(times))
            assert times.min() <= low < mean < high <= times.max()


def test_plots_draw_the_interval_the_command_line_draws():
    # The numbers the library's test the_figures_interval_is_pinned pins for poplab plot and the
    # report: Python draws the same interval for the same times.
    times = [1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8, 1.0, 1.1, 400.0]
    assert poplab._plot.bootstrap_mean_interval(times) == (0.9800000000000001, 120.75999999999999)
    assert poplab._plot.bootstrap_mean_interval([7.0]) == (7.0, 7.0)


def test_bootstrap_intervals_of_bimodal_times_stay_above_zero_where_t_intervals_do_not():
    times = [10.0] * 18 + [4000.0, 5000.0]
    mean, sd = np.mean(times), np.std(times, ddof=1)
    assert mean - 2.09 * sd / math.sqrt(20) < 0  # the t-interval runs below zero
    low, high = poplab._plot.bootstrap_mean_interval(times)
    assert 10 <= low < mean < high <= 5000
    with pytest.raises(ValueError):
        poplab._plot.bootstrap_mean_interval([])


def test_plot_draws_on_a_given_axis_and_saves():
    _, axis = plt.subplots()
    assert poplab.run("angluin", 30, trials=5, seed=1).plot(ax=axis) is axis
    buffer = io.BytesIO()
    axis.figure.savefig(buffer, format="png")
    assert buffer.getvalue()[:4] == b"\x89PNG"
