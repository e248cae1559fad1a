# collbench on top of the EFA + NCCL image the AWS nccl-tests recipes build and publish
# (aws-samples/awsome-distributed-training, micro-benchmarks/nccl-tests/nccl-tests.Dockerfile:
# Ubuntu 22.04, CUDA, EFA installer with libfabric and Open MPI under /opt/amazon, NCCL under
# /opt/nccl/build, aws-ofi-nccl, sshd configured for MPI). Not built in this project's CI (no
# container engine there); the launch files expect exactly this:
#   - `collbench` on PATH, with its thresholds installed beside it (share/collbench/thresholds), from
#     the same Debian package scripts/package.sh makes (docs/install.md);
#   - `mpirun` on PATH (Open MPI from the EFA installer), for `launch slurm --launcher mpirun` and
#     for the MPIJob's launcher;
#   - `/usr/sbin/sshd`, which `launch k8s` starts in every worker (`sshd -De`).
# Build:  docker build -t REGISTRY/collbench:TAG .
# Use:    collbench launch k8s --image REGISTRY/collbench:TAG ...   (or launch slurm --container ...)
ARG BASE_IMAGE=public.ecr.aws/hpc-cloud/nccl-tests:latest

# Build stage: the .deb, with the nccl backend (NCCL from the base image) and Depends named for the base
# image's Ubuntu 22.04 (its Open MPI and libfabric are the EFA installer's, under /opt, not packages';
# scripts/package.sh checks the list against ldd). No tests in the image.
FROM ${BASE_IMAGE} AS build
RUN apt-get update -y \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       build-essential cmake pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev help2man \
    && rm -rf /var/lib/apt/lists/*
COPY . /src/collbench
# libfabric from the EFA installer (pkg-config).
RUN cd /src/collbench \
    && PKG_CONFIG_PATH=/opt/amazon/efa/lib/pkgconfig:${PKG_CONFIG_PATH:-} PKG_BUILD_DIR=/src/build PACKAGE_CUDA=ON \
       PACKAGE_DEPENDS="libc6, libstdc++6, libgcc-s1, libfmt8" \
       CMAKE_ARGS="-DNCCL_HOME=/opt/nccl/build -DMPI_HOME=/opt/amazon/openmpi" scripts/package.sh \
    && cp /src/build/package/collbench_*.deb /collbench.deb

# The image: the base and the package, as a user would install it.
FROM ${BASE_IMAGE}
COPY --from=build /collbench.deb /tmp/collbench.deb
RUN apt-get update -y \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/collbench.deb openssh-server \
    && rm -rf /var/lib/apt/lists/* /tmp/collbench.deb \
    && mkdir -p /run/sshd \
    && collbench --version
