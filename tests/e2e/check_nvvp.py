#!/usr/bin/env python3
"""Reads a .nvvp the way the public tools for nvprof's files read one, and prints what it
found, for the end-to-end tests to compare exactly:

    check_nvvp.py DATABASE SCHEMA_FIXTURE

- every table and index of nvprof's schema (SCHEMA_FIXTURE), each column in its place
  with its type, and nothing else;
- `SELECT *` of the tables those tools read, decoded by column position as nvprof's
  schema orders them: no row shorter or longer, no NULL, every value of its column's type;
- COUNT(*) of every CUPTI_ACTIVITY_KIND_ table, MIN(start) and MAX(end) of the activity
  tables;
- every kernel, copy and memset joined to its API row by correlationId, starting after it;
- MARKER ranges paired by id (flags 2 start, 4 end), marks (flags 1), each with its
  thread's object id and one MARKER_DATA row: one line each, in the order they started.
Exits 1 with the reason on the first thing that does not hold.
"""
import sqlite3
import struct
import sys
from collections import Counter, defaultdict

DECODED = ["StringTable", "CUPTI_ACTIVITY_KIND_DEVICE", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
           "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMCPY2", "CUPTI_ACTIVITY_KIND_MEMSET",
           "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
           "CUPTI_ACTIVITY_KIND_CONTEXT", "CUPTI_ACTIVITY_KIND_MARKER",
           "CUPTI_ACTIVITY_KIND_MARKER_DATA"]
TYPES = {"INT": int, "INTEGER": int, "BLOB": bytes, "TEXT": str}


def fail(why):
    print(why)
    sys.exit(1)


def read_fixture(path):
    tables, indexes = defaultdict(list), []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            kind, *fields = line.rstrip("\n").split("|")
            if kind == "table":
                tables[fields[0]].append((fields[1], fields[2], int(fields[3]), int(fields[4])))
            else:
                indexes.append(tuple(fields))
    return tables, indexes


