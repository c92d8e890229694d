#!/usr/bin/env python3
"""One line per `cuzk-bench batch --json` result file: proofs, throughput, latency, utilization,
peak RSS and the per-stage means (used by the bench/device-daemon*.sh scripts)."""
import json
import os
import sys

for path in sys.argv[1:]:
    r = json.load(open(path))
    print(f"{os.path.basename(path)}: proofs {r['proofs']} failed {r['failed']} verified {r.get('verified')} | "
          f"{r['throughput_proofs_per_min']:.1f}/min {r['seconds_per_proof']:.3f} s/proof | "
          f"latency p50 {r['latency_p50_ms']} p90 {r['latency_p90_ms']} ms | util {r['prover_utilization']} "
          f"steady {r.get('prover_utilization_steady')} | peak RSS {r['daemon_peak_rss_bytes'] / 2**30:.2f} GiB | "
          f"stages {r.get('stage_means_ms', {})}")
    p = r.get('partition_stage_ms')
    if p and p.get('partitions'):
        print(f"  per partition ({p['partitions']}): synthesis p50 {p['synthesis_p50']} p90 {p['synthesis_p90']} ms | "
              f"wait for the prover p50 {p['prover_wait_p50']} ms | device stage p50 {p['prove_p50']} "
              f"p90 {p['prove_p90']} max {p['prove_max']} ms | finalize p50 {p['finalize_p50']} ms | "
              f"backends {p['backends']}")
    d = r.get('device_stage_p50_ms')
    if d and p and p.get('partitions'):
        print(f"  device stage parts p50: upload {d['upload']} | matvec {d['matvec']} | H {d['h']} | "
              f"G1 MSMs {d['msm_g1']} | G2 MSM {d['msm_g2']} ms (on a GPU G2 runs beside the G1 MSMs)")
