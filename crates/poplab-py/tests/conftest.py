"""Shared helpers: the `poplab` command (to compare documents with), KS and z tests."""

import math
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def poplab_binary():
    """The `poplab` command built from this repository, if any: $POPLAB_BIN, then the cargo target
    directories (the test script builds it with `cargo test --workspace`), then the PATH."""
    candidates = []
    if os.environ.get("POPLAB_BIN"):
        candidates.append(pathlib.Path(os.environ["POPLAB_BIN"]))
    for target in filter(None, [os.environ.get("CARGO_TARGET_DIR"), str(REPO / "target")]):
        candidates += [pathlib.Path(target) / "debug" / "poplab", pathlib.Path(target) / "release" / "poplab"]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return shutil.which("poplab")


@pytest.fixture
def cli():
    """Runs the `poplab` command and returns its standard output (skips when it is not built)."""
    binary = poplab_binary()
    if binary is None:
        pytest.skip("the poplab command is not built (cargo build -p poplab-cli, or set POPLAB_BIN)")

    def call(*args, check=True):
        return subprocess.run([binary, *args], check=check, capture_output=True, text=True).stdout

    return call


def ks_two_sample(a, b):
    """The two-sample Kolmogorov-Smirnov p-value (scipy's when installed, else the asymptotic
    Kolmogorov distribution of sqrt(n m / (n + m)) D)."""
    try:
        from scipy.stats import ks_2samp
    except ImportError:  # pragma: no cover - scipy is installed by the test script
        a, b = sorted(a), sorted(b)
        n, m = len(a), len(b)
        i = j = 0
        d = 0.0
        while i < n and j < m:
            x = min(a[i], b[j])
            while i < n and a[i] == x:
                i += 1
            while j < m and b[j] == x:
                j += 1
            d = max(d, abs(i / n - j / m))
        lam = math.sqrt(n * m / (n + m)) * d
        return max(0.0, min(1.0, 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))))
    return float(ks_2samp(a, b).pvalue)


def z_test(values, mean):
    """The two-sided p-value of the sample mean of `values` against `mean` (normal approximation)."""
    n = len(values)
    m = sum(values) / n
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    z = (m - mean) / math.sqrt(var / n)
    return math.erfc(abs(z) / math.sqrt(2))
