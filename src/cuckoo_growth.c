/*
 * cuckoo_growth.c
 *     The growth of a filter the glue is changing: the core's realloc hook,
 *     which grows a filter only while a glue function has said how
 *     (filter_grow_begin .. filter_grow_end), and the union into a filter
 *     that may grow.
 */
#include "cuckoo.h"

#include "utils/memutils.h"

/* How the core's growth of the filter being changed is allocated. */
static struct
{
	FilterGrowMode mode;
	MemoryContext cxt;			/* GROW_COPY: where the new buffer goes */
	FilterGrowAllocFn fn;		/* GROW_ALLOC: what allocates it */
	void	   *fn_arg;
	void	   *buf;			/* the filter's bytes as the core has them */
	size_t		alloc;			/* bytes usable at the filter's buffer */
}			grow;

/*
 * cf_realloc_hook: a growing filter needs new_alloc bytes at buf, which is
 * the bytes of a CuckooFilter varlena (buf - VARHDRSZ is its start).  Only
 * while a glue function has said how (filter_grow_begin); at any other time
 * the core is refused (NULL: it reports CF_FULL and changes nothing), so a
 * forgotten call site fails safe with the "full" error, never corrupts.
 */
static void *
core_realloc(void *buf, size_t new_alloc)
{
	char	   *old = (char *) buf - VARHDRSZ;
	char	   *p;

	/*
	 * Only the filter the last filter_grow_begin named: a call left pending
	 * by an error in the middle of a change cannot grow another one.
	 */
	if (grow.mode == GROW_NONE || buf != grow.buf || (uint64) new_alloc > CF_MAX_BYTES)
		return NULL;
	if (grow.mode == GROW_REPALLOC)
		p = repalloc_huge(old, VARHDRSZ + new_alloc);
	else
	{
		if (grow.mode == GROW_ALLOC)
		{
			p = grow.fn(grow.fn_arg, VARHDRSZ + new_alloc);
			/* the buffer is now the caller's own: grown in place from here */
			grow.mode = GROW_REPALLOC;
		}
		else
			p = MemoryContextAllocExtended(grow.cxt, VARHDRSZ + new_alloc, MCXT_ALLOC_HUGE);
		memcpy(p, old, VARHDRSZ + Min(grow.alloc, new_alloc));
	}
	filter_advise_huge_pages(p, VARHDRSZ + new_alloc);
	grow.alloc = new_alloc;
	grow.buf = p + VARHDRSZ;
	return p + VARHDRSZ;
}

/* Installs the core's realloc hook (from _PG_init). */
void
growth_init(void)
{
	cf_realloc_hook = core_realloc;
}

/*
 * Before a core call that may grow the filter cf opened over the varlena v:
 * GROW_REPALLOC when the glue owns v (a copy it made, or an expanded
 * object's buffer), so it is enlarged in place in its memory context;
 * GROW_COPY when v belongs to someone else who will free it (an aggregate
 * state the executor replaces when the transition returns a new pointer):
 * then the grown filter is a new allocation in CurrentMemoryContext.
 */
void
filter_grow_begin(cf_filter *cf, FilterGrowMode mode)
{
	grow.mode = mode;
	grow.cxt = CurrentMemoryContext;
	grow.buf = cf->buf;
	grow.alloc = cf->alloc;
}

/*
 * GROW_ALLOC: v belongs to someone else; if the filter must grow, fn(arg,
 * size) gives the new varlena's memory (size bytes, the length word
 * included; palloc'd, so that later growth repallocs it), the filter is
 * copied there, and further growth enlarges that buffer in place.
 */
void
filter_grow_begin_alloc(cf_filter *cf, FilterGrowAllocFn fn, void *arg)
{
	filter_grow_begin(cf, GROW_ALLOC);
	grow.fn = fn;
	grow.fn_arg = arg;
}

/*
 * After that call: the varlena now holding the filter (it may have moved),
 * its length word set to the filter's length.  Growth is refused again.
 */
CuckooFilter *
filter_grow_end(cf_filter *cf)
{
	CuckooFilter *v = (CuckooFilter *) (cf->buf - VARHDRSZ);

	grow.mode = GROW_NONE;
	grow.buf = NULL;
	SET_VARSIZE(v, VARHDRSZ + cf->len);
	return v;
}

/*
 * dst := dst union src (the multiset union, cf_union_into), or an error.  A
 * growing dst may grow (mode: filter_grow_begin); returns the varlena that
 * now holds dst.
 */
CuckooFilter *
filter_union_into(cf_filter *dst, const cf_filter *src, FilterGrowMode mode)
{
	cf_status	st;
	CuckooFilter *v;

	AssertCheckFilter(src, "filter_union_into");
	filter_grow_begin(dst, mode);
	st = cf_union_into(dst, src);
	v = filter_grow_end(dst);
	filter_report_status(st, dst, src);
	AssertCheckFilter(dst, "filter_union_into");
	return v;
}
