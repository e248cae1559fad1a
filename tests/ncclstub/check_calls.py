#!/usr/bin/env python3
"""Checks the NCCL stub's call log (NCCLSTUB_LOG) of a collbench run against nccl-tests' startColl.

nccl-tests src/common.cu, startColl: with totalnbytes = max(sendBytes, expectedBytes) and
steps = maxbytes / totalnbytes, iteration `iter` shifts both buffers by totalnbytes * (iter % steps);
in place, the send buffer is recvBuff + shift + sendInplaceOffset * rank and the result
recvBuff + shift + recvInplaceOffset * rank. The per-op byte counts and in-place offsets are those of
each test's getCollByteCount (all_gather.cu, reduce_scatter.cu, alltoall.cu, ...); the peers those
of sendrecv.cu (send to rank+1, receive from rank-1) and alltoall.cu (one send and one receive per
peer, block `peer` of each buffer). Timed batches (a CUDA event record after each call) must walk
the slots 0, 1, 2, ... exactly; untimed calls restart at 0 or take the next slot. A launch of a
CUDA graph of N calls (-G N) runs iterations 0 .. N-1 of nccl-tests' capture: slots 0, 1, ... N-1
modulo steps, every launch all N.

  check_calls.py LOGDIR RESULT.json ROOT   errors on stderr, exit 1 when any
  check_calls.py --self-test               the checker catches planted faults (exit 1 if not)
"""
import glob
import json
import os
import re
import sys

TYPE_SIZE = [1, 1, 4, 4, 8, 8, 2, 4, 8, 2]  # ncclInt8 .. ncclBfloat16 (nccl.h)
JSON_OP = {"all_reduce": "all_reduce", "all_gather": "all_gather", "reduce_scatter": "reduce_scatter",
           "alltoall": "all_to_all", "broadcast": "broadcast", "p2p_alltoall": "all_to_all", "sendrecv": "sendrecv"}


def parse(line):
    words = line.split()
    return words[0], {k: v for k, v in (w.split("=", 1) for w in words[1:])}


def where(text):
    if "+" not in text:  # "-": none; "?": outside every allocation
        return None
    a, off = text.split("+")
    return int(a), int(off)


def byte_counts(op, count, n, elt):
    """sendBytes, recvBytes, sendInplaceOffset, recvInplaceOffset (nccl-tests getCollByteCount)."""
    b = count * elt
    if op == "all_gather":
        return b, n * b, b, 0
    if op == "reduce_scatter":
        return n * b, b, 0, b
    if op in ("alltoall", "p2p_alltoall"):
        return n * b, n * b, 0, 0
    return b, b, 0, 0


