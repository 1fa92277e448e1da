/* Background loads: spec parsing, and the lifecycle that keeps every load bounded.
 *
 * Processes of one load:
 *   irt ──fork──► supervisor (own process group or session; child subreaper)
 *                   └─fork──► worker process (own process group = the load's group)
 *                               ├─ worker threads (cpu, mem, io, fork, compile)
 *                               └─ worker processes (pipe) / the command (cmd) / short-lived
 *                                  children (fork, compile) and whatever the command spawns
 * The supervisor sleeps until the hard deadline, a SIGTERM (load_stop) or its parent-death
 * signal (irt died), then kills the load's group, kills every descendant that escaped the
 * group (orphans are reparented to it, the subreaper), reaps them all and exits. When irt has
 * reaped the supervisor, nothing of the load is left. A kernel timer SIGKILLs the supervisor
 * shortly after the deadline should it ever hang, and the worker process dies with its parent
 * (PR_SET_PDEATHSIG SIGKILL). The supervisor's own parent-death signal is SIGTERM, not SIGKILL,
 * so that it can still clean up the descendants of a `cmd` load when irt is killed. */
#include "load_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "units.h"
#include "util.h"

#define READY_TIMEOUT_MS 15000            /* workers must run by then */
#define STOP_GRACE_NS (3 * NSEC_PER_SEC)  /* supervisor cleanup before irt SIGKILLs it */
#define BACKSTOP_NS (2 * NSEC_PER_SEC)    /* kernel kills a hung supervisor this after deadline */

/* ---------------------------------------------------------------- small helpers */

