#!/usr/bin/env python3
"""hostile-bundles.py: a real bundle made hostile, imported into a --results-only slicelabd.

Each case takes the bundle of a real experiment (GET /v1/experiments/{id}/bundle), gives it fresh
experiment and run ids (so that it is a new experiment to the daemon), changes its rows, files or
entries, frames it again with every SHA-256 recomputed (basic/bundle-format.h: integrity holds,
only the content is hostile) and POSTs it to /v1/imports. First the cases of issue 33, each with
the answer it must get (400 naming the table and column, or 409 for a clash of ids); then COUNT
mutations drawn from a seeded generator: integers to 0, -1, 2^63-1 and other edges, strings to
invalid UTF-8, NUL or 70 000 bytes, JSON to non-JSON, NaN or 5000 levels, values of another type,
rows dropped, repeated, swapped or given to another run, records cut or corrupted, entries
dropped, reordered or renamed, files cut, dropped, swapped, renamed or added.

What must hold, whatever the mutation: no answer is a 5xx and none takes longer than --max-time;
a refusal leaves the store as it was (the experiments list and the state dir's files); every
read of an experiment that was accepted answers (not 5xx, within --max-time, bounded in size).

Prints one line per check for tests/lib.sh: "ok<TAB>name" or "not ok<TAB>name<TAB>detail...",
details separated by tabs; exits 0 when it could run at all.
"""
import argparse
import hashlib
import http.client
import json
import os
import random
import socket
import struct
import sys
import time
import urllib.parse

MAGIC = b"SLBUNDLE"
ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
NULL, INTEGER, REAL, TEXT, BLOB = range(5)
RECORD = 40
BLOCK = 4096
BODY_MAX = 64 << 20

# --- the format: basic/bundle-format.h (framing, hashes), storage/bundle-rows.h (rows) -----------


def parse_bundle(data):
    """The entries of a bundle as [name, bytes] (names as bytes: a mutation may make them hostile)."""
    assert data[:8] == MAGIC, "not a bundle"
    pos, entries = 12, []
    while data[pos:pos + 1] == b"E":
        n = struct.unpack_from("<H", data, pos + 1)[0]
        name = data[pos + 3:pos + 3 + n]
        length = struct.unpack_from("<Q", data, pos + 3 + n)[0]
        start = pos + 3 + n + 8
        entries.append([name, data[start:start + length]])
        pos = start + length + 32
    assert data[pos:pos + 1] == b"Z", "no end marker"
    return entries


def write_bundle(entries, version=1):
    """Frames entries as a bundle, every hash recomputed."""
    out = bytearray(MAGIC + struct.pack("<I", version))
    whole = hashlib.sha256(bytes(out))
    for name, payload in entries:
        head = b"E" + struct.pack("<H", len(name)) + name + struct.pack("<Q", len(payload))
        digest = hashlib.sha256(payload).digest()
        whole.update(head)
        whole.update(digest)
        out += head + payload + digest
    end = b"Z" + struct.pack("<Q", len(entries))
    whole.update(end)
    return bytes(out + end + whole.digest())


def decode_rows(payload):
    """An entry of rows: its column names and its rows of (type, value)."""
    n = struct.unpack_from("<H", payload, 0)[0]
    pos, columns = 2, []
    for _ in range(n):
        k = payload[pos]
        columns.append(payload[pos + 1:pos + 1 + k].decode())
        pos += 1 + k
    rows = []
    while pos < len(payload):
        row = []
        for _ in columns:
            t = payload[pos]
            pos += 1
            if t == NULL:
                row.append((NULL, None))
            elif t in (INTEGER, REAL):
                row.append((t, payload[pos:pos + 8]))
                pos += 8
            else:
                k = struct.unpack_from("<I", payload, pos)[0]
                row.append((t, payload[pos + 4:pos + 4 + k]))
                pos += 4 + k
        rows.append(row)
    return columns, rows


def encode_rows(columns, rows):
    out = bytearray(struct.pack("<H", len(columns)))
    for c in columns:
        out += bytes([len(c)]) + c.encode()
    for row in rows:
        for t, v in row:
            out.append(t)
            if t in (INTEGER, REAL):
                out += v
            elif t in (TEXT, BLOB):
                out += struct.pack("<I", len(v)) + v
            elif t != NULL:
                out += v  # a raw tail: an unknown type's bytes
    return bytes(out)


