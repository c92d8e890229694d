#!/usr/bin/python3
"""A small client of the cuzk daemon (gRPC service cuzk.v1.ProvingEngine) for tests and scripts.

The message classes are generated at first use from proto/cuzk/v1/proving.proto with the system
`protoc --python_out` into a private temporary directory (removed at exit), so the client always
matches the proto of this checkout; RPCs go through grpc's generic unary calls, so no gRPC code
generator is needed.

Library:
    import daemon_client as dc
    c = dc.Client("unix:///run/cuzk/cuzk.sock")          # or "127.0.0.1:9820"
    r = c.prove("chain:2^10", partition_inputs=[b"seed-0"], priority="high")
    r["status"], bytes.fromhex(r["proof"])

CLI (prints one JSON object; exit 0 on success, 1 when the call failed, 2 on bad usage):
    daemon_client.py --address unix:///tmp/cuzk.sock status
    daemon_client.py --address host:port --tls-ca ca.pem [--tls-cert c.pem --tls-key c.key] [--token-file t] status
    daemon_client.py --address ... prove --circuit chain:2^10 --input seed-0 [--input-hex 00ff] [--wtns w.wtns]
    daemon_client.py --address ... submit ... | await JOB [--timeout-ms N] | cancel JOB | metrics
    daemon_client.py --address ... vk CIRCUIT | preload CIRCUIT | evict CIRCUIT

Results are plain dicts: every field of the response (defaults included), enums by name, bytes as
lowercase hex (repeated bytes as a list of hex strings).
"""

import argparse
import atexit
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import grpc

_SERVICE = "/cuzk.v1.ProvingEngine/"
_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_PROTO_ROOT = os.path.join(os.path.dirname(_HERE), "proto")
_pb = None


