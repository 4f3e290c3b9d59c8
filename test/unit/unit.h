/*
 * unit.h
 *     What the unit tests of the core (test/unit/test_*.c) share: the
 *     harness (one "ok" / "not ok" line per test case), a deterministic
 *     PRNG, filter helpers, and each area's entry point.  The byte layout is
 *     read through test/common/cf_ref.h.
 */
#ifndef UNIT_H
#define UNIT_H

#define _POSIX_C_SOURCE 200809L

#include "cf.h"
#include "cf_ref.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Diagnostic texts are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 7
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* ---- harness (unit.c) ---- */
extern int	n_passed,
			n_failed;

/*
 * UNIT_LIGHT=1 (scripts/test.sh's run under ASan+UBSan): the scale tests
 * that the plain run has are left out (unit_skip) or run smaller (the
 * unions of 10 filters grown 250x, not 1,000x; table 3 at 2^18 buckets),
 * the long random loops take a fourth of their rounds (UNIT_LIGHT_DIV), and
 * the exhaustive header-byte test a fourth of the values and the edges: the
 * sanitizers look at memory and undefined behaviour, which the scale does
 * not change.  The plain run keeps every size.
 */
extern bool unit_light;
extern bool unit_times;		/* UNIT_TIMES=1: every ok line ends with its time in ms */
#define UNIT_LIGHT_DIV(n)	(unit_light ? ((n) / 4 > 0 ? (n) / 4 : 1) : (n))
extern bool unit_skip(const char *what);
extern double now_sec(void);
extern void t_begin(void);
extern void t_fail_at(const char *file, int line, const char *fmt,...) __attribute__((format(printf, 3, 4)));
extern void t_set_note(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void t_end(const char *name);
extern const char *stname(cf_status st);

#define FAIL(...)		t_fail_at(__FILE__, __LINE__, __VA_ARGS__)
/* On failure: record the message (first one wins) and jump to cleanup. */
#define CHECK(cond, ...) \
	do { if (!(cond)) { FAIL(__VA_ARGS__); goto done; } } while (0)
/* For helpers that record their own failure message. */
#define REQUIRE(call)	do { if (!(call)) goto done; } while (0)

/* ---- deterministic PRNG: splitmix64 (unit.c) ---- */
extern uint64_t sm64(uint64_t *s);
extern uint64_t rnd(uint64_t *s, uint64_t n);
extern void shuffle_u64(uint64_t *a, size_t n, uint64_t *s);

/* ---- filters in malloc'd buffers of their exact length (unit.c) ---- */
typedef struct filt
{
	uint8_t    *buf;
	size_t		len;
	cf_filter	cf;
} filt;

extern bool fnew(filt *F, uint32_t m, uint32_t b, uint32_t f, bool ss, uint32_t kicks,
				 uint16_t kind, uint32_t tag, uint64_t cap);
extern bool fclone(filt *D, const filt *S);
extern void ffree(filt *F);
extern bool fvalid_at(const char *file, int line, const filt *F, const char *when);
#define fvalid(F, when) fvalid_at(__FILE__, __LINE__, (F), (when))
extern bool all_found_at(const char *file, int line, const filt *F, const uint64_t *it,
						 size_t n, const char *when);
#define all_found(F, it, n, when) all_found_at(__FILE__, __LINE__, (F), (it), (n), (when))
extern void split_m(uint32_t m, uint32_t *c, uint32_t *k);

/* ---- the areas, in the order main runs them ---- */
extern void run_sizing_tests(void);		/* test_sizing.c: sizing, parameters */
extern void run_base64_tests(void);		/* test_base64.c */
extern void run_table_tests(void);		/* test_table.c: items in and out */
extern void run_union_tests(void);		/* test_union.c: union and shrink */
extern void run_validate_tests(void);	/* test_validate.c: untrusted bytes */
extern void run_growth_tests(void);		/* test_growth.c: format version 2 */
extern void run_store_tests(void);		/* test_store.c: stored-filter routing */
extern void run_build_tests(void);		/* test_build.c: batched add-if-absent */
extern void run_slice_tests(void);		/* test_slice.c: the ranges a lookup reads */
extern void run_saturate_tests(void);	/* test_saturate.c: the living filters' saturating count */
extern void run_ops_tests(void);		/* test_ops.c: one format per filter, chosen once */

#endif							/* UNIT_H */