void load_sleep_until(int64_t t)
{
	struct timespec ts = {.tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

long load_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static struct timespec ts_of(int64_t ns)
{
	if (ns < 0)
		ns = 0;
	return (struct timespec){.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC};
}

static const char *const policy_names[] = {"other", "batch", "idle", "fifo", "rr", NULL};
static const int policy_values[] = {SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR};

static bool is_rt(int policy)
{
	return policy == LOAD_POL_FIFO || policy == LOAD_POL_RR;
}

/* ---------------------------------------------------------------- keys and parsing */

const struct opt load_common_keys[] = {
	{.name = "nice", .type = OPT_INT, LOAD_KEY(nice), .def = "0", .min = -20, .max = 19,
	 .help = "nice value of every worker"},
	{.name = "policy", .type = OPT_ENUM, LOAD_KEY(policy), .def = "other", .choices = policy_names,
	 .help = "scheduling policy of every worker"},
	{.name = "prio", .type = OPT_INT, LOAD_KEY(prio), .min = 1, .max = 99,
	 .help = "real-time priority with policy=fifo or rr (default 1)"},
	{.name = "cpus", .type = OPT_CPUS, LOAD_KEY(cpus_text), .size = sizeof(((struct load_spec *)0)->cpus_text),
	 .help = "CPUs the load may run on, e.g. 1 or 0-1,3 (default: all)"},
	{.name = "user", .type = OPT_STRING, LOAD_KEY(user), .size = sizeof(((struct load_spec *)0)->user),
	 .printable = true,
	 .help = "run the load as this user, a name or uid (root irt only: supplementary groups dropped, "
		 "then its group and uid set; default: irt's own credentials)"},
	{0},
};

static int ncommon(void)
{
	int n = 0;
	while (load_common_keys[n].name)
		n++;
	return n;
}

static const struct load_type *find_type(const char *name, size_t len)
{
	for (int i = 0; i < load_ntypes; i++)
		if (strlen(load_types[i].name) == len && !strncmp(load_types[i].name, name, len))
			return &load_types[i];
	return NULL;
}

/* The key called name[0..len) for type t, and its index in the `given` bitmap. */
static const struct opt *find_key(const struct load_type *t, const char *name, size_t len,
				       int *idx)
{
	int nc = ncommon();
	for (int i = 0; t->keys[i].name; i++)
		if (strlen(t->keys[i].name) == len && !strncmp(t->keys[i].name, name, len)) {
			*idx = nc + i;
			return &t->keys[i];
		}
	for (int i = 0; i < nc; i++)
		if (strlen(load_common_keys[i].name) == len &&
		    !strncmp(load_common_keys[i].name, name, len)) {
			*idx = i;
			return &load_common_keys[i];
		}
	return NULL;
}

static void key_list(const struct load_type *t, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; t->keys[i].name && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", t->keys[i].name);
	for (int i = 0; load_common_keys[i].name && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", load_common_keys[i].name);
}

static void type_list(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < load_ntypes && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", load_types[i].name);
}

/* What values of k are accepted, for error messages and help. */
static char *key_accepts(const struct opt *k, char *buf, size_t len)
{
	char a[32], b[32];
	size_t n = 0;
	switch (k->type) {
	case OPT_INT:
		snprintf(buf, len, "an integer from %lld to %lld", (long long)k->min, (long long)k->max);
		break;
	case OPT_SIZE:
		snprintf(buf, len, "a size like 64M or 4K, from %s to %s",
			 units_format_size(a, sizeof(a), k->min), units_format_size(b, sizeof(b), k->max));
		break;
	case OPT_DURATION:
		snprintf(buf, len, "a duration like 50ms or 2s, from %s to %s",
			 units_format_duration(a, sizeof(a), k->min),
			 units_format_duration(b, sizeof(b), k->max));
		break;
	case OPT_PERCENT:
		snprintf(buf, len, "a share like 50%% or 0.5, from %s to %s",
			 units_format_percent(a, sizeof(a), k->min),
			 units_format_percent(b, sizeof(b), k->max));
		break;
	case OPT_DECIMAL:
		snprintf(buf, len, "a number like 13 or 2.5, from %g to %g", k->min / 1000.0,
			 k->max / 1000.0);
		break;
	case OPT_ENUM:
		n = snprintf(buf, len, "one of");
		for (int i = 0; k->choices[i] && n < len; i++)
			n += snprintf(buf + n, len - n, "%s %s", i ? "," : "", k->choices[i]);
		break;
	case OPT_FLAG:
		snprintf(buf, len, "0 or 1");
		break;
	case OPT_STRING:
		snprintf(buf, len, "a directory path shorter than %zu characters", k->size);
		break;
	case OPT_CPUS:
		snprintf(buf, len, "a CPU list like 1 or 0-1,3, CPUs below %d", CPU_SETSIZE);
		break;
	case OPT_REST:
		snprintf(buf, len, "a shell command under %zu characters, as the last key: it takes the "
			 "rest of the spec, commas too", k->size);
		break;
	case OPT_LIST:
		abort();   /* no load key is repeatable */
	}
	return buf;
}

/* Parses value into k's field of s. -1 if malformed or out of range: the caller words the
 * message (key_accepts). An empty value is never valid in a spec. */
static int set_key(const struct opt *k, struct load_spec *s, const char *v)
{
	struct err ignored = {0};
	if (!*v || opt_set(k, s, v, k->name, &ignored))
		return -1;
	return k->type == OPT_CPUS ? cpulist_parse(s->cpus_text, &s->cpus) : 0;
}

static void set_defaults(const struct opt *keys, struct load_spec *s)
{
	for (int i = 0; keys[i].name; i++)
		if (keys[i].def && set_key(&keys[i], s, keys[i].def))
			abort();   /* a default that does not parse is a bug in the key table */
}

/* user=: who the load runs as. Only root can become another user; what a load is given
 * beyond an ordinary user's rights (a real-time policy, a negative nice) would need root's
 * privileges after they are dropped, so those are refused with it. */
static int resolve_user(struct load_spec *s, struct err *e)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(s->user, &end, 10);
	struct passwd *pw = *end || end == s->user || errno ? getpwnam(s->user) : getpwuid((uid_t)n);
	if (!pw)
		return err_set(e, EXIT_USAGE, "load '%s': user=%s: no such user (a name or uid from the "
			       "password database)", s->text, s->user);
	if (geteuid() != 0)
		return err_set(e, EXIT_RUNTIME, "load '%s': user=%s needs root (irt runs a load as another "
			       "user only when it is root; drop user= to run it as yourself)", s->text, s->user);
	if (is_rt(s->policy) || s->nice < 0)
		return err_set(e, EXIT_USAGE, "load '%s': user=%s with %s: the load gives up root's "
			       "privileges, which that needs (drop one of them)", s->text, s->user,
			       is_rt(s->policy) ? "a real-time policy" : "a negative nice");
	s->uid = pw->pw_uid;
	s->gid = pw->pw_gid;
	return 0;
}

/* In the load's worker process, before any load task exists: becomes the user= user. */
static int drop_to_user(const struct load_spec *s, char *why, size_t len)
{
	if (setgroups(0, NULL) || setgid(s->gid) || setuid(s->uid)) {
		snprintf(why, len, "cannot become user=%s: %s", s->user, strerror(errno));
		return -1;
	}
	if (getuid() != s->uid || geteuid() != s->uid || getgid() != s->gid || (s->uid != 0 && setuid(0) == 0)) {
		snprintf(why, len, "user=%s: credentials did not change as asked", s->user);
		return -1;
	}
	struct passwd *pw = getpwuid(s->uid);
	if (pw) {   /* what a command run as that user expects; the rest of irt's environment stays */
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	return 0;
}

int load_parse(const char *spec, struct load_spec *out, struct err *e)
{
	char accepted[512], what[160];
	memset(out, 0, sizeof(*out));
	if (strlen(spec) >= LOAD_TEXTLEN)
		return err_set(e, EXIT_USAGE, "load '%.40s...': spec too long (at most %d characters)",
			       spec, LOAD_TEXTLEN - 1);
	strcpy(out->text, spec);
	const char *colon = strchr(spec, ':');
	size_t tlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct load_type *t = find_type(spec, tlen);
	if (!t) {
		type_list(accepted, sizeof(accepted));
		return err_set(e, EXIT_USAGE, "load '%s': unknown type '%.*s' (one of %s)", spec,
			       (int)tlen, spec, accepted);
	}
	out->type = t;
	snprintf(out->name, sizeof(out->name), "%s", t->name);
	set_defaults(load_common_keys, out);
	set_defaults(t->keys, out);

	const char *p = colon ? colon + 1 : NULL;
	if (p && !*p) {
		key_list(t, accepted, sizeof(accepted));
		return err_set(e, EXIT_USAGE, "load '%s': nothing after ':' (key=value,... with keys %s)",
			       spec, accepted);
	}
	bool first = true;
	while (p && *p) {
		size_t klen = strcspn(p, "=,");
		int idx;
		const struct opt *k;
		const char *v;
		if (first && klen && strspn(p, "0123456789") == klen && p[klen] != '=') {
			/* TYPE:N, first: the type's natural count */
			if (!t->count_key) {
				key_list(t, accepted, sizeof(accepted));
				return err_set(e, EXIT_USAGE, "load '%s': %s has no count to give as %s:N (keys %s)", spec,
				               t->name, t->name, accepted);
			}
			k = find_key(t, t->count_key, strlen(t->count_key), &idx);
			v = p;
		} else {
			k = find_key(t, p, klen, &idx);
			v = p + klen + 1;
		}
		first = false;
		if (!k) {
			key_list(t, accepted, sizeof(accepted));
			if (klen && strspn(p, "0123456789") == klen && t->count_key)
				return err_set(e, EXIT_USAGE, "load '%s': a bare count '%.*s' must come first (%s:%.*s, "
				               "or %s=%.*s)", spec, (int)klen, p, t->name, (int)klen, p, t->count_key,
				               (int)klen, p);
			return err_set(e, EXIT_USAGE, "load '%s': unknown key '%.*s' for %s (%s)", spec,
				       (int)klen, p, t->name, accepted);
		}
		if (v == p + klen + 1 && p[klen] != '=')
			return err_set(e, EXIT_USAGE, "load '%s': '%.*s' lacks a value (%.*s=%s)", spec,
				       (int)klen, p, (int)klen, p, key_accepts(k, accepted, sizeof(accepted)));
		if (out->given & (1ull << idx))
			return err_set(e, EXIT_USAGE, "load '%s': '%s' given twice (give each key once)",
				       spec, k->name);
		out->given |= 1ull << idx;
		size_t vlen = k->type == OPT_REST ? strlen(v) : strcspn(v, ",");
		char value[LOAD_TEXTLEN];
		memcpy(value, v, vlen);
		value[vlen] = 0;
		if (set_key(k, out, value))
			return err_set(e, EXIT_USAGE, "load '%s': %s='%s' is not valid (%s)", spec, k->name,
				       value, key_accepts(k, accepted, sizeof(accepted)));
		p = v + vlen;
		if (*p == ',') {
			p++;
			if (!*p)
				return err_set(e, EXIT_USAGE, "load '%s': trailing ',' (key=value,...)", spec);
		}
	}

	/* common cross-key rules */
	int prio_idx;
	find_key(t, "prio", 4, &prio_idx);
	if ((out->given & (1ull << prio_idx)) && !is_rt(out->policy))
		return err_set(e, EXIT_USAGE, "load '%s': prio= applies only with policy=fifo or rr "
			       "(add policy=fifo, or drop prio=)", spec);
	if (is_rt(out->policy) && !out->prio)
		out->prio = 1;
	if (out->user[0] && resolve_user(out, e))
		return -1;
	if (t->finish && t->finish(out, e)) {
		snprintf(what, sizeof(what), "load '%s'", spec);
		err_prefix(e, "%s", what);
		return -1;
	}
	return 0;
}

bool load_key_given(const struct load_spec *s, const char *name)
{
	int idx;
	return find_key(s->type, name, strlen(name), &idx) && (s->given & (1ull << idx));
}

void load_set_session(struct load_spec *s, bool own_session)
{
	s->session = own_session;
}

int load_set_cgroup(struct load_spec *s, const char *procs_path, struct err *e)
{
	if (strlen(procs_path) >= sizeof(s->cgroup_procs))
		return err_set(e, EXIT_USAGE, "load '%s': cgroup path too long (at most %d characters)",
			       s->text, LOAD_PATHLEN - 1);
	strcpy(s->cgroup_procs, procs_path);
	return 0;
}

void load_settings(const struct load_spec *s, void (*fn)(void *ctx, const char *key, const char *value),
		   void *ctx)
{
	char buf[LOAD_TEXTLEN];
	fn(ctx, "type", s->type->name);
	for (int i = 0; s->type->keys[i].name; i++) {
		const struct opt *k = &s->type->keys[i];
		if (k->type == OPT_DECIMAL && !*(const int64_t *)((const char *)s + k->offset))
			continue;   /* load-avg not used */
		fn(ctx, k->name, opt_format(k, s, buf, sizeof(buf)));
	}
	for (int i = 0; load_common_keys[i].name; i++) {
		const struct opt *k = &load_common_keys[i];
		if ((k->type == OPT_CPUS && !s->cpus_text[0]) || (!strcmp(k->name, "prio") && !is_rt(s->policy)) ||
		    (k->offset == offsetof(struct load_spec, user) && !s->user[0]))
			continue;
		fn(ctx, k->name, opt_format(k, s, buf, sizeof(buf)));
	}
	if (s->session)
		fn(ctx, "session", "1");
	if (s->cgroup_procs[0])
		fn(ctx, "cgroup", s->cgroup_procs);
}

const char *load_type_name(const struct load_spec *s)
{
	return s->type->name;
}

const char *load_ops_unit(const struct load_spec *s)
{
	return s->type->ops_unit;
}

const char *load_bytes_unit(const struct load_spec *s)
{
	return s->type->bytes_unit;
}

static void print_keys(FILE *f, const struct opt *keys)
{
	char acc[256];
	for (int i = 0; keys[i].name; i++)
		fprintf(f, "    %-9s %s%s%s; %s\n", keys[i].name, keys[i].help,
			keys[i].def ? ", default " : "", keys[i].def ? keys[i].def : "",
			key_accepts(&keys[i], acc, sizeof(acc)));
}

void load_print_help(FILE *f)
{
	fprintf(f, "Loads: --load TYPE[:key=value,...] or TYPE:N[,key=value,...], e.g. cpu:threads=2,nice=5 (docs/loads.md)\n");
	fprintf(f, "A bare count first is the type's natural count: cpu:2,nice=5 is cpu:threads=2,nice=5.\n");
	for (int i = 0; i < load_ntypes; i++) {
		const struct load_type *t = &load_types[i];
		fprintf(f, "  %s: %s; counts %s%s%s\n", t->name, t->summary, t->ops_unit,
			t->bytes_unit ? " and bytes " : "", t->bytes_unit ? t->bytes_unit : "");
		if (t->count_key)
			fprintf(f, "    %s:N is %s:%s=N\n", t->name, t->name, t->count_key);
		else
			fprintf(f, "    (no %s:N: the type has no count)\n", t->name);
		print_keys(f, t->keys);
	}
	fprintf(f, "  keys of every type:\n");
	print_keys(f, load_common_keys);
}

/* ---------------------------------------------------------------- inside the load */

int load_fail(struct load_ctx *c, const char *fmt, ...)
{
	int32_t zero = 0;
	if (atomic_compare_exchange_strong(&c->shm->failed, &zero, 1)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->shm->error, sizeof(c->shm->error), fmt, ap);
		va_end(ap);
		if (!c->shm->fail_code)
			c->shm->fail_code = EXIT_RUNTIME;
		atomic_store(&c->shm->failed, 2);
	}
	if (c->wpid > 0)
		kill(c->wpid, SIGUSR1);   /* wakes the worker process's main thread */
	return -1;
}

int load_apply_sched(const struct load_spec *s, char *why, size_t len)
{
	struct sched_param sp = {.sched_priority = is_rt(s->policy) ? (int)s->prio : 0};
	if (sched_setscheduler(0, policy_values[s->policy], &sp)) {
		snprintf(why, len, "cannot set policy=%s%s: %s", policy_names[s->policy],
			 errno == EPERM ? " (needs root or CAP_SYS_NICE, or RT runtime in this cgroup)" : "",
			 strerror(errno));
		return -1;
	}
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), (int)s->nice)) {
		int err = errno;
		snprintf(why, len, "cannot set nice=%lld%s: %s", (long long)s->nice,
			 err == EACCES || err == EPERM ? " (lowering nice needs root or CAP_SYS_NICE, or a raised RLIMIT_NICE)" : "",
			 strerror(err));
		return -1;
	}
	return 0;
}

