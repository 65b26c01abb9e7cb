#!/usr/bin/env bash
# Checks that the reproduction of record (docs/reproduction) still comes out of this code: the
# trials it keeps for checking (check/replay.json: the first trials of each sweep's smallest cell,
# written by publish-reproduction.sh) are run again from each sweep's published definition and
# compared byte for byte with the published rows.
#
#   scripts/release/check-reproduction.sh [--poplab BIN] [DIR]     (default DIR: docs/reproduction)
#
# A change that alters a published trial fails here until the record is published again, or the
# change is justified in CHANGELOG.md (and the record regenerated). Exit 0 when every row matches.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
poplab=$repo/target/debug/poplab
if [[ ${1:-} == --poplab ]]; then poplab=$2; shift 2; fi
dir=${1:-$repo/docs/reproduction}
[[ -f $dir/check/replay.json ]] || { echo "check-reproduction.sh: no $dir/check/replay.json" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$dir" "$tmp" "$poplab" <<'PY'
import json, os, subprocess, sys
record, tmp, poplab = sys.argv[1:4]
replays = json.load(open(os.path.join(record, "check", "replay.json")))
failed = 0
for i, replay in enumerate(replays):
    definition = json.load(open(os.path.join(record, replay["sweep"], "sweep.json")))
    definition["n"] = [replay["n"]]
    definition["params"] = [[name, [value]] for name, value in replay["params"]]
    definition["trials"] = replay["trials"]
    work = os.path.join(tmp, str(i))
    os.makedirs(work)
    # As poplab writes it (a continued sweep must find its own definition, byte for byte).
    with open(os.path.join(work, "sweep.json"), "w") as f:
        f.write(json.dumps(definition, indent=2, ensure_ascii=False) + "\n")
    run = subprocess.run([poplab, "sweep", "--resume", work], capture_output=True, text=True)
    expected = open(os.path.join(record, replay["rows"])).read()
    got = open(os.path.join(work, "trials.csv")).read() if run.returncode == 0 else run.stderr
    if got == expected:
        print(f"same: {replay['sweep']} {replay['cell']}, {replay['trials']} trials")
    else:
        failed += 1
        print(f"DIFFERS: {replay['sweep']} {replay['cell']}:\n--- published\n{expected}--- now\n{got}")
print(f"{len(replays) - failed} of {len(replays)} sweeps reproduce the published trials byte for byte")
sys.exit(1 if failed else 0)
PY
