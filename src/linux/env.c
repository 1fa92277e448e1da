/* Environment capture for the result record. Everything here is best effort: a field that
 * cannot be read stays empty, and the record says so rather than guessing. */
#include "linux/env.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <nettle/sha2.h>
#include <zlib.h>

#include "util.h"

#define CONFIG_MAX (8 << 20)   /* kernel configs are ~250 KB; refuse anything absurd */

/* copy with truncation (snprintf "%s" draws truncation warnings for fixed-size fields) */
static void set(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t lead = strspn(s, " \t");
	if (lead)
		memmove(s, s + lead, n - lead + 1);
}

/* First line of a small file, trimmed; -1 when unreadable or empty. */
static int read_line(const char *path, char *buf, size_t len)
{
	char full[4096];
	if (sysroot_path(full, sizeof(full), "%s", path))
		return -1;
	FILE *f = fopen(full, "r");
	if (!f)
		return -1;
	char line[1024];
	char *got = fgets(line, sizeof(line), f);
	fclose(f);
	if (!got)
		return -1;
	trim(line);
	if (!line[0])
		return -1;
	set(buf, len, line);
	return 0;
}

/* Whole (possibly gzipped: gzread reads plain files as they are) file; NULL if unreadable. */
static char *read_all(const char *path)
{
	char full[4096];
	if (sysroot_path(full, sizeof(full), "%s", path))
		return NULL;
	gzFile gz = gzopen(full, "rb");
	if (!gz)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	while (buf) {
		if (n + 1 >= cap) {
			if (cap >= CONFIG_MAX) {   /* not a kernel config: refuse */
				free(buf);
				buf = NULL;
				break;
			}
			ARRAY_GROW(buf, n + 2, cap);
		}
		int got = gzread(gz, buf + n, (unsigned)(cap - 1 - n));
		if (got < 0) {
			free(buf);
			buf = NULL;
		} else if (got == 0) {
			buf[n] = 0;
			break;
		} else {
			n += (size_t)got;
		}
	}
	gzclose(gz);
	return buf;
}

int env_parse_cpu_list(const char *s)
{
	int total = 0;
	while (*s && !isspace((unsigned char)*s)) {
		if (!isdigit((unsigned char)*s))
			return -1;
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			b = strtol(end + 1, &end, 10);
		}
		if (b < a || b - a > 1 << 20)
			return -1;
		total += (int)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -1;
	}
	return total > 0 ? total : -1;
}

/* Value of "CONFIG_X=" at a line start in config text, copied to val; 0 if found. */
static int config_value(const char *config, const char *name, char *val, size_t len)
{
	size_t nl = strlen(name);
	for (const char *p = config; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			const char *v = p + nl + 1;
			size_t vl = strcspn(v, "\n");
			snprintf(val, len, "%.*s", (int)vl, v);
			return 0;
		}
	}
	return -1;
}

static int config_yes(const char *config, const char *name)
{
	char v[8];
	return config_value(config, name, v, sizeof(v)) == 0 && strcmp(v, "y") == 0;
}

/* "preempt=full" on the kernel command line picks the boot mode of a dynamic kernel */
static int cmdline_preempt(const char *cmdline, char *mode, size_t len)
{
	for (const char *p = cmdline; p && *p;) {
		p += strspn(p, " \t\n");
		size_t wl = strcspn(p, " \t\n");
		if (wl > 8 && strncmp(p, "preempt=", 8) == 0) {
			snprintf(mode, len, "%.*s", (int)(wl - 8), p + 8);
			return 0;
		}
		p += wl;
	}
	return -1;
}

