#!/usr/bin/env python3
"""The dashboard in a real browser: headless Chromium drives `cloudant serve`'s `/_utils` pages.

    python3 BrowserTests/dashboard_test.py PATH/TO/cloudant [--screenshots DIR]

Each test starts from a logged-in page of a fresh server, clicks through the pages as a person would, reads
the rendered DOM, and fails on any console error, uncaught exception, failed load or dialog. Screenshots are
checked to be PNGs of the viewport's size and kept in DIR. Exits non-zero when a test fails; the last line is
"N passed, M failed". `.ci/run` runs it after installing Debian's chromium.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

ADMIN, PASSWORD = "admin", "secret"


class Server:
    """`cloudant serve` on a free loopback port, in a fresh data folder."""

    def __init__(self, cloudant, extra=(), prepare=None):
        self.folder = tempfile.mkdtemp(prefix="cloudant-browser-")
        if prepare:
            prepare(cloudant, self.folder)
        self.process = subprocess.Popen(
            [cloudant, "--data", self.folder, "serve", "--port", "0", "--admin", "%s:%s" % (ADMIN, PASSWORD), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("cloudant serve did not start: %s" % self.process.stderr.read())
        self.url = json.loads(line)["url"]

    def api(self, method, path, body=None, content_type="application/json"):
        """A CouchDB API call as the admin, with basic auth; returns (status, parsed JSON)."""
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        token = base64.b64encode(("%s:%s" % (ADMIN, PASSWORD)).encode()).decode()
        request.add_header("Authorization", "Basic " + token)
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def quote(text):
    return urllib.parse.quote(text, safe="")


def log_in(browser, server):
    """Opens the dashboard, lands on the login form, logs in with it."""
    browser.goto(server.url + "/_utils/")
    assert browser.text("h1") == "Log in", browser.text("h1")
    browser.fill("#login input[name=name]", ADMIN)
    browser.fill("#login input[name=password]", PASSWORD)
    browser.click_and_wait("#login button")
    assert browser.text("h1") == "Databases", "after login: %s" % browser.text("h1")


def expect_clean(browser, since, what):
    problems = browser.problems(since)
    assert not problems, "%s: %s" % (what, problems)


def check_screenshot(browser, folder, name):
    width, height, size = browser.screenshot(os.path.join(folder, name + ".png"))
    assert (width, height) == (browser.width, browser.height), "%s is %dx%d" % (name, width, height)
    assert size > 5000, "%s is only %d bytes: an empty page?" % (name, size)


# MARK: tests

def test_create_database_add_document_query(browser, server, screenshots):
    """Create database -> add document -> query -> see the result, by clicking through the pages."""
    since = browser.mark()
    log_in(browser, server)
    check_screenshot(browser, screenshots, "databases")
    browser.fill("#create-database input[name=name]", "patients")
    browser.click_and_wait("#create-database button")
    assert browser.text("h1") == "patients"
    assert browser.text(".notice") == "Database created."
    browser.click_and_wait("nav.tabs a[href$='/new']")
    browser.fill("#json", json.dumps({"_id": "ann", "type": "patient", "name": "Ann Smith", "age": 41}))
    browser.click_and_wait("#edit-document button")
    assert browser.text("h1") == "ann", browser.text("h1")
    assert browser.text(".notice") == "Document saved."
    assert "Ann Smith" in browser.evaluate("document.querySelector('#json').value")
    assert "(current, shown)" in browser.text("#revision-tree")
    check_screenshot(browser, screenshots, "document")
    # A second document through the API, so the query has something to leave out.
    assert server.api("PUT", "/patients/bob", {"type": "clinician", "name": "Bob"})[0] == 201
    browser.goto(server.url + "/_utils/db/patients/query")
    browser.fill("#index", json.dumps({"index": {"fields": ["type"]}, "name": "by-type"}))
    browser.click_and_wait("#create-index button")
    assert browser.text(".notice") == "Index created."
    assert "by-type" in browser.text("#indexes")
    browser.fill("#q", json.dumps({"selector": {"type": "patient"}, "fields": ["_id", "name", "age"]}))
    browser.click_and_wait("#query-form button")
    assert browser.text("#result-count").startswith("1 document"), browser.text("#result-count")
    assert "Ann Smith" in browser.text("#results") and "Bob" not in browser.text("#results")
    assert "by-type" in browser.text("#explain"), browser.text("#explain")
    check_screenshot(browser, screenshots, "query")
    expect_clean(browser, since, "create, add, query")


def test_edit_conflict_keeps_the_text(browser, server, screenshots):
    """Saving over a revision someone else replaced shows the conflict and keeps what was typed."""
    server.api("PUT", "/notes", None)
    server.api("PUT", "/notes/n1", {"text": "first"})
    log_in(browser, server)
    browser.goto(server.url + "/_utils/db/notes/doc/n1")
    text = browser.evaluate("document.querySelector('#json').value")
    current = json.loads(text)
    # Another writer saves first.
    assert server.api("PUT", "/notes/n1", {"_rev": current["_rev"], "text": "theirs"})[0] == 201
    current["text"] = "mine, typed with care"
    browser.fill("#json", json.dumps(current))
    browser.click_and_wait("#edit-document button")
    assert "changed since" in browser.text(".failure"), browser.text(".failure")
    assert "mine, typed with care" in browser.evaluate("document.querySelector('#json').value")
    # Not-JSON is refused by the page's script before it is posted; the server refuses it too (no script).
    browser.fill("#json", "{not json")
    assert "Not valid JSON" in browser.text(".json-status")


def test_user_data_is_never_executed(browser, server, screenshots):
    """Ids, fields and attachment names holding markup show as text and run nothing."""
    server.api("PUT", "/xss", None)
    hostile_id = "<script>window.__xss='id'</script>"
    status, saved = server.api(
        "PUT", "/xss/" + quote(hostile_id),
        {"name": "<img src=x onerror=\"window.__xss='field'\">", "<b onmouseover=alert(1)>key</b>": "\"'><script>alert(2)</script>"})
    assert status == 201, saved
    attachment = "<script>window.__xss='attachment'</script>.txt"
    status, _ = server.api(
        "PUT", "/xss/%s/%s?rev=%s" % (quote(hostile_id), quote(attachment), saved["rev"]), b"hello", "text/plain")
    assert status == 201
    since = browser.mark()
    log_in(browser, server)
    pages = [
        "/_utils/db/xss", "/_utils/db/xss/doc/" + quote(hostile_id), "/_utils/db/xss/changes",
        "/_utils/db/xss/query?q=" + quote(json.dumps({"selector": {}})),
    ]
    for page in pages:
        browser.goto(server.url + page)
        assert browser.evaluate("window.__xss === undefined"), "%s ran injected script" % page
        assert browser.evaluate("document.querySelectorAll('img, b').length") == 0, "%s rendered injected markup" % page
    browser.goto(server.url + "/_utils/db/xss/doc/" + quote(hostile_id))
    assert browser.text("h1") == hostile_id
    assert attachment in browser.text("#attachments")
    expect_clean(browser, since, "hostile data")


def test_pages_read_without_javascript(browser, server, screenshots):
    """With scripts turned off every page still shows its data."""
    server.api("PUT", "/plain", None)
    server.api("PUT", "/plain/doc-1", {"value": "readable"})
    log_in(browser, server)
    browser.send("Emulation.setScriptExecutionDisabled", value=True)
    try:
        for page, expected in [
            ("/_utils/", "plain"), ("/_utils/db/plain", "doc-1"), ("/_utils/db/plain/doc/doc-1", "readable"),
            ("/_utils/db/plain/changes", "doc-1"),
            ("/_utils/db/plain/query?q=" + quote(json.dumps({"selector": {"value": "readable"}})), "readable"),
            ("/_utils/db/plain/panel/health", "Clinical documents"), ("/_utils/db/plain/panel/care", "Care in plain"),
            ("/_utils/db/plain/panel/replication", "Replication of plain"),
        ]:
            browser.goto(server.url + page)
            assert expected in browser.html(), "%s without JavaScript lacks %r" % (page, expected)
    finally:
        browser.send("Emulation.setScriptExecutionDisabled", value=False)


def test_changes_page_follows_the_feed(browser, server, screenshots):
    """A change made while the changes page is open appears on it without a reload."""
    server.api("PUT", "/live", None)
    server.api("PUT", "/live/before", {"n": 1})
    since = browser.mark()
    log_in(browser, server)
    browser.goto(server.url + "/_utils/db/live/changes")
    assert "before" in browser.text("#changes")
    time.sleep(0.5)
    assert server.api("PUT", "/live/arrived-later", {"n": 2})[0] == 201
    deadline = time.monotonic() + 15
    while "arrived-later" not in (browser.text("#changes") or ""):
        assert time.monotonic() < deadline, "the new change never appeared"
        time.sleep(0.2)
    check_screenshot(browser, screenshots, "changes")
    expect_clean(browser, since, "live changes")


def test_logout_ends_the_session(browser, server, screenshots):
    """Logging out leads back to the login form, and the pages ask for a login again."""
    log_in(browser, server)
    browser.click_and_wait("header form button")
    assert browser.text("h1") == "Log in"
    browser.goto(server.url + "/_utils/")
    assert browser.text("h1") == "Log in"


def cloudant(binary, folder, *arguments, stdin=None):
    """Runs the CLI on a data folder (before the server opens it) and returns its standard output."""
    result = subprocess.run(
        [binary, "--data", folder, *arguments], input=stdin, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, "cloudant %s: %s" % (" ".join(arguments), result.stderr)
    return result.stdout


def generated_export(folder):
    """A small Apple Health export from the test generator: a year of samples, workouts with routes, a CDA."""
    generator = os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "HealthExports", "gen_health_export.py")
    subprocess.run(
        [sys.executable, generator, "--records", "6000", "--seed", "3", "--route-points", "60", "--out", folder],
        check=True, capture_output=True, timeout=300)
    return os.path.join(folder, "apple_health_export")


def test_health_chart_route_and_cda_pages(browser, server, screenshots):
    """The health panel draws a year chart, zooms to 30 days, draws a workout's route and shows a CDA document."""
    since = browser.mark()
    log_in(browser, server)
    browser.goto(server.url + "/_utils/db/health")
    browser.click_and_wait("nav.tabs a[href$='/panel/health']")
    assert browser.evaluate("document.querySelectorAll('#health-chart svg polyline, #health-chart svg rect').length") > 1
    assert "per week" in browser.text("#health-chart svg"), browser.text("#health-chart svg")
    check_screenshot(browser, screenshots, "health-chart")
    browser.click_and_wait("a[href*='from='][href*='to=']:nth-of-type(2)")  # "30 days"
    assert "per day" in browser.text("#health-chart svg"), browser.text("#health-chart svg")
    browser.click_and_wait("#workouts a")
    assert browser.evaluate("document.querySelector('#route svg path').getAttribute('d').split('L').length") >= 10
    check_screenshot(browser, screenshots, "health-route")
    browser.goto(server.url + "/_utils/db/health/panel/health")
    browser.click_and_wait("#cda-documents a")
    assert browser.evaluate("document.querySelectorAll('.cda-section tbody tr').length") > 0
    expect_clean(browser, since, "health pages")


