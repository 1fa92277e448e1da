/* Beyond one machine (docs/fleet.md): `irt fleet slurm|parallel DIR -- COMMAND ...` writes a
 * Slurm job-array script or a GNU parallel script that runs COMMAND on every node, each on a
 * node of its own, into DIR/<machine>/, and submits or runs it (or only prints it: --dry-run).
 * Shards of simulations and sweeps: --shard I/N. irt schedules nothing itself. */
#ifndef IRT_FLEET_H
#define IRT_FLEET_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "err.h"

/* "I/N" with 1 <= I <= N <= 100000 into *index (0-based) and *count; "" = no sharding (0/1).
 * Bad: EXIT_USAGE naming `where`. */
int shard_parse(const char *s, const char *where, int *index, int *count, struct err *e);
/* Cell k of a plan belongs to shard index of count: round-robin, so shards of a sweep whose
 * last dimension runs long or short get a fair share of each. */
static inline bool shard_has(long k, int index, int count)
{
	return count <= 1 || k % count == index;
}

enum fleet_backend { FLEET_SLURM, FLEET_PARALLEL };

/* What a fleet runs, from the command line: irt fleet BACKEND DIR [OPTIONS] -- COMMAND ARGS */
struct fleet_job {
	enum fleet_backend backend;
	const char *dir;             /* absolute or relative to where irt fleet runs */
	const char *irt;             /* the irt binary the nodes run (this one, absolute) */
	const char *command;         /* probe, run, sweep, sim */
	char **args;                 /* COMMAND's arguments (after the command word) */
	int nargs;
	const struct fleet_cfg *cfg;
	const char *exclude;         /* slurm: nodes outside --nodelist ("" none) */
	const char *run_id;          /* names this submission's files: 20261202-234501 */
};

/* Writes the script (a Slurm batch script, or a sh script that runs GNU parallel) to f. */
void fleet_script(FILE *f, const struct fleet_job *j);

/* `irt fleet ...` */
int cmd_fleet(int argc, char **argv);

#endif
