#!/usr/bin/env python3
"""The layering of src/ (docs/architecture.md) for #include lines: a file may include only its own
layer's headers and those of the layers listed for it. src/CMakeLists.txt (cuzk_check_layer) checks
the same for the libraries' links at configure time; this catches a header included without a link.

Usage: layers_test.py SRC_DIR. Prints every violation and exits 1 if there is one."""
import pathlib
import re
import sys

# Layer -> the layers below it that its files may include (besides its own).
BELOW_GROTH16 = {"ec", "poly", "pce", "r1cs", "ff", "util"}
ALLOWED = {
    "util": set(),
    "ff": {"util"},
    "ec": {"ff", "util"},
    "poly": {"ff", "util"},
    # Device maths: nothing above ec/poly (the proof systems build on it, never the reverse).
    "gpu": {"ec", "poly", "ff", "util"},
    "r1cs": {"ff", "util"},
    "gadgets": {"r1cs", "ff", "util"},
    "circuits": {"r1cs", "ff", "util"},
    "filecoin": {"gadgets", "r1cs", "ff", "util"},
    "pce": {"r1cs", "ff", "util"},
    "groth16": BELOW_GROTH16,
    "groth16/gpu": {"groth16", "gpu"} | BELOW_GROTH16,
    "backend": {"groth16", "groth16/gpu", "gpu"} | BELOW_GROTH16,
    "engine": {"backend", "circuits", "filecoin", "gadgets", "groth16"} | BELOW_GROTH16,
    "server": {"engine", "proto", "backend", "circuits", "filecoin", "gadgets", "groth16"} | BELOW_GROTH16,
}
# Only the CUDA platform sees GPU headers above the backend's interface (src/CMakeLists.txt: the
# backend links the GPU libraries privately for it).
GPU_ONLY_IN = {"gpu": {"backend/cuda_platform.cpp"}, "groth16/gpu": {"backend/cuda_platform.cpp"}}
# The device provers' plans: plain C++ without CUDA (library cuzk_gpu_plan, built in every
# configuration), which the backend's placement reads to say where a circuit proves.
PLAIN_GPU_HEADERS = {"groth16/gpu/resident_plan.hpp", "groth16/gpu/streamed_plan.hpp"}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    """The layer of a path relative to src/ (a file or an #include argument); None: same directory."""
    if path.startswith("groth16/gpu/"):
        return "groth16/gpu"
    if path.startswith("cuzk/"):  # generated from proto/
        return "proto"
    return path.split("/", 1)[0] if "/" in path else None


def main():
    src = pathlib.Path(sys.argv[1])
    errors = []
    files = 0
    for f in sorted(src.rglob("*")):
        if f.suffix not in {".cpp", ".hpp", ".cu", ".cuh", ".h"}:
            continue
        rel = f.relative_to(src).as_posix()
        own = layer_of(rel)
        if own not in ALLOWED:
            errors.append(f"{rel}: layer '{own}' is not in tests/layers_test.py's table")
            continue
        files += 1
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            dep = layer_of(m.group(1))
            if dep is None or dep == own:
                continue
            if dep not in ALLOWED[own]:
                errors.append(f"{rel}:{n}: {own} includes {m.group(1)} ({dep}: not below {own})")
            elif (own == "backend" and dep in GPU_ONLY_IN and rel not in GPU_ONLY_IN[dep]
                  and m.group(1) not in PLAIN_GPU_HEADERS):
                errors.append(f"{rel}:{n}: only {', '.join(sorted(GPU_ONLY_IN[dep]))} includes {dep}/ headers")
    for e in errors:
        print(e)
    print(f"layers: {files} files, {len(errors)} violations")
    return 1 if errors or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
