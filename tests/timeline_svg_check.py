#!/usr/bin/env python3
"""Checks a cuzk-bench --timeline-svg picture against the same batch's --timeline CSV.

Usage: timeline_svg_check.py TIMELINE.csv TIMELINE.svg

The picture must be SVG that xml.etree parses, with a legend of the five stages; every stage of
every partition the CSV records (synthesis, the wait for the prover, the upload, the rest of the
device stage, finalize) drawn as exactly one bar (a rect with data-proof, data-partition,
data-stage) of that duration, a stage the CSV records as 0.0 ms at most one, and no bar for a
partition the CSV does not have; each partition's bars in stage order along the time axis and
inside the picture; each backend named by a row label; and every completion in the CSV marked
(a line of class "completion" per proof). Exit code 0: all hold; 1: problems, one line each;
2: bad usage or unreadable input.
"""
import csv
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
STAGES = ["synthesis", "wait", "upload", "device", "finalize"]
TOLERANCE_MS = 0.15  # the CSV's 0.1 ms rounding, and the device stage as a difference of two


def read_csv(path):
    """{(proof, partition): {stage: ms}}, {backend}, {proof of each complete event}."""
    parts, backends, completed = {}, set(), []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["event"] == "complete":
                completed.append(row["proof_index"])
            if row["event"] != "partition":
                continue
            d = dict(kv.split("=", 1) for kv in row["detail"].split(";"))
            prove, upload = float(d["prove_ms"]), float(d["upload_ms"])
            upload = min(upload, prove)
            parts[(row["proof_index"], d["index"])] = {
                "synthesis": float(d["synthesis_ms"]), "wait": float(d["prover_wait_ms"]), "upload": upload,
                "device": prove - upload, "finalize": float(d["finalize_ms"])}
            backends.add(d["backend"])
    return parts, backends, completed


def check(parts, backends, completed, root):
    problems = []
    if root.tag != SVG + "svg":
        return [f"the root element is {root.tag}, not svg"]
    width = float(root.get("width", "0"))
    legend = [r for r in root.iter(SVG + "rect") if "legend-key" in r.get("class", "")]
    for stage in STAGES:
        if not [r for r in legend if f"stage-{stage}" in r.get("class", "")]:
            problems.append(f"the legend has no key for {stage}")
    bars = {}
    for r in root.iter(SVG + "rect"):
        if r.get("data-stage") is None:
            continue
        key = (r.get("data-proof"), r.get("data-partition"))
        bars.setdefault(key, {}).setdefault(r.get("data-stage"), []).append(r)
        x, w = float(r.get("x")), float(r.get("width"))
        if x < 0 or x + w > width + 0.5:
            problems.append(f"bar {key} {r.get('data-stage')} lies outside the picture (x {x}, width {w})")
        if r.get("class") != "stage-" + r.get("data-stage") or r.find(SVG + "title") is None:
            problems.append(f"bar {key} {r.get('data-stage')}: class {r.get('class')}, or no title")
    for key in bars.keys() - parts.keys():
        problems.append(f"bars for proof {key[0]} partition {key[1]}, which the CSV does not record")
    for key, stages in parts.items():
        drawn = bars.get(key, {})
        xs = []
        for stage in STAGES:
            rects, ms = drawn.get(stage, []), stages[stage]
            if len(rects) > 1 or (ms >= 0.1 + TOLERANCE_MS and len(rects) != 1):
                problems.append(f"proof {key[0]} partition {key[1]}: {len(rects)} {stage} bars for {ms} ms")
                continue
            for r in rects:
                if abs(float(r.get("data-ms")) - ms) > TOLERANCE_MS:
                    problems.append(f"proof {key[0]} partition {key[1]}: {stage} drawn as {r.get('data-ms')} ms, "
                                    f"the CSV says {ms}")
                xs.append(float(r.get("x")))
        if xs != sorted(xs):
            problems.append(f"proof {key[0]} partition {key[1]}: its bars are not in stage order: {xs}")
    labels = " ".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
    for b in backends:
        if b + " #1" not in labels:
            problems.append(f"no row label for {b}")
    marks = [m.get("data-proof") for m in root.iter(SVG + "line")
             if m.get("class") == "completion" and m.get("data-proof") is not None]
    if sorted(marks) != sorted(completed):
        problems.append(f"completions marked for proofs {sorted(marks)}, the CSV completes {sorted(completed)}")
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        parts, backends, completed = read_csv(argv[1])
        root = ET.parse(argv[2]).getroot()
    except (OSError, ValueError, KeyError, ET.ParseError) as e:
        print(f"timeline_svg_check: {e}", file=sys.stderr)
        return 2
    if not parts:
        print(f"timeline_svg_check: {argv[1]} records no partition", file=sys.stderr)
        return 2
    problems = check(parts, backends, completed, root)
    for p in problems:
        print(f"FAIL: {p}")
    n_bars = sum(1 for r in root.iter(SVG + "rect") if r.get("data-stage"))
    print(f"{argv[2]}: {len(parts)} partitions, {n_bars} bars, {len(completed)} completions: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
