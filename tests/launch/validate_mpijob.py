#!/usr/bin/python3
"""The MPIJobs `collbench launch k8s` writes, against the MPI Operator's own CRD schema.

For every instance profile in thresholds/: the file parses as YAML, validates against the CRD's
v2beta1 openAPIV3Schema (JSON Schema apart from x-kubernetes-* keys), and holds what the profile
says: GPUs and EFA devices per worker, the instance-type nodeSelector, /dev/shm, IPC_LOCK; and a
user's own job with the NCCL Inspector, its claim mounted in every worker. The API
server drops fields its schema does not know, silently; here an unknown field is an error, so a
misspelt field cannot pass. A broken document must fail, or the check proves nothing.

Usage: validate_mpijob.py COLLBENCH CRD_YAML THRESHOLDS_DIR    (exit 0 pass, 1 fail, 77 skip)
Needs Debian's python3-yaml and python3-jsonschema.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:
    print(f"validate_mpijob: SKIP: {e} (apt-get install python3-yaml python3-jsonschema)")
    sys.exit(77)


def strict(schema):
    """The schema with additionalProperties false wherever it lists properties and keeps no unknown fields."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out \
                and not out.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(x) for x in schema]
    return schema


def errors(validator, doc):
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc))


def generate(collbench, instance_type, profile, workdir):
    out = os.path.join(workdir, f"{instance_type}.yaml")
    subprocess.run([collbench, "launch", "k8s", "--nodes", "3", "--instance-type", instance_type,
                    "--image", "registry.example/collbench:1.0", "--namespace", "hpc", "-o", out,
                    "--", "preflight", "--budget", "10m"], check=True, capture_output=True, text=True)
    with open(out) as f:
        return yaml.safe_load(f)


def generate_own(collbench, workdir):
    """A user's own program with the NCCL Inspector, its logs on a claim mounted in every worker."""
    out = os.path.join(workdir, "own.yaml")
    subprocess.run([collbench, "launch", "k8s", "--nodes", "2", "--instance-type", "p5.48xlarge",
                    "--image", "registry.example/train:1.0", "--inspector", "/inspector", "--inspector-plugin",
                    "inspector", "--inspector-volume-claim", "fsx-claim", "-o", out, "--command", "--",
                    "python", "train.py"], check=True, capture_output=True, text=True)
    with open(out) as f:
        return yaml.safe_load(f)


def check_own(doc):
    spec = doc["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    problems = []
    if {"name": "inspector", "persistentVolumeClaim": {"claimName": "fsx-claim"}} not in spec["volumes"]:
        problems.append("no volume for the claim fsx-claim")
    if {"name": "inspector", "mountPath": "/inspector"} not in spec["containers"][0]["volumeMounts"]:
        problems.append("the claim is not mounted at /inspector")
    return problems


def check_profile(doc, profile):
    """What the profile says must be in the workers; returns the problems."""
    hw = profile["hardware"]
    problems = []
    worker = doc["spec"]["mpiReplicaSpecs"]["Worker"]
    spec = worker["template"]["spec"]
    limits = spec["containers"][0]["resources"]["limits"]
    want = {"nvidia.com/gpu": str(hw["gpus"])}
    if hw["efa_devices"] > 0:
        want["vpc.amazonaws.com/efa"] = str(hw["efa_devices"])
    for k, v in want.items():
        if limits.get(k) != v:
            problems.append(f"limits[{k}] = {limits.get(k)!r}, want {v!r}")
    if doc["spec"]["slotsPerWorker"] != hw["gpus"]:
        problems.append(f"slotsPerWorker {doc['spec']['slotsPerWorker']}, want {hw['gpus']}")
    if worker["replicas"] != 3:
        problems.append(f"Worker replicas {worker['replicas']}, want 3")
    if spec.get("nodeSelector", {}).get("node.kubernetes.io/instance-type") != profile["instance_type"]:
        problems.append("nodeSelector does not name the instance type")
    if {"name": "dshm", "emptyDir": {"medium": "Memory"}} not in spec["volumes"]:
        problems.append("no /dev/shm volume in memory")
    if "IPC_LOCK" not in spec["containers"][0]["securityContext"]["capabilities"]["add"]:
        problems.append("no IPC_LOCK")
    return problems


def main():
    collbench, crd_path, thresholds = sys.argv[1:4]
    with open(crd_path) as f:
        crd = yaml.safe_load(f)
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == "v2beta1")["schema"]["openAPIV3Schema"]
    validator = jsonschema.Draft7Validator(strict(schema))
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        profiles = sorted(p for p in glob.glob(os.path.join(thresholds, "*.json"))
                          if os.path.basename(p) != "known-issues.json")  # not an instance profile
        if not profiles:
            print(f"validate_mpijob: FAIL: no profiles in {thresholds}")
            return 1
        for path in profiles:
            with open(path) as f:
                profile = json.load(f)
            doc = generate(collbench, profile["instance_type"], profile, work)
            problems = errors(validator, doc) + check_profile(doc, profile)
            status = "PASS" if not problems else "FAIL"
            failed += bool(problems)
            print(f"validate_mpijob: {status}: {profile['instance_type']}: {len(problems)} problem(s)")
            for p in problems:
                print(f"    {p}")
        own = generate_own(collbench, work)
        problems = errors(validator, own) + check_own(own)
        failed += bool(problems)
        print(f"validate_mpijob: {'PASS' if not problems else 'FAIL'}: --command with --inspector: "
              f"{len(problems)} problem(s)")
        for p in problems:
            print(f"    {p}")
        # The check can fail: a misspelt field, and a count of the wrong type.
        broken = copy.deepcopy(doc)
        broken["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["volumeMount"] = []
        broken["spec"]["slotsPerWorker"] = "8"
        found = errors(validator, broken)
        if len(found) < 2:
            print(f"validate_mpijob: FAIL: a broken MPIJob passed the schema ({found})")
            failed += 1
        else:
            print(f"validate_mpijob: PASS: a broken MPIJob is refused ({len(found)} errors)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
