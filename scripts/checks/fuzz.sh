#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (cargo-fuzz, libFuzzer) for SECONDS each, one per core at a time,
# and fails if any of them finds a crash, a hang or a memory blow-up.
#
#   scripts/checks/fuzz.sh [--dev] SECONDS [TARGET...]
#
# --dev builds the targets unoptimised, with debug assertions and overflow checks: a shorter build
# and slower fuzzing per input (the guide's chapter "Fuzzing" has the figures), the trade for CI's
# 20 s per target (a smoke test); without it they are built optimised (release, 16 codegen
# units), for long runs.
#
# Installs cargo-fuzz if it is missing; builds with the nightly toolchain if the machine has one,
# else with the pinned toolchain and RUSTC_BOOTSTRAP=1. Each target grows its corpus in
# fuzz/corpus-run/TARGET (not committed), starting from the seeds of fuzz/corpus/TARGET
# (committed, left as they are); libFuzzer's output goes to fuzz/logs/TARGET.log and findings to
# fuzz/artifacts/TARGET/. The last lines per target are libFuzzer's final statistics. The inputs
# of past findings, fuzz/regressions/TARGET/, are replayed first.
set -euo pipefail
build=(-O --codegen-units 16) profile=release
if [ "${1:-}" = --dev ]; then
    build=(--dev) profile=debug
    shift
fi
seconds=${1:?usage: scripts/checks/fuzz.sh [--dev] SECONDS [TARGET...]}
shift
cd "$(dirname "$0")/../../fuzz"

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <("${fuzz[@]}" list)
fi
# Optimised: 16 codegen units, cargo-fuzz's own advice for faster builds ("at the cost of somewhat
# slower fuzz runs"); its default of one makes the library's optimisation a single thread.
"${fuzz[@]}" build "${build[@]}"
# The targets run from the binaries just built (a later change of the sources does not rebuild
# them in the middle of a run).
binaries=target/$(rustc -vV | sed -n 's/^host: //p')/$profile

# One target: its past findings, then SECONDS of fuzzing; its summary goes to logs/TARGET.summary,
# and its exit status says whether it found nothing.
fuzz_one() {
    local target=$1 status options
    exec >"logs/$target.summary" 2>&1
    mkdir -p "corpus-run/$target"
    # A hang is a finding: 60 s for one input is far beyond any parse of these sizes, even on a
    # loaded machine under nice.
    options=(-max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1)
    case $target in
        # Protocol files far larger than 4 kB: size-dependent defects (a quadratic parse).
        protocol_file) options+=(-max_len=1048576) ;;
        *) options+=(-max_len=65536) ;;
    esac
    echo "== $target: $seconds s"
    # First the inputs of past findings (fuzz/regressions/TARGET/): each must now pass.
    if compgen -G "regressions/$target/*" >/dev/null; then
        if ! "$binaries/$target" -timeout=60 -rss_limit_mb=2048 "regressions/$target"/* \
            >"logs/$target-regressions.log" 2>&1; then
            echo "a past finding fails again (see fuzz/logs/$target-regressions.log)"
            return 1
        fi
    fi
    mkdir -p "artifacts/$target"
    if "$binaries/$target" -artifact_prefix="artifacts/$target/" "${options[@]}" "corpus-run/$target" \
        "corpus/$target" >"logs/$target.log" 2>&1; then
        status=ok
    else
        status=FAILED
    fi
    grep -E '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|^Done [0-9]+ runs' "logs/$target.log" || true
    echo "corpus: $(find "corpus-run/$target" -type f | wc -l) inputs; $status"
    if [ "$status" = FAILED ]; then
        grep -E 'ERROR: libFuzzer|panicked at|Test unit written to|SUMMARY' "logs/$target.log" | head -5 || true
        return 1
    fi
}

# The targets side by side, one per core (POPLAB_FUZZ_JOBS to change it): each fuzzes alone on
# its core for SECONDS, so the run takes about SECONDS times the targets over the cores.
jobs=${POPLAB_FUZZ_JOBS:-$(nproc)}
failed=()
mkdir -p logs
declare -A running=()
finish() { # waits for one target to end and records it
    local pid target
    wait -n -p pid "${!running[@]}" && true
    local rc=$?
    target=${running[$pid]}
    unset "running[$pid]"
    cat "logs/$target.summary"
    (( rc == 0 )) || failed+=("$target")
}
for target in "${targets[@]}"; do
    (( ${#running[@]} < jobs )) || finish
    fuzz_one "$target" &
    running[$!]=$target
done
while (( ${#running[@]} )); do finish; done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found defects in: ${failed[*]} (see fuzz/logs/ and fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzzing: no defect found in ${#targets[@]} targets"
