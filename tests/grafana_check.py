#!/usr/bin/env python3
"""Checks a Grafana dashboard against a daemon's Prometheus metrics: no dead panel.

Usage: grafana_check.py DASHBOARD.json METRICS.txt

METRICS.txt is a scrape of the daemon's GET /metrics (text format 0.0.4). Every panel's PromQL
query and every template variable's label_values() query must name only metric names that the
scrape has (a histogram's series by their _bucket, _sum and _count names; the histogram's own name
has no series), only label names that those metrics carry (plus `instance` and `job`, which
Prometheus adds when it scrapes), and, in an `=` matcher with a literal value, only a value that
the scrape has; every selector must filter on the dashboard's daemons (instance=~"$instance");
by/without/on/ignoring clauses and legends may name only labels of the query's metrics. The
dashboard's structure is checked too: a datasource variable that every panel uses, an instance
variable, unique panel ids, panels inside the 24-column grid and not overlapping.
Exit code 0: no problem; 1: problems, one line each; 2: bad usage or unreadable input.
"""
import json
import re
import sys

TARGET_LABELS = {"instance", "job"}  # added by Prometheus at scrape time
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset"}
LABEL_LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


class Scrape:
    """What a /metrics text exports: families by type, and each sample name's labels and values."""

    def __init__(self, text):
        self.types = {}  # family name -> counter | gauge | histogram | summary | untyped
        self.labels = {}  # sample name -> {label name -> set of values}
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                parts = line.split()
                if len(parts) >= 4:
                    self.types[parts[2]] = parts[3]
                continue
            if not line or line.startswith("#"):
                continue
            m = SAMPLE_RE.match(line)
            if not m:
                continue
            labels = self.labels.setdefault(m.group(1), {})
            for name, value in LABEL_RE.findall(m.group(3) or ""):
                labels.setdefault(name, set()).add(value)

    def resolve(self, name):
        """The labels of a queried metric name, or an error message."""
        family_type = self.types.get(name)
        if family_type in ("histogram", "summary"):
            return None, (f"{name} is a {family_type}: query its series {name}_bucket, {name}_sum or "
                          f"{name}_count")
        for suffix in HISTOGRAM_SUFFIXES:
            base = name[:-len(suffix)]
            if name.endswith(suffix) and name not in self.types and base in self.types:
                allowed = ("histogram",) if suffix == "_bucket" else ("histogram", "summary")
                if self.types[base] not in allowed:
                    return None, f"{name}: {base} is a {self.types[base]}, which has no {suffix} series"
        if name not in self.labels:
            return None, f"metric {name} is not exported"
        return self.labels[name], None


def tokens(expr):
    """PromQL tokens: (kind, text) with kind ident, var, string, brace (a whole {...}), range
    (a whole [...]), punct."""
    out, i = [], 0
    while i < len(expr):
        c = expr[i]
        if c.isspace():
            i += 1
        elif c in "\"'`":
            j = i + 1
            while j < len(expr) and expr[j] != c:
                j += 2 if expr[j] == "\\" else 1
            out.append(("string", expr[i + 1:j]))
            i = j + 1
        elif c == "{":
            j = i
            while j < len(expr) and expr[j] != "}":
                if expr[j] in "\"'":
                    q, j = expr[j], j + 1
                    while j < len(expr) and expr[j] != q:
                        j += 2 if expr[j] == "\\" else 1
                j += 1
            out.append(("brace", expr[i + 1:j]))
            i = j + 1
        elif c == "[":
            j = expr.find("]", i)
            j = len(expr) if j < 0 else j
            out.append(("range", expr[i + 1:j]))
            i = j + 1
        elif c == "$":
            m = re.match(r"\$(\{[^}]*\}|[a-zA-Z0-9_]+)", expr[i:])
            out.append(("var", m.group(0) if m else "$"))
            i += len(m.group(0)) if m else 1
        elif re.match(r"[a-zA-Z_:]", c):
            m = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr[i:])
            out.append(("ident", m.group(0)))
            i += len(m.group(0))
        elif re.match(r"[0-9.]", c):
            # A number, or a duration (5m, 1h30m: after `offset`).
            m = re.match(r"[0-9.]+(?:[eE][+-]?[0-9]+)?(?:ms|[smhdwy])*", expr[i:])
            i += len(m.group(0))
        else:
            out.append(("punct", c))
            i += 1
    return out


MATCHER_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)')


def matchers(body):
    """[(label, op, value)] of a selector's {...} body, or None when it does not parse."""
    out, pos = [], 0
    body = body.strip()
    while pos < len(body):
        m = MATCHER_RE.match(body, pos)
        if not m:
            return None
        out.append((m.group(1), m.group(2), m.group(3)))
        pos = m.end()
    return out