class Checker:
    def __init__(self, root):
        self.root = root
        self.errors = []
        self.seen = set()  # (json op, count, placement, group size)
        self.a2a = {}  # (comm, count, type) -> {placement: primitive} of all_to_all calls

    def err(self, where_, msg):
        if len(self.errors) < 40:
            self.errors.append(f"{where_}: {msg}")

    def unit(self, name, calls, allocs):
        """One rank's share of one group: returns (case key, slot, steps) or None."""
        c0 = calls[0]
        rank, n, count, elt = int(c0["rank"]), int(c0["nranks"]), int(c0["count"]), TYPE_SIZE[int(c0["type"])]
        ops = [c["op"] for c in calls]
        if ops[0] in ("send", "recv"):
            sends = [c for c in calls if c["op"] == "send"]
            recvs = [c for c in calls if c["op"] == "recv"]
            if len(sends) == 1 and len(recvs) == 1 and n != 1 and not (n == 2 and len(calls) == 4):
                op = "sendrecv"
                if int(sends[0]["peer"]) != (rank + 1) % n or int(recvs[0]["peer"]) != (rank - 1) % n:
                    self.err(name, f"sendrecv rank {rank}: peers {sends[0]['peer']}/{recvs[0]['peer']}, "
                                   f"startColl's sendrecv.cu sends to {(rank + 1) % n}, receives from {(rank - 1) % n}")
                s, r = where(sends[0]["send"]), where(recvs[0]["recv"])
            else:
                op = "p2p_alltoall"
                if [int(c["peer"]) for c in sends] != list(range(n)) or [int(c["peer"]) for c in recvs] != list(range(n)):
                    self.err(name, f"alltoall rank {rank}: peers {[c['peer'] for c in sends]} / "
                                   f"{[c['peer'] for c in recvs]}, alltoall.cu sends and receives once per peer")
                    return None
                s, r = where(sends[0]["send"]), where(recvs[0]["recv"])
                for p in range(n):
                    for c, key, base in ((sends[p], "send", s), (recvs[p], "recv", r)):
                        got = where(c[key])
                        if int(c["count"]) != count or got != (base[0], base[1] + p * count * elt):
                            self.err(name, f"alltoall rank {rank} peer {p}: {key} {c[key]} count {c['count']}, "
                                           f"want block {p} of {count} elements")
        else:
            if len(calls) != 1:
                self.err(name, f"rank {rank}: {len(calls)} collectives in one group, collbench launches one")
            op = ops[0]
            s, r = where(c0["send"]), where(c0["recv"])
            if op == "broadcast" and int(c0["root"]) != self.root:
                self.err(name, f"broadcast root {c0['root']}, the run asked for {self.root}")
        if s is None or r is None:
            self.err(name, f"{op} rank {rank}: a buffer outside every allocation")
            return None
        send_b, recv_b, sio, rio = byte_counts(op, count, n, elt)
        total = max(send_b, recv_b)
        inplace = s[0] == r[0]
        if inplace:
            shift = r[1] - rank * rio
            if s[1] != shift + rank * sio:
                self.err(name, f"{op} in place rank {rank}: send at +{s[1]}, startColl's recvBuff + shift + "
                               f"sendInplaceOffset*rank is +{shift + rank * sio}")
            if op not in ("sendrecv", "p2p_alltoall") and c0.get("inplace") != "1":
                self.err(name, f"{op} in place rank {rank}: NCCL does not see these buffers as in place")
            cap = allocs[r[0]]
        else:
            shift = r[1]
            if s[1] != shift:
                self.err(name, f"{op} rank {rank}: send shifted by {s[1]}, recv by {r[1]}; startColl shifts both "
                               f"buffers by the same totalnbytes * (iter % steps)")
            cap = min(allocs[s[0]], allocs[r[0]])
        steps = max(cap // total, 1) if total else 1
        if total and shift % total:
            self.err(name, f"{op} rank {rank}: shift {shift} is not a multiple of totalnbytes {total}")
        slot = shift // total if total else 0
        if slot >= steps:
            self.err(name, f"{op} rank {rank}: slot {slot} beyond steps {steps} (maxbytes {cap} / {total})")
        placement = "in" if inplace else "out"
        self.seen.add((JSON_OP[op], count, placement, n))
        if JSON_OP[op] == "all_to_all":
            self.a2a.setdefault((c0["comm"], count, c0["type"]), {})[placement] = op
        return (c0["comm"], rank, op, count, c0["type"], placement), slot, steps

    def check_primitives(self):
        """The two placements of one all_to_all case reach NCCL through the same primitive."""
        for (comm, count, _), by_placement in sorted(self.a2a.items()):
            if len(set(by_placement.values())) > 1:
                self.err(f"comm {comm}", f"all_to_all count {count}: out of place by {by_placement.get('out')}, in place "
                                         f"by {by_placement.get('in')}; the columns compare only with one primitive")

    def check_process(self, name, lines):
        recording = set()  # devices whose events time iterations
        allocs, first_event = {}, {}
        group = {}  # rank -> calls since the last group line
        pending = {}  # dev -> (key, slot, steps, rank) of the last unit, not yet known timed or not
        batch_k = {}  # dev -> index of the next timed call in the current batch
        last = {}  # (dev) -> (key, slot) of the previous unit
        graph = {}  # dev -> [calls run, calls captured] of the graph launch being run
        launches = {}  # dev -> graph launches since the last event record

        def resolve(dev, timed):
            p = pending.pop(dev, None)
            if p is None:
                return
            key, slot, steps = p
            prev = last.get(dev)
            if timed and dev in batch_k:
                want = batch_k[dev] % steps
                batch_k[dev] += 1
                if slot != want:
                    self.err(name, f"{key[2]} rank {key[1]} count {key[3]}: timed iteration {batch_k[dev] - 1} on "
                                   f"slot {slot}, startColl's iter % steps is {want} (steps {steps})")
            elif slot != 0 and not (prev and prev[0] == key and slot == (prev[1] + 1) % steps):
                self.err(name, f"{key[2]} rank {key[1]}: slot {slot} after "
                               f"{prev[1] if prev and prev[0] == key else 'another case'}")
            last[dev] = (key, slot)

        for line in lines:
            if not line.strip():
                continue
            kind, f = parse(line)
            if kind == "alloc":
                allocs[int(f["id"])] = int(f["bytes"])
            elif kind == "split":  # a split backend's Locals have events of their own
                first_event = {}
            elif kind == "event":
                first_event.setdefault(f["dev"], f["ev"])
            elif kind == "graph":
                dev = f["dev"]
                if dev in graph:
                    self.err(name, f"a CUDA graph launch on device {dev} ran {graph[dev][0]} of its "
                                   f"{graph[dev][1]} calls before the next launch")
                resolve(dev, False)
                if int(f["calls"]) > 0:
                    graph[dev] = [0, int(f["calls"])]
                launches[dev] = launches.get(dev, 0) + 1
            elif kind == "record":
                dev = f["dev"]
                if dev in graph:
                    self.err(name, f"a CUDA graph launch on device {dev} ran {graph[dev][0]} of its "
                                   f"{graph[dev][1]} calls before the next event")
                    del graph[dev]
                if launches.get(dev, 0) > 1 and first_event.get(dev) != f["ev"]:
                    self.err(name, f"{launches[dev]} CUDA graph launches on device {dev} between two events: "
                                   f"each sample times one")
                launches[dev] = 0
                recording.add(dev)
                if len(recording) > 1:
                    self.err(name, f"events recorded on devices {sorted(recording)}: one GPU per process times "
                                   f"the iterations, so -g N adds no N event records to each call")
                    recording = {dev}
                if first_event.get(dev) == f["ev"]:  # events[0]: a timed batch starts
                    resolve(dev, False)
                    batch_k[dev] = 0
                else:
                    resolve(dev, True)
            elif kind == "call":
                group.setdefault((f["comm"], f["rank"]), []).append(f)
            elif kind == "group":
                for (_, _), calls in group.items():
                    dev = calls[0]["dev"]
                    got = self.unit(name, calls, allocs)
                    if got and dev in graph:
                        key, slot, steps = got
                        k = graph[dev][0]
                        if slot != k % steps:
                            self.err(name, f"{key[2]} rank {key[1]} count {key[3]}: call {k} of a CUDA graph on slot "
                                           f"{slot}, startColl's iter % steps is {k % steps} (steps {steps})")
                        last[dev] = (key, slot)
                        graph[dev][0] += 1
                        if graph[dev][0] == graph[dev][1]:
                            del graph[dev]
                    elif got:
                        resolve(dev, False)
                        pending[dev] = got
                group = {}
        for dev in list(pending):
            resolve(dev, False)
        for dev, (ran, captured) in graph.items():
            self.err(name, f"a CUDA graph launch on device {dev} ran {ran} of its {captured} calls")

    def check_json(self, path):
        with open(path) as fh:
            doc = json.load(fh)
        for c in doc.get("cases", []):
            n = len(c["group"]["ranks"]) if c["group"].get("ranks") else None
            placement = "in" if c["placement"].startswith("in") else "out"
            if c["count"] == 0:
                continue
            if not any(s[:3] == (c["op"], c["count"], placement) and (n is None or s[3] == n) for s in self.seen):
                self.err(path, f"case {c['op']} count {c['count']} {placement}-place: no such call reached NCCL")
            if c["op"] == "broadcast" and c["root"] != self.root:
                self.err(path, f"broadcast case root {c['root']}, asked {self.root}")
        cases = {(c["op"], c["count"], "in" if c["placement"].startswith("in") else "out") for c in doc.get("cases", [])}
        for s in self.seen:
            if s[:3] not in cases:
                self.err(path, f"NCCL saw {s[0]} count {s[1]} {s[2]}-place, which is no case of the run")


def check(logdir, result, root):
    ch = Checker(root)
    files = sorted(glob.glob(os.path.join(logdir, "calls.*.log")))
    if not files:
        ch.err(logdir, "no call logs")
    for path in files:
        with open(path) as fh:
            ch.check_process(path, fh.read().splitlines())
    ch.check_primitives()
    if result:
        ch.check_json(result)
    return ch.errors


GRAPH_CALLS = """call comm=1 dev=0 rank=0 nranks=2 op=all_gather count=8 type=7 red=0 root=-1 peer=-1 send=1+0 recv=2+0 inplace=0 blocking=1
group comm=1 calls=1
call comm=1 dev=0 rank=0 nranks=2 op=all_gather count=8 type=7 red=0 root=-1 peer=-1 send=1+64 recv=2+64 inplace=0 blocking=1
group comm=1 calls=1
"""


def self_test():
    """Planted faults in a well-formed log must each be reported."""
    good = """alloc id=1 dev=0 bytes=4096
alloc id=2 dev=0 bytes=4096
event dev=0 ev=1
event dev=0 ev=2
event dev=0 ev=3
record dev=0 ev=1
call comm=1 dev=0 rank=0 nranks=2 op=all_gather count=8 type=7 red=0 root=-1 peer=-1 send=1+0 recv=2+0 inplace=0 blocking=1
group comm=1 calls=1
record dev=0 ev=2
call comm=1 dev=0 rank=0 nranks=2 op=all_gather count=8 type=7 red=0 root=-1 peer=-1 send=1+64 recv=2+64 inplace=0 blocking=1
group comm=1 calls=1
record dev=0 ev=3
call comm=1 dev=0 rank=0 nranks=2 op=send count=8 type=7 red=0 root=-1 peer=1 send=1+0 recv=- inplace=0 blocking=1
call comm=1 dev=0 rank=0 nranks=2 op=recv count=8 type=7 red=0 root=-1 peer=1 recv=2+0 send=- inplace=0 blocking=1
group comm=1 calls=2
"""
    # One timed launch of a graph of two calls (-G 2): slots 0 and 1.
    good += "record dev=0 ev=1\ngraph dev=0 calls=2\n" + GRAPH_CALLS + "record dev=0 ev=2\n"
    faults = {
        "a graph's calls all on one slot": ("send=1+64 recv=2+64 inplace=0 blocking=1\ngroup comm=1 calls=1\nrecord dev=0 ev=2\n",
                                            "send=1+0 recv=2+0 inplace=0 blocking=1\ngroup comm=1 calls=1\nrecord dev=0 ev=2\n"),
        "a graph launch that runs fewer calls than it captured": ("graph dev=0 calls=2", "graph dev=0 calls=3"),
        "two graph launches timed as one sample": ("graph dev=0 calls=2\n", "graph dev=0 calls=2\n" + GRAPH_CALLS + "graph dev=0 calls=2\n"),
        "send shifted by its own size (collbench before startColl's shift)": ("send=1+64 recv=2+64", "send=1+32 recv=2+64"),
        "slots wrap early in a timed batch": ("send=1+64 recv=2+64", "send=1+0 recv=2+0"),
        "in place without NCCL's in-place offset": ("send=1+0 recv=2+0 inplace=0", "send=2+0 recv=2+0 inplace=0"),
        "sendrecv to the wrong peer": ("op=send count=8 type=7 red=0 root=-1 peer=1", "op=send count=8 type=7 red=0 root=-1 peer=0"),
        "buffer outside its allocation": ("send=1+64 recv=2+64", "send=? recv=2+64"),
    }
    extra = {
        "events recorded on every GPU of -g 2": "event dev=1 ev=9\nrecord dev=1 ev=9\n",
        "in-place all_to_all by another primitive than out of place":
            "call comm=1 dev=0 rank=0 nranks=2 op=alltoall count=8 type=7 red=0 root=-1 peer=-1 send=1+0 recv=2+0 "
            "inplace=0 blocking=1\ngroup comm=1 calls=1\n"
            "call comm=1 dev=0 rank=0 nranks=2 op=send count=8 type=7 red=0 root=-1 peer=0 send=2+0 recv=- inplace=0 blocking=1\n"
            "call comm=1 dev=0 rank=0 nranks=2 op=recv count=8 type=7 red=0 root=-1 peer=0 recv=2+0 send=- inplace=0 blocking=1\n"
            "call comm=1 dev=0 rank=0 nranks=2 op=send count=8 type=7 red=0 root=-1 peer=1 send=2+32 recv=- inplace=0 blocking=1\n"
            "call comm=1 dev=0 rank=0 nranks=2 op=recv count=8 type=7 red=0 root=-1 peer=1 recv=2+32 send=- inplace=0 blocking=1\n"
            "group comm=1 calls=4\n",
    }
    ok = True
    ch = Checker(0)
    ch.check_process("good", good.splitlines())
    if ch.errors:
        print("self-test: a correct log was refused:", ch.errors, file=sys.stderr)
        ok = False
    for what, (a, b) in faults.items():
        assert a in good, what
        ch = Checker(0)
        ch.check_process("planted", good.replace(a, b, 1).splitlines())
        if not ch.errors:
            print(f"self-test: not caught: {what}", file=sys.stderr)
            ok = False
        else:
            print(f"caught: {what}: {ch.errors[0]}")
    for what, lines in extra.items():
        ch = Checker(0)
        ch.check_process("planted", (good + lines).splitlines())
        ch.check_primitives()
        if not ch.errors:
            print(f"self-test: not caught: {what}", file=sys.stderr)
            ok = False
        else:
            print(f"caught: {what}: {ch.errors[0]}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    errors = check(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    for e in errors:
        print(e, file=sys.stderr)
    sys.exit(1 if errors else 0)
