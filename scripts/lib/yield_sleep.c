// Preloaded into the fake cluster's ranks (scripts/fake-cluster.sh mpirun-args). Its nodes share a
// few cores, and Open MPI's mpi_yield_when_idle makes a waiting rank call sched_yield in a loop:
// the scheduler hands the core straight back, so each waiting rank still takes its fair share of a
// core from the ranks that have data to move. Here a yield sleeps 50 us instead and the core goes
// to them. Open MPI yields only when a progress pass found nothing to do.
#include <sched.h>
#include <time.h>

int sched_yield(void) {
  const struct timespec pause = {0, 50000};
  nanosleep(&pause, NULL);
  return 0;
}
