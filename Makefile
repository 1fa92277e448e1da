# irt — see README.md. `make` builds ./irt; `make check` runs every test twice (plain and
# under AddressSanitizer + UndefinedBehaviorSanitizer); `make demo` runs the default check.

CC      ?= cc
PREFIX  ?= /usr/local
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS  ?= -O2 -g
# libtracefs + libtraceevent: --explain and irt watch read the scheduler's events (src/linux/trace.c)
TRACE_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null || echo -I/usr/include/tracefs -I/usr/include/traceevent)
TRACE_LIBS   := $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null || echo -ltracefs -ltraceevent)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DIRT_VERSION='"$(VERSION)"' -Isrc $(TRACE_CFLAGS) $(WARN) $(CFLAGS) -MMD -MP
LIBS    := -ljansson -linih -lz -lnettle -lpthread -lm $(TRACE_LIBS)
TESTLIBS := -lcmocka

# Build variants: release (./irt) and asan (build/asan/irt). The release build is hardened
# (irt runs as root): fortified libc calls, stack protector, position-independent executable,
# read-only relocations bound at start. The asan build keeps its own flags (ASan and
# _FORTIFY_SOURCE do not mix), so both variants test what they tested before.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DIRT_NO_FORCE_INLINE
HARDEN_CFLAGS  := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
HARDEN_LDFLAGS := -pie -Wl,-z,relro,-z,now

SRCS      := $(sort $(shell find src -name '*.c'))
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))

FUZZ_SRCS := $(sort $(filter-out fuzz/replay.c,$(wildcard fuzz/fuzz_*.c)))
FUZZ_NAMES := $(patsubst fuzz/%.c,%,$(FUZZ_SRCS))

define variant
$(1)_OBJS  := $$(patsubst %.c,build/$(1)/%.o,$$(LIB_SRCS))
$(1)_TESTS := $$(patsubst tests/unit/%.c,build/$(1)/tests/%,$$(UNIT_SRCS))
# fuzz targets linked with fuzz/replay.c: replay files with any compiler (make check)
$(1)_FUZZ  := $$(addprefix build/$(1)/fuzz-replay/,$$(FUZZ_NAMES))

build/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	@echo "  CC [$(1)] $$<"
	@$$(CC) $$(ALL_CFLAGS) $(2) -c $$< -o $$@

build/$(1)/irt: build/$(1)/src/main.o $$($(1)_OBJS)
	@echo "  LD [$(1)] $$@"
	@$$(CC) $$(ALL_CFLAGS) $(2) $(3) -o $$@ $$^ $$(LIBS)

build/$(1)/tests/%: build/$(1)/tests/unit/%.o $$($(1)_OBJS)
	@mkdir -p $$(@D)
	@echo "  LD [$(1)] $$@"
	@$$(CC) $$(ALL_CFLAGS) $(2) $(3) -o $$@ $$^ $$(TESTLIBS) $$(LIBS)

build/$(1)/fuzz-replay/%: build/$(1)/fuzz/%.o build/$(1)/fuzz/replay.o $$($(1)_OBJS)
	@mkdir -p $$(@D)
	@echo "  LD [$(1)] $$@"
	@$$(CC) $$(ALL_CFLAGS) $(2) $(3) -o $$@ $$^ $$(LIBS)

-include $$(patsubst %.o,%.d,$$($(1)_OBJS)) build/$(1)/src/main.d \
	$$(patsubst tests/unit/%.c,build/$(1)/tests/unit/%.d,$$(UNIT_SRCS)) \
	$$(patsubst fuzz/%.c,build/$(1)/fuzz/%.d,$$(FUZZ_SRCS) fuzz/replay.c)
endef

$(eval $(call variant,release,$(HARDEN_CFLAGS),$(HARDEN_LDFLAGS)))
$(eval $(call variant,asan,$(SAN_FLAGS)))

# libFuzzer builds (clang): build/fuzz/fuzz_*. docs/hardening.md.
FUZZ_CC   ?= $(shell command -v clang-14 || command -v clang || echo clang)
FUZZ_TIME ?= 60
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all -DIRT_NO_FORCE_INLINE
fuzz_OBJS := $(patsubst %.c,build/fuzz/%.o,$(LIB_SRCS))
FUZZ_BINS := $(addprefix build/fuzz/,$(FUZZ_NAMES))

build/fuzz/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC [fuzz] $<"
	@$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

