"""mx.profiler: trace content and schema, scopes, custom objects, memory, dumps(), environment
variables, threads and argument errors."""
import json
import os
import subprocess
import sys
import time
from collections import defaultdict

import pytest

import mxnet as mx
from mxnet import profiler



# ------------------------------------------------------------------ helpers

def check_chrome_trace(doc):
    """Assert doc follows the Chrome trace event format; return its events.

    Every event has name, ph and pid; all but metadata ('M') events also ts and tid.
    B/E pairs balance per thread and name with end >= begin; X events have dur >= 0;
    async b/e pairs balance per (cat, id, name); counters carry numeric args.
    """
    assert isinstance(doc, dict), type(doc)
    events = doc["traceEvents"]
    assert isinstance(events, list)
    open_spans = defaultdict(list)
    open_async = defaultdict(list)
    for e in events:
        assert isinstance(e.get("name"), str), e
        assert isinstance(e.get("ph"), str) and len(e["ph"]) == 1, e
        assert isinstance(e.get("pid"), int), e
        if e["ph"] == "M":
            assert isinstance(e.get("args"), dict), e
            continue
        assert isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, e
        assert isinstance(e.get("tid"), int), e
        ph = e["ph"]
        if ph == "X":
            assert isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, e
        elif ph == "B":
            open_spans[(e["pid"], e["tid"], e["name"])].append(e)
        elif ph == "E":
            stack = open_spans[(e["pid"], e["tid"], e["name"])]
            assert stack, "E without B: %r" % e
            assert e["ts"] >= stack.pop()["ts"], e
        elif ph == "b":
            open_async[(e.get("cat"), e.get("id"), e["name"])].append(e)
        elif ph == "e":
            stack = open_async[(e.get("cat"), e.get("id"), e["name"])]
            assert stack, "e without b: %r" % e
            assert e["ts"] >= stack.pop()["ts"], e
        elif ph == "C":
            assert e.get("args") and all(isinstance(v, (int, float))
                                         for v in e["args"].values()), e
    assert not [k for k, v in open_spans.items() if v], "unbalanced B/E: %r" % dict(open_spans)
    assert not [k for k, v in open_async.items() if v], "unbalanced b/e"
    return events


def spans(events, cat=None):
    """[(name, start, duration, event)] of the complete spans (X, or B/E pairs), by start."""
    out = []
    begun = defaultdict(list)
    for e in events:
        if cat is not None and e.get("cat") != cat:
            continue
        if e["ph"] == "X":
            out.append((e["name"], e["ts"], e["dur"], e))
        elif e["ph"] == "B":
            begun[(e["pid"], e["tid"], e["name"])].append(e)
        elif e["ph"] == "E":
            b = begun[(e["pid"], e["tid"], e["name"])].pop()
            merged = dict(b, args={**b.get("args", {}), **e.get("args", {})})
            out.append((e["name"], b["ts"], e["ts"] - b["ts"], merged))
    return sorted(out, key=lambda s: s[1])


def op_spans(events):
    return spans(events, cat="operator")


def counter_values(events, name):
    """Values of counter `name` in time order (the numeric arg of each 'C' event)."""
    cs = sorted((e for e in events if e["ph"] == "C" and e["name"] == name),
                key=lambda e: e["ts"])
    return [list(e["args"].values())[0] for e in cs]


def load_trace(path):
    with open(path) as f:
        return check_chrome_trace(json.load(f))


def profile(tmp_path, body, name="trace.json", **config):
    """Run body() with the profiler running; return the events of the dumped trace."""
    path = str(tmp_path / name)
    cfg = dict(profile_all=True, aggregate_stats=True, continuous_dump=False, filename=path)
    cfg.update(config)
    profiler.set_config(**cfg)
    profiler.set_state("run")
    try:
        body()
        mx.nd.waitall()
    finally:
        profiler.set_state("stop")
    profiler.dump()
    return load_trace(path)


def run_py(code, env=None, cwd=None, timeout=180):
    full = dict(os.environ)
    # The child imports the same mxnet as this process (installed or from a dev build).
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    full["PYTHONPATH"] = pkg_parent + os.pathsep + full.get("PYTHONPATH", "")
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


