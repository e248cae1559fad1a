# Sourced by the scripts: lets Open MPI run as root (containers, CI) and on one small machine.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
# Containers often forbid the cross-memory attach Open MPI uses between local ranks.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# ob1 (shared memory, TCP) unless told otherwise: the MTLs are for fabrics these scripts do not use,
# and the libraries they load (libpsm2, libinfinipath, libfabric's) sleep about 0.1 s each in their
# constructors, in every rank of every mpirun.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