def integer(v):
    return (INTEGER, struct.pack("<q", v))


def real(v):
    return (REAL, struct.pack("<d", v))


def text(v):
    return (TEXT, v if isinstance(v, bytes) else v.encode())


class Bundle:
    """A bundle opened for change: entries in order, those of tables decoded."""

    def __init__(self, entries):
        self.entries = []
        for name, payload in entries:
            e = {"name": name, "data": payload, "table": None}
            if name.startswith(b"tables/"):
                e["table"] = decode_rows(payload)
            self.entries.append(e)

    def copy(self):
        b = Bundle([])
        for e in self.entries:
            t = e["table"]
            b.entries.append({"name": e["name"], "data": e["data"],
                              "table": (list(t[0]), [list(r) for r in t[1]]) if t else None})
        return b

    def bytes(self, version=1):
        out = []
        for e in self.entries:
            data = encode_rows(*e["table"]) if e["table"] else e["data"]
            out.append((e["name"], data))
        return write_bundle(out, version)

    def tables(self, name=None):
        """The entries of rows (of table name), in order."""
        return [e for e in self.entries if e["table"] and
                (name is None or e["name"].split(b"/")[1].decode(errors="replace") == name)]

    def rows(self, table):
        """Every row of table as (entry, row index)."""
        return [(e, i) for e in self.tables(table) for i in range(len(e["table"][1]))]

    def column(self, entry, name):
        return entry["table"][0].index(name)

    def get(self, table, column, row=0):
        e, i = self.rows(table)[row]
        return e["table"][1][i][self.column(e, column)]

    def set(self, table, column, value, row=0):
        e, i = self.rows(table)[row]
        e["table"][1][i][self.column(e, column)] = value

    def files(self):
        return [e for e in self.entries if e["name"].startswith(b"runs/")]

    def meta(self):
        return json.loads(self.entries[0]["data"])

    def set_meta(self, meta):
        self.entries[0]["data"] = json.dumps(meta).encode()

    def run_ids(self):
        return [self.get("runs", "id", k)[1].decode() for k in range(len(self.rows("runs")))]

    def cell_names(self):
        return [self.get("cells", "name", k)[1] for k in range(len(self.rows("cells")))]


def name_of(entry):
    return entry["name"].decode(errors="replace")


def mutate(b, rng):
    """One mutation drawn from MUTATIONS, described; one that meets what an earlier one left
    (a definition no longer an object, a table gone) changes nothing."""
    m = rng.choice(MUTATIONS)
    try:
        return m(b, rng)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, struct.error) as e:
        return "%s: nothing (%s)" % (m.__name__, e)


def new_id(rng):
    return "".join(rng.choice(ID_ALPHABET) for _ in range(12))


def rekey(b, rng, experiment=None, runs=None):
    """Fresh ids for the experiment and its runs, everywhere the bundle names them."""
    meta = b.meta()
    old = meta["experiment"]["id"]
    new = experiment or new_id(rng)
    mapping = {old.encode(): new.encode()}
    for k, run in enumerate(b.run_ids()):
        mapping[run.encode()] = (runs[k] if runs else new_id(rng)).encode()
    meta["experiment"]["id"] = new
    meta["origin"]["id"] = new
    b.set_meta(meta)
    for e in b.tables():
        columns, rows = e["table"]
        for c, column in enumerate(columns):
            if column in ("id", "experiment_id", "run_id"):
                for row in rows:
                    t, v = row[c]
                    if t == TEXT and v in mapping:
                        row[c] = (TEXT, mapping[v])
    for e in b.files():
        parts = e["name"].split(b"/")
        parts[1] = mapping.get(parts[1], parts[1])
        e["name"] = b"/".join(parts)
    return new


# --- the daemon ---------------------------------------------------------------------------------


