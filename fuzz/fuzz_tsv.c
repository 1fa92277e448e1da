/* The schedsim TSV reader of sim/workload.c (a workload file named *.tsv), and a short
 * simulation of what it accepts: fuzz_workload.c with a .tsv name. */
#define FUZZ_WORKLOAD_NAME "w.tsv"
#include "fuzz_workload.c"