@pytest.fixture(autouse=True)
def stopped_profiler(tmp_path_factory):
    """Each test starts and ends with the profiler stopped and no events or stats kept."""
    scratch = str(tmp_path_factory.mktemp("scratch") / "discard.json")

    def clear():
        mx.nd.waitall()
        profiler.set_state("stop")
        profiler.set_config(filename=scratch, aggregate_stats=True, continuous_dump=False)
        profiler.dump()
        profiler.dumps(reset=True)
    clear()
    yield
    clear()


def chain_of_ops():
    a = mx.nd.ones((4, 8))
    w = mx.nd.ones((8, 16))
    b = mx.nd.ones((16,))
    mx.nd.waitall()
    h = mx.nd.dot(a, w)
    h = mx.nd.broadcast_add(h, b)
    h = mx.nd.relu(h)
    s = mx.nd.sum(h)
    assert s.asscalar() == 4 * 16 * 9


# ------------------------------------------------------------------ operator events

def test_trace_is_valid_chrome_json_with_the_ops_in_push_order(tmp_path):
    events = profile(tmp_path, chain_of_ops)
    names = [s[0] for s in op_spans(events) if s[0] in ("dot", "broadcast_add", "relu", "sum")]
    assert names == ["dot", "broadcast_add", "relu", "sum"]
    for name, start, dur, _ in op_spans(events):
        assert dur >= 0 and start > 0, name


def test_op_events_carry_device_arguments_and_input_shapes(tmp_path):
    x = mx.nd.ones((2, 3))

    def body():
        chain_of_ops()
        mx.nd.sum(x, axis=1, keepdims=True)
    events = profile(tmp_path, body)
    ops = {s[0]: s[3] for s in op_spans(events)}
    dot = ops["dot"]["args"]
    assert dot["device"] == "cpu/0"
    assert dot["shapes"] == [[4, 8], [8, 16]]
    total = ops["sum"]["args"]
    assert total["shapes"] == [[2, 3]]
    assert total["args"].get("axis") in ("1", "(1,)")
    assert total["args"].get("keepdims") in ("True", "true", "1")


def test_repeated_ops_keep_their_own_shapes_arguments_and_scope(tmp_path):
    # The profiler reuses what it recorded for a call like the last ones; a change in input
    # shape, argument or scope must still show in each event.
    x, y = mx.nd.ones((2, 3)), mx.nd.ones((5,))

    def body():
        for _ in range(3):
            mx.nd.relu(x)
        mx.nd.relu(y)
        mx.nd.relu(x)
        mx.nd.sum(x, axis=0)
        mx.nd.sum(x, axis=1)
        with profiler.scope("inner:"):
            mx.nd.relu(x)
        mx.nd.relu(x)
    spans_ = [(n, a["args"]) for n, _, _, a in op_spans(profile(tmp_path, body))
              if n.endswith("relu") or n == "sum"]
    assert [(n, a["shapes"]) for n, a in spans_] == [
        ("relu", [[2, 3]]), ("relu", [[2, 3]]), ("relu", [[2, 3]]), ("relu", [[5]]),
        ("relu", [[2, 3]]), ("sum", [[2, 3]]), ("sum", [[2, 3]]), ("inner:relu", [[2, 3]]),
        ("relu", [[2, 3]])]
    assert [a["args"].get("axis") for n, a in spans_ if n == "sum"] in (
        ["0", "1"], ["(0,)", "(1,)"])


def test_many_events_across_dumps_are_all_kept_in_time_order(tmp_path):
    # More events than one buffer chunk holds, twice, with a dump in between.
    x = mx.nd.ones((1,))

    def body():
        for _ in range(6000):
            x + x
    for name in ("first.json", "second.json"):
        t0 = time.time()
        events = profile(tmp_path, body, name=name)
        elapsed_us = (time.time() - t0) * 1e6
        adds = [s for s in op_spans(events) if s[0] == "broadcast_add"]
        assert len(adds) == 6000
        starts = [s[1] for s in adds]
        assert starts == sorted(starts)
        # Timestamps run at the wall clock's rate (checked against this test's own timing).
        assert 0 < starts[-1] - starts[0] <= elapsed_us


