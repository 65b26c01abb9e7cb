#!/usr/bin/env python3
"""The kill -9 harness of issue 46: kills `poplab` at random (seeded) moments and checks that
what it resumes to is byte-identical to an uninterrupted run with the same seed.

Scenarios (each run as --episodes episodes; an episode is 1 to --max-kills kills in a row, each
at a random moment of the process then running, and a last uninterrupted resume):

  run-agents, run-counts, run-batched
        poplab run pll ... --engine E --checkpoint F --checkpoint-every 50ms --json, resumed with
        poplab run --resume F --json; its standard output compared with `poplab run ... --json`
        run once without kills or checkpoints.
  sweep poplab sweep pll ... --checkpoint-every 50ms --out D, resumed with sweep --resume D;
        D/trials.csv and D/summary.csv compared with an uninterrupted sweep's.
  shard-merge
        both shards of the sweep (--shard I/2, killed and re-run into the same --out, which
        continues), then `poplab merge` killed at random moments and re-run; the merged
        trials.csv and summary.csv compared with the unsharded sweep's.

A kill "inside an atomic write" is one after which a temporary file of the killed process
(`.poplab-PID-*.partial*`) is present next to the file being written. A kill that came after the
process had already ended is not counted. A first kill that lands before a checkpoint or a
sweep directory exists re-runs the original command, as a user would.

    python3 scripts/hostile/kill.py [--poplab target/release/poplab] [--episodes 8]
                                    [--max-kills 3] [--seed 46] [--only SCENARIO] [--keep]

Exit status 1 if any resumed result differs or a resume fails. Standard library only.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENGINES = {"agents": 50000, "counts": 30000, "batched": 50000}  # pll sizes: about 2 to 4 s each
SWEEP = ["sweep", "pll", "--n", "4000,8000,16000", "--trials", "8", "--seed", "7", "--engine", "counts",
         "--threads", "2"]


class Harness:
    def __init__(self, poplab: str, scratch: Path, rng: random.Random, max_kills: int):
        self.poplab, self.scratch, self.rng, self.max_kills = poplab, scratch, rng, max_kills
        self.kills = self.atomic = self.failures = self.finished_before_kill = 0
        self.lines: list[str] = []

    def run(self, args, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([self.poplab, *map(str, args)], capture_output=True, timeout=600, **kw)

    def kill_at_random(self, args, before: float, watch: list[Path]) -> bool:
        """Starts poplab with `args`, kills it -9 after a random delay in [0, before) s. True if
        it was killed (not already ended); counts a temporary file of its own in `watch` dirs."""
        delay = self.rng.uniform(0, before)
        proc = subprocess.Popen([self.poplab, *map(str, args)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=delay)
            self.finished_before_kill += 1
            err = proc.stderr.read().decode(errors="replace")
            proc.stderr.close()
            if proc.returncode != 0:
                self.fail(f"poplab {' '.join(map(str, args))} exited {proc.returncode}: {err.strip()}")
            return False
        except subprocess.TimeoutExpired:
            pass
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
        self.kills += 1
        prefix = f".poplab-{proc.pid}-"
        if any(p.name.startswith(prefix) and ".partial" in p.name
               for d in watch if d.is_dir() for p in d.iterdir()):
            self.atomic += 1
        return True

    def fail(self, message: str):
        self.failures += 1
        self.lines.append("FAIL " + message)
        print("FAIL " + message, file=sys.stderr, flush=True)

    def timed(self, args) -> tuple[subprocess.CompletedProcess, float]:
        t = time.monotonic()
        r = self.run(args)
        return r, time.monotonic() - t

    # ------------------------------------------------------------------------------------------

    def run_scenario(self, engine: str, episodes: int):
        n = ENGINES[engine]
        base = ["run", "pll", "--n", n, "--trials", "4", "--seed", "11", "--engine", engine, "--threads", "2"]
        ref, wall = self.timed(base + ["--json"])
        if ref.returncode != 0:
            return self.fail(f"reference {base}: {ref.stderr.decode()}")
        k0, a0, f0 = self.kills, self.atomic, self.failures
        for e in range(episodes):
            d = self.scratch / f"run-{engine}-{e}"
            d.mkdir()
            ckpt = d / "run.ckpt"
            first = base + ["--json", "--checkpoint", ckpt, "--checkpoint-every", "50ms"]
            again = ["run", "--resume", ckpt, "--json", "--checkpoint-every", "50ms"]
            for _ in range(self.rng.randint(1, self.max_kills)):
                # A resumed process has less left to do: its window is shorter.
                resumed = ckpt.exists()
                self.kill_at_random(again if resumed else first, wall * (0.5 if resumed else 1.0), [d])
            r = self.run(again if ckpt.exists() else first)
            if r.returncode != 0:
                self.fail(f"run-{engine} episode {e}: exit {r.returncode}: {r.stderr.decode().strip()}")
            elif r.stdout != ref.stdout:
                (d / "resumed.json").write_bytes(r.stdout)
                (d / "reference.json").write_bytes(ref.stdout)
                self.fail(f"run-{engine} episode {e}: resumed JSON differs from the uninterrupted run ({d})")
        self.report(f"run-{engine}", episodes, wall, k0, a0, f0)

    def sweep_ready(self, d: Path) -> bool:
        return (d / "sweep.json").is_file()

    def sweep_scenario(self, episodes: int, reference: Path):
        wall = self.sweep_wall
        k0, a0, f0 = self.kills, self.atomic, self.failures
        for e in range(episodes):
            d = self.scratch / f"sweep-{e}"
            first = SWEEP + ["--checkpoint-every", "50ms", "--out", d]
            again = ["sweep", "--resume", d, "--checkpoint-every", "50ms"]
            for _ in range(self.rng.randint(1, self.max_kills)):
                resumed = self.sweep_ready(d)
                self.kill_at_random(again if resumed else first, wall * (0.5 if resumed else 1.0), [d])
            r = self.run(again if self.sweep_ready(d) else first)
            if r.returncode != 0:
                self.fail(f"sweep episode {e}: exit {r.returncode}: {r.stderr.decode().strip()}")
                continue
            self.compare(d, reference, f"sweep episode {e}")
        self.report("sweep", episodes, wall, k0, a0, f0)

    def compare(self, d: Path, reference: Path, what: str):
        for name in ("trials.csv", "summary.csv"):
            if not (d / name).is_file() or not filecmp.cmp(d / name, reference / name, shallow=False):
                self.fail(f"{what}: {name} differs from the uninterrupted sweep's ({d})")

    def shard_scenario(self, episodes: int, reference: Path):
        k0, a0, f0 = self.kills, self.atomic, self.failures
        wall = self.sweep_wall
        merge_wall = None
        for e in range(episodes):
            shards = []
            for i in range(2):
                d = self.scratch / f"shard-{e}-{i}"
                cmd = SWEEP + ["--shard", f"{i}/2", "--checkpoint-every", "50ms", "--out", d]
                for _ in range(self.rng.randint(0, self.max_kills)):
                    self.kill_at_random(cmd, wall * 0.45, [d])
                r = self.run(cmd)
                if r.returncode != 0:
                    self.fail(f"shard {i}/2 episode {e}: exit {r.returncode}: {r.stderr.decode().strip()}")
                shards.append(d)
            m = self.scratch / f"merged-{e}"
            cmd = ["merge", "--out", m, *shards]
            if merge_wall is None:
                probe = self.scratch / "merge-probe"
                _, merge_wall = self.timed(["merge", "--out", probe, *shards])
                shutil.rmtree(probe, ignore_errors=True)
            for _ in range(self.rng.randint(1, self.max_kills)):
                self.kill_at_random(cmd, merge_wall, [m])
            r = self.run(cmd)
            if r.returncode != 0:
                self.fail(f"merge episode {e}: exit {r.returncode}: {r.stderr.decode().strip()}")
                continue
            self.compare(m, reference, f"merge episode {e}")
        self.report("shard-merge", episodes, wall, k0, a0, f0, f"merge {merge_wall:.2f} s" if merge_wall else "")

    def report(self, name, episodes, wall, k0, a0, f0, extra=""):
        line = (f"| {name} | {episodes} | {wall:.2f} s{' / ' + extra if extra else ''} | {self.kills - k0} | "
                f"{self.atomic - a0} | {self.failures - f0} |")
        self.lines.append(line)
        print(line, flush=True)


def main():
    root = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--poplab", default=str(root / "target/release/poplab"))
    ap.add_argument("--episodes", type=int, default=8, help="episodes per scenario")
    ap.add_argument("--max-kills", type=int, default=3, help="kills per episode at most")
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--only", help="run only the scenarios whose name contains this")
    ap.add_argument("--keep", action="store_true")
    opts = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="poplab-kill-"))
    h = Harness(str(Path(opts.poplab).resolve()), scratch, random.Random(opts.seed), opts.max_kills)
    t0 = time.monotonic()
    print(f"poplab kill -9 harness: seed {opts.seed}, {opts.episodes} episodes per scenario, 1 to "
          f"{opts.max_kills} kills each, load {os.getloadavg()[0]:.1f}")
    print()
    print("| scenario | episodes | uninterrupted wall | kills | inside an atomic write | failures |")
    print("|---|---|---|---|---|---|")
    want = lambda name: not opts.only or opts.only in name  # noqa: E731
    try:
        for engine in ENGINES:
            if want(f"run-{engine}"):
                h.run_scenario(engine, opts.episodes)
        if want("sweep") or want("shard-merge"):
            reference = scratch / "sweep-reference"
            r, h.sweep_wall = h.timed(SWEEP + ["--out", reference])
            if r.returncode != 0:
                h.fail(f"reference sweep: {r.stderr.decode()}")
            else:
                if want("sweep"):
                    h.sweep_scenario(opts.episodes, reference)
                if want("shard-merge"):
                    h.shard_scenario(opts.episodes, reference)
    finally:
        if opts.keep or h.failures:
            print(f"scratch kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(f"total: {h.kills} kills, {h.atomic} inside an atomic write, {h.failures} failures, "
          f"{h.finished_before_kill} processes ended before their kill; {time.monotonic() - t0:.0f} s wall, "
          f"load {os.getloadavg()[0]:.1f}")
    return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
