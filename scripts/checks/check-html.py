#!/usr/bin/env python3
"""Opens every HTML page under one or more directories in headless Chromium (Playwright) and fails
on what a reader would meet as a broken page:

  - a console error or an uncaught page error (JavaScript);
  - a request that fails (a missing stylesheet, script, font or picture), and any request that
    leaves the machine (the pages must read offline; refused unless --allow-network);
  - a picture that does not show: an <img> that is not loaded or has naturalWidth 0 (lazy ones
    are loaded first), an <object>/<embed>/<iframe> or SVG <image> whose local file is missing;
  - a link (<a href>) to a local file or anchor that does not resolve: a missing file, or a
    #fragment that no element of the target page carries as id (or <a name>);
  - Markdown left unrendered in the visible text (`code` or **bold** outside <code>/<pre>).

External links (http:, https:, mailto: ...) are not followed. Uses the system Chromium
(/usr/bin/chromium, or --chromium PATH) when it exists, else Playwright's own browser
(`python3 -m playwright install chromium`, which needs the network).

    python3 scripts/checks/check-html.py DIR [DIR ...] [--chromium PATH] [--allow-network] [--quiet]
                                  [--skip NAME]

Exit status 0 if every page is clean, 1 if any problem was found (each printed with its page),
2 if the check could not run (no Playwright, no browser, no HTML page).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover
    print("check-html: Playwright for Python is missing: pip install playwright", file=sys.stderr)
    sys.exit(2)

SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
# Root in a container (no sandbox), and nothing that reaches for the network on its own: on a
# machine with a closed network those connections are refused many at a time.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# After the load event: make lazy pictures load, wait for every picture, then report the broken
# ones, the ids of the page (anchor targets) and its links and embedded files.
INSPECT = r"""
async () => {
  const imgs = Array.from(document.images);
  for (const img of imgs) { if (img.loading === 'lazy') img.loading = 'eager'; }
  await Promise.all(imgs.map(img => img.complete ? null :
      new Promise(ok => { img.addEventListener('load', ok); img.addEventListener('error', ok);
                          setTimeout(ok, 5000); })));
  const broken = imgs.filter(img => !img.complete || img.naturalWidth === 0)
                     .map(img => img.getAttribute('src') || '(no src)');
  const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id)
      .concat(Array.from(document.querySelectorAll('a[name]')).map(e => e.getAttribute('name')));
  const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'));
  const embedded = []
    .concat(Array.from(document.querySelectorAll('object[data]')).map(o => o.getAttribute('data')))
    .concat(Array.from(document.querySelectorAll('embed[src], iframe[src]')).map(o => o.getAttribute('src')))
    .concat(Array.from(document.querySelectorAll('image')).map(
        i => i.getAttribute('href') || i.getAttribute('xlink:href')).filter(h => h));
  const emptySvg = Array.from(document.querySelectorAll('svg')).filter(s => {
      const r = s.getBoundingClientRect();
      return s.closest('[hidden], [style*="display: none"], [style*="display:none"]') === null
          && s.getClientRects().length > 0 && (r.width === 0 || r.height === 0)
          && s.querySelector('*') === null;
  }).length;
  // Markdown left unrendered in the text a reader sees: `code` or **bold** outside <code>/<pre>.
  const walker = document.createTreeWalker(document.body || document, NodeFilter.SHOW_TEXT);
  const markdown = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && node.parentElement.closest('code, pre, script, style, textarea, kbd, samp')) continue;
    const m = node.textContent.match(/`[^`\n]+`|\*\*[^*\n]+\*\*/);
    if (m) markdown.push(m[0].slice(0, 80));
  }
  return {broken, ids, links, embedded, emptySvg, markdown};
}
"""


def local_target(page: Path, href: str) -> tuple[Path | None, str]:
    """The local file a link of `page` points at (None for an external or empty link), and its
    fragment."""
    url, fragment = urldefrag(href)
    parsed = urlparse(url)
    if parsed.scheme and parsed.scheme != "file":
        return None, ""
    if parsed.scheme == "file":
        return Path(unquote(parsed.path)), fragment
    if not parsed.path:
        return page, fragment
    target = (page.parent / unquote(parsed.path)).resolve()
    if target.is_dir():
        target = target / "index.html"
    return target, unquote(fragment)


def find_browser(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    for path in SYSTEM_CHROMIUM:
        if Path(path).exists():
            return path
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None  # Playwright's own, if installed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--chromium", help="the Chromium executable (default: the system's, else Playwright's)")
    ap.add_argument("--allow-network", action="store_true", help="let pages load resources from the network")
    ap.add_argument("--quiet", action="store_true", help="print only problems and the summary")
    ap.add_argument("--skip", action="append", default=[], metavar="NAME",
                    help="do not open pages of this file name (repeatable; links to them are still checked), "
                         "e.g. mdBook's 404.html, written for a web server's root")
    ap.add_argument("--watchdog", type=int, default=120, metavar="SECONDS",
                    help="stop with the page's name when a page (or the browser's start) takes longer "
                         "than this: a hang, not a slow page (one loads in about a second); default 120")
    opts = ap.parse_args()

    pages: list[Path] = []
    for d in opts.dirs:
        if not d.is_dir():
            print(f"check-html: '{d}' is not a directory; give the directory of the HTML pages", file=sys.stderr)
            return 2
        pages += sorted(p.resolve() for p in d.rglob("*.html") if p.is_file())
    if not pages:
        print(f"check-html: no HTML page under {', '.join(map(str, opts.dirs))}", file=sys.stderr)
        return 2

    problems: list[str] = []
    ids: dict[Path, set[str]] = {}
    links: dict[Path, list[str]] = {}
    t0 = time.monotonic()
    executable = find_browser(opts.chromium)

    def hang(_signum, _frame):
        print(f"check-html: {current[0] or 'starting Chromium'} did not finish within {opts.watchdog} s; "
              "stopped (a hang of the page or of the browser)", file=sys.stderr, flush=True)
        for pid in descendants(os.getpid()):  # Playwright's driver and Chromium's processes
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os._exit(1)

    current = [""]
    signal.signal(signal.SIGALRM, hang)
    signal.alarm(opts.watchdog)
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, timeout=60_000)
        except Exception as e:  # noqa: BLE001 - any launch failure is a setup problem
            which = executable or "Playwright's own"
            print(f"check-html: cannot start Chromium ({which}): "
                  f"{str(e).splitlines()[0]}; install it (apt-get install chromium)", file=sys.stderr)
            return 2
        context = browser.new_context()
        if not opts.allow_network:
            def refuse(route):
                problems.append(f"{current[0]}: loads '{route.request.url}' from the network (the pages must "
                                "read offline)")
                route.abort()
            context.route(lambda url: url.startswith(("http://", "https://", "ws://", "wss://")), refuse)

        def on_console(msg):
            if msg.type == "error":
                loc = msg.location or {}
                where = f" ({loc.get('url', '')}:{loc.get('lineNumber', '')})" if loc.get("url") else ""
                problems.append(f"{current[0]}: console error: {msg.text}{where}")

        def on_failed(request):
            if request.url.startswith(("http://", "https://")) and not opts.allow_network:
                return  # reported by the route
            if request.failure == "net::ERR_ABORTED":
                return  # cancelled by the browser (a favicon still loading when the page closes)
            problems.append(f"{current[0]}: request failed: {request.url} ({request.failure})")

        for p in pages:
            current[0] = os.path.relpath(p)
            if p.name in opts.skip:
                continue
            redirect = meta_refresh(p)
            if redirect is not None:
                # A page that only sends the reader on (pdoc's index.html): opening it races the
                # browser's navigation, so its target is checked as a link instead.
                ids[p] = page_ids(p)
                links[p] = [redirect]
                continue
            signal.alarm(opts.watchdog)
            # A page of its own for each file, closed after it, so that nothing a page still loads
            # is blamed on the next one.
            page = context.new_page()
            page.on("console", on_console)
            page.on("pageerror", lambda err: problems.append(f"{current[0]}: page error: {err}"))
            page.on("requestfailed", on_failed)
            try:
                page.goto(p.as_uri(), wait_until="load", timeout=30_000)
                info = page.evaluate(INSPECT)
            except Exception as e:  # noqa: BLE001 - a page that cannot load is a problem of the page
                problems.append(f"{current[0]}: cannot load: {str(e).splitlines()[0]}")
                page.close()
                continue
            page.close()
            for src in info["broken"]:
                problems.append(f"{current[0]}: picture does not load: <img src=\"{src[:120]}\">")
            for text in info["markdown"]:
                problems.append(f"{current[0]}: unrendered Markdown in the text: {text}")
            if info["emptySvg"]:
                problems.append(f"{current[0]}: {info['emptySvg']} empty inline <svg> of size 0")
            for src in info["embedded"]:
                target, _ = local_target(p, src)
                if target is not None and not target.exists():
                    problems.append(f"{current[0]}: embedded file missing: '{src}'")
            ids[p] = set(info["ids"])
            links[p] = info["links"]
            if not opts.quiet:
                print(f"ok {current[0]}" if not any(x.startswith(current[0] + ":") for x in problems)
                      else f"-- {current[0]}", flush=True)
        browser.close()
    signal.alarm(0)

    # Links: a local file must exist; a fragment must name an element of the target page.
    extra_ids: dict[Path, set[str]] = {}
    for p, hrefs in links.items():
        for href in hrefs:
            if href.startswith("javascript:"):
                continue
            target, fragment = local_target(p, href)
            if target is None:
                continue
            where = os.path.relpath(p)
            if not target.exists():
                problems.append(f"{where}: link to a missing file: '{href}'")
                continue
            if fragment and target.suffix == ".html":
                known = ids.get(target)
                if known is None:  # a page outside the checked directories: read its ids once
                    known = extra_ids.setdefault(target, page_ids(target))
                if fragment not in known:
                    problems.append(f"{where}: link to a missing anchor: '{href}'")

    for problem in problems:
        print("FAIL " + problem)
    print(f"check-html: {len(pages)} pages, {sum(len(h) for h in links.values())} links, "
          f"{len(problems)} problems, {time.monotonic() - t0:.1f} s")
    return 1 if problems else 0


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (Linux /proc), children before their own children."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def meta_refresh(path: Path) -> str | None:
    """The target of a page's `<meta http-equiv="refresh" content="0; url=...">`, if it has one."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Refresh(HTMLParser):
        def handle_starttag(self, tag, attrs):
            a = {k.lower(): v or "" for k, v in attrs}
            if tag == "meta" and a.get("http-equiv", "").lower() == "refresh":
                _, _, url = a.get("content", "").partition("url=")
                found.append(url.strip().strip("'\""))

    Refresh().feed(path.read_text(errors="replace"))
    return found[0] if found and found[0] else None


def page_ids(path: Path) -> set[str]:
    """The ids and <a name>s of an HTML file, without a browser."""
    from html.parser import HTMLParser

    found: set[str] = set()

    class Ids(HTMLParser):
        def handle_starttag(self, tag, attrs):
            for key, value in attrs:
                if key == "id" or (tag == "a" and key == "name"):
                    found.add(value or "")

    Ids().feed(path.read_text(errors="replace"))
    return found


if __name__ == "__main__":
    sys.exit(main())
