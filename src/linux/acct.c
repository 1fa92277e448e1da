/* Per-thread CPU accounting from /proc/<pid>/task/<tid>/{schedstat,stat,status,sched}:
 * snapshots, enumeration of threads and process groups, and the table of deltas.
 * docs/accounting.md explains each number and its limits. */
#include "linux/acct.h"
#include "linux/acct_priv.h"
#include "units.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* ---- helpers ------------------------------------------------------------------------- */

int64_t acct_tick_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? 1000000000LL / hz : 10000000LL;
}

ssize_t acct_slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	return (ssize_t)got;
}

int64_t acct_parse_u(const char **p)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	int64_t v = 0;
	while (*s >= '0' && *s <= '9') {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	*p = s;
	return v;
}

/* ---- one thread ---------------------------------------------------------------------- */

/* "run delay slices\n": all three must be there; anything after them is ignored. */
static int parse_schedstat(const char *s, struct acct_thread *t)
{
	int64_t run = acct_parse_u(&s), delay = acct_parse_u(&s), slices = acct_parse_u(&s);
	if (run < 0 || delay < 0 || slices < 0)
		return -1;
	t->run_ns = run;
	t->delay_ns = delay;
	t->timeslices = slices;
	return 0;
}

/* /proc/<pid>/task/<tid>/stat: "pid (comm) S f4 f5 ...". comm may hold spaces and ')', so the
 * fields start after the LAST ')'. Fields from 39 (processor) on are absent on old kernels. */
static int parse_stat(const char *s, struct acct_thread *t, int64_t boot_to_mono)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -1;
	char comm[17];
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(comm))
		clen = sizeof(comm) - 1;
	memcpy(comm, open + 1, clen);
	comm[clen] = 0;
	err_escape(t->comm, sizeof(t->comm), comm);   /* no control character for root's terminal */

	int64_t f[53];
	int nf = 3;
	const char *p = close + 2;
	char state = *p;
	if (!isalpha((unsigned char)state))
		return -1;
	p++;
	/* Fields 4..52; signed ones (priority, nice, itrealvalue, exit_signal) may be negative. */
	while (nf < 52) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		bool neg = *p == '-';
		if (neg)
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		int64_t v = 0;  /* saturating: rsslim and addresses can exceed INT64_MAX */
		for (; *p >= '0' && *p <= '9'; p++)
			v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (*p - '0');
		f[++nf] = neg ? -v : v;
	}
	if (nf < 22)  /* up to starttime is in every kernel irt can meet */
		return -1;
	int64_t tick = acct_tick_ns();
	t->state = state;
	t->utime_ns = f[14] * tick;
	t->stime_ns = f[15] * tick;
	t->cutime_ns = f[16] * tick;
	t->cstime_ns = f[17] * tick;
	t->nice = (int)f[19];
	t->start_boot_ns = f[22] * tick;
	t->start_ns = t->start_boot_ns - boot_to_mono;
	t->cpu = nf >= 39 ? (int)f[39] : -1;
	t->rt_priority = nf >= 40 ? (int)f[40] : 0;
	t->policy = nf >= 41 ? (int)f[41] : -1;
	return 0;
}

