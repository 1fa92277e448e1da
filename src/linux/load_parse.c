/* Load specs: the common keys, parsing TYPE[:key=value,...] into a struct load_spec,
 * and what irt reports and prints about a spec (settings, help). Runs in irt only; nothing
 * here starts a process. The load's processes: load_run.c; starting and stopping: load.c. */
#include "load_impl.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/sched.h"
#include "units.h"
#include "util.h"

const char *const load_policy_names[] = {"other", "batch", "idle", "fifo", "rr", NULL};

const struct opt load_common_keys[] = {
	{.name = "nice", .type = OPT_INT, LOAD_KEY(nice), .def = "0", .min = -20, .max = 19,
	 .help = "nice value of every worker"},
	{.name = "policy", .type = OPT_ENUM, LOAD_KEY(policy), .def = "other", .choices = load_policy_names,
	 .help = "scheduling policy of every worker"},
	{.name = "prio", .type = OPT_INT, LOAD_KEY(prio), .min = 1, .max = 99,
	 .help = "real-time priority with policy=fifo or rr (default 1)"},
	{.name = "cpus", .type = OPT_CPUS, LOAD_KEY(cpus_text), .size = sizeof(((struct load_spec *)0)->cpus_text),
	 .help = "CPUs the load may run on, e.g. 1 or 0-1,3 (default: all)"},
	{.name = "user", .type = OPT_STRING, LOAD_KEY(user), .size = sizeof(((struct load_spec *)0)->user),
	 .printable = true,
	 .help = "run the load as this user, a name or uid (root irt only: supplementary groups dropped, "
		 "then its group and uid set; unprivileged, only irt's own user; default: irt's own credentials)"},
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
	case OPT_STRING:   /* dir= of io and compile, and user= */
		snprintf(buf, len, "a %s shorter than %zu characters",
			 k->offset == offsetof(struct load_spec, user) ? "user name or uid" : "directory path", k->size);
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
	if (geteuid() != 0 && pw->pw_uid == geteuid()) {   /* the user irt runs as: a no-op */
		s->as_self = true;
		return 0;
	}
	if (geteuid() != 0)
		return err_set(e, EXIT_RUNTIME, "load '%s': user=%s needs root (irt runs a load as another "
			       "user only when it is root; drop user= to run it as yourself)", s->text, s->user);
	if (load_policy_is_rt(s->policy) || s->nice < 0)
		return err_set(e, EXIT_USAGE, "load '%s': user=%s with %s: the load gives up root's "
			       "privileges, which that needs (drop one of them)", s->text, s->user,
			       load_policy_is_rt(s->policy) ? "a real-time policy" : "a negative nice");
	s->uid = pw->pw_uid;
	s->gid = pw->pw_gid;
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
	if ((out->given & (1ull << prio_idx)) && !load_policy_is_rt(out->policy))
		return err_set(e, EXIT_USAGE, "load '%s': prio= applies only with policy=fifo or rr "
			       "(add policy=fifo, or drop prio=)", spec);
	if (load_policy_is_rt(out->policy) && !out->prio)
		out->prio = 1;
	/* the CPUs must exist here, as --cpus's (else the worker's affinity call fails at start) */
	snprintf(what, sizeof(what), "load '%s': cpus=%s", spec, out->cpus_text);
	if (out->cpus_text[0] && irt_parse_cpus(what, out->cpus_text, &out->cpus, e))
		return -1;
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
		if ((k->type == OPT_CPUS && !s->cpus_text[0]) || (!strcmp(k->name, "prio") && !load_policy_is_rt(s->policy)) ||
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
