# lcpsim build.
#   make           the lcpsim binary (installs missing Debian packages first)
#   make check     unit tests (plain and under AddressSanitizer + UBSan), end-to-end tests,
#                  and each fuzz target briefly on its corpus
#   make fuzz      the fuzz targets, FUZZ_SECONDS each;  make valgrind  memcheck over data/
#   make bench     benchmarks against peers run in the same process
#   make clean
# Layers, each a directory; dependencies point one way: cli -> compare -> hybrid -> scene -> contact -> lcp
# (api/ is the public face over them: include/lcpsim/lcpsim.h).

CC      ?= cc
VERSION := 0.1.0
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
OPT     ?= -O3 -g
# Asked of pkg-config when first used (after the dependencies are installed), then cached.
HDF5_CFLAGS = $(eval HDF5_CFLAGS := $(shell pkg-config --cflags hdf5-serial))$(HDF5_CFLAGS)
HDF5_LIBS   = $(eval HDF5_LIBS := $(shell pkg-config --libs hdf5-serial))$(HDF5_LIBS)
MPI_CFLAGS  = $(eval MPI_CFLAGS := $(shell pkg-config --cflags ompi-c))$(MPI_CFLAGS)
MPI_LIBS    = $(eval MPI_LIBS := $(shell pkg-config --libs ompi-c))$(MPI_LIBS)
INCLUDES = -I. -Iinclude -I/usr/include/siconos -I/usr/include/siconos/numerics \
            -I/usr/include/suitesparse $(HDF5_CFLAGS) $(MPI_CFLAGS)
DEFS    := -DLSIM_VERSION='"$(VERSION)"'
CFLAGS_ALL = $(CSTD) -pthread $(WARN) $(OPT) $(INCLUDES) $(DEFS) $(EXTRA_CFLAGS)
LIBS     = -lsiconos_numerics -lumfpack -lklu -lcholmod -lsuitesparseconfig $(HDF5_LIBS) -lhdf5_hl \
           -ljansson -lsundials_cvode -lsundials_sunlinsoldense -lsundials_sunmatrixdense \
           -lsundials_nvecserial $(MPI_LIBS) -lm -pthread
# Programs linking the static archive export enum_init, so that Siconos calls the
# archive's (lcp/siconos_adapter.c: its own leaks 32 bytes a siconos:enum solve).
EXE_LDFLAGS := -Wl,--export-dynamic-symbol=enum_init
TEST_LIBS := -lcmocka
BENCH_LIBS := -lode

