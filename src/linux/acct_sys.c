/* The system context of a run window: PSI, /proc/stat CPU times and context switches, the load
 * average and cgroup CPU throttling; the "noisy" verdict; and finding a process's cpu cgroup.
 * docs/accounting.md explains each number and the noise thresholds. */
#include "linux/acct.h"
#include "linux/acct_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- readers --------------------------------------------------------------------------- */

/* Reads a file line by line; returns NULL when it cannot be opened. */
static FILE *open_sys(const char *rel)
{
	char path[512];
	if (sysroot_path(path, sizeof(path), "%s", rel))
		return NULL;
	return fopen(path, "re");
}

/* "some avg10=4.93 avg60=1.28 avg300=0.43 total=2719184" (total in us). */
static void parse_psi_line(const char *line, const char *kind, struct acct_psi_line *p)
{
	size_t k = strlen(kind);
	if (strncmp(line, kind, k) || line[k] != ' ')
		return;
	double a10, a60, a300;
	long long total;
	if (sscanf(line + k, " avg10=%lf avg60=%lf avg300=%lf total=%lld", &a10, &a60, &a300, &total) != 4 ||
	    total < 0)
		return;
	p->present = true;
	p->avg10 = a10;
	p->avg60 = a60;
	p->avg300 = a300;
	p->total_ns = (int64_t)total * 1000;
}

static void read_psi(struct acct_sys *s)
{
	FILE *f = open_sys("/proc/pressure/cpu");
	if (!f)
		return;  /* no CONFIG_PSI, or psi=0 */
	char *line = NULL;
	size_t cap = 0;
	/* With PSI disabled at boot the file may exist but reading fails (EOPNOTSUPP). */
	while (getline(&line, &cap, f) > 0) {
		parse_psi_line(line, "some", &s->psi_some);
		parse_psi_line(line, "full", &s->psi_full);
	}
	free(line);
	fclose(f);
}

/* "cpu  user nice system idle iowait irq softirq steal guest guest_nice" in USER_HZ ticks;
 * old kernels have fewer columns (missing ones read as 0). Returns 0 on a cpu line. */
static int parse_cpu_line(const char *line, struct acct_cputimes *c)
{
	if (strncmp(line, "cpu", 3))
		return -1;
	const char *p = line + 3;
	memset(c, 0, sizeof(*c));
	c->cpu = -1;
	if (*p >= '0' && *p <= '9') {
		int64_t n = acct_parse_u(&p);
		if (n < 0 || n > 1 << 20)
			return -1;
		c->cpu = (int)n;
	}
	if (*p != ' ')
		return -1;
	int64_t *field[] = {&c->user, &c->nice, &c->system, &c->idle, &c->iowait,
			    &c->irq, &c->softirq, &c->steal, &c->guest, &c->guest_nice};
	int64_t tick = acct_tick_ns();
	int got = 0;
	for (int i = 0; i < 10; i++) {
		int64_t v = acct_parse_u(&p);
		if (v < 0)
			break;
		*field[i] = v * tick;
		got++;
	}
	return got >= 4 ? 0 : -1;  /* user nice system idle are always there */
}

static int read_stat(struct acct_sys *s, struct err *e)
{
	FILE *f = open_sys("/proc/stat");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	int pcap = 0, rc = 0;
	while (getline(&line, &cap, f) > 0) {
		struct acct_cputimes c;
		const char *p;
		if (parse_cpu_line(line, &c) == 0) {
			if (c.cpu < 0) {
				s->total = c;
				s->have_stat = true;
				continue;
			}
			ARRAY_GROW(s->percpu, s->npercpu + 1, pcap);
			s->percpu[s->npercpu++] = c;
		} else if (!strncmp(line, "ctxt ", 5)) {
			p = line + 5;
			s->ctxt = acct_parse_u(&p);
		} else if (!strncmp(line, "procs_running ", 14)) {
			p = line + 14;
			s->procs_running = acct_parse_u(&p);
		}
	}
	free(line);
	fclose(f);
	return rc;
}

static void read_loadavg(struct acct_sys *s)
{
	char path[512], buf[256];
	if (sysroot_path(path, sizeof(path), "/proc/loadavg") || acct_slurp(path, buf, sizeof(buf)) < 0)
		return;
	long long run, all;
	if (sscanf(buf, "%lf %lf %lf %lld/%lld", &s->load1, &s->load5, &s->load15, &run, &all) != 5)
		return;
	s->have_loadavg = true;
	s->sched_runnable = run;
	s->sched_threads = all;
}

