#include "linux/signals.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

static void stop_set(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGTERM);
	sigaddset(s, SIGHUP);
	sigaddset(s, SIG_LOOK);
}

void sig_block_stop(void)
{
	sigset_t s;
	stop_set(&s);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

int sig_wait_stop(int64_t timeout_ns)
{
	sigset_t s;
	stop_set(&s);
	struct timespec ts = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
	int sig;
	do
		sig = sigtimedwait(&s, NULL, &ts);
	while (sig < 0 && errno == EINTR);
	return sig > 0 && sig != SIG_LOOK ? sig : 0;
}

bool sig_look_blocked(void)
{
	sigset_t cur;
	return pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIG_LOOK) == 1;
}

void sig_look(pthread_t th)
{
	pthread_kill(th, SIG_LOOK);
}

int sig_poll_stop(void)
{
	return sig_wait_stop(0);
}