def test_imperative_only_mode_records_ops_but_no_memory(tmp_path):
    events = profile(tmp_path, chain_of_ops, profile_all=False, profile_imperative=True,
                     profile_memory=False, profile_api=False, profile_symbolic=False)
    assert "dot" in [s[0] for s in op_spans(events)]
    assert not [e for e in events if e["ph"] == "C" and "cpu/0" in e["name"]]


def test_paused_profiler_records_nothing_until_resumed(tmp_path):
    x = mx.nd.ones((3, 3))

    def body():
        mx.nd.broadcast_add(x, x).wait_to_read()
        profiler.pause()
        mx.nd.relu(x).wait_to_read()
        profiler.resume()
        mx.nd.dot(x, x).wait_to_read()
    names = [s[0] for s in op_spans(profile(tmp_path, body))]
    assert "broadcast_add" in names and "dot" in names
    assert "relu" not in names


def test_state_follows_set_state():
    assert profiler.state == "stop"
    profiler.set_state("run")
    assert profiler.state == "run" and profiler.get_state() == "run"
    profiler.set_state("stop")
    assert profiler.state == "stop"


def test_nested_scopes_prefix_op_names(tmp_path):
    x = mx.nd.ones((2, 2))
    seen = []

    def body():
        with profiler.scope("outer") as outer:
            seen.append(outer)
            mx.nd.relu(x)
            with profiler.scope("inner") as inner:
                seen.append(inner)
                mx.nd.dot(x, x)
            with profiler.scope("solo", append_mode=False) as solo:
                seen.append(solo)
                mx.nd.sum(x)
        mx.nd.broadcast_add(x, x)
    names = [s[0] for s in op_spans(profile(tmp_path, body))]
    assert seen == ["outer:", "outer:inner:", "solo:"]
    assert "outer:relu" in names, names
    assert "outer:inner:dot" in names, names
    assert "solo:sum" in names, names
    assert "broadcast_add" in names, names       # the scope ended