/* cpu.stat of a v1 or v2 cpu cgroup; v1 keeps throttled time in ns, v2 in us. */
static void read_cgroup(struct acct_cgroup *c)
{
	char rel[600];
	c->nr_periods = c->nr_throttled = c->throttled_ns = c->usage_ns = -1;
	snprintf(rel, sizeof(rel), "%s/cpu.stat", c->path);
	FILE *f = open_sys(rel);
	if (!f)
		return;
	char key[64];
	long long v;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%63s %lld", key, &v) != 2 || v < 0)
			continue;
		c->present = true;
		if (!strcmp(key, "nr_periods"))
			c->nr_periods = v;
		else if (!strcmp(key, "nr_throttled"))
			c->nr_throttled = v;
		else if (!strcmp(key, "throttled_time"))
			c->throttled_ns = v, c->version = 1;
		else if (!strcmp(key, "throttled_usec"))
			c->throttled_ns = v * 1000, c->version = 2;
		else if (!strcmp(key, "usage_usec"))
			c->usage_ns = v * 1000, c->version = 2;
	}
	free(line);
	fclose(f);
	if (c->version == 1) {  /* v1: usage lives in cpuacct, present when co-mounted */
		char path[700], buf[64];
		snprintf(rel, sizeof(rel), "%s/cpuacct.usage", c->path);
		const char *p = buf;
		if (!sysroot_path(path, sizeof(path), "%s", rel) && acct_slurp(path, buf, sizeof(buf)) > 0)
			c->usage_ns = acct_parse_u(&p);
	}
}

int acct_sys_snap(struct acct_sys *s, const char *const *cgroups, int ncg, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->ctxt = s->procs_running = -1;
	s->at_ns = clock_ns(CLOCK_MONOTONIC);
	read_psi(s);
	if (read_stat(s, e) < 0)
		goto fail;
	read_loadavg(s);
	if (ncg > 0) {
		s->cg = calloc((size_t)ncg, sizeof(*s->cg));
		if (!s->cg) {
			err_set(e, EXIT_RUNTIME, "acct: out of memory");
			goto fail;
		}
		s->ncg = ncg;
		for (int i = 0; i < ncg; i++) {
			snprintf(s->cg[i].path, sizeof(s->cg[i].path), "%s", cgroups[i]);
			read_cgroup(&s->cg[i]);
		}
	}
	return 0;
fail:
	acct_sys_free(s);
	return -1;
}

void acct_sys_free(struct acct_sys *s)
{
	free(s->percpu);
	free(s->cg);
	memset(s, 0, sizeof(*s));
}

/* ---- delta ----------------------------------------------------------------------------- */

static int64_t d0(int64_t a, int64_t b)
{
	/* Counters never go backwards, except per-CPU iowait (a known kernel quirk): clamp. */
	return b > a ? b - a : 0;
}