static int alloc_slot(struct load_ctx *c, const char *role)
{
	int n = atomic_load(&c->shm->ntasks);
	if (n >= LOAD_MAX_TASKS)
		return load_fail(c, "more than %d workers", LOAD_MAX_TASKS);
	struct load_slot *sl = &c->shm->slot[n];
	snprintf(sl->role, sizeof(sl->role), "%s", role);
	atomic_store(&sl->state, SLOT_STARTING);
	atomic_store(&c->shm->ntasks, n + 1);
	return n;
}

int load_add_slot(struct load_ctx *c, const char *role, pid_t pid)
{
	int n = alloc_slot(c, role);
	if (n >= 0) {
		c->shm->slot[n].pid = pid;
		c->shm->slot[n].tid = pid;
		atomic_store(&c->shm->slot[n].state, SLOT_RUNNING);
	}
	return n;
}

/* Common start of every worker: identify, set policy, announce. */
static int worker_begin(struct load_ctx *c, int slot)
{
	char why[200], name[16];
	struct load_slot *sl = &c->shm->slot[slot];
	sl->pid = getpid();
	sl->tid = gettid();
	snprintf(name, sizeof(name), "irt:%s", sl->role);
	prctl(PR_SET_NAME, name);
	if (load_apply_sched(c->s, why, sizeof(why))) {
		load_fail(c, "%s", why);
		atomic_store(&sl->state, SLOT_FAILED);
		return -1;
	}
	atomic_store(&sl->state, SLOT_RUNNING);
	return 0;
}

