"""Simulations release the GIL: Python threads run while trials do."""

import threading
import time

import poplab


def ticks_while(work):
    """Runs `work()` while another Python thread ticks every millisecond; returns what `work`
    returned and checks that the thread kept ticking (it cannot while `work` holds the GIL)."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.05)
    start = time.perf_counter()
    result = work()
    end = time.perf_counter()
    stop.set()
    thread.join()
    during = [t for t in ticks if start < t < end]
    assert end - start > 0.2, "the run is long enough to tell"
    # Holding the GIL, the run would let the thread tick once at most (when the run starts); free,
    # it ticks about every millisecond (far less on a loaded machine: the bound is loose).
    assert len(during) > max(10, 0.05 * (end - start) / 0.001), (len(during), end - start)
    return result


def test_a_python_thread_runs_while_a_simulation_runs():
    result = ticks_while(lambda: poplab.run("angluin", 8000, trials=2, seed=1, engine="agents", threads=1))
    assert result.summary["converged"] == 2


def test_a_python_thread_runs_while_a_ppsim_style_simulation_runs():
    sim = poplab.Simulation({"L": 20_000}, {("L", "L"): ("L", "F")}, engine="agents", seed=1)
    ticks_while(lambda: sim.run(stopping_interval=1e9))
    assert sim.config_dict == {"L": 1, "F": 19_999}


def test_a_python_rule_is_called_back_from_worker_threads():
    seen = set()

    def rule(a, b):
        seen.add(threading.get_ident())
        return (a, "F") if (a, b) == ("L", "L") else None

    protocol = poplab.Protocol(rule, output={"L": True, "F": False}, stop="one-leader", init={"L": 1.0})
    result = poplab.run(protocol, 100, trials=8, seed=1, threads=2)
    assert result.summary["converged"] == 8
    assert threading.get_ident() not in seen, "the rule runs on the library's threads, the GIL taken"


def test_python_threads_run_one_protocol_at_once():
    calls = []

    def rule(a, b):
        calls.append((a, b))
        return (a + 1, b) if a < 40 else None

    protocol = poplab.Protocol(rule, init={0: 1.0}, stop="time:30", deterministic=True)
    results = []

    def work(seed):
        results.append(poplab.run(protocol, 60, trials=6, seed=seed, threads=2, engine="agents"))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3
    assert len(calls) == len(set(calls)) == protocol.resolved_pairs, "each pair resolved once"
    assert sorted(protocol.states) == list(range(len(protocol.states))), "one id per state"
