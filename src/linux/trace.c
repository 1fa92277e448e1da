#include "linux/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "config.h"
#include "linux/journal.h"
#include "linux/probe.h"
#include "linux/sysfile.h"
#include "util.h"

#define TRACEFS_MAGIC_NUMBER 0x74726163
#define INSTANCES TRACE_MOUNT "/instances"
#define MARKER INSTANCES "/irt-mount"
#define LOCK_DIR "/sys/kernel"
#define MAX_WATCH 1024
#define READ_PERIOD_NS 50000000
#define RESOLVE_MAX 4096

/* ---- async-signal-safe cleanup (journal undo) ---- */

static void cat3(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	size_t n = 0;
	for (const char *p = a; *p && n + 1 < len; p++)
		buf[n++] = *p;
	for (const char *p = b; *p && n + 1 < len; p++)
		buf[n++] = *p;
	for (const char *p = c; *p && n + 1 < len; p++)
		buf[n++] = *p;
	buf[n] = 0;
}

static void write_file(const char *dir, const char *file, const char *value)
{
	char p[512];
	cat3(p, sizeof(p), dir, "/", file);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, value, strlen(value)) < 0) {
			/* the instance is removed next anyway */
		}
		close(fd);
	}
}

static bool tracefs_mounted(void)
{
	struct statfs sf;
	return statfs(TRACE_MOUNT, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC_NUMBER;
}

/* Our trace_pipe_raw descriptors: an instance with open files cannot be removed, so the undo
 * from a signal handler closes them first. */
static atomic_int open_fds[256];
static atomic_int nopen_fds;
static pid_t fds_owner;

static void close_our_fds(void)
{
	if (getpid() != fds_owner)
		return;
	int n = atomic_load(&nopen_fds);
	for (int i = 0; i < n && i < 256; i++) {
		int fd = atomic_exchange(&open_fds[i], -1);
		if (fd >= 0)
			close(fd);
	}
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Removes instances of dead irts; unmounts when an irt mounted tracefs and none is left. */
static void last_one_out(void)
{
	if (!tracefs_mounted() || access(MARKER, F_OK) != 0)
		return;
	int fd = open(INSTANCES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	bool in_use = false;
	char buf[4096];
	ssize_t n;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			off += de->d_reclen;
			const char *name = de->d_name;
			if (name[0] != 'i' || name[1] != 'r' || name[2] != 't' || name[3] != '-' || !name[4])
				continue;
			long pid = 0;
			bool digits = true;
			for (const char *p = name + 4; *p; p++) {
				if (*p < '0' || *p > '9') {
					digits = false;
					break;
				}
				pid = pid * 10 + (*p - '0');
				if (pid > 1 << 30)
					digits = false;
			}
			if (!digits)
				continue;
			if (pid_alive(pid)) {
				in_use = true;
			} else {   /* a crashed irt whose journal is gone: nothing else will remove it */
				char p[512];
				cat3(p, sizeof(p), INSTANCES, "/", name);
				rmdir(p);
			}
		}
	}
	close(fd);
	if (in_use)
		return;
	rmdir(MARKER);
	umount2(TRACE_MOUNT, 0);   /* EBUSY: someone else holds a file open there; leave it */
}

int trace_undo(const char *inst)
{
	int lk = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lk >= 0)
		flock(lk, LOCK_EX);
	close_our_fds();
	int err = 0;
	if (tracefs_mounted() && access(inst, F_OK) == 0) {
		write_file(inst, "tracing_on", "0");
		write_file(inst, "events/enable", "0");
		if (rmdir(inst) != 0 && errno != ENOENT)
			err = errno;
	}
	last_one_out();
	if (lk >= 0)
		close(lk);   /* releases the flock */
	return err;
}

/* ---- the reader ---- */

struct evfields {
	int id;
	struct tep_format_field *f[8];
	struct tep_format_field *pid;   /* common_pid: the task the event was recorded in */
};

enum { E_SWITCH, E_WAKING, E_WAKEUP, E_MIGRATE, E_IRQ_IN, E_IRQ_OUT, E_SIRQ_IN, E_SIRQ_OUT, E_WAKEUP_NEW, E_N };