struct trampoline {
	struct load_ctx *c;
	int slot;
	load_worker_fn fn;
	void *arg;
};

static void *thread_main(void *p)
{
	struct trampoline t = *(struct trampoline *)p;
	free(p);
	if (worker_begin(t.c, t.slot) == 0)
		t.fn(t.c, t.slot, t.arg);
	return NULL;
}

int load_spawn_thread(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg)
{
	int slot = alloc_slot(c, role);
	if (slot < 0)
		return -1;
	struct trampoline *t = malloc(sizeof(*t));
	if (!t)
		return load_fail(c, "out of memory");
	*t = (struct trampoline){c, slot, fn, arg};
	pthread_attr_t attr;
	pthread_t th;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 512 * 1024);
	int rc = pthread_create(&th, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (rc) {
		free(t);
		return load_fail(c, "cannot create worker thread %d: %s", slot, strerror(rc));
	}
	return slot;
}

int load_spawn_process(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg)
{
	int slot = alloc_slot(c, role);
	if (slot < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return load_fail(c, "cannot fork worker %d: %s", slot, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != c->wpid)
			_exit(1);
		close(c->ready_fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (worker_begin(c, slot) == 0)
			fn(c, slot, arg);
		_exit(0);
	}
	c->shm->slot[slot].pid = pid;
	return slot;
}

int load_open_tmpfiles(struct load_ctx *c, int n, int *fds)
{
	char dir[LOAD_PATHLEN + 32], path[LOAD_PATHLEN + 64];
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	snprintf(dir, sizeof(dir), "%s/irt-load-XXXXXX", c->s->dir);
	if (!mkdtemp(dir))
		return load_fail(c, "cannot create a temporary directory in %s: %s", c->s->dir,
				 strerror(errno));
	snprintf(c->shm->tmpdir, sizeof(c->shm->tmpdir), "%s", dir);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		fds[i] = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fds[i] < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
			/* no O_TMPFILE on this file system: a named file, unlinked at once */
			snprintf(path, sizeof(path), "%s/f%d", dir, i);
			fds[i] = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
			if (fds[i] >= 0)
				unlink(path);
		}
		if (fds[i] < 0)
			rc = load_fail(c, "cannot create a file in %s: %s", dir, strerror(errno));
	}
	if (rmdir(dir) && !rc)
		rc = load_fail(c, "cannot remove %s: %s", dir, strerror(errno));
	c->shm->tmpdir[0] = 0;
	return rc;
}