def parse(expr):
    """The selectors [(metric, [(label, op, value)] or None)] and the label names of its
    by/without/on/ignoring clauses."""
    toks = tokens(expr)
    selectors, clause_labels = [], []
    i = 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else (None, None)
        if kind == "ident" and text in LABEL_LIST_KEYWORDS and nxt == ("punct", "("):
            j = i + 2
            while j < len(toks) and toks[j] != ("punct", ")"):
                if toks[j][0] == "ident":
                    clause_labels.append(toks[j][1])
                j += 1
            i = j + 1
            continue
        # A function call, or an aggregation written `sum by (...) (...)`, is not a metric.
        call = nxt == ("punct", "(") or nxt in (("ident", "by"), ("ident", "without"))
        if kind == "ident" and text not in KEYWORDS and not call:
            if nxt[0] == "brace":
                selectors.append((text, matchers(nxt[1])))
                i += 2
                continue
            selectors.append((text, []))
        elif kind == "brace":
            selectors.append((None, matchers(text)))
        i += 1
    return selectors, clause_labels


def check_expr(expr, scrape, where, legend=""):
    problems = []
    selectors, clause_labels = parse(expr)
    if not selectors:
        problems.append(f"{where}: no metric in the query: {expr}")
    known = set(TARGET_LABELS)
    for metric, ms in selectors:
        if metric is None:
            problems.append(f"{where}: a selector without a metric name: {expr}")
            continue
        labels, error = scrape.resolve(metric)
        if error:
            problems.append(f"{where}: {error}")
            continue
        known |= set(labels)
        if ms is None:
            problems.append(f"{where}: cannot parse the label matchers of {metric}")
            continue
        if ("instance", "=~", "$instance") not in ms:
            problems.append(f'{where}: {metric} does not filter on instance=~"$instance"')
        for label, op, value in ms:
            if label in TARGET_LABELS:
                continue
            if label not in labels:
                problems.append(f"{where}: {metric} has no label {label} (it has: "
                                f"{', '.join(sorted(labels)) or 'none'})")
            elif op == "=" and "$" not in value and value not in labels[label]:
                problems.append(f'{where}: {metric}{{{label}="{value}"}} matches no series (values: '
                                f"{', '.join(sorted(labels[label]))})")
    for label in clause_labels:
        if label not in known:
            problems.append(f"{where}: by/without/on label {label} is on none of the query's metrics")
    for label in re.findall(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}", legend):
        if label not in known:
            problems.append(f"{where}: the legend's {{{{{label}}}}} is on none of the query's metrics")
    return problems, len(selectors)


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def check_layout(panels):
    problems, ids, boxes = [], set(), []
    for p in panels:
        title = p.get("title", "?")
        if p.get("id") in ids:
            problems.append(f"panel '{title}': id {p.get('id')} used twice")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        x, y, w, h = g.get("x", -1), g.get("y", -1), g.get("w", 0), g.get("h", 0)
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > 24:
            problems.append(f"panel '{title}': gridPos {g} is outside the 24-column grid")
        for other, (ox, oy, ow, oh) in boxes:
            if x < ox + ow and ox < x + w and y < oy + oh and oy < y + h:
                problems.append(f"panel '{title}' overlaps '{other}'")
        boxes.append((title, (x, y, w, h)))
    return problems


def check_dashboard(dash, scrape):
    problems, queries, selectors = [], 0, 0
    variables = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    ds = variables.get("datasource")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        problems.append("no Prometheus datasource variable named 'datasource'")
    inst = variables.get("instance")
    if not inst:
        problems.append("no template variable named 'instance'")
    for name, v in variables.items():
        if v.get("type") != "query":
            continue
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        m = re.fullmatch(r"\s*label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*([a-zA-Z_]+)\s*\)\s*", q)
        if not m:
            problems.append(f"variable {name}: expected label_values(METRIC, LABEL), got {q!r}")
            continue
        labels, error = scrape.resolve(m.group(1))
        if error:
            problems.append(f"variable {name}: {error}")
        elif m.group(2) not in labels and m.group(2) not in TARGET_LABELS:
            problems.append(f"variable {name}: {m.group(1)} has no label {m.group(2)}")
        queries += 1
    panels = list(walk_panels(dash.get("panels", [])))
    if not [p for p in panels if p.get("type") != "row"]:
        problems.append("the dashboard has no panels")
    problems += check_layout(panels)
    for p in panels:
        if p.get("type") in ("row", "text"):
            continue
        title = p.get("title", "?")
        targets = [t for t in p.get("targets", []) if t.get("expr", "").strip()]
        if not targets:
            problems.append(f"panel '{title}': no query")
        for t in targets + [p]:
            if t.get("datasource", {}).get("uid") != "${datasource}":
                problems.append(f"panel '{title}': its datasource is not the ${{datasource}} variable")
        for t in targets:
            found, n = check_expr(t["expr"], scrape, f"panel '{title}' query {t.get('refId', '?')}",
                                  t.get("legendFormat", ""))
            problems += found
            queries += 1
            selectors += n
    return problems, len(panels), queries, selectors


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            dash = json.load(f)
        with open(argv[2], encoding="utf-8") as f:
            scrape = Scrape(f.read())
    except (OSError, ValueError) as e:
        print(f"grafana_check: {e}", file=sys.stderr)
        return 2
    if not scrape.labels:
        print(f"grafana_check: {argv[2]} has no metrics", file=sys.stderr)
        return 2
    problems, panels, queries, selectors = check_dashboard(dash, scrape)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"{argv[1]}: {panels} panels, {queries} queries, {selectors} selectors checked against "
          f"{len(scrape.labels)} exported series names: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
