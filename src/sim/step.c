/* Step scripts: drive one policy op by op and check its decisions (format: docs/sim.md, "Step
 * scripts"; hwquota's rules: docs/hw-quota.md). Time advances only by `update C`; values are integer ticks. */
#include "sim/step.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "sim/workload.h"
#include "trust.h"
#include "units.h"
#include "util.h"

struct share_decl {
	char name[64];
	struct sim_thread_cfg cfg;
	struct sthread t;
	bool exists, ready;
};

struct stepper {
	const char *path;
	int line;
	FILE *out;
	struct sim_cfg cfg;
	struct policy pol;
	bool have_policy;
	int64_t clock;
	struct share_decl **shares;  /* each allocated once: the policy keeps pointers */
	int nshares, cap;
	int next_id;
};

#define MAXTOK 32

static int bad(struct stepper *st, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct stepper *st, struct err *e, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(e, EXIT_USAGE, "%s:%d: %s", st->path, st->line, msg);
}

static struct share_decl *find_share(struct stepper *st, const char *name)
{
	for (int i = 0; i < st->nshares; i++)
		if (strcmp(st->shares[i]->name, name) == 0)
			return st->shares[i];
	return NULL;
}

static int parse_ticks(const char *s, int64_t *v)
{
	return units_parse_int(s, v) || *v < 0 ? -1 : 0;
}

/* Sets o's field in base from a script value: a count or a priority through the option
 * table (its range, as a workload file checks it), a time as whole ticks. */
static int set_value(struct stepper *st, const struct opt *o, void *base, const char *key, const char *v,
                     struct err *e)
{
	int64_t x;
	if (o->type == OPT_INT) {
		if (opt_set(o, base, v, key, e) == 0)
			return 0;
		err_prefix(e, "%s:%d", st->path, st->line);
		return -1;
	}
	if (parse_ticks(v, &x))
		return bad(st, e, "%s: '%s' is not a whole number of ticks", key, v);
	*(int64_t *)((char *)base + o->offset) = x;
	return 0;
}

/* Splits "key=value"; returns the value or NULL. */
static char *split_kv(char *tok)
{
	char *eq = strchr(tok, '=');
	if (!eq)
		return NULL;
	*eq = 0;
	return eq + 1;
}

