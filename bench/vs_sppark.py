#!/usr/bin/env python3
"""One table of our GPU kernels against sppark's, from the logs of one device command
(bench/device-vs-sppark.sh): the peer's report (the anchor harness of ../shared/anchor-bench) and
ours (bench_gpu_msm, bench_gpu_ntt). A ratio below 1 means ours is faster.

Pairs compared (same transform, same data layout):
  MSM G1 2^n   ours `msm_ms` (CUDA events, scalars and bases on the device) and `wall_ms` (host
               clock, scalar upload from pinned memory included) vs the peer's
               device_resident_pts+scalars median (host clock around msm_t::invoke).
  NTT 2^n      ours default kernel (256 threads per block) vs the peer's variant with the same
               input and output order: fwd nat->bitrev = fwd_NR_std, fwd bitrev->nat =
               fwd_RN_std, fwd nat->nat = fwd_NN_std, inv nat->nat = inv_NN_std, coset fwd/inv
               nat->nat = fwd_NN_coset / inv_NN_coset.
  H 2^n        ours in bellperson's convention (6 transforms and 2 element-wise passes) vs the
               peer's supraseal sequence (7 transforms, 2 element-wise passes).
"""
import argparse
import re
import sys

NTT_PAIRS = [
    ("ntt fwd nat->bitrev", "fwd_NR_std"),
    ("ntt fwd bitrev->nat", "fwd_RN_std"),
    ("ntt fwd nat->nat", "fwd_NN_std"),
    ("ntt inv nat->nat", "inv_NN_std"),
    ("ntt coset fwd nat->nat", "fwd_NN_coset"),
    ("ntt coset inv nat->nat", "inv_NN_coset"),
]


def peer_rows(path):
    """{('msm', lg, mode): ms, ('ntt', lg, variant): ms} from the peer's result rows."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or parts[0] not in ("msm", "ntt") or not parts[1].isdigit():
                continue
            lg, name = int(parts[1]), parts[3]
            try:
                ms = float(parts[7] if parts[0] == "msm" else parts[4])
            except (IndexError, ValueError):
                continue
            rows[(parts[0], lg, name)] = ms
    return rows


def our_msm(path):
    """{lg: (msm_ms, wall_ms)} from bench_gpu_msm's G1 rows (the first table: default tuning)."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[0] == "G1" and parts[1].isdigit():
                rows.setdefault(int(parts[1]), (float(parts[5]), float(parts[7])))
    return rows


def our_ntt(path):
    """{(name, lg): ms} from bench_gpu_ntt, the default block size only (before any '-- N threads')."""
    rows = {}
    pattern = re.compile(r"^((?:ntt|H) .*?) 2\^(\d+)\s+([0-9.]+) ms")
    with open(path) as f:
        variant = False
        for line in f:
            if line.startswith("-- "):
                variant = True
                continue
            m = pattern.match(line)
            if not m:
                continue
            name, lg, ms = m.group(1).strip(), int(m.group(2)), float(m.group(3))
            if variant and name.startswith("ntt"):
                continue
            rows[(name, lg)] = ms
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--msm", required=True)
    ap.add_argument("--ntt", required=True)
    args = ap.parse_args()
    peer, msm, ntt = peer_rows(args.peer), our_msm(args.msm), our_ntt(args.ntt)
    out = [f"{'kernel':<34} {'ours ms':>10} {'sppark ms':>10} {'ours/sppark':>12}"]
    missing = 0

    def row(label, ours, theirs):
        nonlocal missing
        if ours is None or theirs is None:
            missing += 1
            out.append(f"{label:<34} {'-' if ours is None else f'{ours:10.3f}':>10} "
                       f"{'-' if theirs is None else f'{theirs:10.3f}':>10} {'(missing)':>12}")
        else:
            out.append(f"{label:<34} {ours:10.3f} {theirs:10.3f} {ours / theirs:12.3f}")

    for lg in sorted({k[1] for k in peer if k[0] == "msm"} | set(msm)):
        theirs = peer.get(("msm", lg, "device_resident_pts+scalars"))
        ours = msm.get(lg)
        if ours is None and theirs is None:
            continue  # e.g. the peer's H-sized row, a mode we do not run
        row(f"MSM G1 2^{lg} (compute)", ours[0] if ours else None, theirs)
        row(f"MSM G1 2^{lg} (wall, +scalar upload)", ours[1] if ours else None, theirs)
    ntt_lgs = sorted({k[1] for k in peer if k[0] == "ntt"} | {k[1] for k in ntt})
    for lg in ntt_lgs:
        for mine, theirs in NTT_PAIRS:
            row(f"{mine[4:]} 2^{lg} / {theirs}", ntt.get((mine, lg)), peer.get(("ntt", lg, theirs)))
    for lg in ntt_lgs:
        if ("H zcash", lg) in ntt:
            row(f"H 2^{lg} (6 vs 7 NTTs)", ntt.get(("H zcash", lg)), peer.get(("ntt", lg, "h_pipeline")))
    print("\n".join(out))
    if missing:
        print(f"# {missing} rows have no counterpart (a side failed or was not run: see its log)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