build/fuzz/fuzz_%: build/fuzz/fuzz/fuzz_%.o $(fuzz_OBJS)
	@echo "  LD [fuzz] $@"
	@$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIBS)

-include $(patsubst %.o,%.d,$(fuzz_OBJS)) $(patsubst fuzz/%.c,build/fuzz/fuzz/%.d,$(FUZZ_SRCS))

.PHONY: all deps check check-release check-asan unit demo install clean bench bench-sim bench-genode bench-stats man fuzz fuzz-bins golden
.SECONDARY:

.DEFAULT_GOAL := all
all: irt

irt: deps-ok build/release/irt
	cp build/release/irt irt

# Installs missing Debian packages when root; otherwise prints the apt-get line and stops.
deps-ok: scripts/deps.sh
	@sh scripts/deps.sh build
	@touch $@

deps: ; @sh scripts/deps.sh build

unit: irt $(release_TESTS)

# The release variant first; the asan variant and the libFuzzer binaries build beside its tests
# (scripts/run-tests.sh, IRT_LATER_BUILD), at nice 19, so that the tests which measure get the
# CPU when they wake (at nice 0 the compilers made test_sweep's clear difference too noisy).
check: deps-ok
	@sh scripts/deps.sh check
	$(MAKE) -j$$(nproc) irt $(release_TESTS) $(release_FUZZ)
	@IRT_LATER_BUILD="nice -n 19 $(MAKE) --no-print-directory -j$$(nproc) build/asan/irt $(asan_TESTS) $(asan_FUZZ) fuzz-bins" \
		sh scripts/run-tests.sh release asan

check-release: deps-ok irt $(release_TESTS) $(release_FUZZ)
	@sh scripts/run-tests.sh release

check-asan: deps-ok build/asan/irt $(asan_TESTS) $(asan_FUZZ)
	@sh scripts/run-tests.sh asan

# The libFuzzer binaries, or a visible skip when clang's fuzzer runtime is missing
# (tests/cli/test_fuzz.sh then skips its libFuzzer round too).
fuzz-bins:
	@if sh scripts/fuzz.sh have-runtime "$(FUZZ_CC)"; then $(MAKE) --no-print-directory $(FUZZ_BINS); \
	else echo "fuzz: SKIP building libFuzzer targets: $(FUZZ_CC) -fsanitize=fuzzer does not link" \
		"(apt-get install clang-14 libclang-rt-14-dev)"; fi

# Runs every fuzz target for FUZZ_TIME seconds (default 60), then prints executions/s and
# runs per target. New inputs go to build/fuzz/corpus/, crashes to build/fuzz/crashes/.
fuzz: deps-ok
	@sh scripts/fuzz.sh have-runtime "$(FUZZ_CC)" || { echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer does not link; run: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 1; }
	$(MAKE) --no-print-directory $(FUZZ_BINS)
	@sh scripts/fuzz.sh run $(FUZZ_TIME) $(FUZZ_NAMES)

demo: irt
	./irt

# Rewrites tests/golden/* (report charts and text) from the current renderers; review the diff.
golden: build/release/tests/test_report
	IRT_UPDATE_GOLDEN=1 build/release/tests/test_report

docs/irt.1: build/release/irt
	build/release/irt help --man > $@

man: docs/irt.1

install: irt
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 irt $(DESTDIR)$(PREFIX)/bin/irt
	install -m 0644 docs/irt.1 $(DESTDIR)$(PREFIX)/share/man/man1/irt.1