static void cpu_delta(struct acct_cputimes *d, const struct acct_cputimes *a,
		      const struct acct_cputimes *b)
{
	d->cpu = b->cpu;
	d->user = d0(a->user, b->user);
	d->nice = d0(a->nice, b->nice);
	d->system = d0(a->system, b->system);
	d->idle = d0(a->idle, b->idle);
	d->iowait = d0(a->iowait, b->iowait);
	d->irq = d0(a->irq, b->irq);
	d->softirq = d0(a->softirq, b->softirq);
	d->steal = d0(a->steal, b->steal);
	d->guest = d0(a->guest, b->guest);
	d->guest_nice = d0(a->guest_nice, b->guest_nice);
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

int acct_sys_delta(struct acct_sys_delta *d, const struct acct_sys *a, const struct acct_sys *b,
		   struct err *e)
{
	memset(d, 0, sizeof(*d));
	d->wall_ns = b->at_ns > a->at_ns ? b->at_ns - a->at_ns : 0;
	d->ctxt = -1;
	if (a->have_stat && b->have_stat) {
		d->have_stat = true;
		cpu_delta(&d->cpu, &a->total, &b->total);
		const struct acct_cputimes *c = &d->cpu;
		d->busy_ns = c->user + c->nice + c->system + c->irq + c->softirq;
		d->cpu_total_ns = d->busy_ns + c->idle + c->iowait + c->steal;
		d->steal_pct = pct(c->steal, d->cpu_total_ns);
		if (b->npercpu) {
			d->percpu = calloc((size_t)b->npercpu, sizeof(*d->percpu));
			if (!d->percpu)
				return err_set(e, EXIT_RUNTIME, "acct: out of memory");
		}
		for (int i = 0; i < b->npercpu; i++)
			for (int j = 0; j < a->npercpu; j++)
				if (a->percpu[j].cpu == b->percpu[i].cpu) {  /* CPUs may come and go */
					cpu_delta(&d->percpu[d->npercpu++], &a->percpu[j], &b->percpu[i]);
					break;
				}
	}
	if (a->ctxt >= 0 && b->ctxt >= 0) {
		d->ctxt = d0(a->ctxt, b->ctxt);
		d->ctxt_per_s = d->wall_ns ? (double)d->ctxt * 1e9 / (double)d->wall_ns : 0;
	}
	if (a->psi_some.present && b->psi_some.present) {
		d->have_psi_some = true;
		d->psi_some_ns = d0(a->psi_some.total_ns, b->psi_some.total_ns);
		d->psi_some_pct = pct(d->psi_some_ns, d->wall_ns);
		d->psi_some_avg10 = b->psi_some.avg10;
	}
	if (a->psi_full.present && b->psi_full.present) {
		d->have_psi_full = true;
		d->psi_full_ns = d0(a->psi_full.total_ns, b->psi_full.total_ns);
		d->psi_full_pct = pct(d->psi_full_ns, d->wall_ns);
		d->psi_full_avg10 = b->psi_full.avg10;
	}
	if (b->have_loadavg) {
		d->have_loadavg = true;
		d->load1 = b->load1;
		d->load5 = b->load5;
		d->load15 = b->load15;
	}
	if (b->ncg) {
		d->cg = calloc((size_t)b->ncg, sizeof(*d->cg));
		if (!d->cg) {
			acct_sys_delta_free(d);
			return err_set(e, EXIT_RUNTIME, "acct: out of memory");
		}
		d->ncg = b->ncg;
	}
	for (int i = 0; i < b->ncg; i++) {
		const struct acct_cgroup *y = &b->cg[i], *x = NULL;
		struct acct_cgroup_delta *c = &d->cg[i];
		snprintf(c->path, sizeof(c->path), "%s", y->path);
		c->nr_periods = c->nr_throttled = c->throttled_ns = c->usage_ns = -1;
		for (int j = 0; j < a->ncg && !x; j++)
			if (!strcmp(a->cg[j].path, y->path))
				x = &a->cg[j];
		if (!x || !x->present || !y->present)
			continue;
		c->present = true;
		if (x->nr_periods >= 0 && y->nr_periods >= 0)
			c->nr_periods = d0(x->nr_periods, y->nr_periods);
		if (x->nr_throttled >= 0 && y->nr_throttled >= 0)
			c->nr_throttled = d0(x->nr_throttled, y->nr_throttled);
		if (x->throttled_ns >= 0 && y->throttled_ns >= 0)
			c->throttled_ns = d0(x->throttled_ns, y->throttled_ns);
		if (x->usage_ns >= 0 && y->usage_ns >= 0)
			c->usage_ns = d0(x->usage_ns, y->usage_ns);
	}
	return 0;
}

void acct_sys_delta_free(struct acct_sys_delta *d)
{
	free(d->percpu);
	free(d->cg);
	memset(d, 0, sizeof(*d));
}

void acct_sys_delta_print(FILE *f, const struct acct_sys_delta *d)
{
	fprintf(f, "system over %.3f s:", (double)d->wall_ns / 1e9);
	if (d->have_stat)
		fprintf(f, " busy %.1f%%, steal %.2f%%", pct(d->busy_ns, d->cpu_total_ns), d->steal_pct);
	if (d->ctxt >= 0)
		fprintf(f, ", %.0f ctxsw/s", d->ctxt_per_s);
	if (d->have_psi_some)
		fprintf(f, ", psi cpu some %.1f%%", d->psi_some_pct);
	if (d->have_psi_full)
		fprintf(f, " full %.1f%%", d->psi_full_pct);
	if (!d->have_psi_some && !d->have_psi_full)
		fprintf(f, ", psi unavailable");
	if (d->have_loadavg)
		fprintf(f, ", loadavg %.2f %.2f %.2f", d->load1, d->load5, d->load15);
	fputc('\n', f);
	for (int i = 0; i < d->ncg; i++) {
		const struct acct_cgroup_delta *c = &d->cg[i];
		if (!c->present) {
			fprintf(f, "  cgroup %s: cpu.stat unreadable\n", c->path);
			continue;
		}
		fprintf(f, "  cgroup %s: throttled %lld of %lld periods, %.3f ms\n", c->path,
			(long long)c->nr_throttled, (long long)c->nr_periods,
			c->throttled_ns >= 0 ? (double)c->throttled_ns / 1e6 : -1.0);
	}
}

/* ---- noise ----------------------------------------------------------------------------- */

static void why_add(struct acct_noise *n, const char *fmt, double v, double limit)
{
	size_t len = strlen(n->why);
	snprintf(n->why + len, sizeof(n->why) - len, fmt, len ? "; " : "", v, limit);
}

void acct_noise_eval(struct acct_noise *n, const struct acct_sys_delta *d, bool loads_running,
		     int64_t accounted_used_ns)
{
	memset(n, 0, sizeof(*n));
	n->steal_pct = n->psi_some_pct = n->foreign_pct = -1;
	if (d->have_stat && d->cpu_total_ns > 0) {
		n->steal_pct = d->steal_pct;
		if (n->steal_pct > ACCT_NOISY_STEAL_PCT) {
			n->flags |= ACCT_NOISE_STEAL;
			why_add(n, "%ssteal %.1f%% of CPU time > %.0f%%", n->steal_pct, ACCT_NOISY_STEAL_PCT);
		}
		if (accounted_used_ns >= 0) {
			int64_t foreign = d->busy_ns - accounted_used_ns;
			n->foreign_pct = pct(foreign > 0 ? foreign : 0, d->cpu_total_ns);
			if (n->foreign_pct > ACCT_NOISY_FOREIGN_PCT) {
				n->flags |= ACCT_NOISE_FOREIGN;
				why_add(n, "%sother tasks used %.1f%% of CPU capacity > %.0f%%", n->foreign_pct,
					ACCT_NOISY_FOREIGN_PCT);
			}
		}
	}
	if (d->have_psi_some) {
		n->psi_some_pct = d->psi_some_pct;
		if (!loads_running && n->psi_some_pct > ACCT_NOISY_PSI_PCT) {
			n->flags |= ACCT_NOISE_PSI;
			why_add(n, "%scpu pressure %.1f%% without irt loads > %.0f%%", n->psi_some_pct,
				ACCT_NOISY_PSI_PCT);
		}
	}
}

/* ---- cgroups --------------------------------------------------------------------------- */

static bool has_token(const char *list, const char *tok)
{
	size_t k = strlen(tok);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == k && !strncmp(p, tok, k))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}

