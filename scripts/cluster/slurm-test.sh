#!/usr/bin/env bash
# Tests the Slurm side of poplab on a real Slurm: a private one-node cluster on this machine.
#
#   scripts/cluster/slurm-test.sh                  # the cluster itself: a throttled job array +
#                                                  # an afterok job
#   scripts/cluster/slurm-test.sh --poplab BIN     # a sharded sweep (scripts/cluster/sweep.sbatch
#                                                  # as an array, then merge.sbatch) against an
#                                                  # unsharded one
#   scripts/cluster/slurm-test.sh --run CMD ARGS   # runs CMD ARGS (which submits jobs and waits
#                                                  # for them) while the cluster is up, e.g. the
#                                                  # full reproduction: --run
#                                                  # scripts/cluster/reproduce.sh --work W -- --full
#   options: --keep (keep the temporary directory and print its path, for debugging)
#
# Needs root and Debian (it installs slurm-wlm and munge with apt-get when they are missing).
# It starts its own munged (on a private socket, with /etc/munge/munge.key, generated if missing),
# slurmctld and slurmd (configuration, state, spool and logs in a temporary directory, on ports
# $POPLAB_SLURM_PORT and +1, default 16817/16818), runs the body, and always stops exactly the
# daemons it started (by PID) and removes the temporary directory. Exit 0 only if the body passed.
#
# Environment for --poplab: POPLAB_SPEC (the sweep arguments, default below), POPLAB_K (shards,
# default 4), POPLAB_TIMEOUT (seconds to wait for the jobs, default 600).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
START=$SECONDS
POPLAB_BIN=
KEEP=0
RUN=()
while (( $# )); do
    case $1 in
        --poplab) POPLAB_BIN=${2:?--poplab needs the path of the poplab binary}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --run) shift; RUN=("$@"); (( ${#RUN[@]} )) || { echo "--run needs a command" >&2; exit 2; }; break ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done

log() { printf '%s [%4ds] %s\n' "$(date +%T)" $((SECONDS - START)) "$*"; }
fail() { log "FAIL: $*"; exit 1; }

[[ $EUID -eq 0 ]] || fail "must run as root (it installs packages and starts munged/slurmctld/slurmd)"
if [[ -n $POPLAB_BIN ]]; then
    [[ -x $POPLAB_BIN ]] || fail "--poplab $POPLAB_BIN: not an executable file"
    POPLAB_BIN=$(realpath "$POPLAB_BIN")
fi

HOST=$(hostname -s)
PORT=${POPLAB_SLURM_PORT:-16817}
TMP=
PIDS=()   # daemons started here, in start order: "pid:name"

# ---------------------------------------------------------------- cleanup (always, on EXIT)

stop_pid() { # PID NAME: SIGTERM, up to 15 s, then SIGKILL; only our own children
    local pid=$1 name=$2 i
    kill -0 "$pid" 2>/dev/null || { log "$name (pid $pid) had already exited"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    for (( i = 0; i < 150; i++ )); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "$name (pid $pid) ignored SIGTERM for 15 s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    log "stopped $name (pid $pid)"
}

MY_START=$(awk '{ print $22 }' /proc/$$/stat)   # start time (clock ticks after boot)
stepds_of_ours() { # true if a slurmstepd started after this script exists (zombies included)
    local p t
    for p in $(pgrep -x slurmstepd); do
        t=$(awk '{ print $22 }' "/proc/$p/stat" 2>/dev/null) || continue
        [[ -n $t ]] && (( t >= MY_START )) && return 0
    done
    return 1
}

cleanup() {
    local rc=$? i entry jobs
    trap - EXIT INT TERM
    set +e
    # Jobs still queued or running (a failed or interrupted body): cancel them first, so that
    # slurmd takes their slurmstepd processes down with it instead of leaving them behind.
    if (( ${#PIDS[@]} >= 2 )) && jobs=$(squeue -h -o %A 2>/dev/null) && [[ -n $jobs ]]; then
        log "cancelling leftover jobs: $(echo $jobs)"
        scancel $jobs 2>/dev/null
        for (( i = 0; i < 30; i++ )); do
            [[ -z $(squeue -h -o %A 2>/dev/null) ]] && break
            sleep 0.5
        done
    fi
    # The slurmstepd of a job step (forked off by slurmd, not its child) lives until the step is
    # over; each one has a socket HOST_JOB.STEP in the spool directory. Give them time to finish.
    if [[ -n $TMP ]] && compgen -G "$TMP/spool/${HOST}_*" >/dev/null; then
        for (( i = 0; i < 100; i++ )); do
            compgen -G "$TMP/spool/${HOST}_*" >/dev/null || break
            sleep 0.1
        done
        compgen -G "$TMP/spool/${HOST}_*" >/dev/null &&
            log "warning: job steps still running: $(cd "$TMP/spool" && echo "${HOST}"_*)"
    fi
    for (( i = ${#PIDS[@]} - 1; i >= 0; i-- )); do
        entry=${PIDS[i]}
        stop_pid "${entry%%:*}" "${entry#*:}"
    done
    # The last job steps' slurmstepd may still be exiting (or, under an init that reaps slowly,
    # be a zombie of PID 1): wait for those started after this script (never signal them).
    for (( i = 0; i < 100; i++ )); do
        stepds_of_ours || break
        sleep 0.1
    done
    stepds_of_ours && log "warning: slurmstepd still present: $(pgrep -a -x slurmstepd | tr '\n' ' ')"
    if [[ -n $TMP && -d $TMP ]]; then
        if (( KEEP )); then log "kept $TMP"; else rm -rf "$TMP"; log "removed $TMP"; fi
    fi
    if (( rc == 0 )); then log "PASSED in $((SECONDS - START)) s"
    else log "FAILED (exit $rc) after $((SECONDS - START)) s"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

show_logs() {
    local f
    for f in "$TMP"/munge/munged.out "$TMP"/munge/munged.log "$TMP"/log/*; do
        [[ -f $f ]] || continue
        echo "----- $f (last 60 lines)"
        tail -n 60 "$f"
    done
}
fail_logs() { log "FAIL: $*"; show_logs; exit 1; }

# ---------------------------------------------------------------- packages

install_packages() {
    local missing=() cmd
    for cmd in slurmctld slurmd sbatch munged munge; do
        command -v "$cmd" >/dev/null || missing+=("$cmd")
    done
    if (( ${#missing[@]} == 0 )) && id munge >/dev/null 2>&1; then
        log "slurm and munge already installed ($(slurmd -V), $(munged -V 2>&1 | head -n 1))"
        return
    fi
    if (( ${#missing[@]} == 0 )); then
        # Installed, but its system user is gone (a restored /etc/passwd): reinstalling munge
        # creates it again.
        log "user munge is missing: reinstalling munge"
        if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall munge >"$TMP/apt.log" 2>&1; then
            tail -n 40 "$TMP/apt.log"
            fail "apt-get install --reinstall munge failed"
        fi
        return
    fi
    log "installing slurm-wlm and munge (missing: ${missing[*]})"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
               slurm-wlm munge; } >"$TMP/apt.log" 2>&1; then
        tail -n 40 "$TMP/apt.log"
        fail "apt-get install slurm-wlm munge failed"
    fi
    log "installed $(slurmd -V), $(munged -V 2>&1 | head -n 1)"
}

# ---------------------------------------------------------------- munge

start_munge() {
    local key=/etc/munge/munge.key sock=$TMP/munge/munge.socket i
    id munge >/dev/null 2>&1 || fail "no user munge (the munge package creates it)"
    install -d -o munge -g munge -m 0700 /etc/munge
    if [[ ! -s $key ]]; then
        log "generating $key"
        mungekey --create --keyfile="$key" 2>/dev/null ||
            dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
    fi
    chown munge:munge "$key"
    chmod 0400 "$key"

    # A private munged: its own socket, pid, seed and log files in $TMP/munge, so that a munged
    # of the system (if any) is neither used nor disturbed. setpriv execs munged: $! is its PID.
    # munged wants its socket's directory searchable by all (0755) and not writable by others.
    install -d -o munge -g munge -m 0755 "$TMP/munge"
    setpriv --reuid=munge --regid=munge --init-groups \
        munged --foreground --socket="$sock" --key-file="$key" \
        --log-file="$TMP/munge/munged.log" --pid-file="$TMP/munge/munged.pid" \
        --seed-file="$TMP/munge/munged.seed" >"$TMP/munge/munged.out" 2>&1 &
    PIDS+=("$!:munged")
    log "started munged (pid $!, socket $sock)"
    for (( i = 0; i < 100; i++ )); do
        if munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1; then
            log "munge credentials work"
            MUNGE_SOCKET=$sock
            return
        fi
        kill -0 "$!" 2>/dev/null || break
        sleep 0.2
    done
    fail_logs "munged did not come up"
}

# ---------------------------------------------------------------- slurm

write_conf() { # SELECT_TYPE
    local mem
    mem=$(awk '/^MemTotal:/ { m = int($2 / 1024); print (m > 2048 ? m - 1024 : int(m * 0.8)) }' /proc/meminfo)
    cat >"$SLURM_CONF" <<CONF
# poplab slurm-test: a private one-node cluster (generated by scripts/cluster/slurm-test.sh)
ClusterName=poplab-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=$1
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/run/slurmctld.pid
SlurmdPidFile=$TMP/run/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ReturnToService=2
SlurmdParameters=config_overrides
PropagateResourceLimits=NONE
DependencyParameters=kill_invalid_depend
MailProg=/bin/true
KillWait=5
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    [[ $1 == select/linear ]] && sed -i '/^SelectTypeParameters=/d' "$SLURM_CONF"
    return 0
}

start_slurmctld() { # SELECT_TYPE -> 0 if up
    local i pid
    write_conf "$1"
    rm -rf "$TMP/state"/*
    # -c: a clean start, no state to recover (else it logs errors about missing state files).
    slurmctld -D -c -f "$SLURM_CONF" >"$TMP/log/slurmctld.stdout" 2>&1 &
    pid=$!
    PIDS+=("$pid:slurmctld")
    log "started slurmctld (pid $pid, $1, port $PORT)"
    for (( i = 0; i < 150; i++ )); do
        if scontrol ping 2>/dev/null | grep -q 'is UP'; then
            log "slurmctld is up"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    log "slurmctld did not come up with $1"
    stop_pid "$pid" slurmctld
    unset 'PIDS[${#PIDS[@]}-1]'
    return 1
}

start_cluster() {
    local i state="" pid
    mkdir -p "$TMP/etc" "$TMP/state" "$TMP/spool" "$TMP/run" "$TMP/log"
    export SLURM_CONF=$TMP/etc/slurm.conf
    if ! start_slurmctld select/cons_tres; then
        tail -n 20 "$TMP/log/slurmctld.log" 2>/dev/null
        mv "$TMP/log/slurmctld.log" "$TMP/log/slurmctld-cons_tres.log" 2>/dev/null || true
        start_slurmctld select/linear || fail_logs "slurmctld does not start"
    fi
    slurmd -D -f "$SLURM_CONF" >"$TMP/log/slurmd.stdout" 2>&1 &
    pid=$!
    PIDS+=("$pid:slurmd")
    log "started slurmd (pid $pid, node $HOST, $(nproc) CPUs)"
    for (( i = 1; i <= 450; i++ )); do
        state=$(sinfo -h -N -n "$HOST" -o %t 2>/dev/null | head -n 1) || true
        [[ $state == idle ]] && break
        kill -0 "$pid" 2>/dev/null || fail_logs "slurmd exited"
        (( i % 50 == 0 )) && log "waiting for node $HOST to be idle (now: ${state:-?})"
        sleep 0.2
    done
    if [[ $state != idle ]]; then
        scontrol show node "$HOST" 2>&1 || true
        fail_logs "node $HOST not idle after 90 s (state ${state:-unknown})"
    fi
    log "cluster up: $(sinfo -h -o '%P %a %D nodes %t %C(A/I/O/T CPUs)')"
}

# ---------------------------------------------------------------- helpers for bodies

submit() { # sbatch ARGS... -> prints the job id (runs in $(...): errors go to stderr)
    local out
    if ! out=$(sbatch --parsable "$@" 2>&1); then
        echo "sbatch $*: $out" >&2
        return 1
    fi
    echo "${out%%;*}"
}

wait_jobs() { # TIMEOUT JOBID... : until none of them is in squeue any more
    local timeout=$1; shift
    local ids=" $* " deadline=$((SECONDS + timeout)) now last="" q line
    while :; do
        if ! q=$(squeue -h -o '%i %T %r' 2>&1); then
            (( SECONDS < deadline )) || fail_logs "squeue fails: $q"
            sleep 1; continue
        fi
        now=""
        while read -r line; do
            [[ -n $line ]] || continue
            local id=${line%% *}
            [[ $ids == *" ${id%%_*} "* ]] && now+="${now:+; }$line"
        done <<<"$q"
        [[ -z $now ]] && return 0
        [[ $now != "$last" ]] && log "queue: $now"
        last=$now
        (( SECONDS < deadline )) || fail_logs "jobs $* not finished after $timeout s"
        sleep 0.5
    done
}

job_states() { # JOBID... : prints "id state exit" per job (array tasks one by one); checks COMPLETED
    local id line bad=0 jid state code
    for id in "$@"; do
        while read -r line; do
            [[ -n $line ]] || continue
            jid=$(grep -o 'JobId=[0-9]*' <<<"$line" | head -n 1); jid=${jid#JobId=}
            if [[ $line =~ ArrayJobId=([0-9]+)\ ArrayTaskId=([0-9]+) ]]; then
                jid="$jid (${BASH_REMATCH[1]}_${BASH_REMATCH[2]})"
            fi
            state=$(grep -o 'JobState=[A-Z_]*' <<<"$line"); code=$(grep -o ' ExitCode=[0-9:]*' <<<"$line")
            log "job $jid: $state${code}"
            [[ $state == JobState=COMPLETED ]] || bad=1
        done < <(scontrol show job -o "$id" 2>&1)
    done
    return $bad
}

show_job_logs() {
    local f
    for f in "$@"; do [[ -f $f ]] && { echo "----- $f"; cat "$f"; }; done
    return 0
}

# ---------------------------------------------------------------- bodies

body() {
    local work=$TMP/work arr dep lines
    mkdir -p "$work/out" "$work/logs"
    arr=$(submit --job-name=trivial --array=0-3%2 --chdir="$work" \
        --output="$work/logs/%x-%A_%a.out" \
        --wrap='echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT" > out/task-$SLURM_ARRAY_TASK_ID.txt') ||
        fail "cannot submit the array job"
    log "submitted array job $arr (tasks 0-3, at most 2 at once)"
    dep=$(submit --job-name=concat --dependency=afterok:"$arr" --chdir="$work" \
        --output="$work/logs/%x-%j.out" --wrap='cat out/task-*.txt > all.txt') ||
        fail "cannot submit the dependent job"
    log "submitted job $dep (afterok:$arr)"
    wait_jobs 120 "$arr" "$dep"
    log "jobs done; final states:"
    log "array throttle: $(scontrol show job "$arr" 2>/dev/null | grep -o 'ArrayTaskThrottle=[0-9]*' | head -n 1)"
    if ! job_states "$arr" "$dep"; then
        show_job_logs "$work"/logs/*
        fail "a job did not complete"
    fi
    [[ -f $work/all.txt ]] || fail "no $work/all.txt"
    lines=$(wc -l <"$work/all.txt")
    log "all.txt: $(paste -sd '|' "$work/all.txt")"
    (( lines == 4 )) || fail "all.txt has $lines lines, not 4"
    [[ $(cat "$work/all.txt") == $'0 4\n1 4\n2 4\n3 4' ]] || fail "all.txt is not 0 4 / 1 4 / 2 4 / 3 4"
    log "body passed: 4 array tasks (ids 0-3, count 4) and the afterok job"
}

poplab_body() {
    local work=$TMP/work arr dep k=${POPLAB_K:-4} f bad=0 spec
    # shellcheck disable=SC2206 # the specification is split into words on purpose
    spec=(${POPLAB_SPEC:-angluin --n 10^2..10^4*10 --trials 12 --seed 1})
    mkdir -p "$work/logs"
    log "unsharded: poplab sweep ${spec[*]} --out A"
    "$POPLAB_BIN" sweep "${spec[@]}" --out "$work/A" >"$work/logs/unsharded.out" 2>&1 ||
        { cat "$work/logs/unsharded.out"; fail "unsharded sweep failed"; }
    log "unsharded sweep done"
    # POPLAB and POPLAB_SHARDS reach the jobs through sbatch's default --export=ALL. The scripts
    # ask for more CPUs than this node may have: one CPU per task here.
    export POPLAB=$POPLAB_BIN POPLAB_SHARDS=$work/shards
    arr=$(submit --array=0-$((k - 1))%2 --cpus-per-task=1 --chdir="$work" \
        "$REPO/scripts/cluster/sweep.sbatch" "${spec[@]}") || fail "cannot submit sweep.sbatch"
    log "submitted sweep.sbatch as array job $arr ($k shards, at most 2 at once)"
    dep=$(submit --dependency=afterok:"$arr" --cpus-per-task=1 --chdir="$work" \
        "$REPO/scripts/cluster/merge.sbatch" "$work/B") || fail "cannot submit merge.sbatch"
    log "submitted merge.sbatch as job $dep (afterok:$arr)"
    wait_jobs "${POPLAB_TIMEOUT:-600}" "$arr" "$dep"
    log "jobs done; final states:"
    if ! job_states "$arr" "$dep"; then
        show_job_logs "$work"/logs/*
        fail "a job did not complete"
    fi
    # A finished sweep writes trials.csv in cell and trial order, so every file must be the same
    # bytes as the unsharded run's.
    for f in sweep.json trials.csv summary.csv summary.json fits.json; do
        if cmp "$work/A/$f" "$work/B/$f"; then
            log "same $f ($(wc -c <"$work/A/$f") bytes)"
        else
            bad=1
        fi
    done
    (( bad == 0 )) || { show_job_logs "$work"/logs/*; fail "sharded + merged sweep differs from the unsharded one"; }
    log "poplab body passed: $k shards merged = the unsharded sweep"
}

# ---------------------------------------------------------------- main

TMP=$(mktemp -d /tmp/poplab-slurm.XXXXXX)
chmod 0755 "$TMP"   # munged (user munge) must reach its directory inside
log "poplab slurm test on $HOST ($(nproc) CPUs), temporary directory $TMP"
install_packages
start_munge
start_cluster
if (( ${#RUN[@]} )); then
    log "body: ${RUN[*]}"
    "${RUN[@]}"
elif [[ -n $POPLAB_BIN ]]; then
    log "body: sharded poplab sweep with $POPLAB_BIN"
    poplab_body
else
    log "body: job array + dependent job"
    body
fi