def proto_module(proto_root=None):
    """Generates (once per process) and imports the message classes of proving.proto."""
    global _pb
    if _pb is not None:
        return _pb
    root = proto_root or os.environ.get("CUZK_PROTO_ROOT") or _DEFAULT_PROTO_ROOT
    proto = os.path.join(root, "cuzk", "v1", "proving.proto")
    if not os.path.isfile(proto):
        raise FileNotFoundError(f"proving.proto not found at {proto} (set CUZK_PROTO_ROOT to the proto/ directory)")
    protoc = shutil.which("protoc") or "/usr/bin/protoc"
    out = tempfile.mkdtemp(prefix="cuzk-pb-")
    atexit.register(shutil.rmtree, out, True)
    run = subprocess.run([protoc, f"--proto_path={root}", f"--python_out={out}", proto], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"protoc failed on {proto}: {run.stderr.strip()}")
    # Loaded by file path under a private name: no package "cuzk" has to be importable.
    spec = importlib.util.spec_from_file_location("cuzk_proving_pb2", os.path.join(out, "cuzk", "v1", "proving_pb2.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _pb = module
    return _pb


class RpcFailed(Exception):
    """A call that ended with a non-OK gRPC status."""

    def __init__(self, method, code, details):
        super().__init__(f"{method}: {code}: {details}")
        self.method = method
        self.code = code  # the status code's name, e.g. "NOT_FOUND"
        self.details = details


def to_dict(message):
    """Every field of `message` (defaults included): enums by name, bytes as hex, messages as dicts."""
    out = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)

        def convert(v):
            if field.type == field.TYPE_MESSAGE:
                return to_dict(v)
            if field.type == field.TYPE_BYTES:
                return bytes(v).hex()
            if field.type == field.TYPE_ENUM:
                known = field.enum_type.values_by_number.get(v)
                return known.name if known is not None else v
            return v

        if field.label == field.LABEL_REPEATED:
            out[field.name] = [convert(v) for v in value]
        elif field.type == field.TYPE_MESSAGE and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = convert(value)
    return out


def _enum_value(enum_type, value, what):
    if isinstance(value, int):
        return value
    name = str(value).upper()
    if name.isdigit():
        return int(name)
    try:
        return enum_type.Value(name)
    except ValueError:
        raise ValueError(f"unknown {what} '{value}' (expected one of {', '.join(enum_type.keys())})") from None


def _read(path):
    with open(path, "rb") as f:
        return f.read()


class Client:
    """TLS when tls_ca or tls_cert is given (a daemon with daemon.tls_cert); `token` (or the first
    line of `token_file`) is sent as "authorization: Bearer <token>" with every call."""

    def __init__(self, address, max_message_bytes=256 << 20, proto_root=None, token=None, token_file=None,
                 tls_ca=None, tls_cert=None, tls_key=None, tls_server_name=None):
        self.pb = proto_module(proto_root)
        self.address = address
        if token_file:
            token = _read(token_file).decode().rstrip("\r\n")
        self.metadata = (("authorization", f"Bearer {token}"),) if token else None
        options = [
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.max_receive_message_length", max_message_bytes),
        ]
        if tls_ca or tls_cert:
            if bool(tls_cert) != bool(tls_key):
                raise ValueError("tls_cert and tls_key go together")
            creds = grpc.ssl_channel_credentials(
                root_certificates=_read(tls_ca) if tls_ca else None,
                private_key=_read(tls_key) if tls_key else None,
                certificate_chain=_read(tls_cert) if tls_cert else None,
            )
            if tls_server_name:
                options.append(("grpc.ssl_target_name_override", tls_server_name))
            self.channel = grpc.secure_channel(address, creds, options=options)
        else:
            self.channel = grpc.insecure_channel(address, options=options)

    def close(self):
        self.channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def call(self, method, request, response_type, timeout=None):
        """Raw call: returns the response message; raises RpcFailed on a non-OK status."""
        stub = self.channel.unary_unary(
            _SERVICE + method,
            request_serializer=type(request).SerializeToString,
            response_deserializer=response_type.FromString,
        )
        try:
            return stub(request, timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise RpcFailed(method, e.code().name, e.details()) from None

    def submit_request(self, circuit_id="", partition_inputs=(), wtns_files=(), witnesses=(), priority=0,
                       request_id="", kind="GENERIC"):
        pb = self.pb
        req = pb.SubmitProofRequest(
            request_id=request_id,
            proof_kind=_enum_value(pb.ProofKind, kind, "proof kind"),
            priority=_enum_value(pb.Priority, priority, "priority"),
            circuit_id=circuit_id,
        )
        for item in partition_inputs:
            req.partition_inputs.append(item.encode() if isinstance(item, str) else bytes(item))
        for w in witnesses:
            req.witnesses.append(bytes(w))
        for path in wtns_files:
            with open(path, "rb") as f:
                req.witnesses.append(f.read())
        return req

    def submit(self, circuit_id="", timeout=None, **kw):
        req = self.submit_request(circuit_id, **kw)
        return to_dict(self.call("SubmitProof", req, self.pb.SubmitProofResponse, timeout))

    def await_proof(self, job_id, timeout_ms=0, timeout=None):
        req = self.pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms)
        return to_dict(self.call("AwaitProof", req, self.pb.AwaitProofResponse, timeout))

    def prove(self, circuit_id="", timeout=None, **kw):
        req = self.pb.ProveRequest(submit=self.submit_request(circuit_id, **kw))
        return to_dict(self.call("Prove", req, self.pb.ProveResponse, timeout).result)

    def cancel(self, job_id, timeout=None):
        req = self.pb.CancelProofRequest(job_id=job_id)
        return to_dict(self.call("CancelProof", req, self.pb.CancelProofResponse, timeout))

    def status(self, timeout=None):
        return to_dict(self.call("GetStatus", self.pb.GetStatusRequest(), self.pb.GetStatusResponse, timeout))

    def metrics(self, timeout=None):
        return self.call("GetMetrics", self.pb.GetMetricsRequest(), self.pb.GetMetricsResponse, timeout).prometheus_text

    def vk(self, circuit_id, timeout=None):
        req = self.pb.GetVerifyingKeyRequest(circuit_id=circuit_id)
        return to_dict(self.call("GetVerifyingKey", req, self.pb.GetVerifyingKeyResponse, timeout))

    def preload(self, circuit_id, timeout=None):
        req = self.pb.PreloadSrsRequest(circuit_id=circuit_id)
        return to_dict(self.call("PreloadSRS", req, self.pb.PreloadSrsResponse, timeout))

    def evict(self, circuit_id, timeout=None):
        req = self.pb.EvictSrsRequest(circuit_id=circuit_id)
        return to_dict(self.call("EvictSRS", req, self.pb.EvictSrsResponse, timeout))


def _main(argv):
    ap = argparse.ArgumentParser(description="Call the cuzk daemon; prints one JSON object.")
    ap.add_argument("--address", default=os.environ.get("CUZK_ADDRESS"),
                    help="unix:///path or host:port (default: $CUZK_ADDRESS)")
    ap.add_argument("--deadline", type=float, default=None, help="RPC deadline in seconds (default: none)")
    ap.add_argument("--max-message-bytes", type=int, default=256 << 20)
    ap.add_argument("--token-file", help="a file with the daemon's bearer token (daemon.auth_token_file)")
    ap.add_argument("--tls-ca", help="TLS: PEM CA certificate of the daemon's certificate")
    ap.add_argument("--tls-cert", help="TLS: PEM client certificate (with --tls-key)")
    ap.add_argument("--tls-key", help="TLS: PEM private key of --tls-cert")
    ap.add_argument("--tls-server-name", help="TLS: the name in the daemon's certificate, if not the address's host")
    sub = ap.add_subparsers(dest="command", required=True)

    def job_args(p):
        p.add_argument("--circuit", default="", help="circuit id of the daemon's registry")
        p.add_argument("--input", action="append", default=[], help="a partition input (UTF-8 text); repeatable")
        p.add_argument("--input-hex", action="append", default=[], help="a partition input in hex; repeatable")
        p.add_argument("--wtns", action="append", default=[], help="a .wtns file, one per partition; repeatable")
        p.add_argument("--priority", default="PRIORITY_UNSPECIFIED", help="LOW, NORMAL, HIGH, CRITICAL or a number")
        p.add_argument("--kind", default="GENERIC", help="proof kind name or number (default GENERIC)")
        p.add_argument("--request-id", default="")

    prove = sub.add_parser("prove", help="submit and wait (Prove)")
    job_args(prove)
    prove.add_argument("--out", help="write the raw proof bytes to this file")
    job_args(sub.add_parser("submit", help="enqueue (SubmitProof)"))
    aw = sub.add_parser("await", help="wait for a job (AwaitProof)")
    aw.add_argument("job_id")
    aw.add_argument("--timeout-ms", type=int, default=0)
    aw.add_argument("--out", help="write the raw proof bytes to this file")
    sub.add_parser("cancel", help="cancel a job").add_argument("job_id")
    sub.add_parser("status")
    sub.add_parser("metrics")
    for name in ("vk", "preload", "evict"):
        sub.add_parser(name).add_argument("circuit_id")

    args = ap.parse_args(argv)
    if not args.address:
        ap.error("--address is required (or set CUZK_ADDRESS)")
    try:
        inputs = []
        if args.command in ("prove", "submit"):
            inputs = [s.encode() for s in args.input] + [bytes.fromhex(h) for h in args.input_hex]
    except ValueError as e:
        ap.error(f"--input-hex: {e}")

    try:
        with Client(args.address, args.max_message_bytes, token_file=args.token_file, tls_ca=args.tls_ca,
                    tls_cert=args.tls_cert, tls_key=args.tls_key, tls_server_name=args.tls_server_name) as c:
            t = args.deadline
            if args.command in ("prove", "submit"):
                kw = dict(partition_inputs=inputs, wtns_files=args.wtns, priority=args.priority,
                          request_id=args.request_id, kind=args.kind, timeout=t)
                result = c.prove(args.circuit, **kw) if args.command == "prove" else c.submit(args.circuit, **kw)
            elif args.command == "await":
                result = c.await_proof(args.job_id, args.timeout_ms, timeout=t)
            elif args.command == "cancel":
                result = c.cancel(args.job_id, timeout=t)
            elif args.command == "status":
                result = c.status(timeout=t)
            elif args.command == "metrics":
                result = {"prometheus_text": c.metrics(timeout=t)}
            else:
                result = getattr(c, args.command)(args.circuit_id, timeout=t)
            if getattr(args, "out", None) and result.get("proof") is not None:
                with open(args.out, "wb") as f:
                    f.write(bytes.fromhex(result["proof"]))
    except RpcFailed as e:
        print(json.dumps({"error": {"method": e.method, "code": e.code, "message": e.details}}))
        return 1
    except (OSError, ValueError, RuntimeError) as e:
        print(json.dumps({"error": {"code": "CLIENT", "message": str(e)}}))
        return 1
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
