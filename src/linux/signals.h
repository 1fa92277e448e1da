/* Stop signals (SIGINT, SIGTERM, SIGHUP) are blocked in every irt thread and taken
 * synchronously by the main loop, so a stop is an ordinary event: finish, print, save. */
#ifndef IRT_LINUX_SIGNALS_H
#define IRT_LINUX_SIGNALS_H

#include <signal.h>
#include <stdint.h>

/* Blocks the stop signals in the calling thread (and threads it creates later). */
void sig_block_stop(void);
/* Waits up to timeout_ns for a stop signal; returns its number, or 0 on timeout. */
int sig_wait_stop(int64_t timeout_ns);
/* Returns a pending stop signal without waiting, or 0. */
int sig_poll_stop(void);

#endif
