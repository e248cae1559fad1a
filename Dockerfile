# collbench on top of the EFA + NCCL image the AWS nccl-tests recipes build and publish
# (aws-samples/awsome-distributed-training, micro-benchmarks/nccl-tests/nccl-tests.Dockerfile:
# Ubuntu 22.04, CUDA, EFA installer with libfabric and Open MPI under /opt/amazon, NCCL under
# /opt/nccl/build, aws-ofi-nccl, sshd configured for MPI). Not built in this project's CI (no
# container engine there); the launch files expect exactly this:
#   - `collbench` on PATH, with its thresholds installed beside it (share/collbench/thresholds);
#   - `mpirun` on PATH (Open MPI from the EFA installer), for `launch slurm --launcher mpirun` and
#     for the MPIJob's launcher;
#   - `/usr/sbin/sshd`, which `launch k8s` starts in every worker (`sshd -De`).
# Build:  docker build -t REGISTRY/collbench:TAG .
# Use:    collbench launch k8s --image REGISTRY/collbench:TAG ...   (or launch slurm --container ...)
ARG BASE_IMAGE=public.ecr.aws/hpc-cloud/nccl-tests:latest
FROM ${BASE_IMAGE}

RUN apt-get update -y \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       build-essential cmake pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev openssh-server \
    && rm -rf /var/lib/apt/lists/*

COPY . /src/collbench
# libfabric from the EFA installer (pkg-config), NCCL from the base image, no tests in the image.
RUN PKG_CONFIG_PATH=/opt/amazon/efa/lib/pkgconfig:${PKG_CONFIG_PATH:-} \
       cmake -S /src/collbench -B /src/build -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_TESTS=OFF \
             -DCOLLBENCH_MICRO=OFF -DNCCL_HOME=/opt/nccl/build -DMPI_HOME=/opt/amazon/openmpi \
    && cmake --build /src/build -j "$(nproc)" \
    && cmake --install /src/build --prefix /usr/local \
    && rm -rf /src/build \
    && mkdir -p /run/sshd \
    && collbench --version
