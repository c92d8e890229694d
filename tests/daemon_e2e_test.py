#!/usr/bin/python3
"""End to end over gRPC: a spawned cuzk-daemon and a Python client generated from the proto.

Usage: daemon_e2e_test.py CUZK_DAEMON CUZK_CLI SOURCE_DIR

Checks: Prove and GetStatus from Python; proofs of a built-in circuit (3 partitions), a circom
.r1cs circuit and a snarkjs .zkey circuit, each verified by `cuzk verify`; idempotent resubmit;
cancel of queued and running jobs; a CRITICAL job overtaking queued NORMAL work; AwaitProof's
timeout; bad requests (unknown kind, empty / garbage / wrong-size witness, oversized message,
unknown circuit) answered with INVALID_ARGUMENT while the daemon keeps serving; 100 MiB hostile
vanilla_proofs from three clients refused fast while a fourth proves, memory back after; the unix
socket's 0600 mode; GetStatus answering within 1 s while the CPU proves and every core is busy;
metrics; a SIGTERM drain that finishes in-flight work and exits 0; and a second
SIGTERM that cancels a long job and exits 0 within the forced-stop bound.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_client as dc  # noqa: E402

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
FAILURES = []


def check(cond, what):
    if cond:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}")
        FAILURES.append(what)


def expect_code(fn, code, needle, what):
    try:
        fn()
        check(False, f"{what}: expected {code}, the call succeeded")
    except dc.RpcFailed as e:
        check(e.code == code and needle in e.details, f"{what}: {e.code} '{e.details[:120]}'")


def start_daemon(daemon, tmp, config):
    cfg = os.path.join(tmp, "cuzk.toml")
    with open(cfg, "w") as f:
        f.write(config)
    sock = os.path.join(tmp, "run", "cuzk.sock")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    proc = subprocess.Popen([daemon, "--config", cfg, "--listen", f"unix://{sock}"], stdout=subprocess.PIPE,
                            stderr=log, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if line.startswith("listening"):
            return proc, sock
        if not line and proc.poll() is not None:
            break
    proc.kill()
    log.close()
    sys.exit("daemon did not start:\n" + open(os.path.join(tmp, "daemon.log")).read()[-3000:])


def verify_with_cli(cuzk, tmp, client, circuit, result, name):
    """Writes the vk, the proofs and public.json, and runs `cuzk verify` (exit 0 = valid)."""
    vk = client.vk(circuit)
    vk_path = os.path.join(tmp, f"{name}.vk")
    with open(vk_path, "wb") as f:
        f.write(bytes.fromhex(vk["vk"]))
    proof_path = os.path.join(tmp, f"{name}.proof")
    with open(proof_path, "wb") as f:
        f.write(bytes.fromhex(result["proof"]))
    publics = []
    for hexes in result["public_inputs"]:
        raw = bytes.fromhex(hexes)
        values = [str(int.from_bytes(raw[i:i + 32], "little")) for i in range(0, len(raw), 32)]
        check(all(int(v) < R for v in values), f"{name}: public inputs canonical")
        publics.append(values)
    pub_path = os.path.join(tmp, f"{name}.public.json")
    with open(pub_path, "w") as f:
        json.dump(publics if len(publics) > 1 else publics[0], f)
    run = subprocess.run([cuzk, "verify", "--vk", vk_path, "--proof", proof_path, "--public", pub_path],
                         capture_output=True, text=True)
    check(run.returncode == 0, f"{name}: cuzk verify accepts {len(publics)} proof(s) ({run.stdout.strip()[:80]})")


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def hostile_requests(addr, pb, pid):
    """Three clients send 100 MiB vanilla_proofs (one huge JSON string) at once while a fourth keeps
    proving: each is refused fast with a short INVALID_ARGUMENT, the honest proofs complete, and the
    daemon's memory comes back."""
    rss0 = rss_bytes(pid)
    big = b'{"registered_proof": "' + b"S" * (100 << 20) + b'"}'
    refused, honest = [], []

    def hostile():
        with dc.Client(addr) as hc:
            req = pb.SubmitProofRequest(proof_kind=pb.ProofKind.Value("POREP_SEAL_COMMIT"), vanilla_proof=big)
            t0 = time.time()
            try:
                hc.call("SubmitProof", req, pb.SubmitProofResponse, timeout=120)
                refused.append(("OK", "", time.time() - t0))
            except dc.RpcFailed as e:
                refused.append((e.code, e.details, time.time() - t0))

    def honest_client():
        with dc.Client(addr) as hc:
            for k in range(3):
                honest.append(hc.prove("chain:2^10", partition_inputs=[f"h{k}".encode()], timeout=120)["status"])

    threads = [threading.Thread(target=hostile) for _ in range(3)] + [threading.Thread(target=honest_client)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = [round(t, 3) for _, _, t in refused]
    check(len(refused) == 3 and all(code == "INVALID_ARGUMENT" and "(104857600 bytes)" in d and len(d) < 2048
                                    for code, d, _ in refused),
          f"100 MiB hostile vanilla_proofs x3: {[(code, d[:80]) for code, d, _ in refused]}")
    # Each includes the client sending 100 MiB; the daemon's own parse is ~0.2 s (test_engine).
    check(max(secs, default=99) < 20, f"hostile requests answered in {secs} s")
    check(honest == ["COMPLETED"] * 3, f"honest proofs during the hostile requests: {honest}")
    time.sleep(0.5)
    grown = rss_bytes(pid) - rss0
    check(grown < 256 << 20, f"daemon RSS after the hostile requests: {grown >> 20:+d} MiB")


def status_under_load(addr):
    """GetStatus answers within 1 s while a proof runs on the CPU and every core is busy besides
    (an operator's status view and a client's health check must not time out behind the prover)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    latencies, result = [], {}
    try:
        with dc.Client(addr) as pc:
            prover = threading.Thread(target=lambda: result.update(
                pc.prove("chain:2^14", partition_inputs=[b"load-0", b"load-1", b"load-2", b"load-3"], timeout=240)))
            prover.start()
            with dc.Client(addr) as sc:
                while prover.is_alive():
                    t0 = time.time()
                    sc.status(timeout=30)
                    latencies.append(time.time() - t0)
                    time.sleep(0.05)
            prover.join()
    finally:
        for b in burners:
            b.kill()
            b.wait()
    check(result.get("status") == "COMPLETED", f"the proof under load: {result.get('status')}")
    worst = max(latencies, default=99)
    check(len(latencies) >= 5 and worst < 1.0,
          f"GetStatus under load: {len(latencies)} calls, slowest {worst * 1000:.0f} ms (bound 1 s)")


def forced_stop(daemon, tmp, config):
    """A second SIGTERM during a long job (TEST-ONLY key generation for chain:2^20, tens of seconds on
    two cores) cancels it instead of waiting: the daemon exits 0 within the forced-stop bound and
    logs mode=cancel, and the job's caller is answered (CANCELLED, or the call cut off)."""
    log_path = os.path.join(tmp, "daemon.log")
    proc, sock = start_daemon(daemon, tmp, config + '[srs]\ntest_keys = "memory"\n')
    answer = []

    def long_prove():
        with dc.Client(f"unix://{sock}") as cc:
            try:
                answer.append(cc.prove("chain:2^20", partition_inputs=[b"long"], timeout=120)["status"])
            except dc.RpcFailed as e:
                answer.append(e.code)

    th = threading.Thread(target=long_prove)
    try:
        th.start()
        deadline = time.time() + 30
        while time.time() < deadline and "what=test_keys circuit=chain:1048576" not in open(log_path).read():
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        t0 = time.time()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(60)
        took = time.time() - t0
        th.join(60)
        log = open(log_path).read()
        check(rc == 0, f"daemon exit code after a second SIGTERM: {rc}")
        check(took < 10, f"the forced stop took {took:.1f} s (bound: 5 s for the engine)")
        check("stopped mode=cancel" in log, "the daemon logged stopped mode=cancel")
        check(answer and answer[0] != "COMPLETED", f"the long job was not completed but answered: {answer}")
    finally:
        if proc.poll() is None:
            proc.kill()


def main():
    daemon, cuzk, src = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="cuzk-e2e-")
    config = f"""
[daemon]
data_dir = "{tmp}/data"
max_message_bytes = "160MiB"
[memory]
total_budget = "4GiB"
eviction_min_idle = "0s"
[synthesis]
workers = 1
threads = 1
lookahead = 1
[prover]
workers = 1
[[circuits]]
id = "mix"
r1cs = "{src}/tests/circom/mix.r1cs"
test_setup = true
[[circuits]]
id = "mul3"
zkey = "{src}/tests/zkey/mul3.zkey"
"""
    proc, sock = start_daemon(daemon, tmp, config)
    addr = f"unix://{sock}"
    c = dc.Client(addr)
    try:
        mode = stat.S_IMODE(os.stat(sock).st_mode)
        check(mode == 0o600, f"socket mode {oct(mode)}")
        st = c.status()
        check(st["version"] != "" and "mix" in st["circuits"] and "mul3" in st["circuits"], "GetStatus: version, circuits")

        # Proofs, verified by the CLI.
        r = c.prove("chain:2^10", partition_inputs=[b"a", b"b", b"c"])
        check(r["status"] == "COMPLETED" and r["partitions"] == 3 and len(bytes.fromhex(r["proof"])) == 576,
              f"Prove chain:2^10 x3: {r['status']} {r['error_message']}")
        verify_with_cli(cuzk, tmp, c, "chain:2^10", r, "chain")
        r = c.prove("mix", wtns_files=[f"{src}/tests/circom/mix.wtns"])
        check(r["status"] == "COMPLETED", f"Prove mix (r1cs): {r['status']} {r['error_message']}")
        verify_with_cli(cuzk, tmp, c, "mix", r, "mix")
        r = c.prove("mul3", wtns_files=[f"{src}/tests/circom/mul3.wtns"] * 2)
        check(r["status"] == "COMPLETED", f"Prove mul3 (zkey) x2: {r['status']} {r['error_message']}")
        verify_with_cli(cuzk, tmp, c, "mul3", r, "mul3")

        # Idempotency.
        a = c.submit("chain:2^10", partition_inputs=[b"x"], request_id="same-request")
        b = c.submit("chain:2^10", partition_inputs=[b"x"], request_id="same-request")
        check(a["job_id"] == b["job_id"] == "same-request", "resubmitted request_id returns the same job")
        done = c.await_proof("same-request")
        check(done["status"] == "COMPLETED", "idempotent job completes once")

        # AwaitProof timeout, then completion.
        c.preload("chain:2^13")
        j = c.submit("chain:2^13", partition_inputs=[b"t"])["job_id"]
        t = c.await_proof(j, timeout_ms=1)
        check(t["status"] == "TIMEOUT", f"AwaitProof timeout_ms=1: {t['status']}")
        check(c.await_proof(j)["status"] == "COMPLETED", "the timed-out job still completes")
        expect_code(lambda: c.await_proof("no-such-job"), "NOT_FOUND", "no-such-job", "AwaitProof unknown job")

        # Cancel: a queued job and a running one.
        jobs = [c.submit("chain:2^13", partition_inputs=[b"c1", b"c2"])["job_id"] for _ in range(3)]
        cq = c.cancel(jobs[2])
        check(cq["found"] and cq["cancelled"] and not cq["was_running"], f"cancel queued job: {cq}")
        time.sleep(0.05)
        cr = c.cancel(jobs[0])
        check(cr["found"] and cr["cancelled"], f"cancel running job: {cr}")
        check(c.await_proof(jobs[0])["status"] == "CANCELLED" and c.await_proof(jobs[2])["status"] == "CANCELLED",
              "cancelled jobs report CANCELLED")
        check(c.await_proof(jobs[1])["status"] == "COMPLETED", "the job between them completes")

        # Priorities: a CRITICAL job submitted behind NORMAL work finishes first.
        c.preload("chain:2^12")
        normal = [c.submit("chain:2^12", partition_inputs=[f"n{i}".encode()], priority="NORMAL")["job_id"]
                  for i in range(6)]
        crit = c.submit("chain:2^12", partition_inputs=[b"crit"], priority="CRITICAL")["job_id"]
        check(c.await_proof(crit)["status"] == "COMPLETED", "critical job completes")
        ahead = sum(c.await_proof(n, timeout_ms=1)["status"] == "COMPLETED" for n in normal)
        check(ahead <= 2, f"CRITICAL finished with only {ahead} of 6 earlier NORMAL jobs done")
        for n in normal:
            c.await_proof(n)

        # Bad requests: INVALID_ARGUMENT, and the daemon keeps serving.
        pb = c.pb
        bad = pb.SubmitProofRequest(proof_kind=77, circuit_id="chain:2^10", partition_inputs=[b"x"])
        expect_code(lambda: c.call("SubmitProof", bad, pb.SubmitProofResponse), "INVALID_ARGUMENT", "proof_kind",
                    "unknown proof kind")
        bad = pb.SubmitProofRequest(circuit_id="chain:2^10", partition_inputs=[b"x"])
        expect_code(lambda: c.call("SubmitProof", bad, pb.SubmitProofResponse), "INVALID_ARGUMENT", "proof_kind",
                    "unspecified proof kind")
        expect_code(lambda: c.submit("mix"), "INVALID_ARGUMENT", "no witnesses", "empty witness list")
        expect_code(lambda: c.submit("mix", witnesses=[b""]), "INVALID_ARGUMENT", "witness 0", "empty witness")
        expect_code(lambda: c.submit("mix", witnesses=[b"garbage" * 10]), "INVALID_ARGUMENT", "witness 0",
                    "garbage witness")
        expect_code(lambda: c.submit("mix", wtns_files=[f"{src}/tests/circom/mul3.wtns"]), "INVALID_ARGUMENT",
                    "needs", "wrong-size witness")
        expect_code(lambda: c.submit("no-such-circuit", partition_inputs=[b"x"]), "INVALID_ARGUMENT",
                    "unknown circuit id", "unknown circuit id")
        expect_code(lambda: c.submit("mix", witnesses=[b"\0" * (161 << 20)]), "INVALID_ARGUMENT", "max_message_bytes",
                    "oversized message")
        expect_code(lambda: c.prove("chain:2^10", partition_inputs=[b"x" * 65]), "INVALID_ARGUMENT", "at most 64",
                    "oversized partition input")
        check(c.prove("chain:2^10", partition_inputs=[b"after"])["status"] == "COMPLETED",
              "the daemon still proves after bad requests")
        hostile_requests(addr, pb, proc.pid)
        status_under_load(addr)

        text = c.metrics()
        check("cuzk_proofs_completed_total" in text and "cuzk_stage_seconds_bucket" in text, "GetMetrics text")
        st = c.status()
        check(st["total_proofs_completed"] >= 10 and st["daemon_peak_rss_bytes"] > 0, "GetStatus counters")
        ev = c.evict("chain:2^13")
        check(ev["was_loaded"] and int(ev["freed_bytes"]) > 0, f"EvictSRS: {ev}")

        # SIGTERM drains: in-flight Prove calls complete, then the daemon exits 0.
        results = []

        def prove_in_thread(i):
            with dc.Client(addr) as cc:
                results.append(cc.prove("chain:2^12", partition_inputs=[f"d{i}".encode(), b"e"])["status"])

        threads = [threading.Thread(target=prove_in_thread, args=(i,)) for i in range(3)]
        for th in threads:
            th.start()
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        for th in threads:
            th.join(120)
        rc = proc.wait(120)
        check(rc == 0, f"daemon exit code after SIGTERM: {rc}")
        check(results == ["COMPLETED"] * 3, f"in-flight proofs completed during the drain: {results}")
    finally:
        c.close()
        if proc.poll() is None:
            proc.kill()
    forced_stop(daemon, tmp, config)
    if FAILURES:
        print(open(os.path.join(tmp, "daemon.log")).read()[-4000:])
        print(f"{len(FAILURES)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