def test_care_calendar_shows_events_outcomes_and_adherence(browser, server, screenshots):
    """The care panel shows the patient's month: each day's events, done where an outcome exists."""
    since = browser.mark()
    log_in(browser, server)
    browser.goto(server.url + "/_utils/db/care/panel/care")
    assert browser.text("h1") == "Care of Ann Lee", browser.text("h1")
    first_day = browser.evaluate("document.querySelector('#care-calendar .day:not(.blank)').textContent")
    assert "1/1" in first_day and "\u2713 Take meds" in first_day, first_day
    assert browser.evaluate("document.querySelector('#care-calendar .day:not(.blank)').classList.contains('full')")
    check_screenshot(browser, screenshots, "care-calendar")
    browser.click_and_wait("a[rel=next]")
    assert browser.evaluate("document.querySelectorAll('#care-calendar .day.full').length") == 0
    expect_clean(browser, since, "care calendar")


def test_replication_page_starts_a_job_and_shows_it_complete(browser, server, screenshots):
    """An admin starts a push from the replication page and sees it complete with every document written."""
    server.api("PUT", "/source", None)
    server.api("PUT", "/target", None)
    for index in range(30):
        server.api("PUT", "/source/doc-%02d" % index, {"n": index})
    since = browser.mark()
    log_in(browser, server)
    browser.goto(server.url + "/_utils/db/source")
    browser.click_and_wait("nav.tabs a[href$='/panel/replication']")
    remote = server.url.replace("http://", "http://%s:%s@" % (ADMIN, PASSWORD)) + "/target"
    browser.fill("#start-replication input[name=remote]", remote)
    browser.click_and_wait("#start-replication button")
    deadline = time.monotonic() + 30
    while "complete" not in (browser.text("#replications .state") or ""):
        assert time.monotonic() < deadline, "the replication never completed: %s" % browser.text("#replications")
        time.sleep(0.3)
        browser.goto(server.url + "/_utils/db/source/panel/replication")
    assert browser.text("#replications .written") == "30", browser.text("#replications")
    assert PASSWORD not in browser.html(), "the remote's password is not shown"
    assert server.api("GET", "/target")[1]["doc_count"] == 30
    check_screenshot(browser, screenshots, "replication")
    expect_clean(browser, since, "replication page")