/* Value of "key:<spaces>N" lines in status / sched files; -1 when absent. */
static int64_t find_key(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		if (!strncmp(line, key, klen)) {
			const char *p = line + klen;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == ':') {
				p++;
				int64_t v = acct_parse_u(&p);
				if (v >= 0)
					return v;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

static bool gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

int acct_snap_thread(pid_t pid, pid_t tid, const char *role, struct acct_thread *out, struct err *e)
{
	char path[512], buf[16384];  /* status grows with the CPU count (Cpus_allowed lists) */
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->tid = tid;
	out->state = '?';
	out->run_ns = out->delay_ns = out->timeslices = -1;
	out->utime_ns = out->stime_ns = out->cutime_ns = out->cstime_ns = -1;
	out->start_ns = out->start_boot_ns = -1;
	out->cpu = out->policy = -1;
	out->vol_switches = out->invol_switches = out->migrations = -1;
	if (role)
		snprintf(out->role, sizeof(out->role), "%s", role);
	int64_t boot_to_mono = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);

	out->read_begin_ns = clock_ns(CLOCK_MONOTONIC);
	int first_errno = 0;
	if (!sysroot_path(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid) &&
	    acct_slurp(path, buf, sizeof(buf)) >= 0) {
		if (parse_schedstat(buf, out) == 0)
			out->have |= ACCT_HAVE_SCHEDSTAT;
	} else {
		first_errno = errno;
	}
	if (!sysroot_path(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid) &&
	    acct_slurp(path, buf, sizeof(buf)) >= 0) {
		if (parse_stat(buf, out, boot_to_mono) == 0)
			out->have |= ACCT_HAVE_STAT;
	} else if (!first_errno) {
		first_errno = errno;
	}
	if (!sysroot_path(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid) &&
	    acct_slurp(path, buf, sizeof(buf)) >= 0) {
		out->vol_switches = find_key(buf, "voluntary_ctxt_switches");
		out->invol_switches = find_key(buf, "nonvoluntary_ctxt_switches");
		if (out->vol_switches >= 0 && out->invol_switches >= 0)
			out->have |= ACCT_HAVE_STATUS;
		else
			out->vol_switches = out->invol_switches = -1;
	}
	if (!sysroot_path(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid) &&
	    acct_slurp(path, buf, sizeof(buf)) >= 0) {
		out->migrations = find_key(buf, "se.nr_migrations");
		if (out->migrations >= 0)
			out->have |= ACCT_HAVE_SCHED;
	}
	out->read_end_ns = clock_ns(CLOCK_MONOTONIC);

	if (!(out->have & (ACCT_HAVE_SCHEDSTAT | ACCT_HAVE_STAT))) {
		int err = first_errno ? first_errno : EINVAL;
		if (gone(err))
			err_set(e, EXIT_RUNTIME, "acct: thread %d of process %d: not found (it exited)",
				tid, pid);
		else
			err_set(e, EXIT_RUNTIME,
				"acct: thread %d of process %d: schedstat and stat unreadable: %s "
				"(is /proc mounted?)", tid, pid,
				err == EINVAL ? "unexpected format" : strerror(err));
		errno = err;  /* callers tell an exited thread by it */
		return -1;
	}
	errno = 0;
	return 0;
}

int acct_open_schedstat(pid_t pid, pid_t tid)
{
	char path[512];
	bool ok = tid ? !sysroot_path(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid)
		      : !sysroot_path(path, sizeof(path), "/proc/thread-self/schedstat");
	if (!ok) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

int64_t acct_run_delay(int fd)
{
	char buf[80];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p = buf;
	if (acct_parse_u(&p) < 0)
		return -1;
	return acct_parse_u(&p);
}

void acct_split_lateness(int64_t lateness, int64_t prev_late, int64_t delay_before, int64_t delay_after,
			 int64_t *backlog, int64_t *runq, int64_t *rest)
{
	int64_t b = prev_late <= 0 || lateness <= 0 ? 0 : prev_late < lateness ? prev_late : lateness;
	/* the run_delay delta is counted from after the previous job: it cannot overlap the backlog */
	int64_t left = lateness > b ? lateness - b : 0, q = 0;
	if (delay_before >= 0 && delay_after > delay_before)
		q = delay_after - delay_before < left ? delay_after - delay_before : left;
	*backlog = b;
	*runq = q;
	*rest = left - q;
}

/* ---- sets ------------------------------------------------------------------------------ */

void acct_snap_init(struct acct_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->begin_ns = s->end_ns = -1;
}

void acct_snap_free(struct acct_snap *s)
{
	free(s->t);
	acct_snap_init(s);
}

static struct acct_thread *snap_slot(struct acct_snap *s, struct err *e)
{
	ARRAY_GROW(s->t, s->n + 1, s->cap);
	return &s->t[s->n];
}

static void snap_extend(struct acct_snap *s, const struct acct_thread *t)
{
	if (s->begin_ns < 0 || t->read_begin_ns < s->begin_ns)
		s->begin_ns = t->read_begin_ns;
	if (t->read_end_ns > s->end_ns)
		s->end_ns = t->read_end_ns;
}

void acct_snap_span(struct acct_snap *s, int64_t begin, int64_t end)
{
	snap_extend(s, &(struct acct_thread){.read_begin_ns = begin, .read_end_ns = end});
}

int acct_snap_append(struct acct_snap *s, const struct acct_thread *t, struct err *e)
{
	struct acct_thread *slot = snap_slot(s, e);
	if (!slot)
		return -1;
	*slot = *t;
	snap_extend(s, slot);
	s->n++;
	return 0;
}

/* Snapshots one thread into s. Returns 0, 1 when the thread had exited (not an error for
 * enumerations), or -1 with e set. */
static int snap_one(struct acct_snap *s, pid_t pid, pid_t tid, const char *role, struct err *e)
{
	struct acct_thread *t = snap_slot(s, e);
	if (!t)
		return -1;
	struct err local = {0};
	if (acct_snap_thread(pid, tid, role, t, &local) < 0) {
		bool vanished = gone(errno);
		if (e && !e->code)
			*e = local;
		return vanished ? 1 : -1;
	}
	snap_extend(s, t);
	s->n++;
	return 0;
}

int acct_snap_add_thread(struct acct_snap *s, pid_t pid, pid_t tid, const char *role, struct err *e)
{
	return snap_one(s, pid, tid, role, e) ? -1 : 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Numeric entries of a /proc directory, ascending. */
static int list_numeric(const char *dir, pid_t **out, int *n)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || v <= 0)
			continue;
		ARRAY_GROW(*out, *n + 1, cap);
		(*out)[(*n)++] = (pid_t)v;
	}
	closedir(d);
	if (*n)
		qsort(*out, (size_t)*n, sizeof(**out), cmp_pid);
	return 0;
}

