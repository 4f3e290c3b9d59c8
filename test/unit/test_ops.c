/*
 * test_ops.c
 *     One format per filter, chosen once (src/core/cf_api.c, cf_ops.h): what
 *     a view of each format answers about itself (cf_version, cf_caps and
 *     cf_info), that its open set every per-item function, the one
 *     unknown-version message, and the refusal of a union across formats.
 */
#include "unit.h"

#include "cf_slice.h"

#define ALL_CAPS (CF_CAP_GROWS | CF_CAP_GENERATIONS | CF_CAP_COMPACTS | CF_CAP_CREATION_SHAPE)

/* A new filter of p with n items, in a buffer of its own (malloc). */
static bool
made(cf_filter *cf, const cf_params *p, uint64_t n, uint64_t seed)
{
	size_t		len = (size_t) cf_init_bytes(p);
	uint8_t    *buf = malloc(len);
	uint64_t	s = seed;

	if (buf == NULL)
		return false;
	cf_init(buf, p);
	cf_open(cf, buf, len);
	cf_set_kind(cf, CF_KIND_INTEGER, 0);
	for (uint64_t i = 0; i < n; i++)
	{
		cf_status	st = cf_insert(cf, sm64(&s));

		if (st != CF_OK && st != CF_OK_STASHED)
			return false;
	}
	return true;
}

/*
 * What a view of one format says about itself, and the per-item functions
 * its open set: each answers as the entry point does.
 */
static void
test_view(const char *what, cf_filter *cf, uint32_t version, uint32_t caps)
{
	char		name[128];
	cf_info		info;
	uint64_t	h[64],
				s = 0x0B5 + version;
	bool		many[64];

	snprintf(name, sizeof name, "operations table: %s is version %u, caps 0x%x, every per-item function set",
			 what, version, caps);
	t_begin();
	CHECK(cf_version(cf) == version, "cf_version %u", cf_version(cf));
	CHECK(cf_caps(cf) == caps, "cf_caps 0x%x", cf_caps(cf));
	cf_get_info(cf, &info);
	CHECK(info.version == version && info.caps == caps, "cf_info version %u caps 0x%x",
		  info.version, info.caps);
	CHECK(cf->contains_fn != NULL && cf->contains_many_fn != NULL &&
		  cf->insert_fn != NULL && cf->remove_fn != NULL, "a per-item function is unset");
	for (int i = 0; i < 64; i++)
		h[i] = i < 32 ? sm64(&s) : h[i - 32] ^ 1;
	cf_contains_many(cf, h, 64, many);
	for (int i = 0; i < 64; i++)
		CHECK(many[i] == cf->contains_fn(cf, h[i]) && many[i] == cf_contains(cf, h[i]),
			  "lookup %d differs between cf_contains, contains_fn and cf_contains_many", i);
	CHECK(cf_validate(cf->buf, cf->len, NULL, 0), "not valid");
done:
	t_end(name);
}

/* Bytes of an unknown version: one message, from every entry point. */
static void
test_unknown_version(uint8_t version)
{
	char		name[96],
				err[256],
				want[256];
	cf_params	p = {.num_buckets = 64, .bucket_size = 4, .fp_bits = 12, .max_kicks = 500,
	.capacity = 200};
	size_t		len = (size_t) cf_init_bytes(&p);
	uint8_t    *buf = malloc(len);

	snprintf(name, sizeof name, "operations table: version %u is refused with one message", version);
	t_begin();
	CHECK(buf != NULL, "out of memory");
	cf_init(buf, &p);
	buf[CF_OFF_VERSION] = version;
	snprintf(want, sizeof want, "format version %u is not supported (this build reads versions 1 and 2)",
			 version);
	err[0] = '\0';
	CHECK(!cf_check_header(buf, len, err, sizeof err), "cf_check_header accepted it");
	CHECK(strcmp(err, want) == 0, "cf_check_header: %s", err);
	err[0] = '\0';
	CHECK(!cf_validate(buf, len, err, sizeof err), "cf_validate accepted it");
	CHECK(strcmp(err, want) == 0, "cf_validate: %s", err);
	CHECK(cf_slice_header_bytes(buf, len, len) == 0, "cf_slice_header_bytes knows it");
done:
	free(buf);
	t_end(name);
}

/* A union across formats is a shape mismatch, both ways, and changes nothing. */
static void
test_union_across(cf_filter *v1, cf_filter *v2)
{
	uint8_t    *c1 = malloc(v1->len),
			   *c2 = malloc(v2->len);

	t_begin();
	CHECK(c1 != NULL && c2 != NULL, "out of memory");
	memcpy(c1, v1->buf, v1->len);
	memcpy(c2, v2->buf, v2->len);
	CHECK(cf_union_into(v1, v2) == CF_SHAPE_MISMATCH, "version 1 into version 2 was not refused");
	CHECK(cf_union_into(v2, v1) == CF_SHAPE_MISMATCH, "version 2 into version 1 was not refused");
	CHECK(memcmp(c1, v1->buf, v1->len) == 0 && memcmp(c2, v2->buf, v2->len) == 0,
		  "a refused union changed a filter");
done:
	free(c1);
	free(c2);
	t_end("operations table: a union across formats is refused, both ways, and changes nothing");
}

void
run_ops_tests(void)
{
	cf_params	p1 = {.num_buckets = 256, .bucket_size = 4, .fp_bits = 12, .max_kicks = 500,
	.capacity = 900};
	cf_params	pss = p1,
				p2b = p1,
				pg;
	cf_filter	v1 = {0},
				vss = {0},
				v2b = {0},
				grow = {0},
				rot = {0};
	char		err[256];
	size_t		rlen;

	pss.fp_bits = 13;
	pss.semisort = true;
	p2b.bucket_size = 2;
	p2b.capacity = 400;
	t_begin();
	REQUIRE(made(&v1, &p1, 800, 1));
	REQUIRE(made(&vss, &pss, 800, 2));
	REQUIRE(made(&v2b, &p2b, 400, 3));
	CHECK(cf_params_growing(100, 0.01, 500, &pg, err, sizeof err), "cf_params_growing: %s", err);
	REQUIRE(made(&grow, &pg, 10000, 4));	/* grown 100x */
	rlen = cf_rotate_bytes(&v1, 2);
	CHECK(rlen > 0, "cf_rotate_bytes");
	{
		uint8_t    *rb = malloc(rlen);

		CHECK(rb != NULL, "out of memory");
		cf_rotate(&v1, 2, rb);
		cf_open(&rot, rb, rlen);
	}
done:
	t_end("operations table: filters of both formats made");
	if (rot.buf == NULL)
		return;
	test_view("a plain fixed filter", &v1, 1, 0);
	test_view("a semi-sorted fixed filter", &vss, 1, 0);
	test_view("a fixed filter of bucket size 2", &v2b, 1, 0);
	test_view("a growing filter grown 100x", &grow, 2, ALL_CAPS);
	test_view("a fixed filter rotated", &rot, 2, ALL_CAPS);
	test_unknown_version(0);
	test_unknown_version(3);
	test_unknown_version(255);
	test_union_across(&v1, &rot);
	test_union_across(&v2b, &grow);
	free(v1.buf);
	free(vss.buf);
	free(v2b.buf);
	free(grow.buf);
	free(rot.buf);
}