def test_each_thread_has_its_own_scope(tmp_path):
    import threading
    x = mx.nd.ones((2, 2))
    barrier = threading.Barrier(2)

    def worker(tag, op):
        with profiler.scope(tag):
            barrier.wait()
            for _ in range(20):
                op(x)
            mx.nd.waitall()

    def body():
        threads = [threading.Thread(target=worker, args=("left", mx.nd.relu)),
                   threading.Thread(target=worker, args=("right", mx.nd.sigmoid))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    names = set(s[0] for s in op_spans(profile(tmp_path, body)))
    assert {"left:relu", "right:sigmoid"} <= names, names
    assert "left:sigmoid" not in names and "right:relu" not in names, names


def test_scope_is_restored_after_an_exception(tmp_path):
    x = mx.nd.ones((2,))

    def body():
        with pytest.raises(ValueError):
            with profiler.scope("failing"):
                raise ValueError("boom")
        mx.nd.relu(x)
    names = [s[0] for s in op_spans(profile(tmp_path, body))]
    assert "relu" in names and not any(n.startswith("failing") for n in names)


# ------------------------------------------------------------------ custom objects

def test_counters_record_every_value(tmp_path):
    dom = profiler.Domain("test_domain")

    def body():
        c = dom.new_counter("steps", 5)
        c += 3
        c -= 1
        c.set_value(10)
        c.increment()
        c.decrement(2)
        big = profiler.Counter(dom, "bytes")
        big.set_value(1 << 40)          # 64-bit values are not truncated
    events = profile(tmp_path, body)
    assert counter_values(events, "steps") == [5, 8, 7, 10, 11, 9]
    assert counter_values(events, "bytes") == [1 << 40]


def test_markers_tasks_frames_and_events_appear(tmp_path):
    dom = profiler.Domain("marks")

    def body():
        m = dom.new_marker("checkpoint")
        for s in ("process", "thread", "global"):
            m.mark(s)
        task, frame, event = dom.new_task("load"), dom.new_frame("step"), profiler.Event("io")
        for obj in (task, frame, event):
            obj.start()
            time.sleep(0.002)
            obj.stop()
    events = profile(tmp_path, body)
    marks = [e for e in events if e["name"] == "checkpoint"]
    assert len(marks) == 3
    assert all(e["ph"] in ("i", "I", "n", "R") for e in marks), marks
    durations = {name: dur for name, _, dur, _ in spans(events)}
    for name in ("load", "step", "io"):
        assert durations.get(name, -1) >= 1000, (name, durations.get(name))  # >= 1 ms in us


def test_bad_marker_scope_raises_and_names_the_valid_ones():
    m = profiler.Domain("d").new_marker("m")
    with pytest.raises(mx.MXNetError, match="process"):
        m.mark("galaxy")


# ------------------------------------------------------------------ memory

def test_memory_events_agree_with_storage_counters(tmp_path):
    held = []

    def body():
        before = mx._ffi.storage_stats(1, 0)["bytes_in_use"]
        held.append(mx.nd.zeros((1000,)))      # 4000 bytes
        held.append(mx.nd.ones((250, 4)))      # 4000 bytes
        mx.nd.waitall()
        held.append((before, mx._ffi.storage_stats(1, 0)["bytes_in_use"]))
    events = profile(tmp_path, body, profile_memory=True)
    before, after = held[-1]
    values = counter_values(events, "Memory: cpu/0")
    assert values, "no memory counter track for cpu/0"
    assert values[-1] == after                 # the running usage is the storage counter
    allocs = [e["args"] for e in events if e["ph"] != "C" and e.get("cat") == "memory"
              and e["name"] == "alloc" and e["args"]["device"] == "cpu/0"]
    assert [a["size"] for a in allocs].count(4000) >= 2
    for a in allocs:
        assert a["size"] > 0 and a["bytes_in_use"] >= a["size"]
    assert after - before >= 8000


def test_dumps_reports_peak_memory_per_device(tmp_path):
    def body():
        mx.nd.zeros((10000,)).wait_to_read()
    profile(tmp_path, body, profile_memory=True)
    table = profiler.dumps()
    assert "cpu/0" in table


# ------------------------------------------------------------------ dumps()

def _many_ops():
    x = mx.nd.ones((64, 64))
    mx.nd.waitall()
    for _ in range(5):
        mx.nd.broadcast_add(x, x)
    for _ in range(3):
        mx.nd.relu(x)
    mx.nd.dot(x, x)
    mx.nd.waitall()


def operator_rows(table):
    """{name: (count, total, min, max, avg)} in table order for the operator section."""
    lines = table.splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "operator")
    rows = []
    for line in lines[start + 1:]:
        if not line.strip():
            if rows:
                break
            continue
        parts = line.split()
        try:
            nums = [float(p) for p in parts[-5:]]
        except ValueError:
            continue                          # header and rule lines
        rows.append((" ".join(parts[:-5]), nums))
    return rows


def test_dumps_table_lists_each_op_with_its_count(tmp_path):
    profile(tmp_path, _many_ops)
    rows = dict(operator_rows(profiler.dumps()))
    assert rows["broadcast_add"][0] == 5
    assert rows["relu"][0] == 3
    assert rows["dot"][0] == 1
    for name, (count, total, lo, hi, avg) in rows.items():
        assert 0 <= lo <= avg <= hi <= total + 1e-3, name


@pytest.mark.parametrize("sort_by,column", [("total", 1), ("avg", 4), ("min", 2), ("max", 3),
                                            ("count", 0)])
@pytest.mark.parametrize("ascending", [False, True])
def test_dumps_sorts_rows_by_the_key(tmp_path, sort_by, column, ascending):
    profile(tmp_path, _many_ops)
    rows = operator_rows(profiler.dumps(sort_by=sort_by, ascending=ascending))
    assert len(rows) >= 3
    keys = [nums[column] for _, nums in rows]
    assert keys == sorted(keys, reverse=not ascending), rows