int acct_list_threads(pid_t pid, pid_t **tids, int *n, struct err *e)
{
	char path[512];
	if (sysroot_path(path, sizeof(path), "/proc/%d/task", pid))
		return err_set(e, EXIT_RUNTIME, "acct: $IRT_SYSROOT too long");
	if (list_numeric(path, tids, n) < 0) {
		if (gone(errno))
			return err_set(e, EXIT_RUNTIME, "acct: process %d: not found (it exited)", pid);
		return err_set(e, EXIT_RUNTIME, "acct: %s: %s (is /proc mounted?)", path, strerror(errno));
	}
	return 0;
}

int acct_list_pgrp(pid_t pgrp, pid_t **pids, int *n, struct err *e)
{
	char path[512], buf[1024];
	pid_t *all;
	int nall;
	*pids = NULL;
	*n = 0;
	if (sysroot_path(path, sizeof(path), "/proc"))
		return err_set(e, EXIT_RUNTIME, "acct: $IRT_SYSROOT too long");
	if (list_numeric(path, &all, &nall) < 0)
		return err_set(e, EXIT_RUNTIME, "acct: %s: %s (is /proc mounted?)", path, strerror(errno));
	for (int i = 0; i < nall; i++) {
		if (sysroot_path(path, sizeof(path), "/proc/%d/stat", all[i]) ||
		    acct_slurp(path, buf, sizeof(buf)) < 0)
			continue;  /* exited meanwhile */
		const char *p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || !p[2])
			continue;
		p += 3;  /* past ") S" */
		int64_t ppid = acct_parse_u(&p), pg = acct_parse_u(&p);
		if (ppid < 0 || pg != pgrp)
			continue;
		all[(*n)++] = all[i];  /* compacts in place: *n <= i */
	}
	if (*n == 0) {
		free(all);
		return 0;
	}
	*pids = all;
	return 0;
}

/* 0, 1 when the process had exited, -1 on error. */
static int add_process(struct acct_snap *s, pid_t pid, const char *role, struct err *e)
{
	char path[512];
	pid_t *tids;
	int n;
	if (sysroot_path(path, sizeof(path), "/proc/%d/task", pid))
		return err_set(e, EXIT_RUNTIME, "acct: $IRT_SYSROOT too long");
	if (list_numeric(path, &tids, &n) < 0) {
		if (gone(errno))
			return 1;
		return err_set(e, EXIT_RUNTIME, "acct: %s: %s (is /proc mounted?)", path, strerror(errno));
	}
	int rc = 0;
	for (int i = 0; i < n && rc >= 0; i++) {
		struct err local = {0};
		if (snap_one(s, pid, tids[i], role, &local) < 0)
			rc = err_set(e, local.code, "%s", local.msg);
	}
	free(tids);
	return rc;
}

int acct_snap_add_process(struct acct_snap *s, pid_t pid, const char *role, struct err *e)
{
	int rc = add_process(s, pid, role, e);
	if (rc == 1)
		return err_set(e, EXIT_RUNTIME, "acct: process %d: not found (it exited)", pid);
	return rc;
}

int acct_snap_add_pids(struct acct_snap *s, const pid_t *pids, int n, const char *role, struct err *e)
{
	for (int i = 0; i < n; i++)
		if (add_process(s, pids[i], role, e) < 0)
			return -1;
	return 0;
}

