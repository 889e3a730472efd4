/* An empty shared library: the launcher tests preload it in place of
 * libcomputeprof.so, so that what is under test is the launcher alone. */
