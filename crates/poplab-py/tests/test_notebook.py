"""The example notebook (examples/notebook.ipynb) runs: its code cells, in order, at a small size."""

import json

import pytest

from conftest import REPO, z_test

NOTEBOOK = REPO / "examples" / "notebook.ipynb"


def test_the_example_notebook_runs(monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("POPLAB_NOTEBOOK_N_MAX", "10000")
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: plt.close("all"))
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    code = [("".join(c["source"]), i) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    assert len(code) >= 6
    namespace = {"__name__": "__notebook__"}
    for source, index in code:
        exec(compile(source, f"{NOTEBOOK.name}, cell {index}", "exec"), namespace)
    # What the cells computed: the sweep's sizes, the closed form's agreement, the ring's one leader.
    assert list(namespace["s"].summary["n"]) == [1000, 10000]
    steps = [float(x) for x in namespace["r"].trials["steps"]]
    assert z_test(steps, 2 * (200 - 1) ** 2) > 0.001
    assert namespace["sim"].config_dict.get("L") == 1