int acct_snap_add_pgrp(struct acct_snap *s, pid_t pgrp, const char *role, struct err *e)
{
	pid_t *pids;
	int n;
	if (acct_list_pgrp(pgrp, &pids, &n, e) < 0)
		return -1;
	int rc = acct_snap_add_pids(s, pids, n, role, e);
	free(pids);
	return rc;
}

/* ---- table ----------------------------------------------------------------------------- */

static int64_t nonneg_delta(int64_t a, int64_t b)
{
	if (a < 0 || b < 0)
		return -1;
	return b > a ? b - a : 0;
}

static bool same_thread(const struct acct_thread *x, const struct acct_thread *y)
{
	if (x->pid != y->pid || x->tid != y->tid)
		return false;
	/* A recycled tid has another start time. */
	return x->start_boot_ns < 0 || y->start_boot_ns < 0 || x->start_boot_ns == y->start_boot_ns;
}

static const struct acct_thread *find_in(const struct acct_snap *s, const struct acct_thread *t)
{
	for (int i = 0; i < s->n; i++)
		if (same_thread(&s->t[i], t))
			return &s->t[i];
	return NULL;
}

/* Clamps used and waited so that used + waited <= wall; what is removed goes to carry. */
static void clamp_row(struct acct_row *r)
{
	if (r->used_ns > r->wall_ns) {
		r->carry_ns += r->used_ns - r->wall_ns;
		r->used_ns = r->wall_ns;
	}
	if (r->waited_ns > r->wall_ns - r->used_ns) {
		r->carry_ns += r->waited_ns - (r->wall_ns - r->used_ns);
		r->waited_ns = r->wall_ns - r->used_ns;
	}
}

/* Fills the row of thread b (and a, if it was in the first snapshot; else a == NULL) for the
 * window [begin, end]. Every read lies inside it, so a thread seen at both edges covers the
 * whole window, up to the few ms between the window's edge and its own read (which are not
 * counted); its wall is the window's, the header's. */
static void fill_row(struct acct_row *r, const struct acct_thread *a, const struct acct_thread *b,
		     int64_t begin, int64_t end)
{
	const struct acct_thread *last = b ? b : a;
	memset(r, 0, sizeof(*r));
	r->kind = ACCT_ROW_THREAD;
	r->pid = last->pid;
	r->tid = last->tid;
	memcpy(r->name, last->comm, sizeof(r->name));
	memcpy(r->role, (a && a->role[0]) ? a->role : last->role, sizeof(r->role));
	r->cpu = last->cpu;
	r->policy = last->policy;
	r->nice = last->nice;
	r->timeslices = r->vol_switches = r->invol_switches = r->migrations = -1;
	r->utime_ns = r->stime_ns = -1;
	r->waited_ns = -1;
	if (!b) {  /* exited: its counters died with it, so what it did in the window is unknown */
		r->exited = true;
		r->used_ns = -1;
		return;
	}
	static const struct acct_thread zero = {
		.run_ns = 0, .delay_ns = 0, .timeslices = 0, .utime_ns = 0, .stime_ns = 0,
		.vol_switches = 0, .invol_switches = 0, .migrations = 0,
		.have = ACCT_HAVE_SCHEDSTAT | ACCT_HAVE_STAT | ACCT_HAVE_STATUS | ACCT_HAVE_SCHED,
	};
	int64_t from = begin;
	if (!a) {
		r->started = true;
		from = b->start_ns > begin ? b->start_ns : begin;
		a = &zero;
	}
	r->wall_ns = end > from ? end - from : 0;
	unsigned both = a->have & b->have;
	if (both & ACCT_HAVE_SCHEDSTAT) {
		r->used_ns = nonneg_delta(a->run_ns, b->run_ns);
		r->waited_ns = nonneg_delta(a->delay_ns, b->delay_ns);
		r->timeslices = nonneg_delta(a->timeslices, b->timeslices);
	}
	if (both & ACCT_HAVE_STAT) {
		r->utime_ns = nonneg_delta(a->utime_ns, b->utime_ns);
		r->stime_ns = nonneg_delta(a->stime_ns, b->stime_ns);
		if (!(both & ACCT_HAVE_SCHEDSTAT))
			r->used_ns = r->utime_ns + r->stime_ns;
	}
	if (both & ACCT_HAVE_STATUS) {
		r->vol_switches = nonneg_delta(a->vol_switches, b->vol_switches);
		r->invol_switches = nonneg_delta(a->invol_switches, b->invol_switches);
	}
	if (both & ACCT_HAVE_SCHED)
		r->migrations = nonneg_delta(a->migrations, b->migrations);
	clamp_row(r);
}