static int wait_started(struct load_ctx *c)
{
	int64_t until = mono_ns() + 10 * NSEC_PER_SEC;
	for (;;) {
		int n = atomic_load(&c->shm->ntasks), running = 0;
		for (int i = 0; i < n; i++) {
			int st = atomic_load(&c->shm->slot[i].state);
			if (st == SLOT_FAILED)
				return -1;
			running += st == SLOT_RUNNING;
		}
		if (running == n)
			return 0;
		if (mono_ns() > until)
			return load_fail(c, "only %d of %d workers started within 10 s", running, n);
		load_sleep_until(mono_ns() + NSEC_PER_MSEC);
	}
}

/* A worker process exited although the load was not told to stop: that is a failure. */
static void check_worker_processes(struct load_ctx *c)
{
	int n = atomic_load(&c->shm->ntasks), st;
	for (int i = 0; i < n; i++) {
		pid_t pid = c->shm->slot[i].pid;
		if (pid == c->wpid || pid <= 0)
			continue;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			if (WIFSIGNALED(st))
				load_fail(c, "%s worker (pid %d) was killed by signal %d", c->shm->slot[i].role,
					  (int)pid, WTERMSIG(st));
			else
				load_fail(c, "%s worker (pid %d) exited with status %d", c->shm->slot[i].role,
					  (int)pid, WEXITSTATUS(st));
			_exit(1);
		}
	}
}