def prepare_health_and_care(binary, folder):
    """A `health` database from a generated export and a `care` database with a patient, a plan, a daily task
    starting on the first of this month and an outcome for its first event."""
    export = generated_export(os.path.join(folder, "_export"))
    cloudant(binary, folder, "health", "import", export)
    month = time.strftime("%Y-%m-01T08:00:00Z", time.gmtime())
    effective = time.strftime("%Y-%m-01T00:00:00Z", time.gmtime())
    patient = json.loads(cloudant(binary, folder, "care", "add", "patient", stdin=json.dumps(
        {"id": "ann", "name": {"givenName": "Ann", "familyName": "Lee"}, "effectiveDate": effective})))
    plan = json.loads(cloudant(binary, folder, "care", "add", "careplan", stdin=json.dumps(
        {"id": "plan", "title": "Recovery", "patientUUID": patient["uuid"], "effectiveDate": effective})))
    task = json.loads(cloudant(binary, folder, "care", "add", "task", stdin=json.dumps({
        "id": "meds", "title": "Take meds", "carePlanUUID": plan["uuid"], "effectiveDate": effective,
        "impactsAdherence": True,
        "schedule": {"elements": [{"start": month, "interval": {"day": 1},
                                   "duration": {"isAllDay": False, "seconds": 3600}, "targetValues": []}]}})))
    cloudant(binary, folder, "care", "add", "outcome", stdin=json.dumps(
        {"id": "o1", "taskUUID": task["uuid"], "taskOccurrenceIndex": 0, "values": []}))