/* Reaped-children time of a process: cutime + cstime, process-wide (any of its threads). */
static int64_t reaped_ns(const struct acct_snap *s, const struct acct_thread *leader,
			 const char **role, const char **name)
{
	for (int i = 0; i < s->n; i++) {
		const struct acct_thread *t = &s->t[i];
		if (t->pid != leader->pid || !(t->have & ACCT_HAVE_STAT) || t->cutime_ns < 0)
			continue;
		if (t->tid == t->pid && !same_thread(t, leader))
			continue;  /* recycled pid */
		if (role)
			*role = t->role;
		if (name)
			*name = t->comm;
		return t->cutime_ns + t->cstime_ns;
	}
	return -1;
}

static int push_row(struct acct_table *t, int *cap, struct err *e)
{
	ARRAY_GROW(t->rows, t->n + 1, *cap);
	return 0;
}

/* When the rows together used more than the window's CPU capacity, the excess can only be edge
 * lag (see docs/accounting.md): remove it from the rows that were running at the first
 * snapshot (the only ones with lag), proportionally, and then, if needed, from all rows. */
static void clamp_total(struct acct_table *t, const bool *edge)
{
	int64_t cap = t->wall_ns * t->ncpus, sum = 0;
	for (int i = 0; i < t->n; i++)
		sum += t->rows[i].used_ns > 0 ? t->rows[i].used_ns : 0;
	for (int pass = 0; pass < 2 && sum > cap; pass++) {
		int64_t pool = 0;
		for (int i = 0; i < t->n; i++)
			if ((pass || edge[i]) && t->rows[i].used_ns > 0)
				pool += t->rows[i].used_ns;
		if (pool <= 0)
			continue;
		int64_t excess = sum - cap;
		for (int i = 0; i < t->n && sum > cap; i++) {
			struct acct_row *r = &t->rows[i];
			if (!(pass || edge[i]) || r->used_ns <= 0)
				continue;
			int64_t cut = (int64_t)ceil((double)excess * (double)r->used_ns / (double)pool);
			if (cut > r->used_ns)
				cut = r->used_ns;
			if (cut > sum - cap)
				cut = sum - cap;
			r->used_ns -= cut;
			r->carry_ns += cut;
			sum -= cut;
		}
	}
}

