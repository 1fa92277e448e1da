/* Stand-in for Genode core's util.h (bench/hwquota-vs-genode; irt's own, not Genode's): the
 * scheduler needs only Genode::min, which Genode defines with two type parameters and the
 * first one's result type (util/misc_math.h), as Cpu_priority's min(signed, enum) requires. */
#ifndef _UTIL_H_
#define _UTIL_H_

namespace Genode {
	template <typename T1, typename T2> T1 min(T1 a, T2 b) { return a < b ? a : b; }
}

#endif
