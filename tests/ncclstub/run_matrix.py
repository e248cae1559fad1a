#!/usr/bin/env python3
"""The real nccl backend on the NCCL/cudart stand-ins under mpirun: every op, both placements, for
mpirun -n P in {2,3,4,8,16} x -g in {1,2,8}, datatypes, reductions, roots and --scope rotating over
the runs. Each run must end 0 with every checked case's wrong count 0 (collbench's own
verification, on the host twins), and its call log must agree with nccl-tests' startColl
(check_calls.py). Power: a planted wrong element (in collbench's buffer, and in the stand-in's
result) must be counted.

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
                "OMPI_MCA_mpi_yield_when_idle": "1"})
    env.update(extra)
    return env


def run(binary, mpiexec, workdir, name, procs, gpus, args, env=None):
    out = os.path.join(workdir, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    result = os.path.join(out, "result.json")
    cmd = [mpiexec, "-n", str(procs), "--bind-to", "none", binary, "run", "--backend", "nccl", "-g", str(gpus),
           "--json", result, "--no-progress", "--timeout", "60"] + args
    t0 = time.time()
    p = subprocess.run(cmd, env=mpi_env({"NCCLSTUB_GPUS": str(gpus), "NCCLSTUB_LOG": out, **(env or {})}),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
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

    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