static void signal_ready(int fd, char what)
{
	while (write(fd, &what, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

/* The worker process: the load's process group. */
static _Noreturn void worker_main(struct load_ctx *c, pid_t supervisor, const sigset_t *waitset)
{
	struct sched_param sp = {0};
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != supervisor)
		_exit(1);
	setpgid(0, 0);
	c->wpid = getpid();
	atomic_store(&c->shm->wpid, c->wpid);
	prctl(PR_SET_NAME, "irt-load");
	if (!is_rt(c->s->policy))   /* else keep the supervisor's FIFO 99: RT workers must not */
		sched_setscheduler(0, SCHED_OTHER, &sp);   /* starve this thread (ready, cmd restarts) */
	signal(SIGPIPE, SIG_IGN);                  /* a peer gone shows as EPIPE, counted */
	if (c->s->cpus_text[0] && sched_setaffinity(0, sizeof(c->s->cpus), &c->s->cpus)) {
		load_fail(c, "cannot run on cpus=%s: %s", c->s->cpus_text, strerror(errno));
		signal_ready(c->ready_fd, 'F');
		_exit(1);
	}
	if (c->s->user[0]) {
		char why[200];
		if (drop_to_user(c->s, why, sizeof(why))) {
			load_fail(c, "%s", why);
			signal_ready(c->ready_fd, 'F');
			_exit(1);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a change of credentials cleared it */
		if (getppid() != supervisor)
			_exit(1);
	}
	if (c->s->type->start(c) || wait_started(c)) {
		signal_ready(c->ready_fd, 'F');
		_exit(1);
	}
	int64_t now = mono_ns(), next = INT64_MAX;
	atomic_store(&c->shm->start_ns, now);
	if (c->s->type->tick)
		next = c->s->type->tick(c, now, false);
	signal_ready(c->ready_fd, 'R');
	for (;;) {
		siginfo_t si;
		int sig;
		if (next == INT64_MAX) {
			sig = sigwaitinfo(waitset, &si);
		} else {
			struct timespec ts = ts_of(next - mono_ns());
			sig = sigtimedwait(waitset, &si, &ts);
		}
		if (sig == SIGCHLD) {
			if (c->s->type->tick)
				next = c->s->type->tick(c, mono_ns(), true);
			else
				check_worker_processes(c);
		} else if (sig < 0 && errno == EAGAIN && c->s->type->tick) {
			next = c->s->type->tick(c, mono_ns(), false);
		}
		if (atomic_load(&c->shm->failed))
			_exit(1);   /* the supervisor sees it and ends the load */
		if (sig > 0 && sig != SIGCHLD && sig != SIGUSR1)
			_exit(0);   /* told to end; the supervisor kills the group anyway */
	}
}

static void kill_children(void)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

/* Ends the load: kill the group and every descendant, reap all, exit. */
static _Noreturn void supervisor_end(struct load_shm *sh, int reason, const sigset_t *waitset)
{
	int32_t none = LOAD_END_NONE;
	int wst = 0;
	bool wdone = false;
	if (atomic_compare_exchange_strong(&sh->end_reason, &none, reason))
		atomic_store(&sh->end_ns, mono_ns());
	pid_t w = atomic_exchange(&sh->wpid, 0), wpid = w;
	int64_t until = mono_ns() + 2 * NSEC_PER_SEC;
	for (;;) {
		if (w > 0) {
			kill(-w, SIGKILL);
			kill(w, SIGKILL);
		}
		kill_children();   /* anything that left the group: orphans come to us, the subreaper */
		pid_t pid;
		int st;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == wpid) {
				wst = st;
				wdone = true;
				w = 0;   /* reaped: its pid may be recycled; survivors are our children */
			}
		if (pid < 0 || mono_ns() > until)
			break;
		struct timespec ts = ts_of(10 * NSEC_PER_MSEC);
		sigtimedwait(waitset, NULL, &ts);
	}
	if (wdone && !atomic_load(&sh->failed) && reason == LOAD_END_FAILED) {
		int32_t zero = 0;
		if (atomic_compare_exchange_strong(&sh->failed, &zero, 1)) {
			if (WIFSIGNALED(wst))
				snprintf(sh->error, sizeof(sh->error), "load process was killed by signal %d",
					 WTERMSIG(wst));
			else
				snprintf(sh->error, sizeof(sh->error), "load process exited with status %d",
					 WEXITSTATUS(wst));
			sh->fail_code = EXIT_RUNTIME;
			atomic_store(&sh->failed, 2);
		}
	}
	_exit(atomic_load(&sh->failed) ? 1 : 0);
}

static void supervisor_fail(struct load_shm *sh, int ready_fd, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void supervisor_fail(struct load_shm *sh, int ready_fd, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sh->error, sizeof(sh->error), fmt, ap);
	va_end(ap);
	sh->fail_code = code;
	atomic_store(&sh->failed, 2);
	signal_ready(ready_fd, 'F');
	_exit(1);
}

static void close_fds_except(int keep)
{
	if (keep > 3)
		close_range(3u, (unsigned)keep - 1, 0);
	close_range((unsigned)keep + 1, ~0u, 0);
}

/* The supervisor: child of irt. */
static _Noreturn void supervisor_main(struct load_shm *sh, const struct load_spec *s, int ready_fd,
				      pid_t irt, int64_t deadline)
{
	sigset_t waitset;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);   /* irt's handlers must not run here */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGCHLD);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, SIGHUP);
	sigaddset(&waitset, SIGQUIT);
	sigaddset(&waitset, SIGUSR1);   /* a worker failed (load_fail) */
	sigprocmask(SIG_SETMASK, &waitset, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != irt)
		_exit(1);   /* irt already gone: start nothing */
	prctl(PR_SET_NAME, "irt-load-sup");
	close_fds_except(ready_fd);
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != 0) {
		dup2(null, 0);
		close(null);
	}
	if (s->session ? setsid() < 0 : setpgid(0, 0) < 0)
		supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot start a new %s: %s",
				s->session ? "session" : "process group", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	/* backstop: the kernel kills a supervisor that somehow did not end at the deadline */
	timer_t backstop;
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGKILL};
	if (timer_create(CLOCK_MONOTONIC, &ev, &backstop) == 0) {
		int64_t at = deadline < INT64_MAX - BACKSTOP_NS ? deadline + BACKSTOP_NS : INT64_MAX;
		struct itimerspec its = {.it_value = ts_of(at)};
		timer_settime(backstop, TIMER_ABSTIME, &its, NULL);
	}
	if (s->cgroup_procs[0]) {
		char pid[24];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		int fd = open(s->cgroup_procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, pid, (size_t)n) != n)
			supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot join cgroup %s: %s",
					s->cgroup_procs, strerror(errno));
		close(fd);
	}
	/* Loads are ordinary processes, whatever irt's own thread was set to: default policy,
	 * nice 0 (where permitted), the kernel's default 50 us timer slack (irt uses 1 ns). */
	struct sched_param sp = {0};
	sched_setscheduler(0, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, 0, 0);
	prctl(PR_SET_TIMERSLACK, 50000UL);
	if (is_rt(s->policy)) {
		/* real-time workers must not starve the one process that bounds them */
		sp.sched_priority = sched_get_priority_max(SCHED_FIFO);
		sched_setscheduler(0, SCHED_FIFO, &sp);
	}

	struct load_ctx c = {.s = s, .shm = sh, .ready_fd = ready_fd};
	pid_t w = fork();
	if (w < 0)
		supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot fork: %s", strerror(errno));
	if (w == 0)
		worker_main(&c, getppid(), &waitset);
	atomic_store(&sh->wpid, w);
	close(ready_fd);

	for (;;) {
		int64_t now = mono_ns();
		if (now >= deadline)
			supervisor_end(sh, LOAD_END_DEADLINE, &waitset);
		struct timespec ts = ts_of(deadline - now);
		siginfo_t si;
		int sig = sigtimedwait(&waitset, &si, &ts);
		if (sig == SIGCHLD) {
			siginfo_t wi = {0};
			/* WNOWAIT: a zombie keeps its pid, so killing its group stays safe */
			if (waitid(P_PID, (id_t)w, &wi, WEXITED | WNOHANG | WNOWAIT) == 0 && wi.si_pid == w)
				supervisor_end(sh, atomic_load(&sh->stop_requested) ? LOAD_END_STOPPED
						   : LOAD_END_FAILED, &waitset);
		} else if (sig > 0) {
			supervisor_end(sh, LOAD_END_STOPPED, &waitset);
		}
	}
}

