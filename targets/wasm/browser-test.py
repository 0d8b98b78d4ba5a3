#!/usr/bin/env python3
"""The example page in a real browser (CTest wasm_browser, preset wasm): headless Chromium (Debian's chromium and
chromium-driver, driven through WebDriver's HTTP protocol) opens examples/web from a static server on 127.0.0.1,
waits for the model, types a sentence, waits for the translation and checks it, checks that no request left the
page after it loaded (the server's log), and saves a screenshot (SCREENSHOT, in the build tree). With --bench
INPUT N it then translates the first N lines of INPUT one at a time through the page's worker (greedy) and
prints tokens/s (docs/targets.md). With --isolated (CTest wasm_browser_isolated) the server sends the headers that
make the page cross-origin isolated (COOP same-origin, COEP require-corp): the page's worker must load the threaded
module (tern-web-threads) and its translator take more than one thread where the machine has more than one core.
Usage: browser-test.py SITE_DIR SCREENSHOT [--isolated] [--bench INPUT N]"""

import base64
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

SENTENCE = "A dog runs on the beach."
WANT = "Ein Hund läuft am Strand."


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Handler(http.server.SimpleHTTPRequestHandler):
    requests = []  # (time, path) of every request the page made
    isolated = False
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript",
                      ".wasm": "application/wasm"}

    def log_message(self, *args):
        pass

    def end_headers(self):
        if Handler.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def do_GET(self):
        Handler.requests.append((time.monotonic(), self.path))
        super().do_GET()


def webdriver(port, method, path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())["value"]


def main():
    site, screenshot = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    Handler.isolated = "--isolated" in rest
    bench = rest[rest.index("--bench") + 1:rest.index("--bench") + 3] if "--bench" in rest else None
    for tool in ("chromium", "chromedriver"):
        if not shutil.which(tool):
            sys.exit("browser-test: %s missing (scripts/setup.sh installs chromium and chromium-driver)" % tool)
    http_port, wd_port = free_port(), free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", http_port), functools.partial(Handler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="tern-chromium-")
    driver = subprocess.Popen(["chromedriver", "--port=%d" % wd_port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session = None
    try:
        for _ in range(100):
            try:
                webdriver(wd_port, "GET", "/status", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": shutil.which("chromium"),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--user-data-dir=" + profile, "--window-size=1000,700"]}}}}
        session = webdriver(wd_port, "POST", "/session", caps, timeout=120)["sessionId"]
        s = "/session/" + session
        def script(js, *args):
            return webdriver(wd_port, "POST", s + "/execute/sync", {"script": js, "args": list(args)})
        webdriver(wd_port, "POST", s + "/url", {"url": "http://127.0.0.1:%d/index.html" % http_port})
        t0 = time.monotonic()
        while script("return document.body.dataset.ready || null") != "1":
            if time.monotonic() - t0 > 120:
                sys.exit("browser-test: the model did not load: %s" % script("return document.getElementById('status').textContent"))
            time.sleep(0.2)
        loaded = time.monotonic()
        print("browser-test: loaded in %.1f s: %s" % (loaded - t0, script("return document.getElementById('status').textContent")))
        threads = int(script("return document.body.dataset.threads"))
        if Handler.isolated:
            if script("return self.crossOriginIsolated") is not True:
                sys.exit("browser-test: the page is not cross-origin isolated")
            want = min(4, os.cpu_count() or 1, int(script("return navigator.hardwareConcurrency")))
            if threads != want:
                sys.exit("browser-test: an isolated page's translator has %d threads, want %d" % (threads, want))
        elif threads != 1:
            sys.exit("browser-test: a page that is not isolated has %d threads, want 1" % threads)
        box = webdriver(wd_port, "POST", s + "/element", {"using": "css selector", "value": "#source"})
        element = next(iter(box.values()))
        webdriver(wd_port, "POST", s + "/element/%s/value" % element, {"text": SENTENCE})
        while script("return document.getElementById('target').dataset.source || null") != SENTENCE:
            if time.monotonic() - loaded > 60:
                sys.exit("browser-test: no translation of what was typed: %s" % script("return document.getElementById('status').textContent"))
            time.sleep(0.2)
        got = script("return document.getElementById('target').textContent")
        status = script("return document.getElementById('status').textContent")
        png = base64.b64decode(webdriver(wd_port, "GET", s + "/screenshot"))
        with open(screenshot, "wb") as f:
            f.write(png)
        print("browser-test: typed %r, got %r (%s); screenshot %s (%d bytes)" % (SENTENCE, got, status, screenshot, len(png)))
        if got != WANT:
            sys.exit("browser-test: want %r" % WANT)
        late = [p for t, p in Handler.requests if t > loaded]
        if late:
            sys.exit("browser-test: requests after the page loaded (it must be offline): %s" % late)
        print("browser-test: %d requests, all before the model was ready: %s" % (len(Handler.requests), [p for _, p in Handler.requests]))
        if bench:
            with open(bench[0], encoding="utf-8") as f:
                lines = [l.strip() for l in f if l.strip()][: int(bench[1])]
            js = """
              const [lines, done] = [arguments[0], arguments[arguments.length - 1]];
              (async () => {
                await window.ternAsk({ op: 'translate', texts: [lines[0]], options: { beamSize: 1, splitSentences: false } });
                let tokens = 0;
                const t0 = performance.now();
                for (const l of lines) {
                  const [r] = await window.ternAsk({ op: 'translate', texts: [l], options: { beamSize: 1, splitSentences: false } });
                  tokens += r.hypotheses[0].tokens.length;
                }
                const s = (performance.now() - t0) / 1000;
                const { memoryBytes } = await window.ternAsk({ op: 'memory' });
                done({ sentences: lines.length, target_tokens: tokens, seconds: s, tokens_per_s: tokens / s,
                       memory_mib: memoryBytes / 1048576, threads: Number(document.body.dataset.threads),
                       browser: navigator.userAgent });
              })();"""
            webdriver(wd_port, "POST", s + "/timeouts", {"script": 600000})
            result = webdriver(wd_port, "POST", s + "/execute/async", {"script": js, "args": [lines]}, timeout=620)
            print("browser-bench: " + json.dumps(result))
    finally:
        if session:
            try:
                webdriver(wd_port, "DELETE", "/session/" + session, timeout=30)
            except OSError:
                pass
        driver.terminate()
        driver.wait(timeout=30)
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
