/* irt sweep: every combination of knob and option values, repeated in shuffled rounds. */
#ifndef IRT_SWEEP_H
#define IRT_SWEEP_H

int cmd_sweep(int argc, char **argv);

#endif