class Daemon:
    def __init__(self, url, token, state_dir, max_time):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.token, self.state_dir, self.max_time = token, state_dir, max_time

    def request(self, method, path, body=None, headers=None):
        """(status, body bytes), or (None, why) when it took longer than max_time or sent more
        than BODY_MAX."""
        deadline = time.monotonic() + self.max_time
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.max_time)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            out = bytearray()
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None, "no end within %g s (%d bytes so far)" % (self.max_time, len(out))
                conn.sock.settimeout(left)
                chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
                if not chunk:
                    return resp.status, bytes(out)
                out += chunk
                if len(out) > BODY_MAX:
                    return None, "more than %d bytes" % BODY_MAX
        except (socket.timeout, TimeoutError):
            return None, "no answer within %g s" % self.max_time
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            return None, "connection failed: %s" % e
        finally:
            conn.close()

    def post(self, bundle_bytes):
        return self.request("POST", "/v1/imports", bundle_bytes, {
            "Authorization": "Bearer " + self.token,
            "Content-Type": "application/vnd.slicelab.bundle"})

    def store(self):
        """What a refusal must leave as it was: the experiments list and the state dir's files
        (with sizes, but the database's, which SQLite may rewrite)."""
        status, body = self.request("GET", "/v1/experiments?limit=500")
        files = []
        for root, dirs, names in os.walk(self.state_dir):
            for n in sorted(dirs + names):
                p = os.path.join(root, n)
                rel = os.path.relpath(p, self.state_dir)
                size = "" if n.startswith("slicelab.db") or os.path.isdir(p) else os.path.getsize(p)
                files.append("%s %s" % (rel, size))
        return status, body, sorted(files)


def reads(exp, runs, cells):
    """Every GET of an imported experiment."""
    q = urllib.parse.quote
    e = "/v1/experiments/" + exp
    c0 = q(cells[0], safe="") if cells else "A"
    c1 = q(cells[-1], safe="") if cells else "B"
    paths = [(e, {}), (e + "/runs", {}), (e + "/report", {}), (e + "/report?baseline=" + c0, {}),
             (e + "/findings", {}), (e + "/findings?baseline=" + c1, {}), (e + "/bundle", {}),
             (e + "/profile?cell=%s&baseline=%s" % (c1, c0), {}), (e + "/profile/tree?cell=" + c0, {}),
             ("/v1/compare?a=%s:%s&b=%s:%s" % (exp, c0, exp, c1), {}),
             ("/v1/series?cell=%s&metric=throughput_rps" % c0, {})]
    for r in runs:
        p = "/v1/runs/" + r
        paths += [(p, {}), (p + "/timeline?limit=100000&phase=all", {}), (p + "/timeline", {"Accept": "text/csv"}),
                  (p + "/timeline?phase=all", {"Accept": "application/x-ndjson"}), (p + "/timeline?step=0", {}),
                  (p + "/timeline/buckets?width_ms=100", {}), (p + "/timeline/buckets?width_ms=1&phase=all", {}),
                  (p + "/histogram", {}), (p + "/histogram?interval_ms=100", {}), (p + "/gc", {}),
                  (p + "/samples", {}), (p + "/steps", {}), (p + "/logs/sut", {}), (p + "/logs/load?tail=5", {}),
                  (p + "/profile", {}), (p + "/profile?format=json", {})]
    return paths


# --- the mutations ------------------------------------------------------------------------------

EDGE_INTS = [0, -1, 1, 2**63 - 1, -2**63, 2**31, 2**32 + 1, 2**62, 4095, 4097, 999999999999]
BAD_TEXT = [b"\xff\xfe", b"ok\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"a\x00b", b"", b"x" * 70000,
            b"line\x01\x1b[31m", b"\xc2\x85", "caf\u00e9 \u202e".encode()]
BAD_JSON = [b"not json", b"NaN", b'{"p99": NaN}', b"[1,]", b"{\"a\":01}", b"{", b"\xef\xbb\xbf{}", b"1",
            b'"s"', b"[]", b"{}", b"null", b'{"a":1e400}', b'{"a":"\\u0000"}', b'{"a":"\xff"}',
            b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000, b"[" * 65 + b"]" * 65,
            b"[" * 64 + b"]" * 64]
JSON_COLUMNS = {("experiments", "definition"), ("experiments", "warnings"), ("cells", "definition"),
                ("runs", "exit_status"), ("runs", "metrics"), ("runs", "warnings"), ("samples", "data"),
                ("host_snapshots", "data"), ("run_steps", "data")}