/* Mount point and mount root of the v1 hierarchy holding `controller`, or of cgroup2. */
static int find_mount(int version, const char *controller, char *mnt, size_t mlen, char *root,
		      size_t rlen)
{
	FILE *f = open_sys("/proc/self/mountinfo");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int rc = -1;
	while (rc < 0 && getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = 0;
		char r[1024], m[1024], fstype[64], src[256], sopts[1024];
		if (sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(sep + 3, "%63s %255s %1023s", fstype, src, sopts) != 3)
			continue;
		bool match = version == 2 ? !strcmp(fstype, "cgroup2")
					  : !strcmp(fstype, "cgroup") && has_token(sopts, controller);
		if (!match)
			continue;
		unescape(r);
		unescape(m);
		snprintf(mnt, mlen, "%s", m);
		snprintf(root, rlen, "%s", r);
		rc = 0;
	}
	free(line);
	fclose(f);
	return rc;
}

int acct_cgroup_of(pid_t pid, char *dir, size_t len, int *version, struct err *e)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "/proc/%d/cgroup", pid);
	FILE *f = open_sys(rel);
	if (!f)
		return err_set(e, EXIT_RUNTIME, "acct: %s: %s (process gone?)", rel, strerror(errno));
	char *line = NULL, v1[1024] = "", v2[1024] = "";
	bool have_v1 = false, have_v2 = false;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		/* hierarchy-id:controller-list:path */
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = 0;
		if (!strcmp(c1 + 1, "") && !strcmp(line, "0")) {
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
			have_v2 = true;
		} else if (has_token(c1 + 1, "cpu")) {
			snprintf(v1, sizeof(v1), "%s", c2 + 1);
			have_v1 = true;
		}
	}
	free(line);
	fclose(f);
	int ver = have_v1 ? 1 : 2;
	const char *path = have_v1 ? v1 : v2;
	if (!have_v1 && !have_v2)
		return err_set(e, EXIT_RUNTIME, "acct: %s: no cpu cgroup listed (cgroups not mounted?)", rel);
	char mnt[1024], root[1024];
	if (find_mount(ver, "cpu", mnt, sizeof(mnt), root, sizeof(root)) < 0)
		return err_set(e, EXIT_RUNTIME, "acct: no cgroup%s mount with the cpu controller in "
			       "/proc/self/mountinfo (mount it, or run irt in the host's mount namespace)",
			       ver == 2 ? "2" : " v1");
	/* The path is relative to the hierarchy root; the mount may show a subtree of it. */
	size_t rl = strlen(root);
	if (strcmp(root, "/") && !strncmp(path, root, rl) && (path[rl] == '/' || !path[rl]))
		path += rl;
	int n = snprintf(dir, len, "%s%s", mnt, strcmp(path, "/") ? path : "");
	if (n < 0 || (size_t)n >= len)
		return err_set(e, EXIT_RUNTIME, "acct: cgroup path too long");
	*version = ver;
	return 0;
}