static const struct {
	const char *sys, *name;
	const char *fields[8];
} wanted[E_N] = {
	[E_SWITCH] = {"sched", "sched_switch",
	              {"prev_pid", "prev_state", "next_pid", "next_prio", "next_comm", "prev_prio", "prev_comm", NULL}},
	[E_WAKING] = {"sched", "sched_waking", {"pid", "comm", NULL}},
	[E_WAKEUP] = {"sched", "sched_wakeup", {"pid", "target_cpu", "comm", NULL}},
	[E_MIGRATE] = {"sched", "sched_migrate_task", {"pid", "orig_cpu", "dest_cpu", NULL}},
	[E_IRQ_IN] = {"irq", "irq_handler_entry", {"irq", "name", NULL}},
	[E_IRQ_OUT] = {"irq", "irq_handler_exit", {"irq", NULL}},
	[E_SIRQ_IN] = {"irq", "softirq_entry", {"vec", NULL}},
	[E_SIRQ_OUT] = {"irq", "softirq_exit", {"vec", NULL}},
	[E_WAKEUP_NEW] = {"sched", "sched_wakeup_new", {"pid", "target_cpu", NULL}},   /* all: a new task's first wait */
};

/* trace_opts.vectors: optional events, each enabled when the kernel has it. The x86 vectors
 * are interrupts irq_handler_entry does not see (the local timer's tick above all); without
 * them such a gap holds no event and reads as hardware/host (docs/noise.md). */
static const char *const vector_names[] = {"local_timer", "reschedule", "call_function", "call_function_single",
                                           "irq_work", "x86_platform_ipi", "thermal_apic", "threshold_apic",
                                           "deferred_error_apic", "spurious_apic", "error_apic"};
#define NVEC ((int)(sizeof(vector_names) / sizeof(vector_names[0])))
#define NOPT (2 * NVEC + 1)   /* each vector's _entry and _exit, then nmi_handler */

const char *trace_vector_name(int idx)
{
	return idx >= 0 && idx < NVEC ? vector_names[idx] : "?";
}

struct pidmap {   /* pid -> index into trace_data.tasks, open addressing */
	int32_t *key;     /* pid + 1, 0 = empty */
	uint32_t *val;
	size_t cap, n;
};

struct trace {
	struct trace_opts o;
	char inst_path[256];
	char inst_name[32];
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct evfields ev[E_N];
	int opt_id[NOPT];                   /* trace_opts.vectors: event ids, -1 absent */
	struct tep_format_field *nmi_delta;
	int ncpu;
	struct tracefs_cpu **tcpu;
	int *fd;
	struct kbuffer *kbuf;
	void *page;
	int64_t *last_ts;     /* per CPU: the last event read (loss windows start there) */
	pthread_t reader;
	bool reader_started;
	atomic_bool stop;
	pthread_mutex_t mu;   /* watch list */
	int32_t watch[MAX_WATCH];
	atomic_int nwatch;
	struct trace_data d;
	struct pidmap pm;
	bool over_cap;
	uint64_t over_cap_events;   /* read but not kept: irt's memory cap */
	int resolved;               /* tasks resolved at first sight */
};


static struct ttask *task_of(struct trace *t, int32_t pid)
{
	struct pidmap *m = &t->pm;
	if (m->n * 2 >= m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		int32_t *key = xcalloc(cap, sizeof(*key));
		uint32_t *val = xcalloc(cap, sizeof(*val));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->key[i])
				continue;
			size_t h = ((uint32_t)m->key[i] * 2654435761u) & (cap - 1);
			while (key[h])
				h = (h + 1) & (cap - 1);
			key[h] = m->key[i];
			val[h] = m->val[i];
		}
		free(m->key);
		free(m->val);
		m->key = key;
		m->val = val;
		m->cap = cap;
	}
	size_t h = ((uint32_t)(pid + 1) * 2654435761u) & (m->cap - 1);
	while (m->key[h]) {
		if (m->key[h] == pid + 1)
			return &t->d.tasks[m->val[h]];
		h = (h + 1) & (m->cap - 1);
	}
	/* new: append without trace_data_task's scan */
	struct trace_data *d = &t->d;
	ARRAY_GROW(d->tasks, d->ntasks + 1, d->tasks_cap);
	struct ttask *k = &d->tasks[d->ntasks];
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->prio = -1;
	m->key[h] = pid + 1;
	m->val[h] = (uint32_t)d->ntasks++;
	m->n++;
	return k;
}

bool trace_watched(const struct trace *t, int32_t tid)
{
	int n = atomic_load_explicit(&((struct trace *)t)->nwatch, memory_order_acquire);
	for (int i = 0; i < n; i++)
		if (t->watch[i] == tid)
			return true;
	return false;
}

void trace_watch_tid(struct trace *t, int32_t tid)
{
	pthread_mutex_lock(&t->mu);
	int n = atomic_load(&t->nwatch);
	if (!trace_watched(t, tid) && n < MAX_WATCH) {
		t->watch[n] = tid;
		atomic_store_explicit(&t->nwatch, n + 1, memory_order_release);
	}
	pthread_mutex_unlock(&t->mu);
}

