#!/usr/bin/env python3
"""Check that every internal link and image of a built HTML site resolves.

    python3 scripts/checks/check_links.py DIR

Reads every .html file under DIR (the built guide: target/guide), and for each `href` and `src`
that is not external (http:, https:, mailto:, data:, javascript:, ...) checks that the file it
names exists under DIR and, for `page.html#id` or `#id`, that the page has an element with that
id (or an `<a name=...>`). External links are not checked: CI has no network. Prints each broken
link as `page: link (reason)` and exits with 1 if there is any; standard library only.
"""

import html.parser
import os
import sys
import urllib.parse

EXTERNAL = ("http:", "https:", "mailto:", "data:", "javascript:", "ftp:", "tel:")


class Page(html.parser.HTMLParser):
    """The links, the anchors and the <base href> of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.ids = set()
        self.base = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "base" and attrs.get("href"):
            self.base = attrs["href"]
        for key in ("href", "src"):
            value = attrs.get(key)
            # <link rel=preconnect|canonical> and the like point outside; stylesheets and icons count.
            if value is not None and not (tag == "link" and attrs.get("rel") in ("canonical", "preconnect")):
                self.links.append((tag, value))


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: check_links.py DIR (a built site)")
    root = os.path.realpath(sys.argv[1])
    pages = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                pages[path] = parse(path)
    broken = []
    checked = 0
    for path, page in sorted(pages.items()):
        here = os.path.dirname(path)
        if page.base is not None:
            # mdbook's 404 page is served from the site root: <base href="/">.
            here = root if page.base.startswith("/") else os.path.join(here, page.base)
        for tag, link in page.links:
            link = link.strip()
            if not link or link.lower().startswith(EXTERNAL) or link.startswith("//"):
                continue
            checked += 1
            parts = urllib.parse.urlsplit(link)
            if parts.scheme:
                continue
            target_path = urllib.parse.unquote(parts.path)
            if target_path.startswith("/"):
                target = os.path.join(root, target_path.lstrip("/"))
            elif target_path:
                target = os.path.join(here, target_path)
            else:
                target = path
            target = os.path.realpath(target)
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            rel = os.path.relpath(path, root)
            if not target.startswith(root + os.sep) and target != root:
                broken.append(f"{rel}: {link} (outside the site)")
            elif not os.path.exists(target):
                broken.append(f"{rel}: {link} (no file {os.path.relpath(target, root)})")
            elif parts.fragment and target.endswith(".html"):
                anchors = pages[target].ids if target in pages else parse(target).ids
                if urllib.parse.unquote(parts.fragment) not in anchors:
                    broken.append(f"{rel}: {link} (no anchor #{parts.fragment})")
    for line in broken:
        print(line)
    print(f"check_links: {len(pages)} pages, {checked} internal links and images, {len(broken)} broken")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
