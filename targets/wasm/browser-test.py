#!/usr/bin/env python3
"""The example page in a real browser (CTest wasm_browser*, preset wasm): headless Chromium, Firefox or WebKit opens
examples/web from a static server on 127.0.0.1, waits for the model, types a sentence, waits for the translation and
checks it, checks that no request left the page after it loaded (the server's log), and saves a screenshot
(SCREENSHOT, in the build tree). With --compare NATIVE_TERN F32_MODEL SAMPLE it then translates SAMPLE's lines in the
page's worker with the page's int8 model and with F32_MODEL, greedy and beam 4, and checks them against NATIVE_TERN's
(`translate --scores --exact-scores --threads 1`): every text byte for byte, int8 scores byte for byte too, f32
scores within 1e-4 (compare_with_native). With
--bench INPUT N it translates the first N lines of INPUT one at a time through the page's worker (greedy) and
prints tokens/s (docs/targets.md). With --isolated the server sends the headers that make the page cross-origin
isolated (COOP same-origin, COEP require-corp): the page's worker must load the threaded module (tern-web-threads)
and its translator take more than one thread where the machine has more than one core.

The browsers (`scripts/setup.sh wasm` installs them), each driven through what Debian ships with it:
  chromium  Debian's chromium and chromedriver (W3C WebDriver over HTTP)
  firefox   Debian's firefox-esr through Marionette, Firefox's own remote protocol (Debian has no geckodriver)
  webkit    WebKitGTK's MiniBrowser through WebKitWebDriver (webkit2gtk-driver), on an Xvfb display (WebKitGTK
            has no headless mode)
Usage: browser-test.py SITE_DIR SCREENSHOT [--browser chromium|firefox|webkit] [--isolated]
                       [--compare NATIVE_TERN F32_MODEL SAMPLE] [--bench INPUT N]"""

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

    extra = {}  # URL path -> a file outside the site (--compare's f32 model)

    def do_GET(self):
        Handler.requests.append((time.monotonic(), self.path))
        if self.path in Handler.extra:
            with open(Handler.extra[self.path], "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            if Handler.isolated:
                self.send_header("Cross-Origin-Resource-Policy", "same-origin")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


class WebDriverHttp:
    """A W3C WebDriver session over HTTP (chromedriver, WebKitWebDriver): the driver is started on a free port."""

    def __init__(self, argv, capabilities, env=None):
        self.port = free_port()
        self.process = subprocess.Popen(argv + ["--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env)
        self.session = None
        for _ in range(200):
            try:
                self._call("GET", "/status", timeout=2)
                break
            except OSError:
                time.sleep(0.1)
        self.session = "/session/" + self._call("POST", "/session", {"capabilities": capabilities}, timeout=120)["sessionId"]

    def _call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())["value"]

    def navigate(self, url):
        self._call("POST", self.session + "/url", {"url": url})

    def script(self, js, *args):
        return self._call("POST", self.session + "/execute/sync", {"script": js, "args": list(args)})

    def async_script(self, js, args, timeout_s):
        self._call("POST", self.session + "/timeouts", {"script": int(timeout_s * 1000)})
        return self._call("POST", self.session + "/execute/async", {"script": js, "args": list(args)}, timeout=timeout_s + 20)

    def type_into(self, css, text):
        element = next(iter(self._call("POST", self.session + "/element", {"using": "css selector", "value": css}).values()))
        self._call("POST", self.session + "/element/%s/value" % element, {"text": text})

    def screenshot(self):
        return base64.b64decode(self._call("GET", self.session + "/screenshot"))

    def browser_version(self):
        return self.script("return navigator.userAgent")

    def close(self):
        if self.session:
            try:
                self._call("DELETE", self.session, timeout=30)
            except OSError:
                pass
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Marionette:
    """Firefox through Marionette (https://firefox-source-docs.mozilla.org/testing/marionette/Protocol.html): one TCP
    connection, each message "LENGTH:JSON", commands [0, id, name, params], answers [1, id, error, result]."""

    def __init__(self, binary, profile):
        self.port = free_port()
        with open(os.path.join(profile, "user.js"), "w") as f:
            for key, value in {"marionette.port": self.port, "browser.shell.checkDefaultBrowser": False,
                               "browser.startup.homepage_override.mstone": "ignore", "app.update.disabledForTesting": True,
                               "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.reportingpolicy.firstRun": False,
                               "network.captive-portal-service.enabled": False, "app.normandy.enabled": False,
                               "browser.safebrowsing.malware.enabled": False, "browser.safebrowsing.phishing.enabled": False,
                               "extensions.update.enabled": False, "browser.region.network.url": "",
                               "network.connectivity-service.enabled": False}.items():
                f.write("user_pref(%s, %s);\n" % (json.dumps(key), json.dumps(value)))
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
        self.process = subprocess.Popen([binary, "-headless", "-marionette", "-no-remote", "-profile", profile,
                                         "--window-size=1000,700", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0
        deadline = time.monotonic() + 60
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("Firefox's Marionette did not listen on port %d" % self.port)
                time.sleep(0.2)
        self.buffer = b""
        hello = self._read()
        if hello.get("marionetteProtocol") != 3:
            raise RuntimeError("Marionette protocol %r, want 3" % hello)
        self._call("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}}, timeout=120)

    def _read(self):
        while b":" not in self.buffer:
            self._recv()
        length, _, rest = self.buffer.partition(b":")
        n = int(length)
        while len(rest) < n:
            self._recv()
            length, _, rest = self.buffer.partition(b":")
        self.buffer = rest[n:]
        return json.loads(rest[:n])

    def _recv(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError("Marionette closed the connection")
        self.buffer += chunk

    def _call(self, name, params=None, timeout=60):
        self.next_id += 1
        body = json.dumps([0, self.next_id, name, params or {}]).encode()
        self.sock.settimeout(timeout)
        self.sock.sendall(b"%d:%s" % (len(body), body))
        while True:
            kind, mid, error, result = self._read()
            if kind == 1 and mid == self.next_id:
                break
        if error:
            raise RuntimeError("Marionette %s: %s" % (name, error.get("message", error)))
        return result.get("value") if isinstance(result, dict) else result

    def navigate(self, url):
        self._call("WebDriver:Navigate", {"url": url})

    def script(self, js, *args):
        return self._call("WebDriver:ExecuteScript", {"script": js, "args": list(args)})

    def async_script(self, js, args, timeout_s):
        self._call("WebDriver:SetTimeouts", {"script": int(timeout_s * 1000)})
        return self._call("WebDriver:ExecuteAsyncScript", {"script": js, "args": list(args)}, timeout=timeout_s + 20)

    def type_into(self, css, text):
        element = self._call("WebDriver:FindElement", {"using": "css selector", "value": css})
        self._call("WebDriver:ElementSendKeys", {"id": next(iter(element.values())), "text": text})

    def screenshot(self):
        return base64.b64decode(self._call("WebDriver:TakeScreenshot", {"full": False}))

    def close(self):
        try:
            self._call("Marionette:Quit", {"flags": ["eForceQuit"]}, timeout=30)
        except (OSError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Xvfb:
    """A virtual X display for WebKitGTK (it has no headless mode): Xvfb picks a free display number (-displayfd)."""

    def __init__(self):
        r, w = os.pipe()
        self.process = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                        pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            self.display = ":" + f.readline().strip()

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)


MINIBROWSER = ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
               "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser", "/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser"]


def open_browser(name, profile, cleanup):
    """Starts `name`'s driver; what it started is closed by the callables appended to `cleanup`."""
    need = {"chromium": ["chromium", "chromedriver"], "firefox": ["firefox-esr"], "webkit": ["WebKitWebDriver", "Xvfb"]}[name]
    for tool in need:
        if not shutil.which(tool):
            sys.exit("browser-test: %s missing (`scripts/setup.sh wasm` installs the browsers and their drivers)" % tool)
    if name == "chromium":
        d = WebDriverHttp(["chromedriver"], {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": shutil.which("chromium"),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--user-data-dir=" + profile, "--window-size=1000,700"]}}})
    elif name == "firefox":
        d = Marionette(shutil.which("firefox-esr"), profile)
    else:
        binary = next((b for b in MINIBROWSER if os.path.exists(b)), None)
        if not binary:
            sys.exit("browser-test: WebKitGTK's MiniBrowser missing (Debian: libwebkit2gtk-4.1-0, with webkit2gtk-driver)")
        x = Xvfb()
        cleanup.append(x.close)
        env = dict(os.environ, DISPLAY=x.display, WEBKIT_DISABLE_COMPOSITING_MODE="1", XDG_RUNTIME_DIR=profile)
        env.pop("WAYLAND_DISPLAY", None)
        d = WebDriverHttp(["WebKitWebDriver"], {"alwaysMatch": {"browserName": "MiniBrowser", "webkitgtk:browserOptions": {
            "binary": binary, "args": ["--automation"]}}}, env=env)
    cleanup.append(d.close)
    return d


COMPARE_JS = """
  const [url, name, texts, done] = [arguments[0], arguments[1], arguments[2], arguments[arguments.length - 1]];
  (async () => {
    await window.ternAsk({ op: 'load', source: new URL(url, location.href).href, name });
    await window.ternAsk({ op: 'translator', config: { threads: 1 } });
    const out = {};
    for (const beamSize of [1, 4]) {
      const rs = await window.ternAsk({ op: 'translate', texts, options: { beamSize, returnScores: true } });
      out[beamSize] = rs.map((r) => r.ok ? [r.hypotheses[0].text, r.hypotheses[0].score] : ['ERROR ' + r.error, 0]);
    }
    done(out);
  })().catch((e) => done('ERROR ' + e.message));"""


def compare_with_native(d, native, f32_model, sample, site):
    """The sample through the page's worker (int8 and f32, greedy and beam 4) against the native CLI. int8: text and
    score (as `--exact-scores` prints it, %.9g of the float) byte for byte, as tern's int8 is the same on every CPU.
    f32: the text byte for byte, the score within 1e-4 (XNNPACK's f32 kernels differ between WebAssembly SIMD and
    the native ISA in the last bits; the argmax decisions do not, as on every native CPU)."""
    with open(sample, encoding="utf-8") as f:
        texts = [l.rstrip("\n") for l in f if l.strip()]
    models = [("int8", "en-de.int8.tern", os.path.join(site, "en-de.int8.tern")), ("f32", "extra/en-de.f32.tern", f32_model)]
    for kind, url, path in models:
        got = d.async_script(COMPARE_JS, [url, os.path.basename(path), texts], 600)
        if isinstance(got, str):
            sys.exit("browser-test: %s: %s" % (kind, got))
        for beam in (1, 4):
            want = subprocess.run([native, "translate", "-m", path, "--beam", str(beam), "--scores", "--exact-scores",
                                   "--threads", "1"], input="\n".join(texts) + "\n", capture_output=True, text=True,
                                  check=True).stdout.splitlines()
            mine = ["%s\t%.9g" % (t, s) for t, s in got[str(beam)]]
            if kind == "int8":
                bad = [(i, a, b) for i, (a, b) in enumerate(zip(mine, want)) if a != b]
            else:
                def split(line):
                    text, _, score = line.rpartition("\t")
                    return text, float(score)
                bad = [(i, a, b) for i, (a, b) in enumerate(zip(mine, want))
                       if split(a)[0] != split(b)[0] or abs(split(a)[1] - split(b)[1]) > 1e-4]
            if bad or len(mine) != len(want):
                sys.exit("browser-test: %s beam %d: %d of %d lines differ from the native build's, first: line %d\n  page   %r\n  native %r"
                         % (kind, beam, len(bad) or abs(len(mine) - len(want)), len(want), *(bad[0] if bad else (len(mine), "", ""))))
            if kind == "int8":
                print("browser-test: int8 beam %d: %d lines, text and score identical to the native build's" % (beam, len(want)))
            else:
                worst = max(abs(float(a.rpartition("\t")[2]) - float(b.rpartition("\t")[2])) for a, b in zip(mine, want))
                print("browser-test: f32 beam %d: %d lines, text identical to the native build's, scores within %.1e"
                      % (beam, len(want), worst))


def main():
    site, screenshot = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    Handler.isolated = "--isolated" in rest
    bench = rest[rest.index("--bench") + 1:rest.index("--bench") + 3] if "--bench" in rest else None
    compare = rest[rest.index("--compare") + 1:rest.index("--compare") + 4] if "--compare" in rest else None
    browser = rest[rest.index("--browser") + 1] if "--browser" in rest else "chromium"
    if browser not in ("chromium", "firefox", "webkit"):
        sys.exit("browser-test: --browser %r: chromium, firefox or webkit" % browser)
    if compare:
        for path in compare:
            if not os.path.exists(path):
                sys.exit("browser-test: --compare: no %s (the native build and its suite make it: cmake --workflow --preset default)" % path)
        Handler.extra = {"/extra/en-de.f32.tern": compare[1]}
    http_port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", http_port), functools.partial(Handler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="tern-%s-" % browser)
    cleanup = []
    try:
        d = open_browser(browser, profile, cleanup)
        d.navigate("http://127.0.0.1:%d/index.html" % http_port)
        t0 = time.monotonic()
        while d.script("return document.body.dataset.ready || null") != "1":
            if time.monotonic() - t0 > 120:
                sys.exit("browser-test: the model did not load: %s" % d.script("return document.getElementById('status').textContent"))
            time.sleep(0.2)
        loaded = time.monotonic()
        print("browser-test: %s: %s" % (browser, d.script("return navigator.userAgent")))
        print("browser-test: loaded in %.1f s: %s" % (loaded - t0, d.script("return document.getElementById('status').textContent")))
        threads = int(d.script("return document.body.dataset.threads"))
        if Handler.isolated:
            if d.script("return self.crossOriginIsolated") is not True:
                sys.exit("browser-test: the page is not cross-origin isolated")
            want = min(4, os.cpu_count() or 1, int(d.script("return navigator.hardwareConcurrency")))
            if d.script("return typeof SharedArrayBuffer") != "function":
                # An engine without SharedArrayBuffer on an isolated page (WebKitGTK 2.50) must still translate:
                # tern.mjs takes the one-thread module there.
                print("browser-test: %s has no SharedArrayBuffer on an isolated page: one thread" % browser)
                want = 1
            if threads != want:
                sys.exit("browser-test: an isolated page's translator has %d threads, want %d" % (threads, want))
        elif threads != 1:
            sys.exit("browser-test: a page that is not isolated has %d threads, want 1" % threads)
        d.type_into("#source", SENTENCE)
        while d.script("return document.getElementById('target').dataset.source || null") != SENTENCE:
            if time.monotonic() - loaded > 60:
                sys.exit("browser-test: no translation of what was typed: %s" % d.script("return document.getElementById('status').textContent"))
            time.sleep(0.2)
        got = d.script("return document.getElementById('target').textContent")
        status = d.script("return document.getElementById('status').textContent")
        png = d.screenshot()
        with open(screenshot, "wb") as f:
            f.write(png)
        print("browser-test: typed %r, got %r (%s); screenshot %s (%d bytes)" % (SENTENCE, got, status, screenshot, len(png)))
        if got != WANT:
            sys.exit("browser-test: want %r" % WANT)
        late = [p for t, p in Handler.requests if t > loaded]
        if late:
            sys.exit("browser-test: requests after the page loaded (it must be offline): %s" % late)
        print("browser-test: %d requests, all before the model was ready: %s" % (len(Handler.requests), [p for _, p in Handler.requests]))
        if compare:
            compare_with_native(d, compare[0], compare[1], compare[2], site)
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
            result = d.async_script(js, [lines], 600)
            print("browser-bench: " + json.dumps(result))
    finally:
        for close in reversed(cleanup):
            try:
                close()
            except Exception:  # noqa: BLE001 (closing what is left; the test's own result stands)
                pass
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
