"""ppsim's own notebooks (tests/notebooks: its README, rps_oscillator, majority and crn, as published
by UC-Davis-molecular-computing/ppsim, MIT license) run on poplab with only the import changed:
``from ppsim import`` -> ``from poplab import`` and ``import ppsim as pp`` -> ``import poplab as
pp`` (and the README's ``pip install ppsim`` -> ``pip install poplab``, which would otherwise
install ppsim into the kernel's environment).

Each notebook runs in a Jupyter kernel (nbclient), at its own sizes, with matplotlib's Agg backend.
A cell fails when it raises or shows an error (an ipywidgets callback's). The cells that fail are
listed exactly, each with its reason:

- README: the leader-election cells hit by ppsim's own ``u`` bug (the
  README's ``u`` is the string 'U' from its first example, so ``Ulogn = u * int(np.log2(n))`` is a
  string and the rule's ``v.counter <= Ulogn`` raises TypeError, as a RuleError: in the run, and
  in the state enumeration that the cells reading that simulation's ``state_list`` or ``history``
  start, since poplab enumerates on first use where ppsim does at construction; ppsim's own run
  failed at the construction and its later cells used the earlier ``sim``), and the cells after
  them that use ``df`` (still time_trials' frame).
- majority: the cells that load ppsim's pickled simulations (majority_simulations/*.p, pickles of
  ``ppsim.simulation.Simulation`` written with pandas 1, which neither poplab nor pandas >= 2 can
  read; kept aside), and the cells after them that plot those simulations. The one data file that
  is plain data (clock_times.p) is here and its cell runs.
- rps_oscillator: none.
- crn: the cells that need GillesPy2 (``gillespy2_format`` and ``import gillespy2``:
  ModuleNotFoundError where it is not installed, as with ppsim) and the one after that plots its
  ``results``; the two that load ppsim's pickles of a matplotlib figure and of a ``Simulation``
  (crn_data/am_distributions.p, which today's matplotlib, 3.11, cannot read, and dsd_experiment.p;
  kept aside). Its plain data files (crn_data/*_runtimes*.p) are here and their plots run.

Beyond running, the cells that print ``state_list``, ``reactions`` or ``enabled_reactions`` print
what ppsim printed (the notebooks keep ppsim's outputs).
"""

import importlib.util
import json
import pathlib
import re
import time

import pytest

NOTEBOOKS = pathlib.Path(__file__).parent / "notebooks"


class Run:
    """A notebook as run: its cells, ppsim's cells (as stored, with ppsim's outputs), the state of
    the widgets it showed, and the seconds it took."""

    def __init__(self, cells, stored, widgets, seconds):
        self.cells, self.stored, self.widgets, self.seconds = cells, stored, widgets, seconds


def run_notebook(name, monkeypatch):
    """Runs the notebook in a kernel (`Run`)."""
    for module in ("nbclient", "nbformat", "ipykernel", "matplotlib", "seaborn", "ipywidgets", "ipympl"):
        pytest.importorskip(module)
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("MPLBACKEND", "Agg")
    path = NOTEBOOKS / name
    stored = json.loads(path.read_text(encoding="utf-8"))["cells"]
    notebook = nbformat.read(str(path), as_version=4)
    client = NotebookClient(
        notebook, timeout=3600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    print(f"{name}: {seconds:.0f} s")
    widgets = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return Run(notebook.cells, stored, widgets.get("state", {}), seconds)


def widget_outputs(model_id, state, seen=None):
    """The outputs shown by the Output widgets in the widget ``model_id`` and its children (an
    ipywidgets ``interact`` shows its function's outputs, and errors, in one)."""
    seen = set() if seen is None else seen
    if model_id in seen or model_id not in state:
        return []
    seen.add(model_id)
    model = state[model_id]
    outputs = list(model["state"].get("outputs", [])) if model["model_name"] == "OutputModel" else []
    for child in model["state"].get("children", []):
        outputs += widget_outputs(child.replace("IPY_MODEL_", ""), state, seen)
    return outputs


def failures(run):
    """{cell index: (exception name, message)} of the cells that raised or showed an error, in
    their outputs or in the widgets they show."""
    failed = {}
    for i, cell in enumerate(run.cells):
        if cell.cell_type != "code":
            continue
        outputs = list(cell.outputs)
        for o in cell.outputs:
            view = o.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view:
                outputs += widget_outputs(view["model_id"], run.widgets)
        errors = [o for o in outputs if o["output_type"] == "error"]
        if errors:
            failed[i] = (errors[0]["ename"], errors[0]["evalue"])
    return failed


def stdout(cell):
    """What a cell (as run, or as ppsim stored it) printed on stdout."""
    outputs = cell.get("outputs", [])
    return "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in outputs
        if o["output_type"] == "stream" and o["name"] == "stdout"
    )


def reaction_lines(text):
    return [line for line in text.splitlines() if "-->" in line]


def assert_failures(run, expected):
    """The cells that failed are exactly those of ``expected`` {index: regex}, each with an error
    ``"name: message"`` that the regex matches (from its start)."""
    failed = failures(run)
    assert sorted(failed) == sorted(expected), {i: failed[i] for i in set(failed) ^ set(expected) if i in failed}
    for i, pattern in expected.items():
        error = f"{failed[i][0]}: {failed[i][1]}"
        assert re.match(pattern, error), (i, error)