def pick_value(b, rng):
    """A table, row and column of the bundle."""
    e = rng.choice(b.tables())
    columns, rows = e["table"]
    if not rows:
        return None
    return e, rng.randrange(len(rows)), rng.randrange(len(columns))


def m_int(b, rng):
    p = pick_value(b, rng)
    if not p:
        return "nothing"
    e, i, c = p
    v = rng.choice(EDGE_INTS)
    e["table"][1][i][c] = integer(v)
    return "%s row %d %s = %d" % (name_of(e), i, e["table"][0][c], v)


def m_type(b, rng):
    p = pick_value(b, rng)
    if not p:
        return "nothing"
    e, i, c = p
    v = rng.choice([(NULL, None), text("1"), integer(1), real(float("nan")), real(float("inf")), real(0.5),
                    (BLOB, b"\x00" * 8), (9, b"")])
    e["table"][1][i][c] = v
    return "%s row %d %s: type %d" % (name_of(e), i, e["table"][0][c], v[0])


def m_text(b, rng):
    p = pick_value(b, rng)
    if not p:
        return "nothing"
    e, i, c = p
    v = rng.choice(BAD_TEXT)
    e["table"][1][i][c] = text(v)
    return "%s row %d %s = %r" % (name_of(e), i, e["table"][0][c], v[:16])


def m_json(b, rng):
    table, column = rng.choice(sorted(JSON_COLUMNS))
    rows = b.rows(table)
    if not rows:
        return "nothing"
    k = rng.randrange(len(rows))
    v = rng.choice(BAD_JSON)
    b.set(table, column, text(v), k)
    return "%s.%s row %d = %r (%d bytes)" % (table, column, k, v[:16], len(v))


def m_enum(b, rng):
    table, column, values = rng.choice([
        ("experiments", "status", ["pwned", "running", "queued", "Succeeded", ""]),
        ("experiments", "run_order", ["random", "sequential", "chaos"]),
        ("runs", "state", ["running", "queued", "measuring", "x"]),
        ("run_events", "state", ["pwned", "measuring"]),
        ("gc_events", "kind", ["concurrent", "pause", "safepoint"])])
    rows = b.rows(table)
    if not rows:
        return "nothing"
    k = rng.randrange(len(rows))
    v = rng.choice(values)
    b.set(table, column, text(v), k)
    return "%s.%s row %d = %r" % (table, column, k, v)


def m_drop_row(b, rng):
    e = rng.choice(b.tables())
    rows = e["table"][1]
    if not rows:
        return "nothing"
    del rows[rng.randrange(len(rows))]
    return "%s: a row dropped" % name_of(e)


def m_repeat_row(b, rng):
    e = rng.choice(b.tables())
    rows = e["table"][1]
    if not rows:
        return "nothing"
    k = rng.randrange(len(rows))
    rows.insert(k + 1, list(rows[k]))
    return "%s: row %d repeated" % (name_of(e), k)


def m_swap_rows(b, rng):
    e = rng.choice(b.tables())
    rows = e["table"][1]
    if len(rows) < 2:
        return "nothing"
    i, j = rng.sample(range(len(rows)), 2)
    rows[i], rows[j] = rows[j], rows[i]
    return "%s: rows %d and %d swapped" % (name_of(e), i, j)


def m_other_run(b, rng):
    e = rng.choice([t for t in b.tables() if "run_id" in t["table"][0]] or b.tables())
    rows = e["table"][1]
    if not rows or "run_id" not in e["table"][0]:
        return "nothing"
    k = rng.randrange(len(rows))
    run = rng.choice(b.run_ids() + [new_id(rng)])
    rows[k][e["table"][0].index("run_id")] = text(run)
    return "%s row %d: run_id %s" % (name_of(e), k, run)


