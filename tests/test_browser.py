"""The built book in a real browser: every page loads offline, without console errors,
every plotly figure renders with data, and a static slider changes its figure. Formulas
draw with MathJax's own font, an exercise's solution opens on click, a citation leads
to its entry in the bibliography, every chapter's tables carry a numbered caption, and a
``{numref}`` to a table leads to it.

Serves ``_build/html`` on 127.0.0.1 and drives Debian's Chromium through Playwright;
every request that is not to the loopback address is blocked, so a page that needs the
internet fails here. Screenshots land in ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import require

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "test-artifacts" / "screenshots"


def _pages() -> list[str]:
    if not HTML.exists():
        return []
    return sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
                  if not p.relative_to(HTML).parts[0].startswith(("_", ".")))


@pytest.fixture(scope="module")
def server():
    require((HTML / "index.html").exists(), "the book is not built (run `make book`)")
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _open(browser, url):
    """A fresh page that blocks the network beyond loopback and records console errors."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, blocked = [], []

    def route(r):
        host = urlparse(r.request.url).hostname or ""
        if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and "favicon.ico" not in (m.location or {}).get("url", "") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400 and not r.url.endswith("favicon.ico") else None)
    page.goto(url, wait_until="load")
    # wait for MathJax (when the page has math) to finish typesetting
    page.wait_for_function(
        "() => !window.MathJax || (MathJax.Hub && MathJax.isReady && MathJax.Hub.queue.pending === 0"
        " && MathJax.Hub.queue.running === 0)", timeout=20000)
    page.wait_for_timeout(300)
    return page, errors, blocked


def test_book_has_the_expected_pages():
    pages = _pages()
    require(bool(pages), "the book is not built (run `make book`)")
    for name in ("index.html", "book/intro.html", "book/positioning.html", "book/status.html"):
        assert name in pages or name == "index.html"


@pytest.mark.parametrize("page_name", _pages() or ["(book not built)"])
def test_page_renders_offline_without_errors(server, browser, page_name):
    page, errors, blocked = _open(browser, f"{server}/{page_name}")
    try:
        # every plotly figure has drawn its data
        divs = page.locator("div.plotly-graph-div")
        for i in range(divs.count()):
            div = divs.nth(i)
            assert div.evaluate("d => Array.isArray(d.data) && d.data.length > 0"), (
                f"figure {div.get_attribute('id')} on {page_name} has no data")
            assert div.locator("svg.main-svg").count() > 0, "figure did not draw"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / (page_name.replace("/", "_") + ".png")), full_page=True)
        assert not errors, f"console errors on {page_name}: {errors[:3]}"
        assert not [u for u in blocked if not u.endswith("favicon.ico")], (
            f"{page_name} tried to reach the network: {blocked[:3]}")
    finally:
        page.close()


def test_static_slider_changes_its_figure(server, browser):
    """Drag the RPM slider of the positioning chapter: the plotted latency must change."""
    page, errors, _ = _open(browser, f"{server}/book/positioning.html")
    try:
        fig = page.locator("#plot-rotational-latency")
        assert fig.count() == 1
        fig.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        before = fig.evaluate("d => Math.max(...d.data[0].y)")
        # the figure opens on its active step (7,200 RPM: 8.33 ms a revolution), not animating
        assert before == pytest.approx(60000 / 7200, abs=0.05)
        rail = fig.locator("rect.slider-rail-rect").bounding_box()
        grip = fig.locator("rect.slider-grip-rect").bounding_box()
        y = grip["y"] + grip["height"] / 2
        page.mouse.move(grip["x"] + grip["width"] / 2, y)
        page.mouse.down()
        page.mouse.move(rail["x"] + rail["width"], y, steps=8)
        page.mouse.up()
        page.wait_for_timeout(800)
        after = fig.evaluate("d => Math.max(...d.data[0].y)")
        assert after != before
        # the right end of the slider is 15,000 RPM: a full revolution is 4 ms
        assert after == pytest.approx(4.0, abs=0.05)
        assert not errors
    finally:
        page.close()


def test_formulas_use_mathjax_fonts_and_no_font_warning(server, browser):
    """MathJax draws with the shipped STIX-Web fonts, and shows no "Can't find a valid font" box."""
    page, errors, _ = _open(browser, f"{server}/book/queueing.html")
    try:
        message = page.evaluate("() => (document.getElementById('MathJax_Message') || {}).textContent || ''")
        assert "font" not in message.lower(), f"MathJax says: {message!r}"
        fonts = page.evaluate("""() => Array.from(document.querySelectorAll('.MathJax span'))
            .map(s => getComputedStyle(s).fontFamily).filter(f => f.includes('MathJax'))""")
        assert fonts, "no formula is drawn with a MathJax font"
        assert not errors
    finally:
        page.close()


def test_favicon_is_linked_and_served(server, browser):
    page, errors, _ = _open(browser, f"{server}/book/intro.html")
    try:
        href = page.locator("link[rel~='icon']").first.get_attribute("href")
        assert href, "the page links no icon"
        status = page.evaluate("h => fetch(h).then(r => r.status)", href)
        assert status == 200, f"favicon {href} answered {status}"
        assert not errors
    finally:
        page.close()


