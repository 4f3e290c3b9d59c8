/*
 * cuckoo_alloc.c
 *     A filter value's memory: its allocation (with huge pages advised for
 *     large ones), a new empty filter, and opening a filter value for the
 *     core behind its header check.
 */
#include "cuckoo.h"

#include <sys/mman.h>

#include "utils/memutils.h"

/*
 * Large filters are read at random: one or two cache lines per lookup, each
 * in a different 4 kB page, so with ordinary pages nearly every lookup of a
 * filter of many megabytes also misses the TLB (on a virtual machine a TLB
 * miss walks two levels of page tables).  Asking the kernel for transparent
 * huge pages over such a buffer, before it is first written, makes random
 * lookups in a large filter markedly faster (docs/BENCHMARKS.md).  Only advice: where the kernel has no huge pages to
 * give, or is not Linux, nothing changes.
 */
#define HUGE_PAGE			((uintptr_t) 2 << 20)

/* Advises huge pages over the whole ones in p .. p + len (the growth's too). */
void
filter_advise_huge_pages(void *p, Size len)
{
#if defined(MADV_HUGEPAGE)
	uintptr_t	start = ((uintptr_t) p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t	end = ((uintptr_t) p + len) & ~(HUGE_PAGE - 1);

	if (len >= FILTER_HUGE_ADVICE_MIN && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#else
	(void) p;
	(void) len;
#endif
}

/* palloc for a filter of size bytes, huge pages advised when it is large. */
void *
filter_alloc(MemoryContext cxt, Size size)
{
	void	   *p = MemoryContextAllocExtended(cxt, size, MCXT_ALLOC_HUGE);

	filter_advise_huge_pages(p, size);
	return p;
}

/* Allocates and initialises an empty filter with the given parameters. */
CuckooFilter *
filter_new(const cf_params *p)
{
	size_t		len = (size_t) cf_init_bytes(p);	/* version 1 or 2 */
	CuckooFilter *v = filter_alloc(CurrentMemoryContext, VARHDRSZ + len);
	char		err[256];

	Assert(cf_check_params(p, NULL, 0));
	SET_VARSIZE(v, VARHDRSZ + len);
	cf_init(v->bytes, p);
	if (!cf_check_header(v->bytes, len, err, sizeof(err)))
		elog(ERROR, "new cuckoo filter of %zu bytes does not check: %s", len, err);
	return v;
}

/*
 * Opens a filter argument.  Values of the type were fully validated when
 * they entered the database; the O(1) header check here guards every access
 * against a damaged datum.
 */
void
filter_open(cf_filter *cf, CuckooFilter *v)
{
	char		err[256];

	if (!cf_check_header(v->bytes, CUCKOO_BYTES_LEN(v), err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoofilter value: %s", err)));
	cf_open(cf, v->bytes, CUCKOO_BYTES_LEN(v));
	AssertCheckFilter(cf, "filter_open");
}