def test_ppsim_readme_notebook(monkeypatch):
    run = run_notebook("ppsim_README.ipynb", monkeypatch)
    cells, stored = run.cells, run.stored
    assert "".join(cells[73].source).startswith("from poplab import species")
    # In the run (cell 55) and in the enumeration that reading state_list or history starts.
    u_bug = r"RuleError: .*TypeError: '<=' not supported between instances of 'int' and 'str'"
    assert_failures(
        run,
        {
            53: u_bug,
            55: u_bug,
            57: u_bug,
            59: u_bug,
            61: u_bug,
            63: u_bug,
            64: u_bug,
            66: u_bug,
            # df is still time_trials' frame (n, time), which has no level to unstack.
            68: r"ValueError: index must be a MultiIndex to unstack",
            69: r"ValueError: index must be a MultiIndex to unstack",
            # Its slider reads sim.history first.
            71: u_bug,
        },
    )
    # The CRN A + B <-> 2C (0.5, 4), C -> D (5) from 2000 A and 1000 B runs until silent (cell 75).
    assert "".join(cells[75].source).startswith("sim = Simulation({a: 2000, b:1000}, crn)")
    # What ppsim printed: the asymmetric majority's reactions, discrete averaging's 51 states and,
    # once it has converged to three consecutive values, its one enabled reaction.
    for i in (18, 41):
        assert reaction_lines(stdout(cells[i])) == reaction_lines(stdout(stored[i])) != []
    # The sliders over discrete averaging's history (cells 37 and 45) are widgets that ran.
    for i in (37, 45):
        assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in cells[i].outputs)
    assert stdout(cells[26]) == stdout(stored[26]) == str(list(range(51))) + "\n"


def test_rps_oscillator_notebook(monkeypatch):
    run = run_notebook("rps_oscillator.ipynb", monkeypatch)
    cells = run.cells
    assert_failures(run, {})
    # ppsim kept no output of cell 19 (state_list and reactions of the 7-state oscillator).
    printed = stdout(cells[19]).splitlines()
    assert printed[0] == "['0+', '0++', '1+', '1++', '2+', '2++', 'x']"
    reactions = reaction_lines(stdout(cells[19]))
    # x turns any other state into a lazy one of each species (1/3 each unless it is that one).
    assert " 0+,   x  -->   1+,   x      with probability 0.3333333333333333" in reactions
    assert " 0+,  0+  -->   0+, 0++" in reactions and len(reactions) == len(set(reactions))
    # 1+ attacks its prey 0++ with p = 0.1 (else makes it lazy); 0++ meeting 1+ is null, so the
    # symmetric rule takes 1+'s side: one reaction each, at full probability.
    assert "0++,  1+  -->   1+,  1+      with probability 0.1" in reactions
    assert "0++,  1+  -->   0+,  1+      with probability 0.9" in reactions
    assert stdout(cells[24]).split() == ["removing", "x", "adding", "x"]


def test_majority_notebook(monkeypatch):
    run = run_notebook("majority.ipynb", monkeypatch)
    cells, stored = run.cells, run.stored

    def missing(name):
        return rf"FileNotFoundError: .*No such file or directory: 'majority_simulations/{name}\.p'"

    # After a missing pickle, sim is still the approximate majority's of cell 14 (columns A, B, U).
    assert_failures(
        run,
        {
            20: missing("cancel_split"),
            21: r"KeyError: 1",  # its plot_config reads the columns of bias +1, -1
            26: missing("bias_average"),
            29: missing("bias_average2"),
            36: missing("clock_p_1"),
            45: missing("full_sync"),
            46: r"IndexError: single positional indexer is out-of-bounds",  # row 1242 of 401
            48: missing("main_averaging"),
            49: r"TypeError: Index must be a MultiIndex",  # it reads the levels of MajorityAgent
            51: missing("main_averaging_tie"),
        },
    )
    # clock_times.p is plain data: its plot (cell 39) runs.
    # ppsim's printed reactions: the 6-state majority, cancel/split and bias averaging with L = 4.
    for i in (7, 18, 24):
        assert reaction_lines(stdout(cells[i])) == reaction_lines(stdout(stored[i])) != []


def test_crn_notebook(monkeypatch):
    run = run_notebook("crn.ipynb", monkeypatch)
    cells, stored = run.cells, run.stored
    expected = {
        9: r"FileNotFoundError: .*No such file or directory: 'crn_data/am_distributions\.p'",
        # GillesPy2's results (cell 47) are what cell 50 plots.
        50: r"NameError: name 'results' is not defined",
        68: r"FileNotFoundError: .*No such file or directory: 'crn_data/dsd_experiment\.p'",
    }
    if importlib.util.find_spec("gillespy2") is None:
        expected.update({i: r"ModuleNotFoundError: No module named 'gillespy2'" for i in (5, 47, 58, 60)})
    else:  # cell 50 plots GillesPy2's results
        del expected[50]
    assert_failures(run, expected)
    # The 45-species DNA strand displacement oscillator (mass-action rate constants, 10 nL): the
    # probability of a null interaction is ppsim's, from the same conversion.
    assert "".join(cells[66].source).strip() == "sim.null_probability"
    ours, ppsims = (float("".join(c["outputs"][0]["data"]["text/plain"])) for c in (cells[66], stored[66]))
    assert ours == pytest.approx(ppsims, rel=1e-12)
    # Approximate majority among 4.8 * 10^10 molecules ran until silent (ppsim: 37 s of wall time).
    assert "Wall time" in stdout(cells[16])
