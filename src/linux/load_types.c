/* The load types: one entry each in load_types[] at the end, plus its keys and code.
 * Everything here except finish/check_room runs inside the load's worker process
 * (load.c), which is killed as a whole when the load ends: workers loop forever and own no
 * cleanup. Counters go to the worker's slot in shared memory as the work is done. */
#include "load_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/sysfile.h"
#include "units.h"
#include "util.h"

#define KIB 1024LL
#define MIB (1024LL * 1024)
#define GIB (1024LL * 1024 * 1024)

/* 1000 steps of xorshift64: the unit of CPU work ("loop"). The empty asm keeps the
 * compiler from folding the steps. */
static uint64_t spin_loop(uint64_t x)
{
	for (int i = 0; i < 1000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static int refuse(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct err *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, EXIT_USAGE, fmt, ap);
	va_end(ap);
	return -1;
}

/* dir= must be a directory irt can make its temporary directory in (else the worker fails
 * once the run started), and files may take at most half the free space of its file system. */
static int check_disk(const struct load_spec *s, int64_t need, const char *what, struct err *e)
{
	struct statvfs vfs;
	struct stat st;
	char a[32], b[32];
	if (stat(s->dir, &st) || statvfs(s->dir, &vfs))
		return refuse(e, "dir=%s: %s (a writable directory)", s->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse(e, "dir=%s: not a directory (a writable directory)", s->dir);
	if (access(s->dir, W_OK | X_OK))
		return refuse(e, "dir=%s: %s (a directory this user may write and enter: choose another dir=)", s->dir,
			      strerror(errno));
	int64_t free_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
	if (need > free_bytes / 2)
		return refuse(e, "%s of %s would exceed half the free space in %s, %s free (smaller "
			      "size= or fewer workers, or dir= elsewhere)", units_human_size(a, sizeof(a), need),
			      what, s->dir, units_human_size(b, sizeof(b), free_bytes));
	return 0;
}

/* ---------------------------------------------------------------- cpu */

static const struct opt cpu_keys[] = {
	{.name = "threads", .type = OPT_INT, LOAD_KEY(workers), .min = 1, .max = 256,
	 .help = "busy threads (default: one per online CPU)"},
	{.name = "load-avg", .type = OPT_DECIMAL, LOAD_KEY(load_milli), .min = 10, .max = 256000,
	 .help = "threads runnable on average: ceil(N) threads, each busy N/ceil(N) of every period"},
	{.name = "duty", .type = OPT_PERCENT, LOAD_KEY(duty_ppm), .def = "100%", .min = 10000, .max = 1000000,
	 .help = "share of every period a thread is busy"},
	{.name = "period", .type = OPT_DURATION, LOAD_KEY(period_ns), .def = "100ms", .min = NSEC_PER_MSEC, .max = 10 * NSEC_PER_SEC,
	 .help = "duty-cycle period"},
	{0},
};

static int cpu_finish(struct load_spec *s, struct err *e)
{
	if (s->load_milli) {
		if (load_key_given(s, "threads") || load_key_given(s, "duty"))
			return err_set(e, EXIT_USAGE, "load-avg= sets threads and duty itself (give "
				       "load-avg= alone, or threads= and duty=)");
		s->workers = (s->load_milli + 999) / 1000;
		s->duty_ppm = s->load_milli * 1000 / s->workers;
	} else if (!load_key_given(s, "threads")) {
		s->workers = load_online_cpus();
	}
	return 0;
}

static void cpu_worker(struct load_ctx *c, int slot, void *arg)
{
	const struct load_spec *s = c->s;
	uint64_t x = 0x9E3779B97F4A7C15ull ^ (uint64_t)(slot + 1);
	if (s->duty_ppm >= 1000000) {
		for (;;) {
			for (int i = 0; i < 16; i++)
				x = spin_loop(x);
			load_count(c, slot, 16, 0);
		}
	}
	/* busy [t, t + busy) of every period; threads are staggered across the period so the
	 * number of runnable threads stays near its average */
	int64_t busy = s->period_ns * s->duty_ppm / 1000000;
	int64_t t = mono_ns() + s->period_ns * slot / s->workers;
	load_sleep_until(t);
	for (;;) {
		while (mono_ns() < t + busy) {
			x = spin_loop(x);
			load_count(c, slot, 1, 0);
		}
		int64_t now = mono_ns();
		t += s->period_ns;
		while (t + busy <= now)   /* preempted for whole periods: skip them */
			t += s->period_ns;
		load_sleep_until(t);
	}
}

static int cpu_start(struct load_ctx *c)
{
	for (int i = 0; i < c->s->workers; i++)
		if (load_spawn_thread(c, "cpu", cpu_worker, NULL) < 0)
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- mem */

static const char *const mem_modes[] = {"read", "write", "rw", NULL};

static const struct opt mem_keys[] = {
	{.name = "threads", .type = OPT_INT, LOAD_KEY(workers), .def = "1", .min = 1, .max = 64,
	 .help = "threads, each streaming its own buffer"},
	{.name = "size", .type = OPT_SIZE, LOAD_KEY(size), .def = "64M", .min = 4 * KIB, .max = 64 * GIB,
	 .help = "buffer per thread"},
	{.name = "mode", .type = OPT_ENUM, LOAD_KEY(mode), .def = "rw", .choices = mem_modes,
	 .help = "read, write, or read-modify-write each word"},
	{.name = "stride", .type = OPT_SIZE, LOAD_KEY(stride), .def = "64", .min = 8, .max = GIB,
	 .help = "distance between accessed 8-byte words"},
	{0},
};

static int mem_finish(struct load_spec *s, struct err *e)
{
	char a[32];
	if (s->stride % 8)
		return err_set(e, EXIT_USAGE, "stride=%lld is not a multiple of 8 (8, 64, 4K...)",
			       (long long)s->stride);
	if (s->stride > s->size)
		return err_set(e, EXIT_USAGE, "stride=%lld exceeds size=%s (a stride up to the size)",
			       (long long)s->stride, units_format_size(a, sizeof(a), s->size));
	return 0;
}

/* No swap here: a load that does not fit would bring the OOM killer, maybe onto irt. */
static int mem_room(const struct load_spec *s, struct err *e)
{
	char a[32], b[32];
	int64_t avail = sys_mem_available(), need = s->size * s->workers;
	if (avail >= 0 && need > avail / 4 * 3)
		return refuse(e, "%s of buffers would exceed 75%% of the available memory, %s "
			      "(smaller size= or fewer threads=)", units_human_size(a, sizeof(a), need),
			      units_human_size(b, sizeof(b), avail));
	return 0;
}

struct mem_state {
	unsigned char **buf;
};

static void mem_worker(struct load_ctx *c, int slot, void *arg)
{
	const struct load_spec *s = c->s;
	unsigned char *buf = arg;
	const int64_t chunk = 256 * KIB;
	const size_t stride = (size_t)s->stride;
	uint64_t sum = 0;
	for (;;) {
		for (int64_t off = 0; off < s->size; off += chunk) {
			int64_t end = off + chunk < s->size ? off + chunk : s->size;
			uint64_t n = 0;
			int64_t first = (off + (int64_t)stride - 1) / (int64_t)stride * (int64_t)stride;
			unsigned char *p = buf + first, *stop = buf + end - 7;
			switch (s->mode) {
			case LOAD_MEM_READ:
				for (; p < stop; p += stride, n++)
					sum += *(uint64_t *)(void *)p;
				break;
			case LOAD_MEM_WRITE:
				for (; p < stop; p += stride, n++)
					*(uint64_t *)(void *)p = sum + n;
				break;
			default:
				for (; p < stop; p += stride, n++)
					*(uint64_t *)(void *)p += 1;
				break;
			}
			__asm__ volatile("" : "+r"(sum) : : "memory");   /* the accesses must happen */
			load_count(c, slot, n, (uint64_t)(end - off));
		}
	}
}

static int mem_start(struct load_ctx *c)
{
	char a[32];
	for (int i = 0; i < c->s->workers; i++) {
		/* populated here, before the workers run: first-touch faults are not the load */
		void *buf = mmap(NULL, (size_t)c->s->size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED)
			return load_fail(c, "cannot map a %s buffer: %s",
					 units_format_size(a, sizeof(a), c->s->size), strerror(errno));
		if (load_spawn_thread(c, "mem", mem_worker, buf) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- pipe */

static const char *const pipe_tasks[] = {"process", "thread", NULL};

static const struct opt pipe_keys[] = {
	{.name = "groups", .type = OPT_INT, LOAD_KEY(groups), .def = "1", .min = 1, .max = 32,
	 .help = "independent groups of senders and receivers"},
	{.name = "fds", .type = OPT_INT, LOAD_KEY(fds), .def = "10", .min = 1, .max = 64,
	 .help = "senders, and as many receivers, per group"},
	{.name = "msg", .type = OPT_SIZE, LOAD_KEY(msg), .def = "100", .min = 1, .max = 64 * KIB,
	 .help = "message size"},
	{.name = "socket", .type = OPT_FLAG, LOAD_KEY(socket), .def = "0",
	 .help = "unix stream sockets instead of pipes"},
	{.name = "tasks", .type = OPT_ENUM, LOAD_KEY(tasks), .def = "process", .choices = pipe_tasks,
	 .help = "workers are processes or threads"},
	{0},
};

static int pipe_finish(struct load_spec *s, struct err *e)
{
	if (s->groups * s->fds * 2 > LOAD_MAX_TASKS)
		return err_set(e, EXIT_USAGE, "groups=%lld x fds=%lld makes %lld workers (at most %d: "
			       "groups x fds x 2)", (long long)s->groups, (long long)s->fds,
			       (long long)(s->groups * s->fds * 2), LOAD_MAX_TASKS);
	return 0;
}

struct pipe_state {
	int *rd, *wr;   /* per receiver: the end it reads, the end all its group's senders write */
};

/* Every sender writes one message to every receiver of its group in turn (as hackbench). */
static void pipe_sender(struct load_ctx *c, int slot, void *arg)
{
	const struct pipe_state *ps = c->priv;
	int group = (int)(intptr_t)arg;
	size_t msg = (size_t)c->s->msg;
	char *buf = calloc(1, msg);
	if (!buf) {
		load_fail(c, "out of memory");
		return;
	}
	for (;;) {
		for (int r = 0; r < c->s->fds; r++) {
			int fd = ps->wr[group * c->s->fds + r];
			for (size_t done = 0; done < msg;) {
				ssize_t n = write(fd, buf + done, msg - done);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					load_fail(c, "sender: write: %s", strerror(errno));
					return;
				}
				done += (size_t)n;
			}
		}
	}
}

static void pipe_receiver(struct load_ctx *c, int slot, void *arg)
{
	const struct pipe_state *ps = c->priv;
	int fd = ps->rd[(int)(intptr_t)arg];
	size_t msg = (size_t)c->s->msg;
	uint64_t pending = 0;
	char *buf = malloc(msg);
	if (!buf) {
		load_fail(c, "out of memory");
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf, msg);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			load_fail(c, "receiver: read: %s", n ? strerror(errno) : "end of file");
			return;
		}
		pending += (uint64_t)n;
		load_count(c, slot, pending / msg, (uint64_t)n);
		pending %= msg;
	}
}

static int pipe_start(struct load_ctx *c)
{
	const struct load_spec *s = c->s;
	int n = (int)(s->groups * s->fds);
	struct pipe_state *ps = calloc(1, sizeof(*ps));
	if (!ps || !(ps->rd = calloc((size_t)n, sizeof(int))) || !(ps->wr = calloc((size_t)n, sizeof(int))))
		return load_fail(c, "out of memory");
	c->priv = ps;
	for (int i = 0; i < n; i++) {
		int fds[2];
		if (s->socket ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)
			      : pipe2(fds, O_CLOEXEC))
			return load_fail(c, "cannot create %s %d of %d: %s (raise the open-file limit?)",
					 s->socket ? "socket pair" : "pipe", i + 1, n, strerror(errno));
		ps->rd[i] = fds[0];
		ps->wr[i] = fds[1];
	}
	int (*spawn)(struct load_ctx *, const char *, load_worker_fn, void *) =
		s->tasks == LOAD_TASKS_THREAD ? load_spawn_thread : load_spawn_process;
	for (int i = 0; i < n; i++)
		if (spawn(c, "receiver", pipe_receiver, (void *)(intptr_t)i) < 0)
			return -1;
	for (int g = 0; g < s->groups; g++)
		for (int i = 0; i < s->fds; i++)
			if (spawn(c, "sender", pipe_sender, (void *)(intptr_t)g) < 0)
				return -1;
	return 0;
}

/* ---------------------------------------------------------------- fork */

static const struct opt fork_keys[] = {
	{.name = "procs", .type = OPT_INT, LOAD_KEY(workers), .min = 1, .max = 256,
	 .help = "threads forking and reaping children in a loop (default: one per online CPU)"},
	{.name = "exec", .type = OPT_FLAG, LOAD_KEY(exec), .def = "0",
	 .help = "each child execs /bin/true instead of exiting at once"},
	{0},
};

static int fork_finish(struct load_spec *s, struct err *e)
{
	if (!load_key_given(s, "procs"))
		s->workers = load_online_cpus();
	if (s->exec && access("/bin/true", X_OK))
		return err_set(e, EXIT_USAGE, "exec=1 needs /bin/true: %s (exec=0)", strerror(errno));
	return 0;
}

static void fork_worker(struct load_ctx *c, int slot, void *arg)
{
	for (;;) {
		pid_t pid = fork();
		if (pid == 0) {
			if (c->s->exec)
				execl("/bin/true", "true", (char *)NULL);
			_exit(c->s->exec ? 127 : 0);
		}
		if (pid < 0) {
			load_count_error(c);   /* EAGAIN at the process limit: back off */
			load_sleep_until(mono_ns() + 10 * NSEC_PER_MSEC);
			continue;
		}
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			load_count(c, slot, 1, 0);
		else
			load_count_error(c);
	}
}

static int fork_start(struct load_ctx *c)
{
	for (int i = 0; i < c->s->workers; i++)
		if (load_spawn_thread(c, "fork", fork_worker, NULL) < 0)
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- io */

static const struct opt io_keys[] = {
	{.name = "threads", .type = OPT_INT, LOAD_KEY(workers), .def = "1", .min = 1, .max = 64,
	 .help = "threads, each with its own file"},
	{.name = "size", .type = OPT_SIZE, LOAD_KEY(size), .def = "64M", .min = 4 * KIB, .max = 4 * GIB,
	 .help = "file size per thread"},
	{.name = "bs", .type = OPT_SIZE, LOAD_KEY(bs), .def = "1M", .min = 512, .max = 16 * MIB,
	 .help = "block size of every read and write"},
	{.name = "dir", .type = OPT_STRING, LOAD_KEY(dir), .size = LOAD_PATHLEN, .def = "/var/tmp",
	 .help = "where the temporary directory is made"},
	{.name = "drop", .type = OPT_FLAG, LOAD_KEY(drop), .def = "1",
	 .help = "drop the file's cached pages after fsync, so reads go to the device"},
	{0},
};

static int io_finish(struct load_spec *s, struct err *e)
{
	char a[32], b[32];
	if (s->bs > s->size)
		return err_set(e, EXIT_USAGE, "bs=%s exceeds size=%s (a block size up to the file size)",
			       units_format_size(a, sizeof(a), s->bs), units_format_size(b, sizeof(b), s->size));
	return 0;
}

static int io_room(const struct load_spec *s, struct err *e)
{
	return check_disk(s, s->size * s->workers, "files", e);
}

struct io_state {
	int fds[64];
};

static int64_t backoff_error(struct load_ctx *c)
{
	load_count_error(c);
	load_sleep_until(mono_ns() + 100 * NSEC_PER_MSEC);   /* ENOSPC, EIO: do not spin */
	return -1;
}

/* Write the whole file, fsync, (drop its cache,) read it back; repeat. */
static void io_worker(struct load_ctx *c, int slot, void *arg)
{
	const struct load_spec *s = c->s;
	int fd = ((struct io_state *)c->priv)->fds[(int)(intptr_t)arg];
	size_t bs = (size_t)s->bs;
	unsigned char *buf = aligned_alloc(4096, (bs + 4095) / 4096 * 4096);
	if (!buf) {
		load_fail(c, "out of memory");
		return;
	}
	for (size_t i = 0; i < bs; i++)
		buf[i] = (unsigned char)(i * 131 + (size_t)slot);
	for (;;) {
		bool ok = true;
		for (int64_t off = 0; off < s->size && ok; off += s->bs) {
			size_t len = (size_t)(s->size - off < s->bs ? s->size - off : s->bs);
			ssize_t n = pwrite(fd, buf, len, off);
			if (n < 0)
				ok = backoff_error(c) == 0;
			else
				load_count(c, slot, 1, (uint64_t)n);
		}
		if (fsync(fd))
			ok = backoff_error(c) == 0;
		if (s->drop)
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		for (int64_t off = 0; off < s->size && ok; off += s->bs) {
			ssize_t n = pread(fd, buf, bs, off);
			if (n < 0)
				ok = backoff_error(c) == 0;
			else
				load_count(c, slot, 1, (uint64_t)n);
		}
	}
}

static int io_start(struct load_ctx *c)
{
	struct io_state *st = calloc(1, sizeof(*st));
	if (!st)
		return load_fail(c, "out of memory");
	c->priv = st;
	if (load_open_tmpfiles(c, (int)c->s->workers, st->fds))
		return -1;
	for (int i = 0; i < c->s->workers; i++)
		if (load_spawn_thread(c, "io", io_worker, (void *)(intptr_t)i) < 0)
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- compile */

#define COMPILE_SOURCE (1 * MIB)   /* "headers and source" every unit reads (page cache) */
#define COMPILE_LINK_EVERY 8       /* every so many units a job fsyncs its output */

static const struct opt compile_keys[] = {
	{.name = "jobs", .type = OPT_INT, LOAD_KEY(workers), .min = 1, .max = 256,
	 .help = "parallel jobs, as make -j (default: CPUs + 1)"},
	{.name = "unit", .type = OPT_DURATION, LOAD_KEY(unit_ns), .def = "50ms", .min = NSEC_PER_MSEC, .max = 10 * NSEC_PER_SEC,
	 .help = "mean CPU time of one compilation unit (each is 0.5 to 1.5 times it)"},
	{.name = "size", .type = OPT_SIZE, LOAD_KEY(size), .def = "256K", .min = 0, .max = 64 * MIB,
	 .help = "object bytes each unit writes"},
	{.name = "dir", .type = OPT_STRING, LOAD_KEY(dir), .size = LOAD_PATHLEN, .def = "/var/tmp",
	 .help = "where the temporary directory is made"},
	{0},
};

static int compile_finish(struct load_spec *s, struct err *e)
{
	if (!load_key_given(s, "jobs"))
		s->workers = load_online_cpus() + 1;
	return 0;
}

static int compile_room(const struct load_spec *s, struct err *e)
{
	return check_disk(s, s->size * s->workers + COMPILE_SOURCE, "source and object files", e);
}

struct compile_state {
	int fds[257];   /* [0] the source, [1 + job] each job's object file */
};

/* One compilation unit, in a fresh process: read the sources, compute, write the object. */
static _Noreturn void compile_unit(const struct load_spec *s, int src, int obj, int64_t cpu_ns,
				   unsigned char *buf, size_t buflen)
{
	uint64_t x = (uint64_t)cpu_ns | 1;
	for (int64_t off = 0; off < COMPILE_SOURCE; off += (int64_t)buflen)
		if (pread(src, buf, buflen, off) < 0)
			_exit(1);
	while (clock_ns(CLOCK_PROCESS_CPUTIME_ID) < cpu_ns)
		for (int i = 0; i < 10; i++)
			x = spin_loop(x);
	memcpy(buf, &x, sizeof(x));
	if (ftruncate(obj, 0))
		_exit(1);
	for (int64_t off = 0; off < s->size; off += (int64_t)buflen) {
		size_t len = (size_t)(s->size - off) < buflen ? (size_t)(s->size - off) : buflen;
		if (pwrite(obj, buf, len, off) < 0)
			_exit(1);
	}
	_exit(0);
}

static void compile_job(struct load_ctx *c, int slot, void *arg)
{
	const struct load_spec *s = c->s;
	const struct compile_state *st = c->priv;
	int job = (int)(intptr_t)arg, src = st->fds[0], obj = st->fds[1 + job];
	size_t buflen = 64 * KIB;
	unsigned char *buf = calloc(1, buflen);
	uint64_t rng = 0x2545F4914F6CDD1Dull * (uint64_t)(job + 1), units = 0;
	if (!buf) {
		load_fail(c, "out of memory");
		return;
	}
	for (;;) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		int64_t cpu = s->unit_ns / 2 + (int64_t)(rng % (uint64_t)s->unit_ns);
		pid_t pid = fork();
		if (pid == 0)
			compile_unit(s, src, obj, cpu, buf, buflen);
		if (pid < 0) {
			backoff_error(c);
			continue;
		}
		int wst;
		while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(wst) || WEXITSTATUS(wst)) {
			backoff_error(c);
			continue;
		}
		load_count(c, slot, 1, (uint64_t)(COMPILE_SOURCE + s->size));
		if (++units % COMPILE_LINK_EVERY == 0 && fsync(obj))
			load_count_error(c);
	}
}

static int compile_start(struct load_ctx *c)
{
	const struct load_spec *s = c->s;
	struct compile_state *st = calloc(1, sizeof(*st));
	if (!st)
		return load_fail(c, "out of memory");
	c->priv = st;
	if (load_open_tmpfiles(c, (int)s->workers + 1, st->fds))
		return -1;
	unsigned char *chunk = calloc(1, 64 * KIB);
	if (!chunk)
		return load_fail(c, "out of memory");
	for (int64_t off = 0; off < COMPILE_SOURCE; off += 64 * KIB)
		if (pwrite(st->fds[0], chunk, 64 * KIB, off) < 0)
			return load_fail(c, "cannot write the source file: %s", strerror(errno));
	free(chunk);
	for (int i = 0; i < s->workers; i++)
		if (load_spawn_thread(c, "job", compile_job, (void *)(intptr_t)i) < 0)
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- cmd */

#define CMD_FAIL_PAUSE (100 * NSEC_PER_MSEC)   /* a failing command is not restarted faster */

static const struct opt cmd_keys[] = {
	{.name = "cmd", .type = OPT_REST, LOAD_KEY(cmd), .size = LOAD_TEXTLEN,
	 .help = "the command, run by /bin/sh -c with its output on /dev/null"},
	{.name = "delay", .type = OPT_DURATION, LOAD_KEY(delay_ns), .def = "0ns", .min = 0, .max = 3600 * NSEC_PER_SEC,
	 .help = "pause before each restart (at least 100ms after a failed run)"},
	{0},
};

static int cmd_finish(struct load_spec *s, struct err *e)
{
	if (!s->cmd[0])
		return err_set(e, EXIT_USAGE, "cmd= is missing (the command to run, e.g. cmd:cmd=make -j4)");
	return 0;
}

struct cmd_state {
	pid_t pid;           /* the running command, 0 between runs */
	int slot;
	int64_t restart_at;
};

/* Starts the command; returns its pid, or -1 with why (exec failed, policy refused). */
static pid_t cmd_spawn(struct load_ctx *c, char *why, size_t len)
{
	int ep[2];
	why[0] = 0;
	if (pipe2(ep, O_CLOEXEC)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char msg[200];
		sigset_t none;
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		close(ep[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != c->wpid)
			_exit(127);
		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);   /* SIG_IGN would survive exec */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
		if (load_apply_sched(c->s, msg, sizeof(msg)) == 0) {
			execl("/bin/sh", "sh", "-c", c->s->cmd, (char *)NULL);
			snprintf(msg, sizeof(msg), "cannot run /bin/sh: %s", strerror(errno));
		}
		if (write(ep[1], msg, strlen(msg)) < 0)
			_exit(126);
		_exit(127);
	}
	close(ep[1]);
	if (pid < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		close(ep[0]);
		return -1;
	}
	ssize_t n;
	while ((n = read(ep[0], why, len - 1)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (n > 0) {   /* the exec did not happen; the child exits, reaped in cmd_tick */
		why[n] = 0;
		return -1;
	}
	why[0] = 0;
	return pid;
}

static int64_t cmd_tick(struct load_ctx *c, int64_t now, bool child_exited)
{
	struct cmd_state *st = c->priv;
	char why[200];
	pid_t pid;
	int wst;
	while ((pid = waitpid(-1, &wst, WNOHANG)) > 0) {
		if (pid != st->pid)
			continue;   /* a failed start's child */
		bool ok = WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
		if (ok)
			load_count(c, st->slot, 1, 0);
		else
			load_count_error(c);
		st->pid = 0;
		st->restart_at = now + (!ok && c->s->delay_ns < CMD_FAIL_PAUSE ? CMD_FAIL_PAUSE : c->s->delay_ns);
	}
	if (!st->pid && now >= st->restart_at) {
		st->pid = cmd_spawn(c, why, sizeof(why));
		if (st->pid < 0) {
			st->pid = 0;
			load_count_error(c);
			st->restart_at = now + CMD_FAIL_PAUSE;
		} else {
			c->shm->slot[st->slot].pid = st->pid;
			c->shm->slot[st->slot].tid = st->pid;
		}
	}
	return st->pid ? INT64_MAX : st->restart_at;
}

static int cmd_start(struct load_ctx *c)
{
	char why[200];
	struct cmd_state *st = calloc(1, sizeof(*st));
	if (!st)
		return load_fail(c, "out of memory");
	c->priv = st;
	st->pid = cmd_spawn(c, why, sizeof(why));
	if (st->pid < 0)
		return load_fail(c, "%s", why);
	st->slot = load_add_slot(c, "cmd", st->pid);
	return st->slot < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- the table */

const struct load_type load_types[] = {
	{"cpu", "busy threads, or a load average to keep", cpu_keys, "loops", NULL,
	 cpu_finish, NULL, cpu_start, NULL, "threads"},
	{"mem", "stream through a buffer per thread", mem_keys, "accesses", "swept",
	 mem_finish, mem_room, mem_start, NULL, "threads"},
	{"pipe", "hackbench: groups of senders and receivers over pipes or unix sockets", pipe_keys,
	 "messages", "received", pipe_finish, NULL, pipe_start, NULL, "groups"},
	{"fork", "a process-creation storm", fork_keys, "forks", NULL, fork_finish, NULL, fork_start, NULL, "procs"},
	{"io", "write + fsync and read back a bounded unnamed file per thread", io_keys, "blocks",
	 "written and read", io_finish, io_room, io_start, NULL, "threads"},
	{"compile", "make -j: processes that read, compute and write, like a kernel build",
	 compile_keys, "units", "read and written", compile_finish, compile_room, compile_start, NULL, "jobs"},
	{"cmd", "a user command, restarted while the run lasts", cmd_keys, "runs", NULL, cmd_finish,
	 NULL, cmd_start, cmd_tick, NULL},
};
const int load_ntypes = (int)(sizeof(load_types) / sizeof(load_types[0]));
