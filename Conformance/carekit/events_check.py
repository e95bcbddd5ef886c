#!/usr/bin/env python3
"""Care conformance: drive `cloudant care add/events` with CareKit-verified vectors (events-public.json)
and compare events (taskId, taskUUID, occurrence, elementIndex, start, end).
usage: events_check.py CLOUDANT_BIN events-public.json   -> 'N passed, M failed'"""
import copy, datetime, json, subprocess, sys, tempfile
bin_, vec = sys.argv[1:3]
vectors = json.load(open(vec))["vectors"]
def inst(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
def prep(tasks):
    """Make the version chain explicit (previousVersionUUIDs) and fill CareKit's default effectiveDate."""
    out, last = [], {}
    for t in copy.deepcopy(tasks):
        if "effectiveDate" not in t:
            t["effectiveDate"] = min(e["start"] for e in t["schedule"]["elements"])
        if "previousVersionUUIDs" not in t and t["id"] in last: t["previousVersionUUIDs"] = [last[t["id"]]]
        last[t["id"]] = t["uuid"]; out.append(t)
    return out
passed = failed = 0
for v in vectors:
    if v.get("mode") == "fetch": continue          # `care events` answers as CareKit's streaming query does, not its fetch
    with tempfile.TemporaryDirectory() as d:
        run = lambda *a, inp=None: subprocess.run([bin_, "--data", d, *a], input=inp, capture_output=True, text=True, timeout=120)
        run("db", "create", "care")
        p = run("care", "add", "--db", "care", "task", inp=json.dumps(prep(v["tasks"])))
        if p.returncode != 0:
            failed += 1; print("FAIL", v["name"], "add:", p.stderr.strip()[-160:]); continue
        got = []; ok = True
        for tid in v.get("taskIds") or sorted({t["id"] for t in v["tasks"]}):
            q = run("care", "events", "--db", "care", "--task", tid, "--from", v["range"]["start"], "--to", v["range"]["end"], "--tz", v["tz"])
            if q.returncode != 0: ok = False; why = "events: " + q.stderr.strip()[-160:]; break
            try: got += json.loads(q.stdout)
            except Exception: ok = False; why = "events output is not a JSON array"; break
        if ok:
            key = lambda e: (e["taskId"], e["taskUUID"].lower(), e["occurrence"], e["elementIndex"], round(inst(e["start"])), round(inst(e["end"])))
            want = sorted(key(e) for e in v["expected"])
            try: have = sorted(key(e) for e in got)
            except Exception as ex: ok, why = False, f"event fields missing: {ex}"
            else:
                if want != have: ok, why = False, f"want {len(want)} events, got {len(have)}; first difference {next((a, b) for a, b in zip(want + [None]*len(have), have + [None]*len(want)) if a != b)}"
        if ok: passed += 1
        else: failed += 1; print("FAIL", v["name"], why[:300])
print(f"{passed} passed, {failed} failed"); sys.exit(0 if failed == 0 else 1)