def test_exercise_solution_is_hidden_until_opened(server, browser):
    """A solution's body is hidden on load, shown after a click, and holds a computed value."""
    page, errors, _ = _open(browser, f"{server}/book/positioning.html")
    try:
        solution = page.locator("div.solution.dropdown").first
        assert solution.count() == 1, "the chapter has no solution dropdown"
        body = solution.locator("span.pasted-text").first
        assert not body.is_visible(), "the solution is visible before it is opened"
        solution.locator(".admonition-title").first.click()
        page.wait_for_timeout(500)
        assert body.is_visible(), "the solution did not open"
        assert any(ch.isdigit() for ch in body.inner_text()), "the solution shows no computed number"
        assert not errors
    finally:
        page.close()


def test_citation_links_to_the_bibliography(server, browser):
    page, errors, _ = _open(browser, f"{server}/book/positioning.html")
    try:
        link = page.locator("span.bibtex-citation a[href*='references.html#']").first
        assert link.count() == 1, "no citation link on the page"
        target = link.get_attribute("href").split("#", 1)[1]
        link.click()
        page.wait_for_load_state("load")
        assert page.url.split("#")[0].endswith("book/references.html")
        entry = page.locator(f"[id='{target}']")
        assert entry.count() == 1, f"the bibliography has no entry {target}"
        assert re.search(r"\b(19|20)\d\d\b", entry.inner_text()), "the entry has no year"
        assert not errors
    finally:
        page.close()


#: Book pages that are not chapters: their tables (a build report, none) carry no caption.
_NOT_CHAPTERS = ("book/references.html", "book/glossary.html", "book/status.html")


@pytest.mark.parametrize("page_name", [p for p in _pages() if p.startswith("book/")
                                       and p not in _NOT_CHAPTERS] or ["(book not built)"])
def test_every_table_has_a_numbered_caption(server, browser, page_name):
    """No table on a chapter shows bare: each sits under a caption that starts "Table N.M"."""
    page, _errors, _ = _open(browser, f"{server}/{page_name}")
    try:
        bare = page.evaluate("""() => Array.from(document.querySelectorAll('article table'))
            .filter(t => !t.closest('.dl-table') && !t.querySelector(':scope > caption'))
            .map(t => (t.innerText || '').slice(0, 80))""")
        assert not bare, f"{page_name}: tables without a caption: {bare[:3]}"
        numbers = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.dl-table > p.caption, table > caption'))
            .map(c => (c.querySelector('.caption-number') || {}).textContent || '')""")
        unnumbered = [n for n in numbers if not re.match(r"Table \d+(\.\d+)* $", n)]
        assert not unnumbered, f"{page_name}: captions without a table number: {unnumbered[:3]}"
    finally:
        page.close()


@pytest.mark.parametrize("page_name", [p for p in _pages() if p.startswith("book/")]
                         or ["(book not built)"])
def test_no_table_is_wider_than_the_page(server, browser, page_name):
    """At 1280 px, no table is wider than the box it sits in: a cut-off column (once the
    records' response time that a caption asked the reader to add up to) is a column the
    reader cannot see."""
    page, _errors, _ = _open(browser, f"{server}/{page_name}")
    try:
        wide = page.evaluate("""() => Array.from(document.querySelectorAll('article table'))
            .filter(t => t.scrollWidth > t.parentElement.clientWidth + 4)
            .map(t => [t.id || (t.closest('[id]') || {}).id, t.scrollWidth,
                       t.parentElement.clientWidth])""")
        assert not wide, f"{page_name}: tables wider than the page (id, width, room): {wide}"
    finally:
        page.close()


def test_numref_to_a_table_leads_to_its_numbered_caption(server, browser):
    """On the positioning chapter a {numref} reads "Table N.M", links to the table with that number,
    and tables are counted apart from figures, per chapter ("Fig. N.1" and "Table N.1" both)."""
    page, errors, _ = _open(browser, f"{server}/book/positioning.html")
    try:
        link = page.locator("a.reference.internal:has(span.std-numref)",
                            has_text=re.compile(r"^Table \d")).first
        assert link.count() == 1, "the chapter has no numref to a table"
        label = link.inner_text().strip()
        target = link.get_attribute("href").split("#", 1)[1]
        link.click()
        page.wait_for_timeout(300)
        table = page.locator(f"[id='{target}']")
        assert table.count() == 1 and "dl-table" in (table.get_attribute("class") or "")
        number = table.locator("p.caption .caption-number").inner_text().strip()
        assert number == label, f"the link says {label!r}, the caption {number!r}"
        assert table.locator("table").count() == 1, "the captioned block holds no table"
        assert len(table.locator("p.caption .caption-text").inner_text().split()) >= 6
        chapter = number.split()[1].split(".")[0]
        firsts = page.evaluate("""() => Array.from(document.querySelectorAll('.caption-number'))
            .map(c => c.textContent.trim())""")
        assert f"Fig. {chapter}.1" in firsts and f"Table {chapter}.1" in firsts, firsts
        assert not errors
    finally:
        page.close()
