"""One output projection (K = 1024 inputs, N outputs) written with each ONNX Runtime kernel that
could hold it, timed at M = 1, 8 and 32 rows: which int8 layout suits this CPU (issue 46).

    python scripts/measure/projection_kernels.py --n 65536 [--kinds fp32,mmitf,...] [--threads 1] [--reps 9]

kinds: fp32 (MatMul + Add), mmitf (QuantizeLinear + MatMulIntegerToFloat, 7-bit weights, one
scale: what `traductor export --quantize int8` writes), mmitf8 (8-bit weights), mmitf_col (one
scale per output column), dqmm (DynamicQuantizeMatMul: per-tensor dynamic, batch-dependent),
nbits8 / nbits8a2 (MatMulNBits, 8 bits, blocks of 32, accuracy level 4 / 2). Random weights; the
sessions run without spinning, the kinds alternate, and it prints the median CPU time (process
time: less moved by other work on a shared machine) and wall time of each, in ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

K = 1024
KINDS = ("fp32", "mmitf", "mmitf8", "mmitf_col", "dqmm", "nbits8", "nbits8a2")


def graph(kind: str, w: np.ndarray, bias: np.ndarray) -> bytes:
    n = w.shape[1]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", K])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", n])
    t = numpy_helper.from_array
    act = [t(np.array(0.02, np.float32), "xs"), t(np.array(128, np.uint8), "xz")]
    quantize = helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"])
    if kind == "fp32":
        inits = [t(w, "W"), t(bias, "b")]
        nodes = [helper.make_node("MatMul", ["x", "W"], ["t"]), helper.make_node("Add", ["t", "b"], ["y"])]
    elif kind in ("mmitf", "mmitf8", "mmitf_col"):
        levels = 127 if kind == "mmitf8" else 63
        scale = (np.abs(w).max(axis=0) if kind == "mmitf_col" else np.abs(w).max()) / levels
        scale = np.asarray(scale, np.float32)
        wq = np.clip(np.rint(w / scale), -levels, levels).astype(np.int8)
        inits = [t(wq, "Wq"), t(scale, "ws"), *act, t(bias, "b")]
        inputs = ["xq", "Wq", "xs", "ws", "xz", "", "b"]
        nodes = [quantize, helper.make_node("MatMulIntegerToFloat", inputs, ["y"], domain="com.microsoft")]
    elif kind == "dqmm":
        scale = np.array(np.abs(w).max() / 127, np.float32)
        wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        inits = [t(wq, "Wq"), t(scale, "ws"), t(bias, "b")]
        nodes = [helper.make_node("DynamicQuantizeMatMul", ["x", "Wq", "ws", "", "b"], ["y"], domain="com.microsoft")]
    elif kind in ("nbits8", "nbits8a2"):
        block = 32
        blocks = w.T.reshape(n, K // block, block)
        scale = (np.abs(blocks).max(axis=2, keepdims=True) / 127).astype(np.float32)
        scale[scale == 0] = 1
        q = (np.clip(np.rint(blocks / scale), -127, 127) + 128).astype(np.uint8)
        inits = [t(q, "B"), t(scale.reshape(-1), "S"), t(bias, "b")]
        level = 2 if kind == "nbits8a2" else 4
        attrs = dict(K=K, N=n, bits=8, block_size=block, accuracy_level=level)
        nodes = [helper.make_node("MatMulNBits", ["x", "B", "S", "", "", "b"], ["y"], domain="com.microsoft", **attrs)]
    else:
        raise SystemExit(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(helper.make_graph(nodes, kind, [x], [y], inits), opset_imports=opsets).SerializeToString()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((K, args.n)) * 0.02).astype(np.float32)
    bias = (rng.standard_normal(args.n) * 0.01).astype(np.float32)
    sessions = {}
    for kind in args.kinds.split(","):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = args.threads, 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        sessions[kind] = ort.InferenceSession(graph(kind, w, bias), opts, providers=["CPUExecutionProvider"])
    xs = {m: rng.standard_normal((m, K)).astype(np.float32) for m in (1, 8, 32)}
    cpu: dict = {(k, m): [] for k in sessions for m in xs}
    wall: dict = {(k, m): [] for k in sessions for m in xs}
    for rep in range(args.reps):
        order = list(sessions.items()) if rep % 2 == 0 else list(sessions.items())[::-1]
        for m, x in xs.items():
            for kind, session in order:
                c, t = time.process_time(), time.perf_counter()
                session.run(None, {"x": x})
                if rep:  # the first is a warm-up
                    cpu[(kind, m)].append(time.process_time() - c)
                    wall[(kind, m)].append(time.perf_counter() - t)
    for kind in sessions:
        cells = []
        for m in xs:
            c, t = 1000 * statistics.median(cpu[(kind, m)]), 1000 * statistics.median(wall[(kind, m)])
            cells.append(f"M={m} cpu {c:.1f} wall {t:.1f}")
        print(kind, " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