def _find_counts(doc, name):
    found = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == name and isinstance(v, dict):
                found += [c for key, c in v.items() if key.lower() == "count"]
            found += _find_counts(v, name)
    elif isinstance(doc, list):
        for v in doc:
            found += _find_counts(v, name)
    return found


def test_dumps_json_is_machine_readable(tmp_path):
    profile(tmp_path, _many_ops)
    doc = json.loads(profiler.dumps(format="json"))
    assert _find_counts(doc, "broadcast_add") == [5]
    assert _find_counts(doc, "dot") == [1]


def test_dumps_reset_clears_the_statistics(tmp_path):
    profile(tmp_path, _many_ops)
    assert "broadcast_add" in profiler.dumps(reset=True)
    assert "broadcast_add" not in profiler.dumps()


# ------------------------------------------------------------------ dump files

def test_continuous_dump_keeps_a_valid_file_while_running(tmp_path):
    path = tmp_path / "live.json"
    profiler.set_config(profile_all=True, continuous_dump=True, dump_period=0.05,
                        filename=str(path))
    x = mx.nd.ones((8, 8))
    profiler.set_state("run")
    try:
        mx.nd.dot(x, x).wait_to_read()
        deadline = time.time() + 10
        names = []
        while time.time() < deadline and "dot" not in names:
            time.sleep(0.1)
            try:
                names = [s[0] for s in op_spans(load_trace(path))]
            except (OSError, ValueError):
                continue                 # not created yet, or read during an append
        assert "dot" in names
        mx.nd.relu(x).wait_to_read()
    finally:
        profiler.set_state("stop")
    profiler.dump()
    names = [s[0] for s in op_spans(load_trace(path))]
    assert "dot" in names and "relu" in names


CRASH = r"""
import os, sys, time
import mxnet as mx
from mxnet import profiler
profiler.set_config(profile_all=True, continuous_dump=True, dump_period=0.05,
                    filename="crash.json")
profiler.set_state("run")
x = mx.nd.ones((8, 8))
mx.nd.dot(x, x).wait_to_read()
time.sleep(0.5)                   # several dump periods
os._exit(3)                       # no dump, no atexit handlers: as a crash
"""


def test_continuous_dump_file_survives_a_crash(tmp_path):
    r = run_py(CRASH, cwd=str(tmp_path))
    assert r.returncode == 3, r.stderr
    names = [s[0] for s in op_spans(load_trace(tmp_path / "crash.json"))]
    assert "dot" in names


def test_deprecated_names_warn_and_still_work(tmp_path):
    path = tmp_path / "old.json"
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_config(mode="all", filename=str(path))
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_state("run")
    mx.nd.relu(mx.nd.ones((2,))).wait_to_read()
    with pytest.warns(DeprecationWarning):
        profiler.profiler_set_state("stop")
    with pytest.warns(DeprecationWarning):
        profiler.dump_profile()
    assert "relu" in [s[0] for s in op_spans(load_trace(path))]


AUTOSTART = ("import mxnet as mx\n"
             "print(mx.profiler.state)\n"
             "x = mx.nd.ones((3, 3))\n"
             "y = mx.nd.dot(x, x)\n"
             "mx.nd.waitall()\n")


