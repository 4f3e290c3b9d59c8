/*
 * cf_checks.c
 *     What the checks of both formats share: the one wording of each check
 *     that both make, and the debug builds' assertions.  Below both formats
 *     (it calls neither but through a view's operations table).
 *
 * No PostgreSQL header (see cf.h).
 */
#include "cf_ops.h"

#include <stdio.h>
#include <stdlib.h>

#define ERR(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

/*
 * The checks that the version-1 and version-2 parameter and header checks
 * share (cf1_check_params and cf1_check_header in cf_validate.c,
 * cf2_check_params in cf_v2_header.c and cf2_check_header in
 * cf_v2_validate.c), each with its one message: the clients
 * reproduce the messages and the order of the checks
 * (clients/vectors/invalid.json), so each caller keeps its own order and
 * only the wording lives here.
 */
bool
cf_check_magic(uint32_t magic, char *err, size_t errlen)
{
	if (magic != CF_MAGIC)
		ERR("wrong magic number 0x%08x", magic);
	return true;
}

bool
cf_check_bucket_size(uint32_t b, char *err, size_t errlen)
{
	if (b != 2 && b != 4 && b != 8)
		ERR("bucket size %u is not 2, 4 or 8", b);
	return true;
}

bool
cf_check_fp_bits(uint32_t f, char *err, size_t errlen)
{
	if (f < CF_MIN_FP_BITS || f > CF_MAX_FP_BITS)
		ERR("fingerprint size %u is outside the range %d to %d bits",
			f, CF_MIN_FP_BITS, CF_MAX_FP_BITS);
	return true;
}

bool
cf_check_max_kicks(uint32_t max_kicks, char *err, size_t errlen)
{
	if (max_kicks > CF_MAX_KICKS_LIMIT)
		ERR("max kicks %u is outside the range 0 to %d", max_kicks, CF_MAX_KICKS_LIMIT);
	return true;
}

bool
cf_check_kind_tag(uint32_t kind, uint32_t type_tag, char *err, size_t errlen)
{
	if (kind > CF_KIND_MAX)
		ERR("value kind %u is unknown", kind);
	if ((kind == CF_KIND_OTHER) != (type_tag != 0))
		ERR("type tag %u does not match value kind %u", type_tag, kind);
	return true;
}

bool
cf_check_total_bytes(uint32_t m, uint64_t bytes, char *err, size_t errlen)
{
	if (bytes > CF_MAX_BYTES)
		ERR("a filter of %u buckets would take %llu bytes, more than the limit of %llu",
			m, (unsigned long long) bytes, (unsigned long long) CF_MAX_BYTES);
	return true;
}

bool
cf_check_length(size_t len, uint64_t want, uint32_t m, char *err, size_t errlen)
{
	if ((uint64_t) len != want)
		ERR("length %zu does not match the %llu bytes that %u buckets need",
			len, (unsigned long long) want, m);
	return true;
}

#ifdef CF_DEBUG
void
cf_assert_fail(const char *cond, const char *file, int line)
{
	fprintf(stderr, "cuckoo core: assertion failed: %s (%s:%d)\n", cond, file, line);
	abort();
}
#endif

/* Aborts with the validator's message when cf is not a valid filter. */
void
cf_assert_valid(const cf_filter *cf, const char *where)
{
	char		err[256];

	if (!cf->ops->validate(cf->buf, cf->len, err, sizeof(err)))
	{
		fprintf(stderr, "cuckoo core: invalid filter after %s: %s\n", where, err);
		abort();
	}
}