TESTS = [
    test_create_database_add_document_query,
    test_edit_conflict_keeps_the_text,
    test_user_data_is_never_executed,
    test_pages_read_without_javascript,
    test_changes_page_follows_the_feed,
    test_logout_ends_the_session,
    test_health_chart_route_and_cda_pages,
    test_care_calendar_shows_events_outcomes_and_adherence,
    test_replication_page_starts_a_job_and_shows_it_complete,
]

# Tests whose server starts on a folder prepared with the CLI first.
PREPARED = {test_health_chart_route_and_cda_pages, test_care_calendar_shows_events_outcomes_and_adherence}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cloudant", help="the cloudant executable to serve with")
    parser.add_argument("--screenshots", default=os.path.join(tempfile.gettempdir(), "cloudant-dashboard-screenshots"))
    parser.add_argument("-k", dest="only", help="run only tests whose name contains this")
    options = parser.parse_args()
    os.makedirs(options.screenshots, exist_ok=True)
    passed = failed = 0
    for test in TESTS:
        if options.only and options.only not in test.__name__:
            continue
        server = Server(options.cloudant, prepare=prepare_health_and_care if test in PREPARED else None)
        browser = Browser()
        started = time.monotonic()
        try:
            test(browser, server, options.screenshots)
            passed += 1
            print("PASS %s (%.1f s)" % (test.__name__, time.monotonic() - started))
        except Exception:  # noqa: BLE001 - any failure fails the test and is reported
            failed += 1
            print("FAIL %s" % test.__name__)
            traceback.print_exc()
        finally:
            browser.close()
            server.stop()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
