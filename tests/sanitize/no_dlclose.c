/* Preloaded under the sanitized tests: dlclose does nothing, so the plugins Open MPI, PMIx, hwloc
 * and libfabric load and unload stay mapped until exit. LeakSanitizer can then name the library
 * that leaked (instead of "<unknown module>") and tests/sanitize/lsan_mpi.supp can match it. */
int dlclose(void *handle) {
  (void)handle;
  return 0;
}