static void list_keys(const char *const *keys, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; keys && keys[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", keys[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
}

static int do_policy(struct stepper *st, char **tok, int n, struct err *e)
{
	if (st->have_policy)
		return bad(st, e, "a second 'policy' line (a script drives one policy)");
	if (n < 2)
		return bad(st, e, "policy: missing name (expected one of hwquota, rr, cfsbw, edf, fair, bvt)");
	const struct policy_ops *ops = policy_find(tok[1]);
	if (!ops)
		return bad(st, e, "unknown policy '%s' (expected one of hwquota, rr, cfsbw, edf, fair, bvt)", tok[1]);
	if (ops->schedsim)
		return bad(st, e, "policy %s runs schedsim's job-level model, which has no step ops (expected one of hwquota, rr, cfsbw, edf, fair, bvt)",
		           tok[1]);
	memset(&st->cfg, 0, sizeof(st->cfg));
	opt_defaults(SCOPE_SIM, &st->cfg);
	for (int i = 2; i < n; i++) {
		char *v = split_kv(tok[i]);
		char key[64], keys[256];
		sim_key_normalize(tok[i], key, sizeof(key));
		const struct opt *o = sim_opt_find(SCOPE_SIM, key);
		if (!v)
			return bad(st, e, "'%s' is not key=value", tok[i]);
		if (!o || !policy_reads(ops->sim_keys, key)) {
			list_keys(ops->sim_keys, keys, sizeof(keys));
			return bad(st, e, "'%s' is not a parameter of policy %s (its parameters: %s)", key, ops->name, keys);
		}
		if (set_value(st, o, &st->cfg, key, v, e))
			return -1;
	}
	for (int i = 0; i < sim_npolicies; i++)
		if (sim_policies[i] == ops)
			st->cfg.policy = i;
	if (policy_init(&st->pol, ops, &st->cfg, e)) {
		err_prefix(e, "%s:%d", st->path, st->line);
		e->code = EXIT_USAGE;
		return -1;
	}
	st->have_policy = true;
	return 0;
}

static int do_share(struct stepper *st, char **tok, int n, struct err *e)
{
	if (n < 2)
		return bad(st, e, "share: missing name");
	if (strcmp(tok[1], "idle") == 0)
		return bad(st, e, "share: 'idle' names the idle share");
	if (strlen(tok[1]) >= sizeof(((struct share_decl *)0)->name))
		return bad(st, e, "share: name too long");
	if (find_share(st, tok[1]))
		return bad(st, e, "share %s is declared twice", tok[1]);
	if (err_has_control(tok[1]))
		return bad(st, e, "share name '%s' holds a control character (expected printable text)", tok[1]);
	ARRAY_GROW(st->shares, st->nshares + 1, st->cap);
	struct share_decl *d = xcalloc(1, sizeof(*d));
	st->shares[st->nshares++] = d;
	snprintf(d->name, sizeof(d->name), "%s", tok[1]);
	opt_defaults(SCOPE_SIM_THREAD, &d->cfg);
	for (int i = 2; i < n; i++) {
		char *v = split_kv(tok[i]);
		char key[64], keys[256];
		sim_key_normalize(tok[i], key, sizeof(key));
		const struct opt *o = sim_opt_find(SCOPE_SIM_THREAD, key);
		if (!v)
			return bad(st, e, "'%s' is not key=value", tok[i]);
		if (!o || !policy_reads(st->pol.ops->thread_keys, key)) {
			list_keys(st->pol.ops->thread_keys, keys, sizeof(keys));
			return bad(st, e, "'%s' is not a share parameter of policy %s (its parameters: %s)", key,
			           st->pol.ops->name, keys);
		}
		if (o->type == OPT_STRING && strcmp(key, "quota") != 0) {   /* group = NAME */
			snprintf((char *)&d->cfg + o->offset, OPT_STRLEN, "%s", v);
			continue;
		}
		if (o->type == OPT_STRING) {   /* quota = TICKS */
			int64_t x;
			if (parse_ticks(v, &x))
				return bad(st, e, "%s: '%s' is not a whole number of ticks", key, v);
			d->cfg.quota_ns = x;
		} else if (set_value(st, o, &d->cfg, key, v, e)) {
			return -1;
		}
	}
	d->t.name = d->name;
	d->t.cfg = &d->cfg;
	return 0;
}

static struct share_decl *need_share(struct stepper *st, char **tok, int n, bool exists, struct err *e)
{
	if (n < 2) {
		bad(st, e, "%s: missing share name", tok[0]);
		return NULL;
	}
	struct share_decl *d = find_share(st, tok[1]);
	if (!d) {
		bad(st, e, "%s: share %s is not declared (declare it with 'share %s ...')", tok[0], tok[1], tok[1]);
		return NULL;
	}
	if (d->exists != exists) {
		bad(st, e, "%s: share %s %s", tok[0], tok[1], exists ? "does not exist (create it first)" : "exists already");
		return NULL;
	}
	return d;
}

static const char *head_name(const struct policy *p)
{
	const struct sthread *h = policy_head(p);
	return h ? h->name : "idle";
}

static void fmt_quantum(char *buf, size_t len, int64_t q)
{
	if (q == INT64_MAX)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%" PRId64, q);
}

/* Checks the "expect ..." clause (tokens after the op); check is the ready-check result or -1. */
static int check_expect(struct stepper *st, char **tok, int n, int check, struct err *e)
{
	char got[64], want[64];
	for (int i = 0; i < n; i++) {
		if (strcmp(tok[i], "true") == 0 || strcmp(tok[i], "false") == 0) {
			if (check < 0)
				return bad(st, e, "expect %s: only ready-check has a true/false result", tok[i]);
			if ((strcmp(tok[i], "true") == 0) != (check == 1)) {
				err_set(e, EXIT_RUNTIME, "%s:%d: expected %s, got %s", st->path, st->line, tok[i],
				        check ? "true" : "false");
				return 1;
			}
			continue;
		}
		char *key = tok[i], *v = split_kv(tok[i]);
		if (!v || !*v)
			return bad(st, e, "expect: '%s' is not head=NAME, quota=N, time=N, true or false", tok[i]);
		if (strcmp(key, "head") == 0) {
			snprintf(got, sizeof(got), "%s", head_name(&st->pol));
			snprintf(want, sizeof(want), "%s", v);
			if (strcmp(v, "idle") != 0 && !find_share(st, v))
				return bad(st, e, "expect head=%s: no such share", v);
		} else if (strcmp(key, "quota") == 0 || strcmp(key, "time") == 0) {
			int64_t x;
			if (strcmp(v, "inf") == 0)
				x = INT64_MAX;
			else if (parse_ticks(v, &x))
				return bad(st, e, "expect %s=%s: not a whole number", key, v);
			int64_t g = key[0] == 'q' ? policy_quantum(&st->pol) : st->pol.ops->time(&st->pol);
			fmt_quantum(got, sizeof(got), g);
			fmt_quantum(want, sizeof(want), x);
		} else {
			return bad(st, e, "expect: unknown check '%s' (expected head, quota, time, true or false)", key);
		}
		if (strcmp(got, want) != 0) {
			err_set(e, EXIT_RUNTIME, "%s:%d: expected %s=%s, got %s=%s", st->path, st->line, key, want, key, got);
			return 1;
		}
	}
	return 0;
}

static const char *const op_names = "policy, share, create, destroy, ready, unready, ready-check, yield, quota, update";

static int do_op(struct stepper *st, char **tok, int n, struct err *e)
{
	const char *op = tok[0];
	int nargs = n, check = -1;
	for (int i = 0; i < n; i++)
		if (strcmp(tok[i], "expect") == 0) {
			nargs = i;
			break;
		}
	if (strcmp(op, "policy") == 0)
		return nargs < n ? bad(st, e, "policy: no expect here") : do_policy(st, tok, n, e);
	if (!st->have_policy)
		return bad(st, e, "'%s' before the 'policy' line", op);
	if (strcmp(op, "share") == 0)
		return nargs < n ? bad(st, e, "share: no expect here") : do_share(st, tok, n, e);

	struct policy *p = &st->pol;
	struct share_decl *d = NULL;
	p->now = st->clock;
	if (strcmp(op, "create") == 0) {
		if (nargs != 2 || !(d = need_share(st, tok, nargs, false, e)))
			return e->code ? -1 : bad(st, e, "create: expected 'create NAME'");
		d->t.id = st->next_id++;
		if (p->ops->admit) {   /* with the shares that exist, as a workload's threads are admitted together */
			struct sthread **all = xcalloc((size_t)st->nshares, sizeof(*all));
			int m = 0;
			for (int i = 0; i < st->nshares; i++)
				if (st->shares[i]->exists || st->shares[i] == d)
					all[m++] = &st->shares[i]->t;
			int rc = p->ops->admit(&st->cfg, all, m, e);
			free(all);
			if (rc) {
				err_prefix(e, "%s:%d", st->path, st->line);
				return -1;
			}
		}
		policy_create(p, &d->t);
		d->exists = true;
		d->ready = false;
	} else if (strcmp(op, "destroy") == 0) {
		if (nargs != 2 || !(d = need_share(st, tok, nargs, true, e)))
			return e->code ? -1 : bad(st, e, "destroy: expected 'destroy NAME'");
		if (policy_head(p) == &d->t)
			return bad(st, e, "destroy: share %s is the head (unready it and update first)", d->name);
		policy_destroy(p, &d->t);
		d->exists = false;
	} else if (strcmp(op, "ready") == 0 || strcmp(op, "ready-check") == 0) {
		if (nargs != 2 || !(d = need_share(st, tok, nargs, true, e)))
			return e->code ? -1 : bad(st, e, "%s: expected '%s NAME'", op, op);
		if (d->ready)
			return bad(st, e, "%s: share %s is ready already", op, d->name);
		if (op[5])
			check = policy_ready_check(p, &d->t);
		else
			policy_ready(p, &d->t);
		d->ready = true;
	} else if (strcmp(op, "unready") == 0) {
		if (nargs != 2 || !(d = need_share(st, tok, nargs, true, e)))
			return e->code ? -1 : bad(st, e, "unready: expected 'unready NAME'");
		if (!d->ready)
			return bad(st, e, "unready: share %s is not ready", d->name);
		policy_unready(p, &d->t);
		d->ready = false;
	} else if (strcmp(op, "yield") == 0) {
		if (nargs != 1)
			return bad(st, e, "yield takes no arguments");
		policy_yield(p);
	} else if (strcmp(op, "quota") == 0) {
		int64_t q;
		if (!p->ops->quota)
			return bad(st, e, "quota: policy %s has no quota operation", p->ops->name);
		if (nargs != 3 || !(d = need_share(st, tok, 2, true, e)) || parse_ticks(tok[2], &q))
			return e->code ? -1 : bad(st, e, "quota: expected 'quota NAME TICKS'");
		p->ops->quota(p, &d->t, q);
	} else if (strcmp(op, "update") == 0) {
		int64_t c;
		if (nargs != 2 || parse_ticks(tok[1], &c))
			return bad(st, e, "update: expected 'update TICKS' (the time the head consumed)");
		if (c > INT64_MAX - st->clock)
			return bad(st, e, "update: the time would pass %" PRId64 " ticks (int64)", INT64_MAX);
		st->clock += c;
		p->now = st->clock;
		policy_update(p, c);
	} else {
		return bad(st, e, "unknown op '%s' (expected %s)", op, op_names);
	}

	char q[32];
	fmt_quantum(q, sizeof(q), policy_quantum(p));
	fprintf(st->out, "%d", st->line);
	for (int i = 0; i < nargs; i++)
		fprintf(st->out, " %s", tok[i]);
	if (check >= 0)
		fprintf(st->out, " -> %s", check ? "true" : "false");
	fprintf(st->out, " | head=%s quota=%s time=%" PRId64 "\n", head_name(p), q, p->ops->time(p));
	if (nargs < n) {
		if (nargs + 1 == n)
			return bad(st, e, "expect: nothing to check");
		return check_expect(st, tok + nargs + 1, n - nargs - 1, check, e);
	}
	return 0;
}

static void stepper_free(struct stepper *st)
{
	for (int i = 0; i < st->nshares; i++) {
		if (st->shares[i]->exists) {
			st->pol.now = st->clock;
			policy_destroy(&st->pol, &st->shares[i]->t);
		}
		free(st->shares[i]);
	}
	free(st->shares);
	policy_fini(&st->pol);
}

int step_run_file(FILE *in, const char *path, FILE *out, struct err *e)
{
	struct stepper st = {.path = path, .out = out};
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;
	while (getline(&buf, &cap, in) >= 0) {
		st.line++;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		char *tok[MAXTOK];
		int n = 0;
		for (char *s = strtok(buf, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
			if (n == MAXTOK) {
				rc = bad(&st, e, "more than %d words on a line", MAXTOK);
				break;
			}
			tok[n++] = s;
		}
		if (rc)
			break;
		if (n == 0)
			continue;
		rc = do_op(&st, tok, n, e);
		if (rc)
			break;
	}
	if (!rc && !st.have_policy)
		rc = err_set(e, EXIT_USAGE, "%s: no 'policy' line (a step script starts with: policy NAME key=value...)", path);
	free(buf);
	stepper_free(&st);
	fflush(out);
	return rc ? e->code : 0;
}

int step_run(const char *path, FILE *out, struct err *e)
{
	FILE *in = strcmp(path, "-") == 0 ? stdin : input_fopen(path, "step script", e);
	if (!in)
		return e->code ? e->code : (err_set(e, EXIT_USAGE, "%s: cannot open (%s)", path, strerror(errno)), EXIT_USAGE);
	int rc = step_run_file(in, path, out, e);
	if (in != stdin)
		fclose(in);
	return rc;
}
