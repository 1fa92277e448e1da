/* Stop signals (SIGINT, SIGTERM, SIGHUP) are blocked in every irt thread and taken
 * synchronously by the main loop, so a stop is an ordinary event: finish, print, save. */
#ifndef IRT_LINUX_SIGNALS_H
#define IRT_LINUX_SIGNALS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* "Look again": another irt thread wakes the one waiting in sig_wait_stop (the probes ended).
 * Blocked with the stop signals and taken by the same wait, so one sent between the waiter's
 * last look and its wait is not lost; never a stop. */
#define SIG_LOOK SIGUSR1

/* Blocks the stop signals and SIG_LOOK in the calling thread (and threads it creates later). */
void sig_block_stop(void);
/* Waits up to timeout_ns for a stop signal; returns its number, or 0 on timeout or SIG_LOOK. */
int sig_wait_stop(int64_t timeout_ns);
/* Does the calling thread block SIG_LOOK (sig_block_stop), so that another may send it? */
bool sig_look_blocked(void);
/* Sends SIG_LOOK to thread th, which sig_look_blocked() said blocks it. */
void sig_look(pthread_t th);
/* Returns a pending stop signal without waiting, or 0. */
int sig_poll_stop(void);

#endif