/* ---------------------------------------------------------------- irt's side */

/* Running loads, for load_stop_all_on_signal: written only outside signal handlers, in an
 * order (shm before pid; pid cleared before the supervisor is reaped) that keeps every pid
 * the handler can see alive or a zombie, so it never signals a recycled pid. */
static struct {
	struct load_shm *volatile shm;
	volatile sig_atomic_t pid;
} registry[LOAD_MAX_RUNNING];

void load_stop_all_on_signal(void)
{
	int saved = errno;
	for (int i = 0; i < LOAD_MAX_RUNNING; i++) {
		pid_t pid = registry[i].pid;
		struct load_shm *sh = registry[i].shm;
		if (pid <= 0 || !sh)
			continue;
		pid_t w = atomic_load(&sh->wpid);
		atomic_store(&sh->stop_requested, 1);   /* the workers' death is no failure */
		kill(pid, SIGTERM);
		if (w > 0)
			kill(-w, SIGKILL);
		if (sh->tmpdir[0])
			rmdir(sh->tmpdir);
	}
	errno = saved;
}

static void read_autogroup(pid_t pid, char *buf, size_t len)
{
	char path[64];
	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* Reaps the supervisor once it has exited, or waits for that until until_ns. 1 = reaped. */
static int reap(struct load *l, int64_t until)
{
	for (;;) {
		if (l->reaped)
			return 1;
		siginfo_t si = {0};
		int rc = waitid(P_PID, (id_t)l->pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (rc == 0 && si.si_pid == l->pid) {
			registry[l->reg].pid = 0;   /* before reaping: the pid must not be recycled under it */
			while (waitpid(l->pid, &l->wstatus, 0) < 0 && errno == EINTR)
				;
			l->reaped = true;
			return 1;
		}
		if (rc < 0 && errno == ECHILD) {
			registry[l->reg].pid = 0;   /* reaped by someone else (a waitpid(-1) in irt?) */
			l->wstatus = 0;
			l->reaped = true;
			return 1;
		}
		int64_t now = mono_ns();
		if (now >= until)
			return 0;
		int64_t wait_ms = (until - now) / NSEC_PER_MSEC + 1;
		if (l->pidfd >= 0) {
			struct pollfd pfd = {.fd = l->pidfd, .events = POLLIN};
			poll(&pfd, 1, wait_ms > 100 ? 100 : (int)wait_ms);
		} else {
			load_sleep_until(now + (wait_ms > 2 ? 2 : wait_ms) * NSEC_PER_MSEC);
		}
	}
}

static void sum_counters(const struct load_shm *sh, struct load_counters *c)
{
	int n = atomic_load(&sh->ntasks);
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < n && i < LOAD_MAX_TASKS; i++) {
		c->ops += atomic_load_explicit(&sh->slot[i].ops, memory_order_relaxed);
		c->bytes += atomic_load_explicit(&sh->slot[i].bytes, memory_order_relaxed);
	}
	c->errors = atomic_load_explicit(&sh->errors, memory_order_relaxed);
}

int load_start(struct load *l, const struct load_spec *s, int64_t hard_deadline_ns, struct err *e)
{
	int ready[2];
	memset(l, 0, sizeof(*l));
	l->spec = *s;
	l->pidfd = -1;
	l->reg = -1;
	l->deadline_ns = hard_deadline_ns;
	l->reaped = true;   /* nothing to reap yet */
	if (!s->type)
		return err_set(e, EXIT_USAGE, "load: no type (parse the spec with load_parse first)");
	if (hard_deadline_ns <= mono_ns())
		return err_set(e, EXIT_USAGE, "load '%s': its hard deadline has already passed", s->text);
	if (s->type->check_room && s->type->check_room(s, e)) {
		err_prefix(e, "load '%s'", s->text);
		return -1;
	}
	for (int i = 0; i < LOAD_MAX_RUNNING && l->reg < 0; i++)
		if (!registry[i].shm)
			l->reg = i;
	if (l->reg < 0)
		return err_set(e, EXIT_USAGE, "load '%s': more than %d loads at once", s->text,
			       LOAD_MAX_RUNNING);
	l->shm = mmap(NULL, sizeof(*l->shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->shm == MAP_FAILED) {
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': cannot map shared memory: %s", s->text,
			       strerror(errno));
	}
	if (pipe2(ready, O_CLOEXEC)) {
		munmap(l->shm, sizeof(*l->shm));
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': pipe: %s", s->text, strerror(errno));
	}
	registry[l->reg].shm = l->shm;
	pid_t irt = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int saved = errno;
		close(ready[0]);
		close(ready[1]);
		registry[l->reg].shm = NULL;
		munmap(l->shm, sizeof(*l->shm));
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': cannot fork: %s", s->text, strerror(saved));
	}
	if (pid == 0) {
		close(ready[0]);
		supervisor_main(l->shm, &l->spec, ready[1], irt, hard_deadline_ns);
	}
	close(ready[1]);
	l->pid = pid;
	l->reaped = false;
	registry[l->reg].pid = pid;
	if (!s->session)
		setpgid(pid, pid);   /* at once, so load_stop_all_on_signal can reach the group */
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	char what = 0;
	struct pollfd pfd = {.fd = ready[0], .events = POLLIN};
	int64_t until = mono_ns() + READY_TIMEOUT_MS * NSEC_PER_MSEC;
	while (mono_ns() < until) {
		int rc = poll(&pfd, 1, 100);
		if (rc > 0) {
			if (read(ready[0], &what, 1) != 1)
				what = 'E';   /* closed without a word: the supervisor died */
			break;
		}
		if (rc < 0 && errno != EINTR)
			break;
	}
	close(ready[0]);
	if (what != 'R') {
		if (load_stop(l, e) == 0)   /* no failure recorded: say what we saw */
			err_set(e, EXIT_RUNTIME, "load '%s': %s", s->text,
				what ? "the load process died while starting" : "workers did not start within 15 s");
		return -1;
	}
	l->worker_pid = atomic_load(&l->shm->wpid);
	l->start_ns = atomic_load(&l->shm->start_ns);
	read_autogroup(l->worker_pid, l->autogroup, sizeof(l->autogroup));
	return 0;
}

