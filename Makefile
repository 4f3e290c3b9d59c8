# cuckoo: a cuckoo filter type for PostgreSQL (PGXS build)
EXTENSION = cuckoo
MODULE_big = cuckoo
# the plain-C core (src/core/, no PostgreSQL header), then the fmgr glue
CORE_OBJS = src/core/cf_api.o src/core/cf_checks.o \
       src/core/cf_header.o src/core/cf_validate.o src/core/cf_table.o \
       src/core/cf_shape.o src/core/cf_build.o src/core/cf_union.o \
       src/core/cf_v2_header.o src/core/cf_v2_grow.o src/core/cf_v2_validate.o \
       src/core/cf_v2_store.o src/core/cf_v2_table.o src/core/cf_v2_lookup.o \
       src/core/cf_v2_union.o src/core/cf_v2_rotate.o \
       src/core/cf_sizing.o src/core/cf_semisort.o src/core/cf_base64.o \
       src/core/cf_slice.o src/core/cf_store.o
OBJS = $(CORE_OBJS) src/cuckoo_module.o src/cuckoo_alloc.o src/cuckoo_growth.o \
       src/cuckoo_error.o src/cuckoo_plan.o src/cuckoo_hash.o src/cuckoo_arg.o \
       src/cuckoo_type.o src/cuckoo_funcs.o src/cuckoo_agg.o src/cuckoo_agg_fixed.o \
       src/cuckoo_agg_grow.o src/cuckoo_agg_split.o \
       src/cuckoo_hashset.o src/cuckoo_hashset_type.o src/cuckoo_planner.o \
       src/cuckoo_scan.o src/cuckoo_store_segment.o src/cuckoo_store_change.o \
       src/cuckoo_store_probe.o src/cuckoo_store_create.o src/cuckoo_store_load.o \
       src/cuckoo_track_catalog.o src/cuckoo_track_pending.o \
       src/cuckoo_track_trigger.o src/cuckoo_track_ddl.o src/cuckoo_track.o
DATA = cuckoo--1.0.sql cuckoo--1.0--1.1.sql cuckoo--1.1.sql cuckoo--1.1--1.2.sql cuckoo--1.2.sql \
       cuckoo--1.2--1.3.sql cuckoo--1.3.sql cuckoo--1.3--1.4.sql cuckoo--1.4.sql \
       cuckoo--1.4--1.5.sql cuckoo--1.5.sql cuckoo--1.5--1.6.sql cuckoo--1.6.sql
PGFILEDESC = "cuckoo - cuckoo filter type"

# setup first, then the rest in name order
TESTS = $(sort $(wildcard sql/*.sql))
REGRESS = setup $(filter-out setup,$(patsubst sql/%.sql,%,$(TESTS)))
REGRESS_OPTS = --inputdir=.

# the extension's version (cuckoo.control), compiled into the module
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(srcdir)/cuckoo.control)
PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/core -DCUCKOO_VERSION='"$(EXTVERSION)"'
PG_CFLAGS = -std=gnu99
# -Bsymbolic: calls between the library's own files bind directly, not
# through the PLT (the per-row probe crosses four files).  The core's
# own shared helpers are hidden (CF_HIDDEN in src/core/cf_internal.h).
SHLIB_LINK = -lm -Wl,-Bsymbolic

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on the headers (PGXS tracks no header dependencies).
$(OBJS): $(wildcard $(srcdir)/src/core/*.h) src/cuckoo.h src/cuckoo_agg.h src/cuckoo_arg.h src/cuckoo_hashset.h src/cuckoo_store.h src/cuckoo_store_int.h src/cuckoo_track_int.h

# Soft input errors (pg_input_is_valid) exist from PostgreSQL 16 on: the
# test of them runs there only.
ifeq ($(shell test $(VERSION_NUM) -ge 160000 2>/dev/null || echo old),old)
REGRESS := $(filter-out input_soft,$(REGRESS))
endif
# pg_database_owner exists from PostgreSQL 14 on: the test of rights held
# through it runs there only.
ifeq ($(shell test $(VERSION_NUM) -ge 140000 2>/dev/null || echo old),old)
REGRESS := $(filter-out track_rights_dbo,$(REGRESS))
endif
# MERGE exists from PostgreSQL 15 on: the living filters' test of it runs there only.
ifeq ($(shell test $(VERSION_NUM) -ge 150000 2>/dev/null || echo old),old)
REGRESS := $(filter-out track_merge,$(REGRESS))
endif

# The scale tests: files whose size is what they test (millions of values,
# the sizes of the bugs they guard against), tens of seconds each, through
# the code paths and plans of the suite's smaller cases (sql/growth_parallel.sql
# checks its parallel and partitionwise plans on every version).
# REGRESS_LIGHT=1 leaves them out (0 or unset keeps them): the runs under
# ASan (test/memcheck/regress_asan.sh), in the version matrix's trees
# (scripts/matrix.sh, always), of the archive (test/pgxn/dist.sh) and of the
# package (test/package.sh) set it; the host's plain run
# (test/regress_private.sh) has them (docs/CONTRIBUTING.md, "The test
# command's time").
REGRESS_SCALE = growth_parallel_4m union_budget
ifeq ($(REGRESS_LIGHT),1)
REGRESS := $(filter-out $(REGRESS_SCALE),$(REGRESS))
endif
# REGRESS_SKIP="NAME ...": leave these files out too.
ifdef REGRESS_SKIP
REGRESS := $(filter-out $(REGRESS_SKIP),$(REGRESS))
endif

# The pg_regress files this PostgreSQL version runs, for the test scripts.
.PHONY: regress-list
regress-list:
	@echo $(REGRESS)

# The core's own tests need no server.
.PHONY: unittest
unittest:
	$(MAKE) -C test/unit run

# PGXN release archive: $(EXTENSION)-VERSION.zip of the committed tree (git
# archive), every file under $(EXTENSION)-VERSION/; VERSION is META.json's.
DISTVERSION = $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' $(srcdir)/META.json)
.PHONY: dist
dist:
	git archive --format zip --prefix=$(EXTENSION)-$(DISTVERSION)/ -o $(EXTENSION)-$(DISTVERSION).zip HEAD