# The optimised objects are position independent, for the shared library too (no
# interposition within it, so calls inside the library stay direct and inlinable). Symbols
# are hidden unless the public header marks them LSIM_API: liblcpsim.so exports exactly the
# functions of include/lcpsim/lcpsim.h (tests/e2e/library_symbols.sh); the static archive,
# which the command and the tests link, keeps every internal linkable.
PIC := -fPIC -fvisibility=hidden -fno-semantic-interposition

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC   := $(wildcard lcp/*.c contact/*.c scene/*.c compare/*.c hybrid/*.c api/*.c)
CLI_SRC   := $(wildcard cli/*.c)
TEST_SRC  := $(wildcard tests/test_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)
TEST_NAMES := $(basename $(notdir $(TEST_SRC)))

# Build trees: build/ (optimised) and build/san/ (sanitizers).
B  := build
BS := build/san

LIB_OBJ   := $(LIB_SRC:%.c=$(B)/%.o)
LIB_OBJ_S := $(LIB_SRC:%.c=$(BS)/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/%.o)
CLI_OBJ_S := $(CLI_SRC:%.c=$(BS)/%.o)
VIEW_OBJ  := $(B)/viewer/page.o
TESTS     := $(TEST_NAMES:%=$(B)/tests/%)
TESTS_S   := $(TEST_NAMES:%=$(BS)/tests/%)

DEPS_STAMP := $(B)/.deps-installed

# The compiler and flags that shape the objects, recorded: a change (make OPT=..., a new
# optimisation default) rebuilds every object instead of mixing old and new ones.
FLAGS_STAMP := $(B)/.flags
FLAGS_NOW   := $(CC) $(CSTD) $(WARN) $(OPT) $(PIC) $(DEFS) $(EXTRA_CFLAGS) | $(SAN_FLAGS) -O1
ifneq ($(file < $(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(B))
$(file > $(FLAGS_STAMP),$(FLAGS_NOW))
endif

.SECONDARY:
.PHONY: all check unit-check san-check e2e-check bench clean deps experiments
.DEFAULT_GOAL := all

all: lcpsim

# Dependencies: scripts/install-deps is idempotent; the stamp keeps make from calling it
# on every build, and the header test reruns it if a package has gone missing.
$(DEPS_STAMP): scripts/install-deps
	@mkdir -p $(B)
	@bash scripts/install-deps
	@touch $@
deps:
	@bash scripts/install-deps
	@mkdir -p $(B) && touch $(DEPS_STAMP)

DEPS_HEADERS := /usr/include/siconos/numerics/LCP_Solvers.h /usr/include/cmocka.h \
                /usr/include/jansson.h /usr/include/suitesparse/cholmod.h /usr/include/ode/ode.h \
                /usr/include/cvode/cvode.h
ifneq ($(words $(wildcard $(DEPS_HEADERS))),$(words $(DEPS_HEADERS)))
$(shell rm -f $(DEPS_STAMP))
endif

$(B)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PIC) -MMD -MP -c $< -o $@

$(BS)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O1 $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(B)/liblsim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BS)/liblsim.a: $(LIB_OBJ_S)
	@rm -f $@
	ar rcs $@ $^

lcpsim: $(CLI_OBJ) $(B)/liblsim.a $(VIEW_OBJ)
	$(CC) $(OPT) $(EXE_LDFLAGS) -o $@ $(CLI_OBJ) $(B)/liblsim.a $(VIEW_OBJ) $(LIBS)

$(BS)/lcpsim: $(CLI_OBJ_S) $(BS)/liblsim.a $(VIEW_OBJ)
	$(CC) $(SAN_FLAGS) $(EXE_LDFLAGS) -o $@ $(CLI_OBJ_S) $(BS)/liblsim.a $(VIEW_OBJ) $(LIBS)

# The page of `lcpsim view`: three.js from npm (versions pinned by viewer/package-lock.json)
# installed into build/viewer, inlined with viewer/viewer.html by viewer/bundle.js into a
# C source compiled into lcpsim. Pages never fetch anything.
VIEW_NPM := $(B)/viewer/node_modules/three/package.json
$(VIEW_NPM): viewer/package.json viewer/package-lock.json | $(DEPS_STAMP)
	@mkdir -p $(B)/viewer
	cp viewer/package.json viewer/package-lock.json $(B)/viewer/
	cd $(B)/viewer && npm ci --no-audit --no-fund --loglevel=error
	@touch $@
$(B)/viewer/page.c: viewer/viewer.html viewer/bundle.js $(VIEW_NPM)
	node viewer/bundle.js viewer/viewer.html $(B)/viewer/node_modules $@
$(VIEW_OBJ): $(B)/viewer/page.c
	$(CC) -c $< -o $@

# Each tests/test_*.c is one cmocka program, linked with the shared helpers in tests/support.c.
$(B)/tests/%: $(B)/tests/%.o $(B)/tests/support.o $(B)/liblsim.a
	$(CC) $(OPT) $(EXE_LDFLAGS) -o $@ $< $(B)/tests/support.o $(B)/liblsim.a $(LIBS) $(TEST_LIBS)

$(BS)/tests/%: $(BS)/tests/%.o $(BS)/tests/support.o $(BS)/liblsim.a
	$(CC) $(SAN_FLAGS) $(EXE_LDFLAGS) -o $@ $< $(BS)/tests/support.o $(BS)/liblsim.a $(LIBS) $(TEST_LIBS)

$(B)/bench/%: $(B)/bench/%.o $(B)/liblsim.a
	$(CC) $(OPT) $(EXE_LDFLAGS) -o $@ $< $(B)/liblsim.a $(LIBS) $(BENCH_LIBS)

# Tests run from the repository root; shared data is at ../shared unless LSIM_SHARED says.
export LSIM_SHARED ?= ../shared
# Siconos keeps some process-lifetime allocations; its leaks are not ours.
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1

# tests/run-checks.sh runs the suites named and prints one closing line of counts.
unit-check: $(TESTS)
	@sh tests/run-checks.sh unit
san-check: $(TESTS_S)
	@sh tests/run-checks.sh san
e2e-check: lcpsim $(BS)/lcpsim
	@sh tests/run-checks.sh e2e
check: $(TESTS) $(TESTS_S) lcpsim $(BS)/lcpsim lib
	@sh tests/run-checks.sh unit san e2e fuzz valgrind

bench: lcpsim lib $(BENCH_SRC:%.c=$(B)/%)
	@for b in $(BENCH_SRC:%.c=$(B)/%); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/bench_python_loop.py"; /usr/bin/python3 bench/bench_python_loop.py

# Fuzzing (docs/fuzzing.md): libFuzzer targets tests/fuzz/fuzz_*.c, built with clang over
# the library with AddressSanitizer + UBSan (build/fuzz/). `make fuzz` runs each target for
# FUZZ_SECONDS on its seed corpus tests/fuzz/corpus/NAME (new inputs in build/fuzz/corpus,
# crashes in build/fuzz/findings); make check replays corpus and tests/fuzz/regressions
# and fuzzes each target FUZZ_CHECK_SECONDS (tests/run-checks.sh fuzz).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 3
FUZZ_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
BF := build/fuzz
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BF)/%)
LIB_OBJ_F := $(LIB_SRC:%.c=$(BF)/%.o)
.PHONY: fuzz fuzz-build fuzz-check
$(BF)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_ALL) -O1 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(BF)/liblsim.a: $(LIB_OBJ_F)
	@rm -f $@
	ar rcs $@ $^
$(BF)/fuzz_%: $(BF)/tests/fuzz/fuzz_%.o $(BF)/liblsim.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(EXE_LDFLAGS) -o $@ $< $(BF)/liblsim.a $(LIBS)
fuzz-build: $(FUZZ_BIN)
check: $(FUZZ_BIN)
fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)
fuzz-check: $(FUZZ_BIN)
	@FUZZ_CHECK_SECONDS=$(FUZZ_CHECK_SECONDS) sh tests/run-checks.sh fuzz

# Memcheck over the examples (short runs) and lcpsim solve: zero errors expected
# (tests/valgrind.sh, suppressions in tests/valgrind.supp). VALGRIND_STEPS=N per scene.
.PHONY: valgrind bench-memory
valgrind: lcpsim
	@sh tests/valgrind.sh ./lcpsim
# Resident memory over 10^6 steps (also part of make bench): bench/bench_memory.c.
bench-memory: $(B)/bench/bench_memory
	@$(B)/bench/bench_memory

# Solver-comparison experiments (data/experiments/*.json): compare files, figures and a
# README table under out/experiments/ (scripts/run_experiments.py).
experiments: lcpsim
	@/usr/bin/python3 scripts/run_experiments.py --out out/experiments

# The library for others: liblcpsim.so (soname liblcpsim.so.MAJOR) and liblcpsim.a, the
# public headers include/lcpsim/*.h, a pkg-config file, and the manual page from the help.
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SHLIB   := $(B)/liblcpsim.so.$(VERSION)
PREFIX  ?= /usr/local
DESTDIR ?=
.PHONY: lib install uninstall
# make builds the shared library too: the Python binding (python/, scripts/cart_wall_figure.py,
# examples/cart_wall.py) loads it from build/.
all: $(SHLIB)
lib: $(SHLIB) $(B)/liblcpsim.a $(B)/lcpsim.pc $(B)/lcpsim.1

$(SHLIB): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,liblcpsim.so.$(SOMAJOR) -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf liblcpsim.so.$(VERSION) $(B)/liblcpsim.so.$(SOMAJOR)
	ln -sf liblcpsim.so.$(SOMAJOR) $(B)/liblcpsim.so

$(B)/liblcpsim.a: $(B)/liblsim.a
	cp $< $@

$(B)/lcpsim.pc: Makefile
	@mkdir -p $(B)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: lcpsim' 'Description: time-stepping rigid-body contact simulation with complementarity solvers' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -llcpsim' \
	  'Libs.private: $(strip $(EXE_LDFLAGS) $(LIBS))' > $@

$(B)/lcpsim.1: lcpsim scripts/make-man.sh
	sh scripts/make-man.sh ./lcpsim $(VERSION) > $@

# What install puts where (uninstall removes exactly these).
INST_SCRIPTS := $(wildcard scripts/*.py scripts/*.m)
INST_DATA    := $(wildcard data/*.json)
INST_EXAMPLES := examples/pd_pendulum.c examples/cart_wall.py
INST_FILES   := bin/lcpsim lib/liblcpsim.a lib/liblcpsim.so.$(VERSION) lib/liblcpsim.so.$(SOMAJOR) \
                lib/liblcpsim.so lib/pkgconfig/lcpsim.pc share/man/man1/lcpsim.1 \
                $(wildcard include/lcpsim/*.h) \
                $(addprefix share/lcpsim/,$(INST_SCRIPTS) $(INST_DATA) $(INST_EXAMPLES) \
                  python/lcpsim/__init__.py)
install: lcpsim lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/lcpsim \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/lcpsim/scripts \
	  $(DESTDIR)$(PREFIX)/share/lcpsim/data $(DESTDIR)$(PREFIX)/share/lcpsim/examples \
	  $(DESTDIR)$(PREFIX)/share/lcpsim/python/lcpsim
	install -m 755 lcpsim $(DESTDIR)$(PREFIX)/bin/lcpsim
	install -m 644 $(B)/liblcpsim.a $(DESTDIR)$(PREFIX)/lib/liblcpsim.a
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/liblcpsim.so.$(VERSION)
	ln -sf liblcpsim.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liblcpsim.so.$(SOMAJOR)
	ln -sf liblcpsim.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/liblcpsim.so
	sed 's|^prefix=.*|prefix=$(PREFIX)|' $(B)/lcpsim.pc > $(DESTDIR)$(PREFIX)/lib/pkgconfig/lcpsim.pc
	install -m 644 include/lcpsim/*.h $(DESTDIR)$(PREFIX)/include/lcpsim/
	install -m 644 $(B)/lcpsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/lcpsim.1
	install -m 644 $(INST_SCRIPTS) $(DESTDIR)$(PREFIX)/share/lcpsim/scripts/
	install -m 644 $(INST_DATA) $(DESTDIR)$(PREFIX)/share/lcpsim/data/
	install -m 644 $(INST_EXAMPLES) $(DESTDIR)$(PREFIX)/share/lcpsim/examples/
	install -m 644 python/lcpsim/__init__.py $(DESTDIR)$(PREFIX)/share/lcpsim/python/lcpsim/
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INST_FILES))
	-rmdir $(DESTDIR)$(PREFIX)/include/lcpsim $(DESTDIR)$(PREFIX)/share/lcpsim/scripts \
	  $(DESTDIR)$(PREFIX)/share/lcpsim/data $(DESTDIR)$(PREFIX)/share/lcpsim/examples \
	  $(DESTDIR)$(PREFIX)/share/lcpsim/python/lcpsim $(DESTDIR)$(PREFIX)/share/lcpsim/python \
	  $(DESTDIR)$(PREFIX)/share/lcpsim 2>/dev/null

# CPU time per step against the number of bodies, 10 to 100 000 (scripts/bench_scaling.py):
# points (scaling.csv), figure and table under out/scaling/; scripts/plot_scaling.py redraws
# the figure from that CSV and further series.
.PHONY: scaling
scaling: lcpsim $(B)/bench/bench_pile $(B)/bench/bench_exact
	@/usr/bin/python3 scripts/bench_scaling.py --out out/scaling

clean:
	rm -rf $(B) lcpsim

-include $(LIB_OBJ:.o=.d) $(LIB_OBJ_S:.o=.d) $(CLI_OBJ:.o=.d) $(CLI_OBJ_S:.o=.d)
-include $(TESTS:=.d) $(TESTS_S:=.d) $(B)/tests/support.d $(BS)/tests/support.d
-include $(BENCH_SRC:%.c=$(B)/%.d)
-include $(LIB_OBJ_F:.o=.d) $(FUZZ_SRC:%.c=$(BF)/%.d)
