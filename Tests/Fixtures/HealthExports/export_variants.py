#!/usr/bin/env python3
"""Variants of a generated Apple Health export, with exact expected counts, for the import tests.

Runs the generator beside it (`gen_health_export.py`, left unchanged) and rewrites its export.xml to add what
real exports carry and the generator does not:

  --unknown-types N   N records of HKDataTypeSleepDurationGoal (not a HealthKit quantity type) and N of an
                      app's own type ("MoodDiaryDailyScore"), each with a metadata entry: kept as generic samples
  --second-source     every iPhone step record counted again by the Apple Watch over the same interval with the
                      same value (the Watch's own creation time and device): two sources, one walk
  --offsets N         the first N heart rates written in +05:30 instead of the export's zone (same instants)
  --truncate F        also writes export-truncated.xml, the first F (0..1) of export.xml's bytes, cut mid-record

expected.json gains: records_by_type (updated), generic_by_type, records_total (updated), second_source
(the Watch's source name and how many records), offset_records (N), truncated (bytes, records wholly before
the cut), and metadata_entries (updated). Standard library only; the same arguments give the same files.

Usage: export_variants.py --out DIR [--unknown-types N] [--second-source] [--offsets N] [--truncate F] -- GENERATOR-ARGS
"""
import argparse
import json
import os
import re
import subprocess
import sys

GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_health_export.py")
STEP = "HKQuantityTypeIdentifierStepCount"
WATCH_DEVICE = ("&lt;&lt;HKDevice: 0x2a0c91e40&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
                "hardware:Watch6,2, software:10.4&gt;")


def parse(stamp):
    """'2024-05-31 07:42:10 -0700' as (UTC datetime, offset minutes)."""
    import datetime
    m = re.match(r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$", stamp)
    y, mo, d, h, mi, s, sign, oh, om = m.groups()
    offset = (1 if sign == "+" else -1) * (int(oh) * 60 + int(om))
    return datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s)) - datetime.timedelta(minutes=offset), offset


def write(utc, offset):
    import datetime
    local = utc + datetime.timedelta(minutes=offset)
    sign = "+" if offset >= 0 else "-"
    return local.strftime("%Y-%m-%d %H:%M:%S ") + "%s%02d%02d" % (sign, abs(offset) // 60, abs(offset) % 60)


def shift(stamp, offset):
    """The same instant written in another UTC offset (minutes)."""
    return write(parse(stamp)[0], offset)


def later(stamp, seconds):
    """The instant `seconds` later, in the same offset."""
    import datetime
    utc, offset = parse(stamp)
    return write(utc + datetime.timedelta(seconds=seconds), offset)


def main():
    argv = sys.argv[1:]
    generator_args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--unknown-types", type=int, default=0)
    p.add_argument("--second-source", action="store_true")
    p.add_argument("--offsets", type=int, default=0)
    p.add_argument("--truncate", type=float)
    a = p.parse_args(own)
    subprocess.run([sys.executable, GENERATOR, "--out", a.out] + generator_args, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    folder = os.path.join(a.out, "apple_health_export")
    path = os.path.join(folder, "export.xml")
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    with open(os.path.join(a.out, "expected.json"), encoding="utf-8") as fh:
        expected = json.load(fh)
    by_type = expected["records_by_type"]
    generic = {}
    out = []
    offsets_left = a.offsets
    watch_name = None
    watch_records = 0
    added_metadata = 0
    for line in lines:
        stripped = line.strip()
        if a.offsets and offsets_left and stripped.startswith('<Record type="HKQuantityTypeIdentifierHeartRate"') \
                and line.startswith(" <"):
            line = re.sub(r'(creationDate|startDate|endDate)="([^"]+)"', lambda m: '%s="%s"' % (m.group(1), shift(m.group(2), 330)), line)
            offsets_left -= 1
        out.append(line)
        anchor = "<Me " if any(l.startswith(" <Me ") for l in lines[:200]) else "<ExportDate"
        if stripped.startswith(anchor):
            for i in range(a.unknown_types):
                day = 1 + i % 28
                out.append(f' <Record type="HKDataTypeSleepDurationGoal" sourceName="Health" sourceVersion="17.4.1" unit="hr" '
                           f'creationDate="2024-01-{day:02d} 21:00:0{i % 10} -0800" startDate="2024-01-{day:02d} 21:00:0{i % 10} -0800" '
                           f'endDate="2024-01-{day:02d} 21:00:0{i % 10} -0800" value="{7 + (i % 3) * 0.5:g}">')
                out.append('  <MetadataEntry key="HKWasUserEntered" value="1"/>')
                out.append(' </Record>')
                out.append(f' <Record type="MoodDiaryDailyScore" sourceName="Mood Diary" sourceVersion="2.3" unit="score" '
                           f'creationDate="2024-02-{day:02d} 21:00:0{i % 10} -0800" startDate="2024-02-{day:02d} 00:00:00 -0800" '
                           f'endDate="2024-02-{day:02d} 23:59:59 -0800" value="{1 + i % 5}">')
                out.append(f'  <MetadataEntry key="entry" value="day {i}"/>')
                out.append(' </Record>')
                added_metadata += 2
            if a.unknown_types:
                generic = {"HKDataTypeSleepDurationGoal": a.unknown_types, "MoodDiaryDailyScore": a.unknown_types}
                expected["records_total"] += 2 * a.unknown_types
        if a.second_source and line.startswith(' <Record type="%s"' % STEP) and "iPhone" in line:
            copy = re.sub(r'sourceName="[^"]*"', 'sourceName="Jane\u2019s Apple Watch"', line)
            copy = re.sub(r'sourceVersion="[^"]*"', 'sourceVersion="10.4"', copy)
            copy = re.sub(r'device="[^"]*"', 'device="%s"' % WATCH_DEVICE, copy)
            # The Watch saves its samples a little later than the iPhone saves its own.
            copy = re.sub(r'creationDate="([^"]+)"', lambda m: 'creationDate="%s"' % later(m.group(1), 37), copy)
            out.append(copy)
            watch_name = "Jane\u2019s Apple Watch"
            watch_records += 1
    if a.second_source:
        by_type[STEP] = by_type.get(STEP, 0) + watch_records
        expected["records_total"] += watch_records
        expected["second_source"] = {"name": watch_name, "records": watch_records}
    expected["generic_by_type"] = generic
    expected["offset_records"] = a.offsets - offsets_left
    expected["metadata_entries"] += added_metadata
    text = "\n".join(out)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    if a.truncate is not None:
        data = text.encode("utf-8")
        cut = int(len(data) * a.truncate)
        # Cut inside a record, as an interrupted download or copy does.
        start = data.rfind(b"<Record ", 0, cut)
        cut = start + 40 if start > 0 else cut
        with open(os.path.join(folder, "export-truncated.xml"), "wb") as fh:
            fh.write(data[:cut])
        expected["truncated"] = {"bytes": cut, "records": data[:start].count(b"\n <Record ")}
    with open(os.path.join(a.out, "expected.json"), "w", encoding="utf-8") as fh:
        json.dump(expected, fh, indent=1, ensure_ascii=False, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