def test_autostart_writes_profile_json_in_the_working_directory(tmp_path):
    r = run_py(AUTOSTART, env={"MXNET_PROFILER_AUTOSTART": "1", "MXNET_PROFILER_MODE": "15"},
               cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["run"]
    names = [s[0] for s in op_spans(load_trace(tmp_path / "profile.json"))]
    assert "dot" in names


def test_autostart_default_mode_skips_imperative_ops_as_mxnet_does(tmp_path):
    # MXNET_PROFILER_MODE defaults to 13 (symbolic, API, memory): no imperative operators.
    r = run_py(AUTOSTART, env={"MXNET_PROFILER_AUTOSTART": "1", "MXNET_PROFILER_MODE": None},
               cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    events = load_trace(tmp_path / "profile.json")
    assert "dot" not in [s[0] for s in op_spans(events)]
    assert [e for e in events if e["ph"] == "C" and "cpu/0" in e["name"]], "no memory track"


def test_no_autostart_writes_no_file(tmp_path):
    r = run_py("import mxnet as mx\nmx.nd.ones((2,)).wait_to_read()\n", cwd=str(tmp_path),
               env={"MXNET_PROFILER_AUTOSTART": "0"})
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "profile.json").exists()


THREADED = r"""
import json, sys, threading
import mxnet as mx
from mxnet import profiler
profiler.set_config(profile_all=True, aggregate_stats=True, continuous_dump=False,
                    filename=sys.argv[1])
dom = profiler.Domain("threads")
counter = dom.new_counter("done", 0)
profiler.set_state("run")
def work(i):
    x = mx.nd.ones((16,)) * i
    for _ in range(50):
        x = mx.nd.broadcast_add(x, x) * 0.5
    mx.nd.relu(x)
    counter.increment()
    x.wait_to_read()
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
mx.nd.waitall()
profiler.set_state("stop")
profiler.dump()
print(json.dumps({"table": profiler.dumps()}))
"""


def test_many_python_threads_and_engine_workers(tmp_path):
    path = tmp_path / "threads.json"
    r = run_py(THREADED.replace("sys.argv[1]", repr(str(path))), cwd=str(tmp_path),
               env={"MXNET_CPU_WORKER_NTHREADS": "4"}, timeout=300)
    assert r.returncode == 0, r.stderr
    events = load_trace(path)
    names = [s[0] for s in op_spans(events)]
    assert names.count("broadcast_add") == 8 * 50
    assert names.count("relu") == 8
    assert counter_values(events, "done")[-1] == 8
    table = json.loads(r.stdout.strip().splitlines()[-1])["table"]
    assert dict(operator_rows(table))["broadcast_add"][0] == 8 * 50


# ------------------------------------------------------------------ bad arguments

@pytest.mark.parametrize("call", [
    lambda: profiler.set_state("running"),
    lambda: profiler.set_state("run", profile_process="client"),
    lambda: profiler.dumps(sort_by="median"),
    lambda: profiler.dumps(format="xml"),
    lambda: profiler.dumps(ascending="yes"),
    lambda: profiler.set_config(profile_everything=True),
    lambda: profiler.set_config(dump_period="soon"),
    lambda: profiler.Domain("d").new_counter("c").set_value(-1),
    lambda: profiler.scope(3).__enter__(),
], ids=["state", "process", "sort_by", "format", "ascending", "config_key", "config_value",
        "negative_counter", "scope_name"])
def test_bad_arguments_raise_mxnet_error_and_profiler_stays_usable(tmp_path, call):
    with pytest.raises(mx.MXNetError):
        call()
    assert profiler.state == "stop"
    events = profile(tmp_path, chain_of_ops)
    assert "dot" in [s[0] for s in op_spans(events)]


def test_unwritable_filename_raises_and_profiler_stays_usable(tmp_path):
    bad = str(tmp_path / "no_such_dir" / "sub" / "p.json")
    with pytest.raises(mx.MXNetError, match="no_such_dir"):
        profiler.set_config(profile_all=True, filename=bad, continuous_dump=False)
        profiler.set_state("run")
        mx.nd.relu(mx.nd.ones((2,))).wait_to_read()
        profiler.set_state("stop")
        profiler.dump()
    profiler.set_state("stop")
    events = profile(tmp_path, chain_of_ops)
    assert "dot" in [s[0] for s in op_spans(events)]


def test_api_events_record_python_calls_under_c_api_names(tmp_path):
    def body():
        a = mx.nd.ones((2,))
        (a + 1).asnumpy()
        mx.nd.waitall()
    doc = profile(tmp_path, body, profile_api=True, profile_imperative=True)
    api = set(s[0] for s in spans(doc, cat="MXNET_C_API"))
    assert {"MXImperativeInvokeEx", "MXNDArraySyncCopyToCPU", "MXNDArrayWaitAll"} <= api, api