int trace_watched_tids(const struct trace *t, int32_t *out, int max)
{
	int n = atomic_load(&((struct trace *)t)->nwatch);
	for (int i = 0; i < n && i < max; i++)
		out[i] = t->watch[i];
	return n < max ? n : max;
}

static void resolve_task(struct ttask *k, bool tgid);

static long long num(struct trace *t, int e, int f, void *data)
{
	unsigned long long v = 0;
	tep_read_number_field(t->ev[e].f[f], data, &v);
	return (long long)v;
}

static const char *str(struct trace *t, int e, int f, void *data, char *buf, size_t len)
{
	struct tep_format_field *fl = t->ev[e].f[f];
	const char *p = (const char *)data + fl->offset;
	size_t n = (size_t)fl->size;
	if (fl->flags & TEP_FIELD_IS_DYNAMIC) {   /* __data_loc: offset and length in one u32 */
		unsigned int loc = *(const unsigned int *)p;
		p = (const char *)data + (loc & 0xffff);
		n = loc >> 16;
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	buf[strnlen(buf, n)] = 0;
	return buf;
}

static bool comm_wanted(const struct trace *t, const char *comm)
{
	for (const char *const *c = t->o.comms; c && *c; c++)
		if (strcmp(*c, comm) == 0)
			return true;
	return false;
}

static void add(struct trace *t, int cpu, const struct tev *ev)
{
	struct trace_data *d = &t->d;
	d->events++;
	if (t->over_cap) {
		t->over_cap_events++;
		return;
	}
	if (d->memory_bytes + (int64_t)sizeof(*ev) > t->o.memory_cap) {
		/* irt's copy is full: what follows is lost, from here to the end */
		t->over_cap = true;
		t->over_cap_events++;
		for (int c = 0; c < d->ncpu; c++)
			trace_data_add_loss(d, c, ev->ts, INT64_MAX);
		return;
	}
	struct tcpu *c = &d->cpu[cpu];
	size_t cap = c->cap;
	trace_data_add(d, cpu, ev);
	d->memory_bytes += (int64_t)(c->cap - cap) * (int64_t)sizeof(*ev);
}

/* An event not kept: its task still tells whether a switch was missed (trace_data_add). */
static void seen(struct trace *t, int cpu, const struct tev *ev)
{
	if (t->over_cap)
		return;
	struct tcpu *c = &t->d.cpu[cpu];
	size_t cap = c->cap;
	trace_data_seen(&t->d, cpu, ev->ts, ev->ctx);
	t->d.memory_bytes += (int64_t)(c->cap - cap) * (int64_t)sizeof(*ev);
}

/* A task in a sched_switch (prio, comm from field prio_f, comm_f). */
static void note_task(struct trace *t, int32_t pid, int prio_f, int comm_f, void *data)
{
	char comm[16], shown[sizeof(((struct ttask *)0)->comm)];
	size_t before = t->d.ntasks;
	struct ttask *k = task_of(t, pid);
	k->prio = (int16_t)num(t, E_SWITCH, prio_f, data);
	/* first sight: its cgroup and policy now (short-lived tasks are gone at the end);
	 * bounded, as a fork-heavy load makes thousands */
	if (t->d.ntasks > before && t->resolved < RESOLVE_MAX) {
		t->resolved++;
		resolve_task(k, t->o.all);
	}
	/* another user names their threads: escaped ("\x1b"), so that no control character in a
	 * name reaches root's terminal or a result */
	err_escape(shown, sizeof(shown), str(t, E_SWITCH, comm_f, data, comm, sizeof(comm)));
	if (strcmp(k->comm, shown) != 0)
		memcpy(k->comm, shown, sizeof(k->comm));
}

/* A vector's entry or exit, or an NMI: ev filled in, true; false for other events. */
static bool handle_optional(struct trace *t, int type, struct tev *ev, void *data)
{
	for (int i = 0; i < NOPT; i++) {
		if (t->opt_id[i] != type)
			continue;
		if (i == NOPT - 1) {
			unsigned long long delta = 0;
			tep_read_number_field(t->nmi_delta, data, &delta);
			ev->type = TEV_NMI;
			ev->b = delta > INT32_MAX ? INT32_MAX : (int32_t)delta;
		} else {
			ev->type = i % 2 ? TEV_VECTOR_EXIT : TEV_VECTOR_ENTRY;
			ev->a = i / 2;
		}
		return true;
	}
	return false;
}

static void handle(struct trace *t, int cpu, int64_t ts, void *data)
{
	int type = *(unsigned short *)data;
	unsigned long long pid = 0;   /* the common header is the same in every event */
	tep_read_number_field(t->ev[E_SWITCH].pid, data, &pid);
	struct tev ev = {.ts = ts, .ctx = (int32_t)pid};
	char comm[32];
	if (type == t->ev[E_SWITCH].id) {
		ev.type = TEV_SWITCH;
		ev.a = (int32_t)num(t, E_SWITCH, 0, data);
		ev.flag = (num(t, E_SWITCH, 1, data) & 0xff) == 0;   /* TASK_RUNNING, or preempted (TASK_REPORT_MAX) */
		ev.b = (int32_t)num(t, E_SWITCH, 2, data);
		ev.prio = (int16_t)num(t, E_SWITCH, 3, data);
		note_task(t, ev.b, 3, 4, data);
		/* the previous task too: its switch-in may be one the kernel did not record */
		note_task(t, ev.a, 5, 6, data);
		add(t, cpu, &ev);
	} else if (type == t->ev[E_WAKING].id || type == t->ev[E_WAKEUP].id) {
		int e = type == t->ev[E_WAKING].id ? E_WAKING : E_WAKEUP;
		ev.a = (int32_t)num(t, e, 0, data);
		/* all: every task's sched_waking (it starts the task's wait: runq.c), no sched_wakeup kept
		 * but those that show a switch on another CPU */
		if (t->o.all ? e != E_WAKING : !trace_watched(t, ev.a)) {
			if (t->o.all || !t->o.comms || !comm_wanted(t, str(t, e, e == E_WAKING ? 1 : 2, data, comm, 16))) {
				ev.b = e == E_WAKEUP ? (int32_t)num(t, e, 1, data) : cpu;
				if (ev.b == cpu) {
					seen(t, cpu, &ev);
					return;
				}
				/* kept: an idle CPU woken from here records nothing itself (trace_data_finish) */
				ev.type = TEV_WAKEUP;
				add(t, cpu, &ev);
				return;
			}
			trace_watch_tid(t, ev.a);
		}
		ev.type = e == E_WAKING ? TEV_WAKING : TEV_WAKEUP;
		if (e == E_WAKEUP)
			ev.b = (int32_t)num(t, e, 1, data);
		add(t, cpu, &ev);
	} else if (type == t->ev[E_WAKEUP_NEW].id) {   /* all: its wait starts as a wake-up's (runq.c) */
		ev.type = TEV_WAKING;
		ev.a = (int32_t)num(t, E_WAKEUP_NEW, 0, data);
		add(t, cpu, &ev);
		ev.b = (int32_t)num(t, E_WAKEUP_NEW, 1, data);
		if (ev.b != cpu) {   /* as a sched_wakeup: times a switch the idle target CPU did not record */
			ev.type = TEV_WAKEUP;
			add(t, cpu, &ev);
		}
	} else if (type == t->ev[E_MIGRATE].id) {
		ev.a = (int32_t)num(t, E_MIGRATE, 0, data);
		if (t->o.all || !trace_watched(t, ev.a)) {
			seen(t, cpu, &ev);
			return;
		}
		ev.type = TEV_MIGRATE;
		ev.prio = (int16_t)num(t, E_MIGRATE, 1, data);
		ev.b = (int32_t)num(t, E_MIGRATE, 2, data);
		add(t, cpu, &ev);
	} else if (type == t->ev[E_IRQ_IN].id) {
		ev.type = TEV_IRQ_ENTRY;
		ev.a = (int32_t)num(t, E_IRQ_IN, 0, data);
		if (ev.a >= 0 && ev.a < 65536 && (ev.a >= t->d.nirq || !t->d.irq_names[ev.a][0]))
			trace_data_set_irq_name(&t->d, ev.a, str(t, E_IRQ_IN, 1, data, comm, sizeof(comm)));
		add(t, cpu, &ev);
	} else if (type == t->ev[E_IRQ_OUT].id) {
		ev.type = TEV_IRQ_EXIT;
		ev.a = (int32_t)num(t, E_IRQ_OUT, 0, data);
		add(t, cpu, &ev);
	} else if (t->o.vectors && handle_optional(t, type, &ev, data)) {
		add(t, cpu, &ev);
	} else if (type == t->ev[E_SIRQ_IN].id || type == t->ev[E_SIRQ_OUT].id) {
		bool in = type == t->ev[E_SIRQ_IN].id;
		ev.type = in ? TEV_SOFTIRQ_ENTRY : TEV_SOFTIRQ_EXIT;
		ev.a = (int32_t)num(t, in ? E_SIRQ_IN : E_SIRQ_OUT, 0, data);
		add(t, cpu, &ev);
	}
}

/* Reads what CPU cpu's buffer holds now; returns the pages read. */
static int drain_cpu(struct trace *t, int cpu)
{
	int pages = 0;
	for (;;) {
		int n = tracefs_cpu_read(t->tcpu[cpu], t->page, true);
		if (n <= 0)
			break;
		pages++;
		if (kbuffer_load_subbuffer(t->kbuf, t->page) < 0)
			continue;
		unsigned long long ts;
		void *data = kbuffer_read_event(t->kbuf, &ts);
		if (kbuffer_missed_events(t->kbuf))   /* overwritten before irt read them */
			trace_data_add_loss(&t->d, cpu, t->last_ts[cpu], data ? (int64_t)ts : INT64_MAX);
		while (data) {
			handle(t, cpu, (int64_t)ts, data);
			t->last_ts[cpu] = (int64_t)ts;
			data = kbuffer_next_event(t->kbuf, &ts);
		}
	}
	return pages;
}

static void *reader_main(void *arg)
{
	struct trace *t = arg;
	pthread_setname_np(pthread_self(), "irt:trace");
	while (!atomic_load(&t->stop)) {
		for (int c = 0; c < t->ncpu; c++)
			if (t->tcpu[c])
				drain_cpu(t, c);
		struct timespec ts = {0, READ_PERIOD_NS};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- setup ---- */

static int fail(struct trace *t, struct err *e, const char *what, int errnum)
{
	return err_set(e, EXIT_RUNTIME, "--explain: %s: %s", what, strerror(errnum));
}

/* Only the formats irt reads: tracefs_local_events_system would also parse kallsyms and
 * every format of the systems (100k+ symbols: slow, and megabytes for nothing). */
static int parse_formats(struct trace *t, struct err *e)
{
	t->tep = tep_alloc();
	if (!t->tep)
		return err_set(e, EXIT_RUNTIME, "--explain: out of memory");
	tep_set_long_size(t->tep, (int)sizeof(long));
	tep_set_page_size(t->tep, getpagesize());
	int size = 0;
	char *buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(t->tep, buf, (unsigned long)size, (int)sizeof(long))) {
		free(buf);
		return err_set(e, EXIT_RUNTIME, "--explain: cannot read %s/events/header_page", TRACE_MOUNT);
	}
	free(buf);
	for (int i = 0; i < E_N; i++) {
		char f[128];
		snprintf(f, sizeof(f), "events/%s/%s/format", wanted[i].sys, wanted[i].name);
		int n = 0;
		buf = tracefs_instance_file_read(NULL, f, &n);
		if (!buf)
			return err_set(e, EXIT_RUNTIME, "--explain: this kernel has no %s:%s event (tracing needs it)",
			               wanted[i].sys, wanted[i].name);
		enum tep_errno rc = tep_parse_event(t->tep, buf, (unsigned long)n, wanted[i].sys);
		free(buf);
		if (rc)
			return err_set(e, EXIT_RUNTIME, "--explain: cannot parse the format of %s:%s", wanted[i].sys,
			               wanted[i].name);
	}
	return 0;
}

/* The optional event i's system and name, into name. */
static const char *optional_event(int i, char *name, size_t len)
{
	if (i == NOPT - 1) {
		snprintf(name, len, "nmi_handler");
		return "nmi";
	}
	snprintf(name, len, "%s_%s", vector_names[i / 2], i % 2 ? "exit" : "entry");
	return "irq_vectors";
}

/* trace_opts.vectors: every optional event the kernel has, enabled; the others named in
 * d.missing (a kernel of another architecture has no irq_vectors at all) */
static void setup_optional(struct trace *t)
{
	for (int i = 0; i < NOPT; i++) {
		char name[64], f[128];
		const char *sys = optional_event(i, name, sizeof(name));
		t->opt_id[i] = -1;
		snprintf(f, sizeof(f), "events/%s/%s/format", sys, name);
		int n = 0;
		char *buf = tracefs_instance_file_read(NULL, f, &n);
		struct tep_event *ev = NULL;
		if (buf && tep_parse_event(t->tep, buf, (unsigned long)n, sys) == 0)
			ev = tep_find_event_by_name(t->tep, sys, name);
		free(buf);
		if (ev && i == NOPT - 1 && !(t->nmi_delta = tep_find_field(ev, "delta_ns")))
			ev = NULL;
		if (ev && tracefs_event_enable(t->inst, sys, name) == 0) {
			t->opt_id[i] = ev->id;
		} else if (i == NOPT - 1 || i == 0) {   /* the tick and NMIs: said when missing */
			size_t l = strlen(t->d.missing);
			snprintf(t->d.missing + l, sizeof(t->d.missing) - l, "%s%s:%s", l ? ", " : "", sys, name);
		}
	}
}

static int setup_events(struct trace *t, struct err *e)
{
	if (parse_formats(t, e))
		return -1;
	for (int i = 0; i < E_N; i++) {
		struct tep_event *ev = tep_find_event_by_name(t->tep, wanted[i].sys, wanted[i].name);
		if (!ev)
			return err_set(e, EXIT_RUNTIME, "--explain: this kernel has no %s:%s event (tracing needs it)",
			               wanted[i].sys, wanted[i].name);
		t->ev[i].id = ev->id;
		if (!(t->ev[i].pid = tep_find_common_field(ev, "common_pid")))
			return err_set(e, EXIT_RUNTIME, "--explain: event %s has no field common_pid", wanted[i].name);
		for (int f = 0; wanted[i].fields[f]; f++)
			if (!(t->ev[i].f[f] = tep_find_field(ev, wanted[i].fields[f])))
				return err_set(e, EXIT_RUNTIME, "--explain: event %s has no field %s", wanted[i].name,
				               wanted[i].fields[f]);
		/* all: a wait is timed from sched events alone; IRQs and migrations would cost per event
		 * for nothing; a new task's first wait only all times */
		if (t->o.all ? (i == E_MIGRATE || strcmp(wanted[i].sys, "irq") == 0) : i == E_WAKEUP_NEW)
			continue;
		if (tracefs_event_enable(t->inst, wanted[i].sys, wanted[i].name))
			return fail(t, e, wanted[i].name, errno ? errno : EINVAL);
	}
	if (t->o.vectors)
		setup_optional(t);
	t->kbuf = tep_kbuffer(t->tep);
	return t->kbuf ? 0 : err_set(e, EXIT_RUNTIME, "--explain: cannot set up the ring-buffer parser");
}

/* Under the flock: mount if needed (journaled first), create our instance. */
static int create_instance(struct trace *t, struct err *e)
{
	int lk = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lk < 0 || flock(lk, LOCK_EX))
		return fail(t, e, "cannot lock " LOCK_DIR, errno);
	int rc = -1;
	if (journal_note_tracefs(t->inst_path, e))
		goto out;
	if (!tracefs_mounted()) {
		if (mount("nodev", TRACE_MOUNT, "tracefs", 0, NULL)) {
			fail(t, e, "cannot mount tracefs on " TRACE_MOUNT, errno);
			goto out;
		}
		/* the marker says irt mounted it: the last irt out unmounts */
		if (mkdir(MARKER, 0700) && errno != EEXIST) {
			fail(t, e, "cannot create " MARKER, errno);
			umount2(TRACE_MOUNT, 0);
			goto out;
		}
		write_file(MARKER, "buffer_size_kb", "4");
	}
	tracefs_set_tracing_dir((char *)TRACE_MOUNT);
	if (mkdir(t->inst_path, 0700) && errno != EEXIST) {
		fail(t, e, t->inst_path, errno);
		goto out;
	}
	t->inst = tracefs_instance_alloc(TRACE_MOUNT, t->inst_name);
	if (!t->inst) {
		fail(t, e, "libtracefs cannot open the instance", errno ? errno : ENOMEM);
		goto out;
	}
	rc = 0;
out:
	close(lk);
	return rc;
}

static void free_trace(struct trace *t)
{
	for (int c = 0; t->fd && c < t->ncpu && c < 256; c++) {
		if (t->tcpu[c])
			tracefs_cpu_free_fd(t->tcpu[c]);
		int fd = atomic_exchange(&open_fds[c], -1);
		if (fd >= 0)
			close(fd);
	}
	atomic_store(&nopen_fds, 0);
	free(t->fd);
	if (t->kbuf)
		kbuffer_free(t->kbuf);
	if (t->tep)
		tep_free(t->tep);
	if (t->inst)
		tracefs_instance_free(t->inst);
	free(t->tcpu);
	free(t->page);
	free(t->last_ts);
	free(t->pm.key);
	free(t->pm.val);
	pthread_mutex_destroy(&t->mu);
	trace_data_free(&t->d);
	free(t);
}

/* Frees t and removes its instance: the files first, since an instance with open files
 * cannot go. */
static void trace_discard(struct trace *t)
{
	char inst[256];
	snprintf(inst, sizeof(inst), "%s", t->inst_path);
	free_trace(t);
	trace_undo(inst);
}

int trace_open(struct trace **out, const struct trace_opts *o, struct err *e)
{
	*out = NULL;
	if (geteuid() != 0)
		return err_set(e, EXIT_RUNTIME, "--explain: tracing the scheduler needs root (tracefs)");
	struct stat st;
	if (stat(TRACE_MOUNT, &st) != 0)
		return err_set(e, EXIT_RUNTIME, "--explain: no %s here (kernel without tracefs?)", TRACE_MOUNT);
	struct trace *t = xcalloc(1, sizeof(*t));
	t->o = *o;
	pthread_mutex_init(&t->mu, NULL);
	snprintf(t->inst_name, sizeof(t->inst_name), "irt-%d", (int)getpid());
	snprintf(t->inst_path, sizeof(t->inst_path), "%s/%s", INSTANCES, t->inst_name);
	if (create_instance(t, e)) {
		trace_discard(t);
		return -1;
	}
	char kb[32];
	snprintf(kb, sizeof(kb), "%lld", (long long)o->buffer_kb);
	if (tracefs_instance_file_write(t->inst, "buffer_size_kb", kb) < 0 ||
	    tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		fail(t, e, "cannot size the buffer or set the mono trace clock", errno ? errno : EIO);
		trace_discard(t);
		return -1;
	}
	tracefs_instance_file_write(t->inst, "tracing_on", "0");
	if (setup_events(t, e)) {
		trace_discard(t);
		return -1;
	}
	t->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	t->d.ncpu = t->ncpu;
	t->d.cpu = xcalloc((size_t)t->ncpu, sizeof(*t->d.cpu));
	t->tcpu = xcalloc((size_t)t->ncpu, sizeof(*t->tcpu));
	t->last_ts = xcalloc((size_t)t->ncpu, sizeof(*t->last_ts));
	fds_owner = getpid();
	t->fd = xcalloc((size_t)t->ncpu, sizeof(*t->fd));
	for (int c = 0; c < t->ncpu && c < 256; c++) {
		/* our own descriptors, so that the undo from a signal handler can close them */
		char p[320];
		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", t->inst_path, c);
		t->fd[c] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		atomic_store(&open_fds[c], t->fd[c]);
		atomic_store(&nopen_fds, c + 1);
		if (t->fd[c] < 0)
			continue;   /* an offline CPU */
		t->tcpu[c] = tracefs_cpu_alloc_fd(t->fd[c], getpagesize(), true);
	}
	t->page = xcalloc(1, (size_t)getpagesize() * 2);
	t->d.buffer_bytes = o->buffer_kb * 1024 * t->ncpu;
	*out = t;
	return 0;
}

int trace_run(struct trace *t, struct err *e)
{
	t->d.start_ns = mono_ns();
	if (tracefs_instance_file_write(t->inst, "tracing_on", "1") < 0)
		return fail(t, e, "cannot turn tracing on", errno ? errno : EIO);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals go to the threads that wait for them */
	int rc = pthread_create(&t->reader, NULL, reader_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return fail(t, e, "cannot start the reader thread", rc);
	t->reader_started = true;
	return 0;
}

int trace_start(struct trace **out, const struct trace_opts *o, struct err *e)
{
	if (trace_open(out, o, e))
		return -1;
	if (trace_run(*out, e)) {
		trace_discard(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static uint64_t stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

const char *trace_policy_name(int policy)
{
	static const char *const pol[] = {"other", "fifo", "rr", "batch", "iso", "idle", "deadline"};
	if (policy < 0)
		return NULL;
	policy &= ~SCHED_RESET_ON_FORK;   /* a flag in the value (systemd's, tokio's threads), not a policy */
	return policy < (int)(sizeof(pol) / sizeof(pol[0])) ? pol[policy] : NULL;
}

/* Policy and cgroup of a task, from /proc while it lives; with tgid its process too (watch
 * --all --top-of process: a thread's process is not in its events). */
static void resolve_task(struct ttask *k, bool tgid)
{
	{
		char pid[32];
		if (tgid && k->pid > 0 && !k->tgid && sys_task_status(k->pid, "Tgid", pid, sizeof(pid)))
			k->tgid = (int32_t)strtol(pid, NULL, 10);
		if (k->pid <= 0 || k->cgroup[0])
			return;
		const char *name = trace_policy_name(sched_getscheduler(k->pid));
		if (name)
			snprintf(k->policy, sizeof(k->policy), "%s", name);
		char path[64], line[512];
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)k->pid);
		FILE *f = fopen(path, "re");
		if (!f)
			return;
		char best[160] = "";
		while (fgets(line, sizeof(line), f)) {
			/* "N:controllers:path": the cpu controller's (v1), else the v2 line "0::" */
			char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c2)
				continue;
			*c2 = 0;
			line[strcspn(c2 + 1, "\n") + (size_t)(c2 + 1 - line)] = 0;
			bool cpu = strstr(c1 + 1, "cpu") && (strstr(c1 + 1, "cpu,") || strcmp(c1 + 1, "cpu") == 0 ||
			                                     strstr(c1 + 1, ",cpu"));
			if (cpu || (!*best && c1[1] == 0))
				snprintf(best, sizeof(best), "%s", c2 + 1);
			if (cpu)
				break;
		}
		fclose(f);
		err_escape(k->cgroup, sizeof(k->cgroup), best);   /* a delegated subtree's names are its user's */
	}
}

static void resolve_tasks(struct trace_data *d, bool tgid)
{
	for (size_t i = 0; i < d->ntasks; i++)
		resolve_task(&d->tasks[i], tgid);
}

int trace_stop(struct trace *t, struct trace_data *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	tracefs_instance_file_write(t->inst, "tracing_on", "0");
	t->d.end_ns = mono_ns();
	atomic_store(&t->stop, true);
	if (t->reader_started)
		pthread_join(t->reader, NULL);
	for (int c = 0; c < t->ncpu; c++)
		if (t->tcpu[c])
			drain_cpu(t, c);
	/* what the kernel counted as lost: overwritten (overrun) or dropped */
	for (int c = 0; c < t->ncpu; c++) {
		char f[64];
		snprintf(f, sizeof(f), "per_cpu/cpu%d/stats", c);
		char *s = tracefs_instance_file_read(t->inst, f, NULL);
		if (s) {
			t->d.lost += stat_field(s, "overrun: ") + stat_field(s, "dropped events: ");
			free(s);
		}
	}
	t->d.lost += t->over_cap_events;
	size_t inferred = trace_data_finish(&t->d);
	if (inferred)
		fprintf(stderr, "irt: note: %s: the kernel did not record %zu context switches (on this kernel: "
		        "out of idle); irt put them in from the events that followed (docs/explain.md)\n",
		        t->o.who ? t->o.who : "--explain", inferred);
	resolve_tasks(&t->d, t->o.all);
	*out = t->d;
	memset(&t->d, 0, sizeof(t->d));
	trace_data_sort_tasks(out);
	char inst[256];
	snprintf(inst, sizeof(inst), "%s", t->inst_path);
	free_trace(t);
	int err = trace_undo(inst);
	if (err)
		return err_set(e, EXIT_RUNTIME, "--explain: cannot remove %s: %s (irt restore retries)", inst, strerror(err));
	return 0;
}

/* ---- --explain around a probe session ---- */

int explain_begin(struct explain_run *x, const struct explain_cfg *c, bool *attribute, struct result *r)
{
	memset(x, 0, sizeof(*x));
	x->cfg = c;
	if (!c->explain)
		return 0;
	struct trace_opts o = {.buffer_kb = c->buffer / 1024, .memory_cap = EXPLAIN_MEMORY_CAP};
	struct err e = {0};
	if (trace_start(&x->t, &o, &e)) {
		/* without tracing, today's schedstat split still tells runqueue wait from the rest;
		 * said once per process (irt check and sweeps run many sessions), each result records it */
		static bool said;
		if (!said)
			fprintf(stderr, "irt: %s; falling back to the schedstat split (--attribute)\n", e.msg);
		said = true;
		*attribute = true;
		r->explain.present = true;
		snprintf(r->explain.source, sizeof(r->explain.source), "none");
		snprintf(r->explain.reason, sizeof(r->explain.reason), "%.255s", e.msg);
		return 0;
	}
	x->active = true;
	return 0;
}

void explain_collect(struct explain_run *x, const struct probe_session *s, struct err *run_err)
{
	if (!x->active)
		return;
	x->nsamples = probe_samples(s, &x->samples);
	x->origin = probe_window_start(s);
	struct err e = {0};
	if (trace_stop(x->t, &x->data, &e) && !run_err->code)
		*run_err = e;
	x->t = NULL;
}

void explain_finish(struct explain_run *x, struct result *r)
{
	if (!x->active)
		return;
	explain_analyse(&x->data, x->samples, x->nsamples, x->cfg->threshold, x->origin, r);
	trace_data_free(&x->data);
	free(x->samples);
	memset(x, 0, sizeof(*x));
}

void explain_abort(struct explain_run *x)
{
	if (x->t) {
		struct trace_data d;
		struct err e = {0};
		trace_stop(x->t, &d, &e);
		trace_data_free(&d);
	}
	trace_data_free(&x->data);
	free(x->samples);
	memset(x, 0, sizeof(*x));
}