int env_from_config(const char *config, const char *cmdline, char *out, size_t len)
{
	char hz[32], mode[32] = "";
	out[0] = 0;
	if (config_yes(config, "CONFIG_PREEMPT_RT"))
		snprintf(out, len, "rt");
	else if (config_yes(config, "CONFIG_PREEMPT_DYNAMIC")) {
		/* the build-time default unless the boot command line chose another */
		if (cmdline_preempt(cmdline, mode, sizeof(mode))) {
			if (config_yes(config, "CONFIG_PREEMPT_LAZY"))
				snprintf(mode, sizeof(mode), "lazy");
			else if (config_yes(config, "CONFIG_PREEMPT"))
				snprintf(mode, sizeof(mode), "full");
			else if (config_yes(config, "CONFIG_PREEMPT_VOLUNTARY"))
				snprintf(mode, sizeof(mode), "voluntary");
			else if (config_yes(config, "CONFIG_PREEMPT_NONE"))
				snprintf(mode, sizeof(mode), "none");
		}
		snprintf(out, len, mode[0] ? "dynamic (%s)" : "dynamic", mode);
	} else if (config_yes(config, "CONFIG_PREEMPT_LAZY"))
		snprintf(out, len, "lazy");
	else if (config_yes(config, "CONFIG_PREEMPT"))
		snprintf(out, len, "full");
	else if (config_yes(config, "CONFIG_PREEMPT_VOLUNTARY"))
		snprintf(out, len, "voluntary");
	else if (config_yes(config, "CONFIG_PREEMPT_NONE"))
		snprintf(out, len, "none");
	if (config_value(config, "CONFIG_HZ", hz, sizeof(hz)) == 0) {
		int v = atoi(hz);
		return v > 0 && v <= 100000 ? v : 0;
	}
	return 0;
}

/* debugfs shows every mode with the current one in parentheses: "none voluntary (full) lazy" */
static int preempt_debugfs(char *out, size_t len)
{
	char line[256];
	if (read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line)))
		return -1;
	char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;
	if (!close || close == open + 1)
		return -1;
	snprintf(out, len, "dynamic (%.*s)", (int)(close - open - 1), open + 1);
	return 0;
}

/* last resort: the flags `uname -v` carries ("#1 SMP PREEMPT_DYNAMIC ...") */
static void preempt_uname(const char *version, const char *cmdline, char *out, size_t len)
{
	char mode[32];
	out[0] = 0;
	for (const char *p = version; *p;) {
		p += strspn(p, " \t");
		size_t wl = strcspn(p, " \t");
		if (wl == 10 && strncmp(p, "PREEMPT_RT", wl) == 0) {
			snprintf(out, len, "rt");
			return;
		}
		if (wl == 15 && strncmp(p, "PREEMPT_DYNAMIC", wl) == 0) {
			if (cmdline_preempt(cmdline, mode, sizeof(mode)) == 0)
				snprintf(out, len, "dynamic (%s)", mode);
			else
				snprintf(out, len, "dynamic");
			return;
		}
		if (wl == 12 && strncmp(p, "PREEMPT_LAZY", wl) == 0)
			snprintf(out, len, "lazy");
		if (wl == 7 && strncmp(p, "PREEMPT", wl) == 0 && !out[0])
			snprintf(out, len, "full");
		p += wl;
	}
}

static int cpuinfo_value(const char *cpuinfo, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = cpuinfo; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) != 0)
			continue;
		const char *q = p + kl;
		q += strspn(q, " \t");
		if (*q != ':')
			continue;
		q++;
		q += strspn(q, " \t");
		size_t vl = strcspn(q, "\n");
		if (!vl)
			continue;
		snprintf(out, len, "%.*s", (int)vl, q);
		trim(out);
		return 0;
	}
	return -1;
}

static void cpu_model(char *out, size_t len)
{
	/* x86 and others; old ARM; MIPS; PowerPC; RISC-V; SoC name */
	static const char *const keys[] = {"model name", "Processor", "cpu model", "cpu", "uarch", "Hardware", NULL};
	out[0] = 0;
	char *info = read_all("/proc/cpuinfo");
	if (!info)
		return;
	for (int i = 0; keys[i]; i++)
		if (cpuinfo_value(info, keys[i], out, len) == 0)
			break;
	char impl[32], part[32];
	if (!out[0] && cpuinfo_value(info, "CPU implementer", impl, sizeof(impl)) == 0 &&
	    cpuinfo_value(info, "CPU part", part, sizeof(part)) == 0)
		snprintf(out, len, "implementer %s part %s", impl, part);   /* arm64 */
	free(info);
}

