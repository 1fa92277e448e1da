/* Stand-in for Genode core's assert.h and the PERR of base/printf.h (bench/hwquota-vs-genode;
 * irt's own). It checks the scheduler's preconditions as Genode's default build does (without
 * GENODE_RELEASE), so both cost the same; a failure aborts where Genode's kernel would spin. */
#ifndef _CORE__INCLUDE__ASSERT_H_
#define _CORE__INCLUDE__ASSERT_H_

extern "C" void gs_fail(const char *what, const char *file, int line) __attribute__((noreturn));

#define assert(expression) do { if (!(expression)) gs_fail(#expression, __FILE__, __LINE__); } while (0)
#define PERR(msg) gs_fail(msg, __FILE__, __LINE__)

#endif
