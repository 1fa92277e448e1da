/* IRT_HOT_INLINE: a function of the simulator's and the histograms' hot paths, inlined into its
 * callers. Optimised builds force it (the event loops' speed depends on it: docs/sim-speed.md);
 * the sanitizer builds (make check's asan variant, libFuzzer's) define IRT_NO_FORCE_INLINE and
 * only ask: forced into every copy of the event loop under ASan and UBSan, src/sim/engine.c
 * alone took gcc 40-80 s to compile and clang as long, more than the rest of either build. */
#ifndef IRT_HOT_H
#define IRT_HOT_H

#ifdef IRT_NO_FORCE_INLINE
#define IRT_HOT_INLINE static inline
#else
#define IRT_HOT_INLINE static inline __attribute__((always_inline))
#endif

#endif