void env_machine_id(const char *id, char *out, size_t len)
{
	/* hashed, as systemd asks of applications (machine-id(5)): the id itself stays private,
	 * the hash still tells machines apart; "irt:" makes it ours alone */
	struct sha256_ctx c;
	uint8_t digest[SHA256_DIGEST_SIZE];
	sha256_init(&c);
	sha256_update(&c, 4, (const uint8_t *)"irt:");
	sha256_update(&c, strlen(id), (const uint8_t *)id);
	sha256_digest(&c, sizeof(digest), digest);
	out[0] = 0;
	for (size_t i = 0; i < 16 && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

void env_config_hash(char *out, size_t len)
{
	char release[128] = "", path[300];
	char *config = read_all("/proc/config.gz");
	if (!config) {
		struct utsname u;
		if (read_line("/proc/sys/kernel/osrelease", release, sizeof(release)) && uname(&u) == 0)
			set(release, sizeof(release), u.release);
		snprintf(path, sizeof(path), "/boot/config-%s", release);
		config = read_all(path);
	}
	if (!config) {
		snprintf(out, len, "unreadable: neither /proc/config.gz nor /boot/config-%s (kernel without "
		         "CONFIG_IKCONFIG_PROC, or no config installed)", release);
		return;
	}
	/* zlib's CRC-32: enough to tell two configs apart, and already linked */
	size_t n = strlen(config);
	uLong crc = crc32(0L, (const Bytef *)config, (uInt)n);
	snprintf(out, len, "crc32 %08lx of %zu bytes", (unsigned long)crc, n);
	free(config);
}

void env_capture(struct result_env *env)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;
	memset(env, 0, sizeof(*env));

	if (read_line("/proc/sys/kernel/hostname", env->hostname, sizeof(env->hostname)) && have_uname)
		set(env->hostname, sizeof(env->hostname), u.nodename);
	if (read_line("/proc/sys/kernel/osrelease", env->kernel, sizeof(env->kernel)) && have_uname)
		set(env->kernel, sizeof(env->kernel), u.release);
	if (read_line("/proc/sys/kernel/version", env->kernel_version, sizeof(env->kernel_version)) && have_uname)
		set(env->kernel_version, sizeof(env->kernel_version), u.version);
	if (read_line("/proc/sys/kernel/arch", env->machine, sizeof(env->machine)) && have_uname)
		set(env->machine, sizeof(env->machine), u.machine);

	cpu_model(env->cpu_model, sizeof(env->cpu_model));
	char id[128];
	if (read_line("/etc/machine-id", id, sizeof(id)) == 0)
		env_machine_id(id, env->machine_id, sizeof(env->machine_id));

	char line[1024];
	env->online_cpus = -1;
	if (read_line("/sys/devices/system/cpu/online", line, sizeof(line)) == 0)
		env->online_cpus = env_parse_cpu_list(line);
	if (env->online_cpus <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		env->online_cpus = n > 0 ? (int)n : 0;
	}

	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", env->clocksource,
	          sizeof(env->clocksource));

	char *cmdline = read_all("/proc/cmdline");
	char *config = read_all("/proc/config.gz");
	if (!config && env->kernel[0]) {
		char path[256];
		snprintf(path, sizeof(path), "/boot/config-%s", env->kernel);
		config = read_all(path);
	}
	char from_config[64] = "";
	if (config)
		env->hz = env_from_config(config, cmdline ? cmdline : "", from_config, sizeof(from_config));
	if (preempt_debugfs(env->preemption, sizeof(env->preemption)) == 0)
		;
	else if (from_config[0])
		set(env->preemption, sizeof(env->preemption), from_config);
	else
		preempt_uname(env->kernel_version, cmdline ? cmdline : "", env->preemption, sizeof(env->preemption));
	free(config);
	free(cmdline);

	env->root = geteuid() == 0;
}
