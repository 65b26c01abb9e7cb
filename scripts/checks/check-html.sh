#!/usr/bin/env bash
# The built guide and an HTML report opened in headless Chromium (scripts/checks/check-html.py):
# no console or page error, every picture loads, every local link and anchor resolves, no Markdown
# left unrendered. Run after scripts/guide/build-guide.sh (the guide in <target>/guide) and a build
# of the `poplab` command (default <target>/debug/poplab, or --poplab PATH).
#
# Installs what is missing: Chromium from apt (Playwright's own browser download needs the
# network of its CDN, often blocked), and Playwright for Python into a virtual environment
# (<target>/venv-html). The report is `poplab reproduce --tiny` (every claim at two sizes and four
# trials: every kind of picture the report draws, in seconds; not for reading).
#
#   bash scripts/checks/check-html.sh [--poplab PATH]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
poplab=$target/debug/poplab
if [ "${1:-}" = "--poplab" ]; then poplab=$2; fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
chromium=""
for candidate in /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -x "$candidate" ] && chromium=$candidate && break
done
if [ -z "$chromium" ]; then
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null </dev/null || {
        $sudo apt-get update -qq >/dev/null &&
            $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null </dev/null
    }
    chromium=/usr/bin/chromium
fi

venv=${POPLAB_HTML_VENV:-$target/venv-html}
if ! "$venv/bin/python" -c "import playwright" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet playwright
fi

"$venv/bin/python" scripts/checks/check-html.py --quiet --chromium "$chromium" --skip 404.html "$target/guide"

report=$target/html-report
rm -rf "$report"
"$poplab" reproduce --tiny --out "$report"
"$venv/bin/python" scripts/checks/check-html.py --quiet --chromium "$chromium" "$report"