int acct_table_build(struct acct_table *t, const struct acct_snap *a, const struct acct_snap *b,
		     int ncpus, struct err *e)
{
	memset(t, 0, sizeof(*t));
	if (ncpus <= 0)
		ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus <= 0)
		ncpus = 1;
	t->ncpus = ncpus;
	int64_t begin = a->n ? a->begin_ns : b->begin_ns, end = b->n ? b->end_ns : a->end_ns;
	if (a->n && b->n && b->end_ns < a->begin_ns)
		return err_set(e, EXIT_RUNTIME, "acct: second snapshot is older than the first (internal)");
	t->wall_ns = end > begin ? end - begin : 0;

	int cap = 0;
	bool *edge = calloc((size_t)(a->n + b->n) * 2 + 1, sizeof(*edge));
	if (!edge)
		return err_set(e, EXIT_RUNTIME, "acct: out of memory");
	for (int i = 0; i < b->n; i++) {
		if (push_row(t, &cap, e) < 0)
			goto fail;
		const struct acct_thread *prev = find_in(a, &b->t[i]);
		fill_row(&t->rows[t->n], prev, &b->t[i], begin, end);
		edge[t->n] = prev ? prev->state == 'R' : t->rows[t->n].started && b->t[i].start_ns < begin;
		t->n++;
	}
	for (int i = 0; i < a->n; i++) {
		if (find_in(b, &a->t[i]))
			continue;
		if (push_row(t, &cap, e) < 0)
			goto fail;
		fill_row(&t->rows[t->n], &a->t[i], NULL, begin, end);
		t->n++;
	}
	/* One row per process (in b) whose reaped-children time grew inside the window. */
	for (int i = 0; i < b->n; i++) {
		const struct acct_thread *bt = &b->t[i];
		if (bt->tid != bt->pid)
			continue;
		const char *role = "", *name = "";
		int64_t after = reaped_ns(b, bt, &role, &name);
		int64_t before = reaped_ns(a, bt, NULL, NULL);
		if (after <= 0)
			continue;
		int64_t used = after - (before > 0 ? before : 0);
		if (used <= 0)
			continue;
		if (push_row(t, &cap, e) < 0)
			goto fail;
		struct acct_row *r = &t->rows[t->n];
		memset(r, 0, sizeof(*r));
		r->kind = ACCT_ROW_REAPED;
		r->pid = r->tid = bt->pid;
		snprintf(r->name, sizeof(r->name), "%s", name);
		snprintf(r->role, sizeof(r->role), "%s", role);
		r->started = before < 0;
		r->wall_ns = t->wall_ns;
		r->used_ns = used;
		r->waited_ns = r->timeslices = r->vol_switches = r->invol_switches = r->migrations = -1;
		r->utime_ns = r->stime_ns = -1;
		r->cpu = r->policy = -1;
		/* Children run in parallel: the bound of this row is the window's capacity. */
		if (r->used_ns > t->wall_ns * ncpus) {
			r->carry_ns = r->used_ns - t->wall_ns * ncpus;
			r->used_ns = t->wall_ns * ncpus;
		}
		edge[t->n] = true;  /* children reaped in the window may have run before it */
		t->n++;
	}
	clamp_total(t, edge);
	free(edge);
	for (int i = 0; i < t->n; i++) {
		struct acct_row *r = &t->rows[i];
		r->cpu_pct = t->wall_ns && r->used_ns > 0 ? 100.0 * (double)r->used_ns / (double)t->wall_ns : 0;
		r->run_pct = r->cpu_pct / ncpus;
		t->used_ns += r->used_ns > 0 ? r->used_ns : 0;
		t->waited_ns += r->waited_ns > 0 ? r->waited_ns : 0;
		t->cpu_pct += r->cpu_pct;
		t->run_pct += r->run_pct;
	}
	return 0;
fail:
	free(edge);
	acct_table_free(t);
	return -1;
}

void acct_table_free(struct acct_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* "1.23ms"; "-" for unknown. */
static char *human(char *buf, size_t len, int64_t ns)
{
	if (ns < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	return units_human_duration(buf, len, ns);
}

static char *count(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

void acct_table_print(FILE *f, const struct acct_table *t)
{
	char used[32], waited[32], thread[48], sw[48], a[24], b[24], sl[24], mg[24], tb[128], rb[64];
	fprintf(f, "%-24s %-12s %9s %9s %7s %7s %15s %8s %6s\n", "thread", "role", "used", "waited",
		"cpu%", "run%", "switches v/i", "slices", "migr");
	for (int i = 0; i < t->n; i++) {
		const struct acct_row *r = &t->rows[i];
		if (r->kind == ACCT_ROW_REAPED)
			snprintf(thread, sizeof(thread), "%.16s/%d children", r->name, r->pid);
		else
			snprintf(thread, sizeof(thread), "%.16s/%d%s", r->name, r->tid,
				 r->exited ? " (exited)" : "");
		snprintf(sw, sizeof(sw), "%s/%s", count(a, sizeof(a), r->vol_switches),
			 count(b, sizeof(b), r->invol_switches));
		char cp[24] = "-", rp[24] = "-";   /* an exited thread's share is unknown, not 0 */
		if (r->used_ns >= 0) {
			snprintf(cp, sizeof(cp), "%.1f", r->cpu_pct);
			snprintf(rp, sizeof(rp), "%.1f", r->run_pct);
		}
		fprintf(f, "%s %s %9s %9s %7s %7s %15s %8s %6s\n", text_fit(tb, sizeof(tb), thread, 24, TEXT_LEFT),
			text_fit(rb, sizeof(rb), r->role[0] ? r->role : "-", 12, TEXT_LEFT), human(used, sizeof(used), r->used_ns),
			human(waited, sizeof(waited), r->waited_ns), cp, rp, sw,
			count(sl, sizeof(sl), r->timeslices), count(mg, sizeof(mg), r->migrations));
	}
	fprintf(f, "%-24s %-12s %9s %9s %7.1f %7.1f   (window %s, %d CPUs)\n", "total", "",
		human(used, sizeof(used), t->used_ns), human(waited, sizeof(waited), t->waited_ns),
		t->cpu_pct, t->run_pct, human(thread, sizeof(thread), t->wall_ns), t->ncpus);
}
