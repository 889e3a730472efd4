#!/usr/bin/env python3
"""The report page in a real browser: Debian's chromium, headless, driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 its commands, fd 4 its
answers, each a JSON message ended by a NUL), with the standard library only.

  check_report_page.py COMPUTEPROF REPORT_RUNS WORKDIR
      makes the sample runs (report_runs), their page with --compare, and checks: no
      console error or exception and no network request; the tables' numbers equal
      `computeprof stats --format json`; the analysis' findings; a wheel zooms, a drag
      pans, the keys zoom, a hover shows the tooltip, a click selects a kernel and its
      call; a screenshot (WORKDIR/report.png) that is not blank.
  check_report_page.py COMPUTEPROF REPORT_RUNS WORKDIR --scale N
      a run of N launches: prints the page's size, the time to make it and the time to
      its first paint and to the page ready (docs/performance.md).

Exits 77 when chromium is not installed (ctest's skip), 1 when a check fails.
"""
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


class Browser:
    """chromium with its DevTools protocol on a pipe; one page, attached flat."""

    def __init__(self, executable, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def child_fds():
            # Copies first: a pipe's own descriptor may be 3 or 4.
            commands, answers = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
             "--window-size=1400,1100", "about:blank"],
            # 3 and 4 kept open in the child (subprocess closes the others after preexec_fn).
            pass_fds=(3, 4), preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive(30)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def receive(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        decoded = json.loads(message)
        if "method" in decoded:
            self.events.append(decoded)
        return decoded

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.02)
        return False

    def mouse(self, kind, x, y, **extra):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra})

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def open_page(browser, path):
    """Attaches to the page target, loads `path`; returns seconds to ready."""
    targets = browser.send("Target.getTargets", session=False)["targetInfos"]
    page = next(t for t in targets if t["type"] == "page")
    browser.session = browser.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                   session=False)["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(domain + ".enable")
    started = time.monotonic()
    browser.send("Page.navigate", {"url": "file://" + os.path.abspath(path)})
    if not browser.wait_for("window.cprofReport !== undefined && (window.cprofReport.ready || !!window.cprofReport.error)", 60):
        raise RuntimeError("the page did not get ready")
    ready = time.monotonic() - started
    error = browser.evaluate("window.cprofReport.error")
    check(error is None, f"the page's script failed: {error}")
    return ready


def png_colours(png):
    """The number of distinct pixel colours of an 8-bit RGB or RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at = 8
    data = b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    assert depth == 8 and colour_type in (2, 6)
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(data)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 255
            elif kind == 4:
                upper_left = previous[i - channels] if i >= channels else 0
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                line[i] = (line[i] + predictor) & 255
        for i in range(0, stride, channels):
            colours.add(bytes(line[i:i + 3]))
        previous = line
    return len(colours)


def network_requests(browser, page_url):
    return [e["params"]["request"]["url"] for e in browser.events
            if e["method"] == "Network.requestWillBeSent" and e["params"]["request"]["url"] != page_url]


def console_errors(browser):
    errors = []
    for e in browser.events:
        if e["method"] == "Runtime.exceptionThrown":
            errors.append(e["params"]["exceptionDetails"].get("text", "exception"))
        elif e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"):
            errors.append(str(e["params"]["args"]))
        elif e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
            errors.append(e["params"]["entry"]["text"])
    return errors


# The tables the page shows, as the DOM has them: per table its rows, per cell its key
# and exact value (data-value; the text shows durations in units).
DOM_TABLES = """(() => {
  const out = {};
  for (const table of document.querySelectorAll('#SECTION table[data-table]')) {
    out[table.dataset.table] = [...table.querySelectorAll('tbody tr')].map(
      (tr) => [...tr.children].map((td) => [td.dataset.key, td.dataset.value]));
  }
  return out;
})()"""


def compare_tables(shown, expected, section):
    check(sorted(shown) == sorted(expected), f"{section}: tables {sorted(shown)}, stats has {sorted(expected)}")
    for key, rows in expected.items():
        dom_rows = shown.get(key, [])
        check(len(dom_rows) == len(rows), f"{section} {key}: {len(dom_rows)} rows, stats has {len(rows)}")
        for row, dom_row in zip(rows, dom_rows):
            as_dom = [[k, "" if v is None else (v if isinstance(v, str) else json.dumps(v))] for k, v in row.items()]
            # JSON's numbers as JavaScript prints them: 2.50 is 2.5, 100.00 is 100.
            for cell, dom_cell in zip(as_dom, dom_row):
                value = row[cell[0]]
                if isinstance(value, float) and dom_cell[1] != "":
                    check(float(dom_cell[1]) == value, f"{section} {key} {cell[0]}: {dom_cell[1]} != {value}")
                else:
                    check(dom_cell == cell, f"{section} {key}: {dom_cell} != {cell}")


def run(command):
    return subprocess.run(command, check=True, stdout=subprocess.PIPE).stdout


def sample_checks(browser, computeprof, workdir):
    runs = [os.path.join(workdir, name) for name in ("rank0.cprof", "rank1.cprof")]
    base = os.path.join(workdir, "base.cprof")
    page = os.path.join(workdir, "report.html")
    run([computeprof, "report", "-f", "--compare", base, "--", *runs, "-o", page])
    stats = json.loads(run([computeprof, "stats", "--format", "json", *runs]))
    ranks = json.loads(run([computeprof, "stats", "--ranks", "--format", "json", *runs]))
    compare = json.loads(subprocess.run([computeprof, "stats", "--compare", "--format", "json", base, "--", *runs],
                                        stdout=subprocess.PIPE).stdout)

    ready = open_page(browser, page)
    print(f"sample page ready in {ready:.2f} s")
    check(browser.evaluate("JSON.stringify(window.cprofReport.stats)") == json.dumps(stats, separators=(",", ":")),
          "the page's stats differ from stats --format json")
    compare_tables(browser.evaluate(DOM_TABLES.replace("SECTION", "tables")), stats, "tables")
    shown_ranks = browser.evaluate(DOM_TABLES.replace("SECTION", "ranks"))
    heat = shown_ranks.pop("heat_map")
    compare_tables(shown_ranks, ranks, "ranks")
    compare_tables(browser.evaluate(DOM_TABLES.replace("SECTION", "comparison")), compare, "comparison")
    # The heat map: the stencil's time in each rank's own table.
    stencil = [[r["time_ns"] for r in json.loads(run([computeprof, "stats", "--format", "json", f]))["gpu_activities"]
                if r["name"] == "stencil(float*, int)"][0] for f in runs]
    check([int(v) for k, v in heat[0][1:]] == stencil, f"heat map's first row {heat[0]}, stats has {stencil}")

    titles = browser.evaluate("window.cprofReport.findings.map((f) => f.title)")
    print("findings:", titles)
    for expected in ("Rank 1 is a straggler: 34.72% more GPU time than the median rank",
                     "Regressed: stencil(float*, int)", "400 copies from pageable host memory",
                     "400 small copies (under 64 KiB each)",
                     "Low occupancy: stencil(float*, int)"):
        check(expected in titles, f"no finding '{expected}' in {titles}")
    check(any(t.startswith("GPU 0 is idle ") for t in titles), f"no GPU idle finding in {titles}")
    check(any("never run at the same time" in t for t in titles), f"no serialized streams finding in {titles}")

    # The canvas: where its first kernel is, in the page's coordinates.
    box = browser.evaluate("""(() => { const r = document.getElementById('timeline').getBoundingClientRect();
      window.scrollTo(0, window.scrollY + r.top - 10); const s = document.getElementById('timeline').getBoundingClientRect();
      return {left: s.left, top: s.top, width: s.width}; })()""")
    before = browser.evaluate("window.cprofReport.view")
    x, y = box["left"] + box["width"] * 0.6, box["top"] + 60
    browser.mouse("mouseWheel", x, y, deltaX=0, deltaY=-400)
    browser.wait_for("window.cprofReport.view.t1 - window.cprofReport.view.t0 < %r" % (before["t1"] - before["t0"]), 5)
    zoomed = browser.evaluate("window.cprofReport.view")
    check(zoomed["t1"] - zoomed["t0"] < before["t1"] - before["t0"], f"the wheel did not zoom in: {before} -> {zoomed}")
    for _ in range(12):
        browser.mouse("mouseWheel", x, y, deltaX=0, deltaY=-400)
    browser.evaluate("new Promise((r) => requestAnimationFrame(() => r(1)))")
    zoomed = browser.evaluate("window.cprofReport.view")
    browser.mouse("mousePressed", x, y, button="left", clickCount=1)
    browser.mouse("mouseMoved", x + 150, y, button="left")
    browser.mouse("mouseReleased", x + 150, y, button="left", clickCount=1)
    panned = browser.evaluate("window.cprofReport.view")
    span = zoomed["t1"] - zoomed["t0"]
    check(panned["t0"] < zoomed["t0"] and abs((panned["t1"] - panned["t0"]) - span) < 1e-6 * span + 1,
          f"dragging right did not pan to earlier times: {zoomed} -> {panned}")
    browser.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "-", "code": "Minus", "text": "-",
                                           "windowsVirtualKeyCode": 189})
    browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "-", "code": "Minus", "windowsVirtualKeyCode": 189})
    keyed = browser.evaluate("window.cprofReport.view")
    check(keyed["t1"] - keyed["t0"] > span, f"'-' did not zoom out: {panned} -> {keyed}")

    # Hover and click the first kernel of stream 7 in view.
    spot = browser.evaluate("""(() => {
      const t = window.cprofReport.timeline;
      const row = t.rows.find((r) => r.kind === 'operations' && r.track.stream === 7);
      const c = t.canvas.getBoundingClientRect();
      for (let i = 0; i < row.start.length; i++) {
        const x0 = t.x(row.start[i]), x1 = t.x(row.end[i]);
        if (row.track.flags[i] === 0 && x0 > 210 && x1 < t.width - 10 && x1 - x0 > 4)
          return {x: c.left + (x0 + x1) / 2, y: c.top + row.y + row.height / 2};
      }
      return null; })()""")
    check(spot is not None, "no kernel of stream 7 wide enough to hover in view")
    if spot:
        browser.mouse("mouseMoved", spot["x"], spot["y"])
        hover = browser.evaluate("window.cprofReport.hover")
        tooltip = browser.evaluate("[document.getElementById('tooltip').hidden, document.getElementById('tooltip').textContent]")
        check(hover is not None and hover["text"].startswith("stencil(float*, int)\n"), f"hover shows {hover}")
        check(tooltip[0] is False and tooltip[1].startswith("stencil(float*, int)\n"), f"the tooltip: {tooltip}")
        browser.mouse("mousePressed", spot["x"], spot["y"], button="left", clickCount=1)
        browser.mouse("mouseReleased", spot["x"], spot["y"], button="left", clickCount=1)
        selected = browser.evaluate("window.cprofReport.selected")
        check(selected == {"name": "stencil(float*, int)", "kind": "operations", "flow": True},
              f"a click selected {selected}")
        details = browser.evaluate("document.getElementById('details').textContent")
        check("made by the call:\ncuLaunchKernel\n" in details, f"the details: {details!r}")

    # A finding's link zooms the timeline to its place.
    browser.evaluate("document.querySelector('#findings button').click()")
    linked = browser.evaluate("window.cprofReport.view")
    check(linked != keyed, "a finding's link did not move the timeline")

    # Screenshots: the page's top (the analysis) and its timeline, iterations in view.
    browser.evaluate("window.cprofReport.timeline.setView(0, 600000)")
    for name, where in (("report.png", "window.scrollTo(0, 0)"),
                        ("report_timeline.png", "document.getElementById('timeline-section').scrollIntoView()")):
        browser.evaluate(where)
        browser.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        png = base64.b64decode(shot["data"])
        with open(os.path.join(workdir, name), "wb") as out:
            out.write(png)
        colours = png_colours(png)
        print(f"{name}: {len(png)} bytes, {colours} colours")
        check(colours >= 16, f"the screenshot {name} has {colours} colours: blank")

    page_url = "file://" + os.path.abspath(page)
    requests = network_requests(browser, page_url)
    check(requests == [], f"network requests: {requests}")
    errors = console_errors(browser)
    check(errors == [], f"console errors: {errors}")


def scale(browser, computeprof, report_runs, workdir, launches):
    run([report_runs, workdir, str(launches)])
    page = os.path.join(workdir, "scale.html")
    started = time.monotonic()
    run([computeprof, "report", "-f", os.path.join(workdir, "scale.cprof"), "-o", page])
    made = time.monotonic() - started
    ready = open_page(browser, page)
    paint = browser.evaluate("performance.getEntriesByType('paint').map((e) => [e.name, e.startTime])")
    print("steps (ms):", browser.evaluate("window.cprofReport.timings"))
    print(f"{launches} launches: run file {os.path.getsize(os.path.join(workdir, 'scale.cprof'))} bytes, "
          f"page {os.path.getsize(page)} bytes, made in {made:.2f} s, first paint {paint}, ready in {ready:.2f} s")
    # Zoom in and out at that size: a frame each.
    started = time.monotonic()
    browser.evaluate("""new Promise((resolve) => { const t = window.cprofReport.timeline;
      for (let i = 0; i < 10; i++) { t.zoom(0.5, 700); t.draw(); } for (let i = 0; i < 10; i++) { t.zoom(2, 700); t.draw(); }
      resolve(1); })""")
    print(f"20 zooms drawn in {time.monotonic() - started:.2f} s")
    check(console_errors(browser) == [], f"console errors: {console_errors(browser)}")


def main():
    if len(sys.argv) not in (4, 6):
        print(__doc__, file=sys.stderr)
        return 2
    computeprof, report_runs, workdir = sys.argv[1:4]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium is not installed: skipped", file=sys.stderr)
        return SKIP
    os.makedirs(workdir, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="report_chromium_")
    browser = Browser(chromium, profile)
    try:
        if len(sys.argv) == 6 and sys.argv[4] == "--scale":
            scale(browser, computeprof, report_runs, workdir, int(sys.argv[5]))
        else:
            run([report_runs, workdir])
            sample_checks(browser, computeprof, workdir)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print(f"{len(failures)} checks failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
