#!/usr/bin/env bash
# The guide: the mdBook of docs/guide built into <target>/guide, the Python API reference into its
# python-api/ (scripts/guide/build-python-api.sh, when the test environment has the package), and
# a check that every internal link and image of the result resolves (scripts/checks/check_links.py;
# no network, so external links are not checked). Installs mdbook if it is missing: from apt where
# the distribution has it, else from crates.io without its web server and file watcher (`build`
# needs neither; half the compile time).
#
#   bash scripts/guide/build-guide.sh          then open target/guide/index.html
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
out=$target/guide

if ! command -v mdbook >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if apt-cache show mdbook >/dev/null 2>&1; then
        $sudo apt-get install -y mdbook
    else
        cargo install mdbook --locked --no-default-features --features search
    fi
fi

# The CLI reference (docs/guide/src/cli/) is generated from the clap definition and checked by
# `cargo test -p poplab-cli --bin poplab cli_reference`, which scripts/checks/test-all.sh runs.
rm -rf "$out"
mdbook build docs/guide --dest-dir "$out"

api=$out/python-api
status=0
bash scripts/guide/build-python-api.sh --out "$api" || status=$?
if [ "$status" -eq 3 ]; then
    # No installed package here: a page that says how to build the reference, so links resolve.
    mkdir -p "$api"
    cat > "$api/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>poplab: Python API reference</title></head>
<body><h1>Python API reference: not built here</h1>
<p>This copy of the guide was built where the <code>poplab</code> Python package was not
installed. Run <code>bash scripts/checks/test-all.sh</code> (which installs it into a virtual
environment), then <code>bash scripts/guide/build-python-api.sh</code>; or read the docstrings with
<code>help(poplab)</code>.</p>
<p><a href="../python-api.html">Back to the guide</a></p></body></html>
HTML
elif [ "$status" -ne 0 ]; then
    exit "$status"
fi

python3 scripts/checks/check_links.py "$out"
echo "guide written to $out/index.html"
