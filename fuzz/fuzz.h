/* Shared helpers of the libFuzzer targets (fuzz/fuzz_*.c, docs/hardening.md). Each target
 * defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer (clang
 * -fsanitize=fuzzer: `make fuzz`) or with replay.c (any compiler: replays files, so
 * tests/fuzz-regressions/ runs in every `make check` variant). */
#ifndef IRT_FUZZ_H
#define IRT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (stops at an embedded NUL, as a C string would). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* The input as a read-only stream: what the parsers' *_stream entry points read. */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	if (!f)
		abort();
	return f;
}

/* Renderers write here; their output is not checked, only that they survive the input. */
static inline FILE *fuzz_sink(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/* A property the parser promised does not hold: crash so the fuzzer keeps the input. */
#define FUZZ_ASSERT(cond, ...)                                                   \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "fuzz: property failed: %s: ", #cond);  \
			fprintf(stderr, __VA_ARGS__);                            \
			fprintf(stderr, "\n");                                   \
			abort();                                                 \
		}                                                                \
	} while (0)

/* A refusal is one line for the terminal: the expected exit status, a message, and no
 * newline or other control character (user text inside it must not break the line). */
#define fuzz_check_err(e, want_code)                                                              \
	do {                                                                                      \
		const struct err *fe_ = (e);                                                      \
		FUZZ_ASSERT(fe_->code == (want_code), "exit status %d, wanted %d: %s", fe_->code,  \
		            (want_code), fe_->msg);                                                \
		FUZZ_ASSERT(fe_->msg[0], "an error without a message");                            \
		for (const char *c_ = fe_->msg; *c_; c_++)                                         \
			FUZZ_ASSERT((unsigned char)*c_ >= 0x20 && *c_ != 0x7f,                     \
			            "control character 0x%02x in the message: %s", (unsigned char)*c_, fe_->msg); \
	} while (0)

/* A parse error is bad input (exit 2), except what only root may ask: unprivileged, a load's
 * user= (and whatever else says "needs root") is refused with exit 1, as every refusal for
 * want of privileges is, so the same input parses as root and fails as a normal user. */
#define fuzz_check_parse_err(e)                                                                  \
	do {                                                                                      \
		const struct err *fp_ = (e);                                                      \
		bool for_root_ = geteuid() != 0 && fp_->code == EXIT_RUNTIME && strstr(fp_->msg, "needs root"); \
		fuzz_check_err(fp_, for_root_ ? EXIT_RUNTIME : EXIT_USAGE);                       \
	} while (0)

#endif
