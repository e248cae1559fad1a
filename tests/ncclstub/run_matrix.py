#!/usr/bin/env python3
"""The real nccl backend on the NCCL/cudart stand-ins under mpirun: every op, both placements, for
mpirun -n P in {2,3,4,8,16} x -g in {1,2,8}, datatypes, reductions, roots and --scope rotating over
the runs. Each run must end 0 with every checked case's wrong count 0 (collbench's own
verification, on the host twins), and its call log must agree with nccl-tests' startColl
(check_calls.py). -G runs its calls as CUDA graphs (the stand-in's capture and launch). Power: a
planted wrong element (in collbench's buffer, and in the stand-in's result) must be counted.

  run_matrix.py COLLBENCH_NCCLSTUB MPIEXEC WORKDIR [quick]
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_calls  # noqa: E402

DTYPES = ["float", "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "double", "bfloat16"]
REDOPS = ["sum", "prod", "max", "min"]


def mpi_env(extra):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                "OMPI_MCA_mpi_yield_when_idle": "1", "OMPI_MCA_pml": "ob1"})
    env.update(extra)
    return env


def run(binary, mpiexec, workdir, name, procs, gpus, args, env=None, timeout_s=60):
    out = os.path.join(workdir, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    result = os.path.join(out, "result.json")
    cmd = [mpiexec, "-n", str(procs), "--bind-to", "none", binary, "run", "--backend", "nccl", "-g", str(gpus),
           "--json", result, "--no-progress", "--timeout", str(timeout_s)] + args
    t0 = time.time()
    p = subprocess.run(cmd, env=mpi_env({"NCCLSTUB_GPUS": str(gpus), "NCCLSTUB_LOG": out, **(env or {})}),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=max(120, 5 * timeout_s))
    doc = None
    if os.path.exists(result):
        with open(result) as fh:
            doc = json.load(fh)
    return p, doc, out, result, time.time() - t0


def main():
    binary, mpiexec, workdir = sys.argv[1:4]
    quick = len(sys.argv) > 4 and sys.argv[4] == "quick"
    os.makedirs(workdir, exist_ok=True)
    failures = []
    configs = [(p, g) for g in (1, 2, 8) for p in (2, 3, 4, 8, 16)]
    if quick:
        configs = [(2, 1), (3, 2), (2, 8)]
    for i, (procs, gpus) in enumerate(configs):
        n = procs * gpus
        dtypes = ",".join(sorted({DTYPES[i % len(DTYPES)], DTYPES[(i + 4) % len(DTYPES)]}))
        redop = REDOPS[i % len(REDOPS)]
        root = n - 1 if i % 2 else min(1, n - 1)
        scope = "node" if i % 3 == 1 else "world"
        name = f"p{procs}-g{gpus}"
        args = ["--ops", "all", "-d", dtypes, "-o", redop, "-r", str(root), "--scope", scope, "-b", "64", "-e", "16K",
                "-f", "16", "-w", "1", "-n", "6", "-c", "1", "--placement", "both"]
        p, doc, out, result, secs = run(binary, mpiexec, workdir, name, procs, gpus, args)
        label = f"{name} ({n} ranks, {dtypes}, {redop}, root {root}, --scope {scope})"
        print(f"{label}: exit {p.returncode}, {secs:.1f} s", flush=True)
        if p.returncode != 0 or doc is None:
            failures.append(f"{label}: exit {p.returncode}\n{p.stdout[-3000:]}")
            continue
        cases = doc.get("cases", [])
        checked = [c for c in cases if c["wrong"] is not None]
        wrong = [c for c in checked if c["wrong"] != 0]
        if wrong:
            failures.append(f"{label}: wrong results: " + "; ".join(
                f"{c['op']} {c['dtype']} {c['placement']} {c['bytes']} B: {c['wrong']}" for c in wrong[:5]))
        ops = {c["op"] for c in checked}
        if len(ops) < 6:
            failures.append(f"{label}: only {sorted(ops)} checked")
        errors = check_calls.check(out, result, root)
        if errors:
            failures.append(f"{label}: call log vs startColl:\n  " + "\n  ".join(errors[:10]))

    # -G 4: every GPU's stream captures 4 calls per graph; each timed sample is one launch of the
    # graphs, so process 0's first GPU launches (warm-up + timed) graphs per measured case, and
    # the check (outside the graphs) still finds every result exact.
    name, procs, gpus, graph_calls, warm, iters = "graph-p3-g2", 3, 2, 4, 2, 5
    p, doc, out, result, secs = run(binary, mpiexec, workdir, name, procs, gpus,
                                    ["--ops", "all", "-d", "float,int32", "-b", "64", "-e", "16K", "-f", "16",
                                     "-w", str(warm), "-n", str(iters), "-c", "1", "-G", str(graph_calls)])
    print(f"{name}: exit {p.returncode}, {secs:.1f} s", flush=True)
    if p.returncode != 0 or doc is None:
        failures.append(f"{name}: exit {p.returncode}\n{p.stdout[-3000:]}")
    else:
        cases = doc.get("cases", [])
        checked = [c for c in cases if c["wrong"] is not None]
        if any(c["wrong"] != 0 for c in checked) or len({c["op"] for c in checked}) < 6:
            failures.append(f"{name}: checked {sorted({c['op'] for c in checked})}, wrong in "
                            f"{[c['op'] for c in checked if c['wrong'] != 0]}")
        errors = check_calls.check(out, result, 0)
        if errors:
            failures.append(f"{name}: call log vs startColl:\n  " + "\n  ".join(errors[:10]))
        with open(os.path.join(out, "calls.0.log")) as fh:
            launches = sum(1 for line in fh if line.startswith(f"graph dev=0 calls={graph_calls}"))
        measured = [c for c in cases if c["count"] > 0]
        want = len(measured) * (warm + iters)
        samples = {c["time_us"]["samples"] for c in measured}
        if launches != want or samples != {iters}:
            failures.append(f"{name}: {launches} graph launches of {graph_calls} calls on process 0's first GPU "
                            f"(want {want}: {len(measured)} cases x {warm + iters}), samples per case {samples} "
                            f"(want {iters})")
        if doc["options"].get("cudagraph_calls") != graph_calls or f"graph: {graph_calls}" not in p.stdout or \
                f"-G {graph_calls}: each GPU's stream captures" not in p.stdout:
            failures.append(f"{name}: -G {graph_calls} not in the document's options, the nccl-tests line or the "
                            f"notes\n{p.stdout[:3000]}")
    # -G needs NCCL: a run on the mpi backend refuses it by name before measuring.
    p = subprocess.run([binary, "run", "--backend", "mpi", "-G", "4"], env=mpi_env({}), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    print(f"-G 4 on mpi: exit {p.returncode}", flush=True)
    if p.returncode != 2 or "-G 4 captures NCCL calls" not in p.stdout:
        failures.append(f"-G 4 on the mpi backend: not refused by name (exit {p.returncode})\n{p.stdout[-1000:]}")

    # Power: a wrong element in collbench's result buffer, and one in the stand-in's NCCL result.
    for name, env, args in (("power-inject", {}, ["--inject", "corrupt:1:0"]),
                            ("power-stub", {"NCCLSTUB_CORRUPT": "all_reduce"}, [])):
        p, doc, out, result, secs = run(binary, mpiexec, workdir, name, 2, 2,
                                        ["--ops", "all_reduce", "-b", "64", "-e", "64", "-n", "2", "-w", "0", "-c", "1",
                                         "--placement", "out"] + args, env)
        caught = doc is not None and any((c["wrong"] or 0) > 0 for c in doc.get("cases", []))
        print(f"{name}: exit {p.returncode}, wrong counted: {caught}, {secs:.1f} s", flush=True)
        if not caught:
            failures.append(f"{name}: a planted wrong element was not counted (exit {p.returncode})\n{p.stdout[-2000:]}")

    # NCCL copies ~/.nccl.conf into the environment without overwriting: collbench must set
    # NCCL_COMM_BLOCKING=1, not unset it, or the conf file makes every communicator non-blocking.
    home = os.path.join(workdir, "home")
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, ".nccl.conf"), "w") as fh:
        fh.write("NCCL_COMM_BLOCKING=0\n")
    for name, env in (("blocking-conf", {"HOME": home}), ("blocking-env", {"NCCL_COMM_BLOCKING": "0"})):
        p, doc, out, result, secs = run(binary, mpiexec, workdir, name, 2, 1, ["--ops", "all_reduce", "-b", "64", "-e",
                                        "64", "-n", "2", "-w", "0", "-c", "1"], env)
        modes = set()
        for log in os.listdir(out):
            if log.startswith("calls."):
                with open(os.path.join(out, log)) as fh:
                    modes |= {w for line in fh for w in line.split() if w.startswith("blocking=")}
        print(f"{name}: exit {p.returncode}, {sorted(modes)}, {secs:.1f} s", flush=True)
        if p.returncode != 0 or modes != {"blocking=1"}:
            failures.append(f"{name}: communicators {sorted(modes)} (exit {p.returncode})\n{p.stdout[-2000:]}")
    # A launch that answers ncclInProgress on a blocking communicator is refused, by name.
    p, doc, out, result, secs = run(binary, mpiexec, workdir, "inprogress", 2, 1, ["--ops", "all_reduce", "-b", "64",
                                    "-e", "64", "-n", "2", "-w", "0", "-c", "1"], {"NCCLSTUB_FORCE_INPROGRESS": "1"})
    print(f"inprogress: exit {p.returncode}, {secs:.1f} s", flush=True)
    if p.returncode == 0 or "ncclInProgress on a blocking communicator" not in p.stdout:
        failures.append(f"inprogress: not refused (exit {p.returncode})\n{p.stdout[-2000:]}")

    # nccl-tests' headroom on a 2400 MiB GPU is 2 GiB (min(ceil(2400 MiB / 16 GiB), 4) + 1): 512 MiB of
    # buffers are refused before anything runs (with 1 GiB kept, they would fit).
    p, doc, out, result, secs = run(binary, mpiexec, workdir, "headroom", 1, 1, ["--ops", "all_reduce", "-b", "256M",
                                    "-e", "256M", "-n", "1", "-w", "0", "-c", "0", "--placement", "out"],
                                    {"NCCLSTUB_GPU_MIB": "2400"})
    print(f"headroom: exit {p.returncode}, {secs:.1f} s", flush=True)
    if p.returncode != 2 or "-e too large" not in p.stdout or "NCCL needs 2 GiB kept free" not in p.stdout:
        failures.append(f"headroom: not refused with nccl-tests' 2 GiB (exit {p.returncode})\n{p.stdout[-2000:]}")

    # nccl-tests options collbench lacks are refused by name.
    for opt in (["-z", "1"], ["-m", "4"]):
        p = subprocess.run([binary, "run", "--backend", "nccl"] + opt, env=mpi_env({}), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        print(f"{' '.join(opt)}: exit {p.returncode}", flush=True)
        if p.returncode != 2 or f"{opt[0]} {opt[1]}: nccl-tests'" not in p.stdout or "not implemented" not in p.stdout:
            failures.append(f"{' '.join(opt)}: not refused by name (exit {p.returncode})\n{p.stdout[-1000:]}")

    # A peer stuck in communicator teardown (a blocking ncclCommFinalize that never returns) ends the
    # run within --timeout, naming the step, instead of holding the job forever.
    try:
        p, doc, out, result, secs = run(binary, mpiexec, workdir, "teardown-hang", 2, 1, ["--ops", "all_reduce", "-b",
                                        "64", "-e", "64", "-n", "2", "-w", "0", "-c", "0"],
                                        {"NCCLSTUB_HANG_FINALIZE": "1"}, timeout_s=5)
        named = "teardown" in p.stdout and "COLLECTIVE_HANG" in p.stdout
        print(f"teardown-hang: exit {p.returncode}, named: {named}, {secs:.1f} s", flush=True)
        if p.returncode == 0 or not named:
            failures.append(f"teardown-hang: not named (exit {p.returncode})\n{p.stdout[-2000:]}")
    except subprocess.TimeoutExpired:
        failures.append("teardown-hang: the run never ended (no watchdog over the teardown)")

    # --backend auto where /dev/nvidia0 exists and CUDA fails (a driver older than the runtime): host
    # MPI is measured, and the verdict is a [FAIL] naming CUDA's error. Beside it, a host with no GPU
    # at all falls back with no such finding.
    broken, bare = os.path.join(workdir, "dev-broken"), os.path.join(workdir, "dev-bare")
    for d in (broken, bare):
        os.makedirs(d, exist_ok=True)
    open(os.path.join(broken, "nvidia0"), "w").close()
    for name, env, want in (("auto-broken-gpu", {"COLLBENCH_DEV_DIR": broken, "NCCLSTUB_DRIVER_MISMATCH": "1"}, True),
                            ("auto-no-gpu", {"COLLBENCH_DEV_DIR": bare, "NCCLSTUB_GPUS": "0"}, False)):
        cmd = [mpiexec, "-n", "2", "--bind-to", "none", binary, "run", "--backend", "auto", "--ops", "all_reduce",
               "-b", "64", "-e", "64", "-n", "2", "-w", "0", "--no-progress", "--no-color"]
        p = subprocess.run(cmd, env=mpi_env(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        said = "[FAIL] CUDA_ERROR" in p.stdout and "cudaErrorInsufficientDriver" in p.stdout
        fell_back = "backend mpi (auto:" in p.stdout
        print(f"{name}: exit {p.returncode}, host MPI measured: {fell_back}, CUDA_ERROR: {said}", flush=True)
        if not fell_back or said != want:
            failures.append(f"{name}: CUDA_ERROR {'missing' if want else 'where CUDA had nothing to fail'} "
                            f"(exit {p.returncode})\n{p.stdout[-2000:]}")

    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
