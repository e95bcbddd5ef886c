#!/usr/bin/env python3
"""The CDA benchmark's baseline: HL7 CDA extraction with lxml, doing the work `CDADocument(parsing:)` does.

The same fields (title, patientName, authorName, custodianName, effectiveTime, document type with template
ids, code and template name), the same sections (under structuredBody or directly under component, as Apple
Health writes them), the same entries (every observation and substanceAdministration under an entry,
outermost first) with the same code, value, unit, value code, substance and times, and the same HL7 TS
parsing (validation, precision, offset, instant). Names are matched by local name in any namespace, as
ours are (`{*}`); attributes by local name where ours meet a namespaced one (`xsi:type`).

The parser refuses what ours refuses: no network, no entity substitution, no DTD loading, no huge trees,
and the same byte limit checked before parsing.

Usage:
  cda_lxml.py [--iterations K] [--repetitions R] [--json] FILE...   time K parse+extracts of each file, R times
  cda_lxml.py --dump FILE                                           print the canonical extraction
Timing is in-process (`time.perf_counter`), after an untimed warm-up, so Python's start-up is excluded.
"""

import argparse
import calendar
import json
import sys
import time
from datetime import datetime

from lxml import etree

HL7 = "urn:hl7-org:v3"
XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"
MAXIMUM_BYTES = 64 << 20
PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False, dtd_validation=False,
    attribute_defaults=False, recover=False, strip_cdata=True, remove_blank_text=False)

FRAGMENT_ROOTS = {
    "section", "component", "structuredBody", "entry", "observation", "organizer", "recordTarget",
    "patientRole", "patient", "author", "custodian", "substanceAdministration", "act", "title",
}
KNOWN_TEMPLATES = {
    "2.16.840.1.113883.10.20.22.1.1": "US Realm Header",
    "2.16.840.1.113883.10.20.22.1.2": "Continuity of Care Document",
    "2.16.840.1.113883.10.20.22.1.3": "History and Physical",
    "2.16.840.1.113883.10.20.22.1.4": "Consultation Note",
    "2.16.840.1.113883.10.20.22.1.5": "Diagnostic Imaging Report",
    "2.16.840.1.113883.10.20.22.1.6": "Procedure Note",
    "2.16.840.1.113883.10.20.22.1.7": "Operative Note",
    "2.16.840.1.113883.10.20.22.1.8": "Discharge Summary",
    "2.16.840.1.113883.10.20.22.1.9": "Progress Note",
    "2.16.840.1.113883.10.20.22.1.10": "Unstructured Document",
    "2.16.840.1.113883.10.20.22.1.13": "Transfer Summary",
    "2.16.840.1.113883.10.20.22.1.14": "Referral Note",
    "2.16.840.1.113883.10.20.22.1.15": "Care Plan",
    "2.16.840.1.113883.10.20.29.1": "Patient Generated Document",
}
HEADER_TEMPLATES = {"2.16.840.1.113883.10.20.22.1.1", "2.16.840.1.113883.10.20.29.1"}
KIND_BY_CODE = {
    "11450-4": "problems", "10160-0": "medications", "48765-2": "allergies", "30954-2": "results",
    "8716-3": "vitalSigns",
}
KIND_BY_TEMPLATE = {
    "2.16.840.1.113883.10.20.22.2.5": "problems", "2.16.840.1.113883.10.20.22.2.5.1": "problems",
    "2.16.840.1.113883.10.20.22.2.1": "medications", "2.16.840.1.113883.10.20.22.2.1.1": "medications",
    "2.16.840.1.113883.10.20.22.2.6": "allergies", "2.16.840.1.113883.10.20.22.2.6.1": "allergies",
    "2.16.840.1.113883.10.20.22.2.3": "results", "2.16.840.1.113883.10.20.22.2.3.1": "results",
    "2.16.840.1.113883.10.20.22.2.4": "vitalSigns", "2.16.840.1.113883.10.20.22.2.4.1": "vitalSigns",
}
NAME_PARTS = ("prefix", "given", "family", "suffix")
STATEMENTS = ("{*}observation", "{*}substanceAdministration")


class NotCDA(Exception):
    pass


def local_name(element):
    return etree.QName(element).localname


def text_of(element):
    """Text and CDATA of the element and its descendants, entity references left out (as ours), trimmed."""
    if len(element) == 0:
        value = (element.text or "").strip()
    else:
        value = _raw_text(element).strip()
    return value or None