# The simulator's benchmark (bench/sim.c): decisions/s per policy against the naive reference.
build/release/bench/sim: bench/sim.c bench/sim_workload.c $(release_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

bench-sim: build/release/bench/sim
	build/release/bench/sim

# irt's hwquota beside Genode's own 2015 scheduler, compiled from the Genode checkout in $(GENODE)
# (docs/hw-quota.md, "The peer bench"). Genode's code stays there; irt holds only the shims and
# glue in bench/genode/. Both sides get -O2 -g and the release build's hardening flags.
GENODE_CORE  = $(GENODE)/repos/base-hw/src/core
GENODE_BUILD = build/release/bench/genode
BENCH_CXXFLAGS = -std=gnu++11 -Wall $(CFLAGS) $(HARDEN_CFLAGS)
GENODE_SRCS  = $(GENODE_CORE)/kernel/cpu_scheduler.cc $(GENODE_CORE)/kernel/double_list.cc bench/genode/glue.cc

$(GENODE_BUILD)/hwquota-vs-genode: bench/hwquota-vs-genode.c bench/sim_workload.c bench/genode/policy_genode.c \
		bench/genode/genode.h bench/genode/policy_genode.h bench/sim_workload.h src/sim/policy_hwquota.h \
		$(GENODE_SRCS) bench/genode/shim/util.h bench/genode/shim/assert.h $(release_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(BENCH_CXXFLAGS) -Ibench/genode/shim -I$(GENODE_CORE)/include -c $(GENODE_CORE)/kernel/cpu_scheduler.cc -o $(@D)/cpu_scheduler.o
	$(CXX) $(BENCH_CXXFLAGS) -Ibench/genode/shim -I$(GENODE_CORE)/include -c $(GENODE_CORE)/kernel/double_list.cc -o $(@D)/double_list.o
	$(CXX) $(BENCH_CXXFLAGS) -Wextra -Werror -Ibench/genode/shim -I$(GENODE_CORE)/include -c bench/genode/glue.cc -o $(@D)/glue.o
	$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(HARDEN_CFLAGS) -Ibench \
		-DBENCH_CFLAGS='"$(CFLAGS) $(HARDEN_CFLAGS)"' -DBENCH_CXXFLAGS='"$(BENCH_CXXFLAGS)"' -DGENODE_DIR='"$(GENODE)"' \
		-DGENODE_BLOB='"$(shell git hash-object $(GENODE_CORE)/kernel/cpu_scheduler.cc 2>/dev/null || echo ?)"' \
		-c bench/hwquota-vs-genode.c -o $(@D)/bench.o
	$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(HARDEN_CFLAGS) -Ibench -c bench/genode/policy_genode.c -o $(@D)/policy_genode.o
	$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(HARDEN_CFLAGS) -Ibench -c bench/sim_workload.c -o $(@D)/sim_workload.o
	$(CXX) $(HARDEN_LDFLAGS) -o $@ $(@D)/bench.o $(@D)/policy_genode.o $(@D)/sim_workload.o $(@D)/cpu_scheduler.o \
		$(@D)/double_list.o $(@D)/glue.o $(release_OBJS) $(LIBS)

# needs GENODE=/path/to/genode (a checkout of 6552d47e60); pin it: taskset -c 1 make bench-genode
bench-genode:
	$(if $(GENODE),,$(error bench-genode: set GENODE to a Genode checkout (commit 6552d47e60, 2015): the bench compiles Genode's scheduler from it))
	$(if $(wildcard $(GENODE_CORE)/kernel/cpu_scheduler.cc),,$(error bench-genode: $(GENODE_CORE)/kernel/cpu_scheduler.cc not found: GENODE is not a Genode checkout))
	@$(MAKE) --no-print-directory $(GENODE_BUILD)/hwquota-vs-genode
	$(GENODE_BUILD)/hwquota-vs-genode $(REPS)

# The simulations behind docs/statistics.md's tables: false positives, power, equivalence and
# sequential looks at TRIALS per figure (default 1000, ~7 min of CPU), then the coverage and
# advice tables at the counts the docs' figures used (850 and 300, ~1.5 and ~0.5 min more; with
# TRIALS given, TRIALS each). Their rows print the 95 % interval of each share, so a smaller
# count shows how far its figures can be off.
COVER_TRIALS ?= $(if $(TRIALS),$(TRIALS),850)
ADVICE_TRIALS ?= $(if $(TRIALS),$(TRIALS),300)
build/release/bench/stats_sim: bench/stats_sim.c tests/unit/stats_synth.h $(release_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS)

bench-stats: build/release/bench/stats_sim
	build/release/bench/stats_sim $(TRIALS)
	build/release/bench/stats_sim $(COVER_TRIALS) cover
	build/release/bench/stats_sim $(ADVICE_TRIALS) advice

bench: irt
	@for b in bench/*; do case $$b in *.c|*_bench) continue;; esac; \
		[ -x "$$b" ] && [ -f "$$b" ] && echo "== $$b" && "$$b"; done

# bench/hist's driver: hist_record against peers (not part of make check)
# (DWARF 4: valgrind 3.19 cannot read clang 14's DWARF 5)
bench/hist_bench: bench/hist_bench.c src/hist.h src/hist.c
	$(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS)) -gdwarf-4 -o $@ bench/hist_bench.c src/hist.c -lm

clean:
	rm -rf build irt deps-ok bench/hist_bench