int load_tasks(const struct load *l, struct load_task *out, int max)
{
	if (!l->shm)
		return 0;
	int n = atomic_load(&l->shm->ntasks), k = 0;
	for (int i = 0; i < n && i < LOAD_MAX_TASKS; i++) {
		const struct load_slot *sl = &l->shm->slot[i];
		if (atomic_load(&sl->state) != SLOT_RUNNING)
			continue;
		if (k < max) {
			out[k].pid = sl->pid;
			out[k].tid = sl->tid;
			memcpy(out[k].role, sl->role, sizeof(out[k].role));
			out[k].role[sizeof(out[k].role) - 1] = 0;
			out[k].ops = atomic_load_explicit(&sl->ops, memory_order_relaxed);
			out[k].bytes = atomic_load_explicit(&sl->bytes, memory_order_relaxed);
		}
		k++;
	}
	return k;
}

void load_sample(const struct load *l, struct load_counters *c)
{
	if (l->shm) {
		sum_counters(l->shm, c);
	} else {
		memset(c, 0, sizeof(*c));
		c->ops = l->result.ops;
		c->bytes = l->result.bytes;
		c->errors = l->result.errors;
	}
	c->t_ns = mono_ns();
}

void load_rate(const struct load_counters *a, const struct load_counters *b, double *ops_per_s,
	       double *bytes_per_s)
{
	double dt = (double)(b->t_ns - a->t_ns) / NSEC_PER_SEC;
	*ops_per_s = dt > 0 ? (double)(b->ops - a->ops) / dt : 0;
	*bytes_per_s = dt > 0 ? (double)(b->bytes - a->bytes) / dt : 0;
}

int load_wait(struct load *l, int64_t until_ns)
{
	if (!l->shm)
		return 1;
	return reap(l, until_ns);
}

int load_stop(struct load *l, struct err *e)
{
	struct load_result *r = &l->result;
	if (!l->shm)
		return r->failure[0] ? err_set(e, EXIT_RUNTIME, "load '%s': %s", l->spec.text, r->failure) : 0;
	struct load_shm *sh = l->shm;
	int64_t stop_ns = mono_ns();
	if (!reap(l, stop_ns)) {
		kill(l->pid, SIGTERM);
		if (!reap(l, mono_ns() + STOP_GRACE_NS)) {
			pid_t w = atomic_load(&sh->wpid);
			if (w > 0)
				kill(-w, SIGKILL);
			kill(l->pid, SIGKILL);
			reap(l, INT64_MAX);
		}
	}
	registry[l->reg].pid = 0;

	struct load_counters c;
	sum_counters(sh, &c);
	memset(r, 0, sizeof(*r));
	r->ops = c.ops;
	r->bytes = c.bytes;
	r->errors = c.errors;
	int64_t start = atomic_load(&sh->start_ns), end = atomic_load(&sh->end_ns);
	if (!end)
		end = stop_ns;
	r->elapsed_ns = start && end > start ? end - start : 0;
	if (r->elapsed_ns > 0) {
		r->ops_per_s = (double)r->ops * NSEC_PER_SEC / (double)r->elapsed_ns;
		r->bytes_per_s = (double)r->bytes * NSEC_PER_SEC / (double)r->elapsed_ns;
	}
	r->end = atomic_load(&sh->end_reason);
	if (atomic_load(&sh->failed) == 2) {
		snprintf(r->failure, sizeof(r->failure), "%s", sh->error);
	} else if (WIFSIGNALED(l->wstatus)) {
		snprintf(r->failure, sizeof(r->failure), "its supervisor was killed by signal %d",
			 WTERMSIG(l->wstatus));
	} else if (WIFEXITED(l->wstatus) && WEXITSTATUS(l->wstatus)) {
		snprintf(r->failure, sizeof(r->failure), "its supervisor exited with status %d",
			 WEXITSTATUS(l->wstatus));
	}
	if (r->failure[0])
		r->end = LOAD_END_FAILED;
	int code = sh->fail_code ? sh->fail_code : EXIT_RUNTIME;
	if (sh->tmpdir[0])
		rmdir(sh->tmpdir);   /* only if killed between creating and removing it */
	registry[l->reg].shm = NULL;
	munmap(sh, sizeof(*sh));
	l->shm = NULL;
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->pidfd = -1;
	if (r->failure[0])
		return err_set(e, code, "load '%s': %s", l->spec.text, r->failure);
	return 0;
}