def _raw_text(element):
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            parts.append(_raw_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def child(element, name):
    """The first child element with local name `name` (`iterchildren` is lxml's fastest way to it)."""
    return next(element.iterchildren("{*}" + name), None)


def path(element, *names):
    for name in names:
        if element is None:
            return None
        element = child(element, name)
    return element


def code_of(element):
    display = element.get("displayName")
    if display is None:
        original = child(element, "originalText")
        display = text_of(original) if original is not None else None
    return {
        "code": element.get("code"), "codeSystem": element.get("codeSystem"),
        "codeSystemName": element.get("codeSystemName"), "displayName": display,
    }


def template_ids(element):
    result = []
    for template in element.iterchildren("{*}templateId"):
        root = template.get("root")
        if root is None:
            continue
        extension = template.get("extension")
        result.append(root if extension is None else root + ":" + extension)
    return result


def person_name(name):
    parts = [child for child in name.iterchildren("{*}prefix", "{*}given", "{*}family", "{*}suffix")]
    if not parts:
        return text_of(name)
    names = [local_name(part) for part in parts]
    ordered = [part for kind in NAME_PARTS for part, name_ in zip(parts, names) if name_ == kind]
    text = " ".join(t for t in (text_of(part) for part in ordered) if t is not None)
    return text or None


def author_name(root):
    for author in root.iterchildren("{*}author"):
        assigned = child(author, "assignedAuthor")
        if assigned is None:
            continue
        name = path(assigned, "assignedPerson", "name")
        if name is not None:
            person = person_name(name)
            if person is not None:
                return person
        device = child(assigned, "assignedAuthoringDevice")
        if device is not None:
            parts = [text_of(found) for found in (child(device, "manufacturerModelName"), child(device, "softwareName"))
                     if found is not None]
            parts = [part for part in parts if part is not None]
            if len(parts) == 2 and parts[0] == parts[1]:
                parts = parts[:1]
            if parts:
                return " ".join(parts)
        found = path(assigned, "representedOrganization", "name")
        if found is not None:
            text = text_of(found)
            if text is not None:
                return text
    return None


def hl7_timestamp(text):
    """An HL7 TS: (text, precision, UTC offset in seconds or None, epoch seconds); None when malformed."""
    if not text:
        return None
    trimmed = text.strip(" \t")
    body = trimmed
    offset = None
    sign = min((i for i in (body.find("+"), body.find("-")) if i >= 0), default=-1)
    if sign >= 0:
        zone = body[sign + 1:]
        if len(zone) != 4 or not (zone.isascii() and zone.isdigit()):
            return None
        hours, minutes = int(zone[:2]), int(zone[2:])
        if hours > 14 or minutes >= 60:
            return None
        offset = (-1 if body[sign] == "-" else 1) * (hours * 3600 + minutes * 60)
        body = body[:sign]
    fraction = 0.0
    has_fraction = False
    dot = body.find(".")
    if dot >= 0:
        digits = body[dot + 1:]
        if not digits or not (digits.isascii() and digits.isdigit()):
            return None
        fraction = float("0." + digits)
        has_fraction = True
        body = body[:dot]
    if not (body.isascii() and body.isdigit()) or len(body) not in (4, 6, 8, 10, 12, 14):
        return None
    if has_fraction and len(body) != 14:
        return None
    fields = [int(body[0:4]), int(body[4:6] or 1), int(body[6:8] or 1), int(body[8:10] or 0),
              int(body[10:12] or 0), int(body[12:14] or 0)]
    try:
        # datetime validates month, day, hour, minute and second (< 60) as Foundation's isValidDate does.
        instant = datetime(*fields)
    except ValueError:
        return None
    epoch = calendar.timegm(instant.timetuple()) - (offset or 0) + fraction
    precision = "fraction" if has_fraction else {4: "year", 6: "month", 8: "day", 10: "hour", 12: "minute"}.get(
        len(body), "second")
    return (trimmed, precision, offset, epoch)


def attribute_type(element):
    value = element.get(XSI_TYPE)
    return element.get("type") if value is None else value


def statement(element):
    code = child(element, "code")
    entry = {"code": code_of(code) if code is not None else None, "value": None, "unit": None,
             "valueCode": None, "substance": None, "time": None, "endTime": None}
    value = child(element, "value")
    if value is not None:
        kind = attribute_type(value) or ""
        if value.get("code") is not None or kind.startswith("CD") or kind in ("CE", "CV"):
            entry["valueCode"] = code_of(value)
        else:
            written = value.get("value")
            entry["value"] = written if written is not None else text_of(value)
            entry["unit"] = value.get("unit")
    effective = child(element, "effectiveTime")
    if effective is not None:
        start = effective.get("value")
        if start is None:
            low = child(effective, "low")
            start = low.get("value") if low is not None else None
        entry["time"] = hl7_timestamp(start)
        high = child(effective, "high")
        entry["endTime"] = hl7_timestamp(high.get("value") if high is not None else None)
    material = path(element, "consumable", "manufacturedProduct", "manufacturedMaterial", "code")
    if material is not None:
        entry["substance"] = code_of(material)
        if entry["code"] is None:
            entry["code"] = entry["substance"]
    else:
        allergen = path(element, "participant", "participantRole", "playingEntity", "code")
        if allergen is not None:
            entry["substance"] = code_of(allergen)
    return entry


def section(element):
    code_element = child(element, "code")
    code = code_of(code_element) if code_element is not None else None
    templates = template_ids(element)
    kind = KIND_BY_CODE.get(code["code"]) if code is not None and code["code"] is not None else None
    if kind is None:
        kind = next((KIND_BY_TEMPLATE[t.split(":")[0]] for t in templates if t.split(":")[0] in KIND_BY_TEMPLATE),
                    "other")
    title = child(element, "title")
    entries = [statement(found) for entry in element.iterchildren("{*}entry") for found in entry.iter(*STATEMENTS)]
    return {"kind": kind, "code": code, "templateIDs": templates,
            "title": text_of(title) if title is not None else None, "entries": entries}


def sections(root):
    found = []
    for component in root.iterchildren("{*}component"):
        body = child(component, "structuredBody")
        if body is not None:
            for inner in body.iterchildren("{*}component"):
                section_element = child(inner, "section")
                if section_element is not None:
                    found.append(section_element)
        else:
            found.extend(component.iterchildren("{*}section"))
    return [section(element) for element in found]


def extract(data):
    """Parses and extracts one CDA document, as `CDADocument(parsing:)` does."""
    if len(data) > MAXIMUM_BYTES:
        raise ValueError("over the byte limit")
    root = etree.fromstring(data, PARSER)
    name = local_name(root)
    if name != "ClinicalDocument":
        raise NotCDA("fragment" if name in FRAGMENT_ROOTS else "root is <%s>" % name)
    if etree.QName(root).namespace != HL7:
        raise NotCDA("not in urn:hl7-org:v3")
    type_code = child(root, "code")
    templates = template_ids(root)
    roots = [t.split(":")[0] for t in templates]
    template_name = next((KNOWN_TEMPLATES[t] for t in roots if t in KNOWN_TEMPLATES and t not in HEADER_TEMPLATES), None)
    if template_name is None:
        template_name = next((KNOWN_TEMPLATES[t] for t in roots if t in KNOWN_TEMPLATES), None)
    title = child(root, "title")
    patient = path(root, "recordTarget", "patientRole", "patient", "name")
    custodian = path(root, "custodian", "assignedCustodian", "representedCustodianOrganization", "name")
    effective = child(root, "effectiveTime")
    return {
        "title": text_of(title) if title is not None else None,
        "patientName": person_name(patient) if patient is not None else None,
        "authorName": author_name(root),
        "custodianName": text_of(custodian) if custodian is not None else None,
        "effectiveTime": hl7_timestamp(effective.get("value")) if effective is not None else None,
        "documentType": {"templateIDs": templates, "code": code_of(type_code) if type_code is not None else None,
                         "templateName": template_name},
        "sections": sections(root),
    }


# Canonical text, line for line the same as CDABenchmarks.canonicalLines(of:), to prove both extract the same.

def _field(value):
    return "-" if value is None else value


def _code(code):
    if code is None:
        return "-"
    return "/".join(_field(code[key]) for key in ("code", "codeSystem", "codeSystemName", "displayName"))


def _time(stamp):
    if stamp is None:
        return "-"
    text, precision, offset, epoch = stamp
    return "%s/%s/%s/%d" % (text, precision, "-" if offset is None else offset, round(epoch * 1000))


def canonical_lines(document):
    kind = document["documentType"]
    lines = [
        "title " + _field(document["title"]), "patientName " + _field(document["patientName"]),
        "authorName " + _field(document["authorName"]), "custodianName " + _field(document["custodianName"]),
        "effectiveTime " + _time(document["effectiveTime"]),
        "documentType " + ",".join(kind["templateIDs"]) + " " + _code(kind["code"]) + " "
        + _field(kind["templateName"]),
    ]
    for found in document["sections"]:
        lines.append("section %s %s %s %s %d" % (found["kind"], _code(found["code"]), ",".join(found["templateIDs"]),
                                                 _field(found["title"]), len(found["entries"])))
        for entry in found["entries"]:
            lines.append("entry %s|%s|%s|%s|%s|%s|%s" % (
                _code(entry["code"]), _field(entry["value"]), _field(entry["unit"]), _code(entry["valueCode"]),
                _code(entry["substance"]), _time(entry["time"]), _time(entry["endTime"])))
    return lines


def main():
    arguments = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments.add_argument("files", nargs="+")
    arguments.add_argument("--iterations", type=int, default=10, help="parse+extracts per timed sample")
    arguments.add_argument("--repetitions", type=int, default=5, help="timed samples per file (median printed)")
    arguments.add_argument("--json", action="store_true", help="one JSON object per file with every sample")
    arguments.add_argument("--dump", action="store_true", help="print the canonical extraction instead")
    options = arguments.parse_args()
    for file in options.files:
        with open(file, "rb") as handle:
            data = handle.read()
        if options.dump:
            sys.stdout.write("\n".join(canonical_lines(extract(data))) + "\n")
            continue
        extract(data)  # warm-up, untimed
        samples = []
        for _ in range(options.repetitions):
            start = time.perf_counter()
            for _ in range(options.iterations):
                extract(data)
            samples.append(time.perf_counter() - start)
        if options.json:
            print(json.dumps({"file": file, "bytes": len(data), "iterations": options.iterations, "seconds": samples}))
        else:
            median = sorted(samples)[len(samples) // 2]
            print("%s  %d bytes  %.1f documents/s (lxml %s, libxml2 %s)" % (
                file, len(data), options.iterations / median, ".".join(map(str, etree.LXML_VERSION)),
                ".".join(map(str, etree.LIBXML_VERSION))))


if __name__ == "__main__":
    main()
