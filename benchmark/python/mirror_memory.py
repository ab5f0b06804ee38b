"""Memory saved by backward mirroring (MXNET_BACKWARD_DO_MIRROR): one training step of a deep
MLP and of ResNet-18 through a bound executor (simple_bind) and a hybridized Gluon block, each
in its own child process, with mirroring off and on.

Printed per case: the executor's planned memory ("Total N MB allocated" of debug_str, MXNet's
own measure, also taken from MXNet 1.9.1 when /root/mxnet191-venv exists); for the hybridized
block the bytes in use between forward (recorded) and backward, i.e. the values kept for
backward; the storage pool's peak bytes in use during the step minus those in use before it
(this framework only: MXNet 1.9.1 does not expose its pool counters); the peak's ratio on/off.
Memory numbers do not depend on machine load; the one step's time is noisy on a shared machine
and only a hint. Never part of pass/fail.
Usage: python benchmark/python/mirror_memory.py  (MXNET_ENGINE_TYPE and other variables pass
through to the children: with NaiveEngine the peak shows what the plan allows, without the
threaded engine's allocations running ahead of frees).
"""
import json
import os
import subprocess
import sys

CHILD = r'''
import json, sys, time
import numpy as np
import mxnet as mx
model, path, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
stats = getattr(getattr(mx, "_ffi", None), "storage_stats", None)

def in_use():
    mx.nd.waitall()
    return stats(1, 0)["bytes_in_use"] if stats else None

def peak():
    mx.nd.waitall()
    return stats(1, 0)["peak_bytes_in_use"] if stats else None

def reset_peak():
    if stats:
        mx._ffi.storage_reset_peak(1, 0)

def planned_mb(ex):  # "Total N MB allocated" of debug_str
    for line in ex.debug_str().splitlines():
        if line.startswith("Total ") and line.endswith(" MB allocated"):
            return int(line.split()[1])

def gluon_net():
    from mxnet import gluon
    if model == "resnet18":
        net = gluon.model_zoo.vision.resnet18_v1(classes=10)
        shape = (batch, 3, 112, 112)
    else:
        net = gluon.nn.HybridSequential()
        for _ in range(16):
            net.add(gluon.nn.Dense(1024, activation="relu"), gluon.nn.Activation("sigmoid"))
        net.add(gluon.nn.Dense(10))
        shape = (batch, 512)
    net.initialize(mx.init.Xavier())
    return net, shape

out = {}
net, shape = gluon_net()
x = mx.nd.random.uniform(shape=shape)
if path == "executor":
    sym = mx.sym.SoftmaxOutput(net(mx.sym.var("data")), name="softmax")
    ex = sym.simple_bind(mx.cpu(), data=shape, grad_req="write")
    for k, v in ex.arg_dict.items():
        if k not in ("data", "softmax_label"):
            v[:] = mx.nd.random.uniform(-0.05, 0.05, v.shape)
    ex.arg_dict["data"][:] = x
    out["planned_mb"] = planned_mb(ex)
    base = in_use()
    reset_peak()
    t = time.time()
    ex.forward(is_train=True)
    ex.backward()
    mx.nd.waitall()
else:
    from mxnet import autograd
    net.hybridize(static_alloc=True)
    net(x)  # build the graph
    base = in_use()
    reset_peak()
    t = time.time()
    with autograd.record():
        loss = net(x).sum()
    kept = in_use()
    out["kept_mb"] = None if kept is None else (kept - base) / 2.0 ** 20
    loss.backward()
    mx.nd.waitall()
out["step_s"] = time.time() - t
p = peak()
out["peak_step_mb"] = None if p is None else (p - base) / 2.0 ** 20
print(json.dumps(out))
'''


def run(python, model, path, batch, mirror, env_extra=None):
    env = dict(os.environ)
    env["MXNET_BACKWARD_DO_MIRROR"] = "1" if mirror else "0"
    env.update(env_extra or {})
    r = subprocess.run([python, "-c", CHILD, model, path, str(batch)], env=env,
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1:] if r.stderr else r.returncode}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    here = {"PYTHONPATH": os.path.join(repo, "python")}
    mx191 = os.environ.get("MXNET191_PYTHON", "/root/mxnet191-venv/bin/python")
    clean = {"PYTHONPATH": "", "MXNET_LIBRARY_PATH": ""}
    cases = [("mlp16", "executor", 64), ("mlp16", "hybridized", 64),
             ("resnet18", "executor", 16), ("resnet18", "hybridized", 16)]
    print("%-9s %-11s %-8s %11s %11s %9s %13s %13s %8s" % (
        "model", "path", "mirror", "planned_MB", "mx191_MB", "kept_MB", "peak_step_MB",
        "ratio_on/off", "step_s"))
    for model, path, batch in cases:
        res = {}
        for mirror in (False, True):
            r = run(sys.executable, model, path, batch, mirror, here)
            if path == "executor" and os.path.exists(mx191):
                r191 = run(mx191, model, path, batch, mirror, clean)
                r["mx191_planned_mb"] = r191.get("planned_mb")
            res[mirror] = r
            ratio = None
            if mirror and res[False].get("peak_step_mb") and r.get("peak_step_mb") is not None:
                ratio = r["peak_step_mb"] / res[False]["peak_step_mb"]
            print("%-9s %-11s %-8s %11s %11s %9s %13s %13s %8s" % (
                model, path, "on" if mirror else "off", r.get("planned_mb", "-"),
                r.get("mx191_planned_mb", "-"),
                "%.1f" % r["kept_mb"] if r.get("kept_mb") is not None else "-",
                "%.1f" % r["peak_step_mb"] if r.get("peak_step_mb") is not None else "-",
                "%.2f" % ratio if ratio else "-",
                "%.2f" % r["step_s"] if "step_s" in r else r.get("error", "-")))
            print(json.dumps(dict(r, model=model, path=path, batch=batch, mirror=mirror)))


if __name__ == "__main__":
    main()