def m_records(b, rng):
    rows = b.rows("requests")
    if not rows:
        return "nothing"
    k = rng.randrange(len(rows))
    e, i = rows[k]
    c = b.column(e, "records")
    blob = bytearray(e["table"][1][i][c][1])
    how = rng.choice(["cut", "grow", "time", "error", "flags", "shuffle", "empty", "far"])
    if how == "cut":
        blob = blob[:-rng.choice([1, 8, RECORD])]
    elif how == "grow":
        blob += b"\x00" * rng.choice([1, RECORD])
    elif how == "time" and blob:
        r = rng.randrange(len(blob) // RECORD)
        struct.pack_into("<q", blob, r * RECORD + rng.choice([0, 8, 16]), rng.choice([-1, 2**63 - 1, -2**63]))
    elif how == "error" and blob:
        struct.pack_into("<H", blob, rng.randrange(len(blob) // RECORD) * RECORD + 26, 99)
    elif how == "flags" and blob:
        struct.pack_into("<I", blob, rng.randrange(len(blob) // RECORD) * RECORD + 36, 0xffffffff)
    elif how == "shuffle" and blob:
        recs = [blob[x:x + RECORD] for x in range(0, len(blob), RECORD)]
        rng.shuffle(recs)
        blob = bytearray(b"".join(recs))
    elif how == "empty":
        blob = bytearray()
    elif how == "far" and blob:
        # the last record 146 years on: in order, within the rules, and a span no reader may walk
        struct.pack_into("<qqq", blob, len(blob) - RECORD, 2**62 - 3, 2**62 - 2, 2**62 - 1)
        b.set("requests", "last_scheduled_ns", integer(2**62 - 3), k)
    e["table"][1][i][c] = (BLOB, bytes(blob))
    return "requests row %d: records %s" % (k, how)


def m_block(b, rng):
    rows = b.rows("requests")
    if not rows:
        return "nothing"
    k = rng.randrange(len(rows))
    column, v = rng.choice([("first_seq", 2**63 - 1), ("first_seq", 2**63 - 4096), ("first_seq", 4096),
                            ("first_seq", -1), ("count", 0), ("count", -1), ("count", 2**40), ("count", 299),
                            ("count", 4097), ("first_scheduled_ns", 0), ("last_scheduled_ns", 2**63 - 1)])
    b.set("requests", column, integer(v), k)
    return "requests row %d: %s = %d" % (k, column, v)


def m_drop_entry(b, rng):
    e = rng.choice(b.entries[1:])
    b.entries.remove(e)
    return "entry %s dropped" % e["name"].decode(errors="replace")


def m_move_entry(b, rng):
    i = rng.randrange(1, len(b.entries))
    e = b.entries.pop(i)
    j = rng.randrange(1, len(b.entries) + 1)
    b.entries.insert(j, e)
    return "entry %s moved from %d to %d" % (e["name"].decode(errors="replace"), i, j)


def m_entry_name(b, rng):
    e = rng.choice(b.entries[1:])
    old = e["name"]
    e["name"] = rng.choice([b"tables/evil/000000", b"tables/runs/x", b"tables/runs", b"other.json",
                            b"runs/\xff\xfe/sut.log", b"runs/../../x", b"tables/runs/000000\x01",
                            b"\xff" * 10, b"runs/" + (old.split(b"/") + [b""])[1] + b"/.hidden",
                            b"runs/" + new_id(rng).encode() + b"/sut.log", b"runs/abc/sut.log",
                            old + b"/deeper", b"runs/" + b"a" * 12 + b"/" + b"n" * 100])
    return "entry %s renamed %r" % (old.decode(errors="replace"), e["name"][:40])


def m_file(b, rng):
    files = b.files()
    if not files:
        return "nothing"
    e = rng.choice(files)
    how = rng.choice(["cut", "empty", "swap", "repeat", "junk", "profile"])
    name = e["name"].decode(errors="replace")
    if how == "cut":
        e["data"] = e["data"][:len(e["data"]) // 2]
    elif how == "empty":
        e["data"] = b""
    elif how == "swap":
        other = rng.choice(files)
        e["data"], other["data"] = other["data"], e["data"]
    elif how == "repeat":
        b.entries.insert(b.entries.index(e) + 1, dict(e))
    elif how == "junk":
        e["data"] = bytes(rng.randrange(256) for _ in range(4096))
    else:
        run = e["name"].split(b"/")[1]
        junk = rng.choice([b"a;b;c 10\nx;y 5\n", b"\xff\xfe;\x00 1\n", b"a" * 10000 + b" 99999999999999999999\n",
                           b";" * 5000 + b" 1\n", b"no count\n", b"main;f 18446744073709551615\nmain;g 1\n"])
        profile = {"name": b"runs/" + run + b"/profile.folded", "data": junk, "table": None}
        b.entries.insert(b.entries.index(e) + 1, profile)
        return "runs/%s/profile.folded added: %r" % (run.decode(), junk[:24])
    return "file %s: %s" % (name, how)


def m_header(b, rng):
    e = rng.choice(b.tables())
    columns = e["table"][0]
    how = rng.choice(["rename", "drop", "add"])
    if how == "rename":
        columns[rng.randrange(len(columns))] = "evil"
    elif how == "drop":
        k = rng.randrange(len(columns))
        del columns[k]
        for row in e["table"][1]:
            del row[k]
    else:
        columns.append("extra")
        for row in e["table"][1]:
            row.append(integer(1))
    return "%s: column %s" % (name_of(e), how)


def m_meta(b, rng):
    meta = b.meta()
    how = rng.choice(["host", "host-control", "host-long", "origin-id", "experiment-id", "not-json", "host-empty"])
    if how == "not-json":
        b.entries[0]["data"] = b"{\"origin\":"
        return "bundle.json not JSON"
    if how == "host":
        raw = json.dumps(meta).encode().replace(b'"host": "', b'"host": "\xff\xfe', 1)
        b.entries[0]["data"] = raw
        return "origin.host with bytes FF FE"
    if how == "host-control":
        meta["origin"]["host"] = "lab\u0007"
    elif how == "host-long":
        meta["origin"]["host"] = "h" * 300
    elif how == "host-empty":
        meta["origin"]["host"] = ""
    elif how == "origin-id":
        meta["origin"]["id"] = "../../etc"
    else:
        meta["experiment"]["id"] = new_id(rng)
    b.set_meta(meta)
    return "bundle.json %s" % how


def m_definition(b, rng):
    d = json.loads(b.get("experiments", "definition")[1])
    how = rng.choice(["iterations", "drop-cell", "rename-cell", "name", "unknown-field", "order", "cells-empty"])
    if how == "iterations":
        d["iterations"] = rng.choice([2, 1000])
    elif how == "drop-cell":
        d["cells"] = d["cells"][:1]
    elif how == "rename-cell":
        d["cells"][0]["name"] = "Z"
    elif how == "name":
        d["name"] = "other"
    elif how == "unknown-field":
        d["pwned"] = True
    elif how == "order":
        d["order"] = "random"
        d["seed"] = 7
    else:
        d["cells"] = []
    b.set("experiments", "definition", text(json.dumps(d, separators=(",", ":"))))
    return "definition: %s" % how


def m_value_cut(b, rng):
    e = rng.choice(b.tables())
    data = encode_rows(*e["table"])
    e["table"] = None
    e["data"] = data[:-rng.randrange(1, 12)]
    return "%s: its last value cut" % name_of(e)


MUTATIONS = [m_int, m_int, m_type, m_text, m_text, m_json, m_json, m_enum, m_drop_row, m_repeat_row, m_swap_rows,
             m_other_run, m_records, m_block, m_drop_entry, m_move_entry, m_entry_name, m_file, m_file, m_header,
             m_meta, m_definition, m_value_cut]


def only_experiment_row(b):
    b.entries = [e for e in b.entries if not e["name"].startswith(b"runs/") and
                 (not e["table"] or e["name"].startswith(b"tables/experiments/"))]


def repeat_row(b, table):
    rows = b.tables(table)[0]["table"][1]
    rows.append(list(rows[0]))


def setter(table, column, value):
    return lambda b: b.set(table, column, value)


def record_time(b, offset, v):
    """The first record's time at offset (0 scheduled, 8 submit, 16 done) set to v."""
    blob = bytearray(b.get("requests", "records")[1])
    struct.pack_into("<q", blob, offset, v)
    b.set("requests", "records", (BLOB, bytes(blob)))


def host_ff(b):
    b.entries[0]["data"] = json.dumps(b.meta()).encode().replace(b'"host": "', b'"host": "\xff\xfe', 1)


def name_ff(b):
    b.entries[-1]["name"] = b"runs/" + b.run_ids()[0].encode() + b"/\xff\xfe"


def cut_records(b):
    b.set("requests", "records", (BLOB, b.get("requests", "records")[1][:-RECORD]))


DEEP_OBJECT = b'{"a":' * 3000 + b"1" + b"}" * 3000
DEEP_ARRAY = b"[" * 5000 + b"]" * 5000

# The cases of issue 33 and the answer each must get: (name, change, status, error.field).
NAMED = [
    ("requests.count 0", setter("requests", "count", integer(0)), 400, "requests.count"),
    ("requests.count -1", setter("requests", "count", integer(-1)), 400, "requests.count"),
    ("requests.count 2^40", setter("requests", "count", integer(2**40)), 400, "requests.count"),
    ("a records blob of the wrong size", cut_records, 400, "requests.records"),
    ("requests.first_seq 2^63-1", setter("requests", "first_seq", integer(2**63 - 1)), 400, "requests.first_seq"),
    ("requests.first_seq 2^63-4096", setter("requests", "first_seq", integer(2**63 - 4096)), 400,
     "requests.first_seq"),
    ("a record's done time 2^63-1", lambda b: record_time(b, 16, 2**63 - 1), 400, "requests.records"),
    ("a record's scheduled time -1", lambda b: record_time(b, 0, -1), 400, "requests.records"),
    ("runs.metrics not JSON", setter("runs", "metrics", text("not json")), 400, "runs.metrics"),
    ("runs.metrics NaN", setter("runs", "metrics", text('{"throughput_rps":NaN}')), 400, "runs.metrics"),
    ("runs.metrics 3000 deep", setter("runs", "metrics", text(DEEP_OBJECT)), 400, "runs.metrics"),
    ("the definition not JSON", setter("experiments", "definition", text("{nope")), 400, "experiments.definition"),
    ("the definition 5000 deep", setter("experiments", "definition", text(DEEP_ARRAY)), 400, "experiments.definition"),
    ("the definition not a definition", setter("experiments", "definition", text('{"name":"x"}')), 400,
     "experiments.definition"),
    ("only the experiment row", only_experiment_row, 400, "cells"),
    ("experiments.status pwned", setter("experiments", "status", text("pwned")), 400, "experiments.status"),
    ("experiments.status running", setter("experiments", "status", text("running")), 400, "experiments.status"),
    ("runs.state running", setter("runs", "state", text("running")), 400, "runs.state"),
    ("experiments.name NULL", setter("experiments", "name", (NULL, None)), 400, "experiments.name"),
    ("experiments.name FF FE", setter("experiments", "name", text(b"\xff\xfe")), 400, "experiments.name"),
    ("cells.idx -1", setter("cells", "idx", integer(-1)), 400, "cells.idx"),
    ("runs.cell_idx 5", setter("runs", "cell_idx", integer(5)), 400, "runs.cell_idx"),
    ("runs.message with a NUL", setter("runs", "message", text(b"a\x00b")), 400, "runs.message"),
    ("a run's row repeated", lambda b: repeat_row(b, "runs"), 400, "runs.position"),
    ("a run's id twice", lambda b: b.set("runs", "id", b.get("runs", "id", 0), 1), 400, "runs.id"),
    ("a run_events row repeated", lambda b: repeat_row(b, "run_events"), 400, "run_events.seq"),
    ("a gc_events row repeated", lambda b: repeat_row(b, "gc_events"), 400, "gc_events"),
    ("no run_events", lambda b: b.entries.remove(b.tables("run_events")[0]), 400, "run_events"),
    ("a gc_events row of a run not in the bundle", setter("gc_events", "run_id", text("aaaaaaaaaaaa")), 400,
     "gc_events.run_id"),
    ("samples.data's t_ms 1e300", setter("samples", "data", text('{"t_ms":1e300}')), 400, "samples.data"),
    ("origin.host of bytes FF FE", host_ff, 400, "bundle"),
    ("an entry's name of bytes FF FE", name_ff, 400, "bundle"),
]


def error_of(status, body):
    """The refusal's error.field, or None."""
    try:
        return json.loads(body)["error"]["field"] if status is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def text_of(body):
    return body[:300].decode(errors="replace") if isinstance(body, bytes) else body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--max-time", type=float, default=60)
    args = ap.parse_args()

    with open(args.bundle, "rb") as f:
        original_bytes = f.read()
    original = Bundle(parse_bundle(original_bytes))
    if original.bytes() != original_bytes:
        print("not ok\tthe bundle reads back to its own bytes")
        return 0
    d = Daemon(args.url, args.token, args.state_dir, args.max_time)
    rng = random.Random(args.seed)
    failures = {"5xx": [], "hang": [], "changed": [], "reads": [], "named": [], "control": []}
    counts = {"imports": 0, "accepted": 0, "reads": 0}
    baseline = d.store()
    started = time.monotonic()

    def read(label, path, headers=None):
        counts["reads"] += 1
        status, body = d.request("GET", path, headers=headers)
        if status is None or status >= 500:
            why = body if status is None else "%d %s" % (status, text_of(body))
            failures["reads"].append("%s: GET %s %s: %s" % (label, path, (headers or {}).get("Accept", ""), why))

    def import_one(b, label):
        """POSTs b; checks its answer and, after a refusal, the store; reads an accepted one."""
        nonlocal baseline
        counts["imports"] += 1
        status, body = d.post(b.bytes())
        if status is None:
            failures["hang"].append("%s: %s" % (label, body))
            return None, body
        if status >= 500:
            failures["5xx"].append("%s: %d %s" % (label, status, text_of(body)))
        if status not in (200, 201):
            now = d.store()
            if now != baseline:
                failures["changed"].append("%s: %d, and the store changed" % (label, status))
                baseline = now
            return status, body
        counts["accepted"] += 1
        try:
            exp, runs = json.loads(body)["id"], b.run_ids()
            cells = [c.decode(errors="replace") for c in b.cell_names()]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            failures["reads"].append("%s: the import's answer or rows unreadable: %s" % (label, e))
            exp, runs, cells = None, [], []
        for path, headers in reads(exp, runs, cells) if exp else []:
            read(label, path, headers)
        baseline = d.store()
        return status, body

    # The bundle as it is, with fresh ids: stored, and read. Then its run ids under another
    # experiment id: a clash of ids, 409.
    control = original.copy()
    rekey(control, rng)
    status, body = import_one(control, "the untouched bundle")
    if status != 201:
        failures["control"].append("the untouched bundle with fresh ids: %s %s" % (status, text_of(body)))
    clash = original.copy()
    rekey(clash, rng, runs=control.run_ids())
    status, body = import_one(clash, "run ids taken")
    if (status, error_of(status, body)) != (409, "runs"):
        failures["named"].append("run ids of another experiment: want 409 field runs, got %s %s" %
                                 (status, text_of(body)))

    for name, change, want, want_field in NAMED:
        b = original.copy()
        rekey(b, rng)
        change(b)
        status, body = import_one(b, name)
        if (status, error_of(status, body)) != (want, want_field):
            failures["named"].append("%s: want %d field %s, got %s %s" %
                                     (name, want, want_field, status, text_of(body)))

    answers = {}
    for k in range(args.count):
        b = original.copy()
        rekey(b, rng)
        what = "; ".join(mutate(b, rng) for _ in range(1 + (rng.random() < 0.25)))
        status, _ = import_one(b, "mutation %d (%s)" % (k, what))
        answers[status] = answers.get(status, 0) + 1

    # What reads every experiment: once, with all of the accepted ones stored.
    for path in ("/v1/experiments", "/v1/experiments?label=app=sut", "/v1/series?cell=A&metric=requests", "/metrics",
                 "/v1/health", "/"):
        read("at the end", path)

    print("# %d imports (%d accepted), %d reads in %.0f s; the mutations' answers: %s" %
          (counts["imports"], counts["accepted"], counts["reads"], time.monotonic() - started,
           ", ".join("%s: %d" % (k, v) for k, v in sorted(answers.items(), key=lambda x: str(x[0])))))
    for name, items in (
            ("the bundle with fresh ids is stored (201)", failures["control"]),
            ("each case of issue 33 is answered as it must be (400 naming table and column, 409 for ids taken)",
             failures["named"]),
            ("no import answered 5xx", failures["5xx"]),
            ("no import took longer than %g s" % args.max_time, failures["hang"]),
            ("every refusal left the store as it was (the experiments list, the state dir's files)",
             failures["changed"]),
            ("every read of every accepted bundle answered within %g s, none 5xx" % args.max_time, failures["reads"])):
        if items:
            print("not ok\t%s\t%s" % (name, "\t".join(x.replace("\t", " ")[:400] for x in items[:8])))
        else:
            print("ok\t%s" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