def main(database, fixture):
    tables, indexes = read_fixture(fixture)
    db = sqlite3.connect("file:" + database + "?mode=ro", uri=True)
    found = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    if sorted(found) != sorted(tables):
        fail("tables differ: extra %s, missing %s" % (sorted(set(found) - set(tables)), sorted(set(tables) - set(found))))
    for name, columns in tables.items():
        have = [(r[1], r[2], r[3], r[5]) for r in db.execute("PRAGMA table_info(%s)" % name)]
        if have != columns:
            fail("%s: columns %s, nvprof's %s" % (name, have, columns))
    have_indexes = [r for r in db.execute(
        "SELECT m.name, m.tbl_name, i.name FROM sqlite_master m JOIN pragma_index_info(m.name) i "
        "WHERE m.type = 'index' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name")]
    if have_indexes != indexes:
        fail("indexes differ: %s" % sorted(set(have_indexes) ^ set(indexes)))
    print("schema: %d tables, %d indexes, as nvprof's" % (len(tables), len(indexes)))
    print("version: %s" % ", ".join(str(r[0]) for r in db.execute("SELECT * FROM Version")))

    rows = {}
    for name in DECODED:
        columns = tables[name]
        decoded = []
        for row in db.execute("SELECT * FROM %s" % name):
            if len(row) != len(columns):
                fail("%s: a row of %d values, %d columns" % (name, len(row), len(columns)))
            for value, (column, kind, _, _) in zip(row, columns):
                if not isinstance(value, TYPES[kind]):
                    fail("%s.%s: %r is not %s" % (name, column, value, kind))
            decoded.append({c[0]: v for v, c in zip(row, columns)})
        rows[name] = decoded
    nulls = 0
    for name, columns in tables.items():
        condition = " OR ".join('"%s" IS NULL' % c[0] for c in columns)
        nulls += db.execute("SELECT COUNT(*) FROM %s WHERE %s" % (name, condition)).fetchone()[0]
    print("nulls: %d" % nulls)

    strings = {r["_id_"]: r["value"] for r in rows["StringTable"]}
    if sorted(strings) != list(range(1, len(strings) + 1)):
        fail("StringTable ids %s are not 1..%d" % (sorted(strings), len(strings)))
    print("strings: %s" % ", ".join(sorted(strings.values())))

    counts = []
    for name in sorted(t for t in tables if t.startswith("CUPTI_ACTIVITY_KIND_")):
        n = db.execute("SELECT COUNT(*) FROM %s" % name).fetchone()[0]
        if n:
            counts.append("%s %d" % (name[len("CUPTI_ACTIVITY_KIND_"):], n))
    print("rows: %s" % ", ".join(counts))
    for name in sorted(t for t in tables if t.startswith("CUPTI_ACTIVITY_KIND_")):
        names = [c[0] for c in tables[name]]
        if "start" in names and "end" in names:
            low, high = db.execute("SELECT MIN(start), MAX(end) FROM %s" % name).fetchone()
            if low is not None and not 0 < low <= high:
                fail("%s: MIN(start) %s, MAX(end) %s" % (name, low, high))

    for d in rows["CUPTI_ACTIVITY_KIND_DEVICE"]:
        print("device %d: %s, cc %d.%d, %d SMs, %d bytes, %d KB/s, uuid %s" % (
            d["id"], strings[d["name"]], d["computeCapabilityMajor"], d["computeCapabilityMinor"],
            d["numMultiprocessors"], d["globalMemorySize"], d["globalMemoryBandwidth"], d["uuid"].hex()))
    for c in rows["CUPTI_ACTIVITY_KIND_CONTEXT"]:
        print("context %d: device %d, api %d" % (c["contextId"], c["deviceId"], c["computeApiKind"]))
    for kind in ("RUNTIME", "DRIVER"):
        cbids = Counter(r["cbid"] for r in rows["CUPTI_ACTIVITY_KIND_" + kind])
        if cbids:
            print("%s cbids: %s" % (kind.lower(), ", ".join("%d x%d" % (k, v) for k, v in sorted(cbids.items()))))
    kernels = Counter("%s grid %d,%d,%d block %d,%d,%d launch %d" % (
        strings[k["name"]], k["gridX"], k["gridY"], k["gridZ"], k["blockX"], k["blockY"], k["blockZ"], k["launchType"])
        for k in rows["CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"])
    for text, n in sorted(kernels.items()):
        print("kernel %s x%d" % (text, n))
    for name in ("MEMCPY", "MEMCPY2"):
        copies = Counter("kind %d src %d dst %d flags %d bytes %d" % (
            m["copyKind"], m["srcKind"], m["dstKind"], m["flags"], m["bytes"]) for m in rows["CUPTI_ACTIVITY_KIND_" + name])
        for text, n in sorted(copies.items()):
            print("%s %s x%d" % (name.lower(), text, n))
    for m in rows["CUPTI_ACTIVITY_KIND_MEMSET"]:
        print("memset bytes %d flags %d memoryKind %d" % (m["bytes"], m["flags"], m["memoryKind"]))

    calls = {}
    for kind in ("RUNTIME", "DRIVER"):
        for r in rows["CUPTI_ACTIVITY_KIND_" + kind]:
            if r["correlationId"] in calls:
                fail("two API rows of correlationId %d" % r["correlationId"])
            calls[r["correlationId"]] = r
    joined = 0
    for name in ("CONCURRENT_KERNEL", "MEMCPY", "MEMCPY2", "MEMSET"):
        for g in rows["CUPTI_ACTIVITY_KIND_" + name]:
            call = calls.get(g["correlationId"])
            if call is None:
                fail("%s row of correlationId %d has no API row" % (name, g["correlationId"]))
            if g["start"] < call["start"] or g["end"] < g["start"]:
                fail("%s row of correlationId %d starts at %d, its call at %d" % (
                    name, g["correlationId"], g["start"], call["start"]))
            joined += 1
    runtime_ids = {r["correlationId"] for r in rows["CUPTI_ACTIVITY_KIND_RUNTIME"]}
    for m in rows["CUPTI_ACTIVITY_KIND_MEMCPY"]:
        expected = m["correlationId"] if m["correlationId"] in runtime_ids else 0
        if m["runtimeCorrelationId"] != expected:
            fail("memcpy of correlationId %d: runtimeCorrelationId %d" % (m["correlationId"], m["runtimeCorrelationId"]))
    print("joined: %d GPU rows to their calls, each after its call" % joined)

    processes = {r["processId"] for kind in ("RUNTIME", "DRIVER") for r in rows["CUPTI_ACTIVITY_KIND_" + kind]}
    data = {}
    for d in rows["CUPTI_ACTIVITY_KIND_MARKER_DATA"]:
        if d["id"] in data:
            fail("two MARKER_DATA rows of marker %d" % d["id"])
        data[d["id"]] = d
    starts, ends, lines = {}, {}, []
    for m in rows["CUPTI_ACTIVITY_KIND_MARKER"]:
        # PyProf's reading: objectKind 2 (thread), objectId the pid (4 bytes) and tid (8), little-endian.
        pid, tid = struct.unpack("<IQ", m["objectId"]) if len(m["objectId"]) == 12 else (None, None)
        if m["objectKind"] != 2 or pid is None or (processes and pid not in processes):
            fail("marker %d: objectKind %d, objectId %s" % (m["id"], m["objectKind"], m["objectId"].hex()))
        m["tid"] = tid
        if m["flags"] in (1, 2):
            if m["id"] in starts:
                fail("two starts of marker %d" % m["id"])
            starts[m["id"]] = m
        elif m["flags"] == 4:
            if m["name"] != 0 or m["domain"] != 0 or m["id"] in ends:
                fail("marker %d: an end named %d in domain %d, or twice" % (m["id"], m["name"], m["domain"]))
            ends[m["id"]] = m
        else:
            fail("marker %d: flags %d" % (m["id"], m["flags"]))
    for i, m in sorted(starts.items(), key=lambda item: (item[1]["timestamp"], item[0])):
        end = ends.pop(i, None)
        if (m["flags"] == 2) != (end is not None) or (end and end["timestamp"] < m["timestamp"]):
            fail("marker %d: flags %d, its end %s" % (i, m["flags"], end))
        d = data.pop(i, None)
        if d is None:
            fail("marker %d has no MARKER_DATA row" % i)
        value = struct.unpack({0: "<d", 1: "<Q", 4: "<q"}[d["payloadKind"]], d["payload"])[0]
        lines.append("%s %s%s%s, data flags %d color 0x%08x category %d payload %d:%s" % (
            "range" if end else "mark", strings[m["name"]], "@" + strings[m["domain"]] if m["domain"] else "",
            (", ended on the same thread" if end["tid"] == m["tid"] else ", ended on another thread") if end else "",
            d["flags"], d["color"], d["category"], d["payloadKind"], value))
    if ends or data:
        fail("ends %s and data %s of no marker" % (sorted(ends), sorted(data)))
    print("marker ranges: %d" % sum(1 for m in starts.values() if m["flags"] == 2))
    for line in lines:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
