"""A small Chrome DevTools Protocol client over `--remote-debugging-pipe` (standard library only).

Chromium reads protocol commands from its file descriptor 3 and writes answers and events to descriptor 4,
each message a JSON text ended by a NUL byte. One page (target) is attached in flat mode; its events are kept
so a test can wait for a load or read what the console said.
"""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time


class ProtocolError(Exception):
    """A command the browser answered with an error."""


class Browser:
    """Headless Chromium with one page."""

    def __init__(self, executable=None, width=1280, height=900):
        executable = executable or shutil.which("chromium") or shutil.which("chromium-browser")
        if not executable:
            raise SystemExit("chromium is not installed (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="cloudant-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire_descriptors():
            # Copies above 3 and 4 first (a pipe end may itself be 3 or 4), then onto 3 and 4 without
            # close-on-exec: os.dup2 of a descriptor onto itself would keep the flag and close it at exec.
            read_copy = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            write_copy = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(read_copy, 3)
            os.dup2(write_copy, 4)

        arguments = [
            executable, "--headless=new", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
            "--disable-gpu", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height),
        ]
        if os.geteuid() == 0:
            arguments.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox.
        self.process = subprocess.Popen(
            arguments, preexec_fn=wire_descriptors, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._next_id = 0
        self._lock = threading.Condition()
        self._answers = {}
        self.events = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network", "DOM"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.width, self.height = width, height

    # MARK: the wire

    def _read(self):
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                with self._lock:
                    self._lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                payload = json.loads(message)
                with self._lock:
                    if "id" in payload:
                        self._answers[payload["id"]] = payload
                    else:
                        self.events.append(payload)
                    self._lock.notify_all()

    def command(self, method, session=None, timeout=30, **params):
        """Sends a command and returns its result."""
        with self._lock:
            self._next_id += 1
            identifier = self._next_id
        message = {"id": identifier, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]
        deadline = time.monotonic() + timeout
        with self._lock:
            while identifier not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise ProtocolError("%s: no answer" % method)
                self._lock.wait(left)
            answer = self._answers.pop(identifier)
        if "error" in answer:
            raise ProtocolError("%s: %s" % (method, answer["error"]))
        return answer.get("result", {})

    def send(self, method, **params):
        """A command to the page."""
        return self.command(method, session=self.session, **params)

    def wait_for_event(self, method, since, timeout=30):
        """The first event `method` after event index `since`."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for event in self.events[since:]:
                    if event.get("method") == method:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProtocolError("no %s within %d s" % (method, timeout))
                self._lock.wait(left)

    def mark(self):
        """An event index: waits after it see only what happens next."""
        with self._lock:
            return len(self.events)

    # MARK: what tests do

    def goto(self, url):
        """Loads `url` and waits for its load event."""
        since = self.mark()
        result = self.send("Page.navigate", url=url)
        if result.get("errorText"):
            raise ProtocolError("navigate %s: %s" % (url, result["errorText"]))
        self.wait_for_event("Page.loadEventFired", since)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise ProtocolError("evaluate %r: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def fill(self, selector, value):
        """Sets a field's value as typing would, with an input event."""
        self.evaluate(
            "(() => { const field = document.querySelector(%s); field.value = %s;"
            " field.dispatchEvent(new Event('input', {bubbles: true})); })()" % (json.dumps(selector), json.dumps(value)))

    def click_and_wait(self, selector):
        """Clicks an element (a submit button) and waits for the page it leads to."""
        since = self.mark()
        self.evaluate("document.querySelector(%s).click()" % json.dumps(selector))
        self.wait_for_event("Page.loadEventFired", since)

    def text(self, selector):
        """The text of the first element matching `selector`, or None."""
        return self.evaluate(
            "(() => { const e = document.querySelector(%s); return e ? e.textContent : null; })()" % json.dumps(selector))

    def html(self):
        """The rendered document's markup, read through the DOM domain (works with scripts turned off)."""
        root = self.send("DOM.getDocument", depth=-1)["root"]
        return self.send("DOM.getOuterHTML", nodeId=root["nodeId"])["outerHTML"]

    def screenshot(self, path):
        """Saves a PNG of the viewport and returns its width and height, read from the PNG itself."""
        data = base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as file:
            file.write(data)
        if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
            raise AssertionError("%s is not a PNG" % path)
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"), len(data)

    def problems(self, since=0):
        """Console errors, uncaught exceptions, failed loads and dialogs since event index `since`."""
        found = []
        for event in self.events[since:]:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append("exception: %s" % params["exceptionDetails"].get("text"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console.%s: %s" % (params["type"], [a.get("value") for a in params.get("args", [])]))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append("log: %s %s" % (params["entry"].get("text"), params["entry"].get("url", "")))
            elif method == "Page.javascriptDialogOpening":
                found.append("dialog: %s" % params.get("message"))
        return found

    def close(self):
        try:
            self.command("Browser.close", timeout=5)
        except ProtocolError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
