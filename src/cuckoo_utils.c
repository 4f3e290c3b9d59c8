/*
 * cuckoo_utils.c
 *     What every glue file shares: the module's initialisation, allocation
 *     of filters (with huge pages advised for large ones), opening a filter
 *     value for the core, the errors that core statuses become, and the
 *     planning of a new filter's parameters from the user's arguments.
 */
#include "cuckoo.h"

#include <math.h>
#include <sys/mman.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

CF_MODULE_MAGIC;

void		_PG_init(void);

/* Lets a query cancel or time out inside the core's long loops. */
static void
core_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

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

static void *core_realloc(void *buf, size_t new_alloc);

void
_PG_init(void)
{
	cf_interrupt_hook = core_check_interrupts;
	scan_init();
	arg_init();
	planner_init();
	cf_realloc_hook = core_realloc;
}

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

static void
advise_huge_pages(void *p, Size len)
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
	advise_huge_pages(p, VARHDRSZ + new_alloc);
	grow.alloc = new_alloc;
	grow.buf = p + VARHDRSZ;
	return p + VARHDRSZ;
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

/* palloc for a filter of size bytes, huge pages advised when it is large. */
void *
filter_alloc(MemoryContext cxt, Size size)
{
	void	   *p = MemoryContextAllocExtended(cxt, size, MCXT_ALLOC_HUGE);

	advise_huge_pages(p, size);
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

/* The hint of the "full" error: a fixed filter could have been made to grow. */
static int
full_hint(const cf_filter *cf)
{
	cf_info		info;

	cf_get_info(cf, &info);
	if (info.expansion == 0)
		return errhint("Build a larger filter (cuckoo_agg over the source data, or cuckoo_create with a larger capacity), or one that grows: cuckoo_create(..., expansion => 2) or cuckoo_agg(value, capacity, fpr, 2).");
	return errhint("A growing filter stops growing at %zu bytes, or when many copies of a few values crowd one pair of buckets; cuckoo_add_if_absent stores each value once.",
				   (size_t) CF_MAX_BYTES);
}

/* "was never rotated" or where its generations stand, for an error detail */
static const char *
rotation_state(const cf_info *info)
{
	if (info->keep == 0)
		return "was never rotated";
	return psprintf("is in generation %u of %u-bit tags, rotated last with keep %u",
					info->cur_gen, info->gen_bits, info->keep);
}

/*
 * Turns a failed core status into the user-facing error.  other is the
 * second filter of a union (NULL for an operation on one filter): the
 * union's errors name both.
 */
void
filter_report_status(cf_status st, const cf_filter *cf, const cf_filter *other)
{
	switch (st)
	{
		case CF_OK:
		case CF_OK_STASHED:
		case CF_EXISTS:
			return;
		case CF_FULL:
			if (other != NULL && (cf_caps(cf) & CF_CAP_GROWS))
			{
				cf_info		info;

				cf_get_info(cf, &info);
				if (info.addr_budget > 0)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("the union does not fit in a cuckoo filter of this shape"),
							 errdetail("The growing filter has %u buckets of %u entries and reached the size limit of a filter (" UINT64_FORMAT " bytes).",
									   cf->m, cf->b, (uint64) CF_MAX_BYTES),
							 errhint("Keep a set this large in a stored filter (cuckoo_store_create), which is split into segments and has no such limit, or split the set into several filters.")));
				if (info.expansion != 0)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("the union does not fit in a cuckoo filter of this shape"),
							 errdetail("The growing filter has %u buckets of %u entries and could not grow further: it reached the size limit, or the next bucket to split holds only copies that know no spare address bit (docs/RELIABILITY.md, known limits).",
									   cf->m, cf->b),
							 errhint("Rebuild the filters from their values: growing filters made by the library of extension 1.4 carry the address budget and union to the size limit without copies (docs/FORMAT.md 13.12). Or build one filter over the sources with cuckoo_agg(value, fpr), which sizes it to the data and combines partial results exactly.")));
			}
			if (other != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the union does not fit in a cuckoo filter of this shape"),
						 errdetail("The filter has %u buckets of %u entries.", cf->m, cf->b),
						 errhint("Union filters built by cuckoo_create or cuckoo_agg(value, capacity, fpr) with a capacity for all their values; filters that cuckoo_agg(value) sized to their own data have no room to spare.")));
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("cuckoo filter is full"),
					 errdetail("It holds " UINT64_FORMAT " items: %u buckets of %u entries (load factor %.3f)%s; its rated capacity is " UINT64_FORMAT ".",
							   cf_items(cf), cf->m, cf->b,
							   (double) (cf_items(cf) - (cf_victim_used(cf) ? 1 : 0)) /
							   ((double) cf->m * cf->b),
							   cf_victim_used(cf) ? " and the one-entry victim slot" : "",
							   cf_capacity(cf)),
					 full_hint(cf)));
			break;
		case CF_TOO_MANY_COPIES:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("value was added to the cuckoo filter too many times"),
					 errdetail("A filter with bucket size %u holds at most %u copies of one value.",
							   cf->b, 2 * cf->b),
					 errhint("Use cuckoo_add_if_absent to store each value once.")));
			break;
		case CF_SHAPE_MISMATCH:
			Assert(other != NULL);
			if ((cf_caps(cf) | cf_caps(other)) & CF_CAP_CREATION_SHAPE)
			{
				/* version 2: the creation shape counts, not the current size */
				cf_info		a,
							o;

				cf_get_info(cf, &a);
				cf_get_info(other, &o);
				if (a.expansion == o.expansion &&
					cf->b == other->b && cf->f == other->f &&
					/* an address-budget filter's t follows its size and g */
					(a.tail_bits == o.tail_bits || (a.addr_budget && o.addr_budget)) &&
					a.c == o.c && cf_capacity(cf) == cf_capacity(other))
				{
					/* one creation shape: the generations differ */
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("cannot union cuckoo filters that were not rotated in step"),
							 errdetail("The first %s; the second %s.",
									   rotation_state(&a), rotation_state(&o)),
							 errhint("Rotate filters that are to be unioned together, by the same cuckoo_rotate calls, or union them before rotating.")));
				}
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("cannot union cuckoo filters of different shapes"),
						 errdetail("The first is %s: %u-bit fingerprints, %u tail bits, created with %u buckets for capacity " UINT64_FORMAT "; the second is %s: %u-bit fingerprints, %u tail bits, created with %u buckets for capacity " UINT64_FORMAT ".",
								   a.expansion ? "growing" : ((a.caps & CF_CAP_GENERATIONS) ? "fixed, rotated" : "fixed"),
								   cf->f, a.tail_bits, a.initial_buckets, cf_capacity(cf),
								   o.expansion ? "growing" : ((o.caps & CF_CAP_GENERATIONS) ? "fixed, rotated" : "fixed"),
								   other->f, o.tail_bits, o.initial_buckets, cf_capacity(other)),
						 errhint("Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr [, expansion]) with the same arguments have the same shape, however far they have grown.")));
			}
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot union cuckoo filters of different shapes"),
					 errdetail("The first has %u buckets of %u %u-bit fingerprints%s, the second %u buckets of %u %u-bit fingerprints%s.",
							   cf->m, cf->b, cf->f, cf->semisort ? " (semi-sorted)" : "",
							   other->m, other->b, other->f, other->semisort ? " (semi-sorted)" : ""),
					 errhint("Filters made by cuckoo_create or cuckoo_agg(value, capacity, fpr) with the same arguments have the same shape.")));
			break;
		case CF_KIND_MISMATCH:
			Assert(other != NULL);
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("cannot union a cuckoo filter of %s values with one of %s values",
							cf_kind_name(cf_kind_of(cf)), cf_kind_name(cf_kind_of(other)))));
			break;
	}
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

/*
 * The load of a filter's table (entries, not counting the victim slot, over
 * slots) and its expected false-positive rate.  Version 1 and a rotated fixed
 * filter (no tail bits): cf_expected_fpr of f-bit fingerprints.  A growing
 * filter's entry also matches on s spare address bits, s = t - 1 for an
 * entry added since the last doubling and one fewer per doubling since
 * (docs/DESIGN.md): after G doublings at a constant load about 2^-(j+1) of
 * the entries are j doublings old, so E[2^-s] is about (G + 2) 2^-t, and
 * the rate about that times the rate of f-bit fingerprints (an estimate:
 * entries moved between buckets of different resolution lose spare bits).
 */
double
filter_load(const cf_filter *cf, const cf_info *info)
{
	uint64		entries = (info->caps & CF_CAP_GENERATIONS) ? info->entries : cf_items(cf);

	return (double) (entries - (cf_victim_used(cf) ? 1 : 0)) / ((double) cf->m * cf->b);
}

double
filter_expected_fpr(const cf_filter *cf, const cf_info *info)
{
	double		fpr = cf_expected_fpr(cf->b, cf->f, filter_load(cf, info));

	/*
	 * The address budget (docs/FORMAT.md 13.12 rule 8): every entry knows A
	 * address bits, so each of the value's two buckets' entries matches with
	 * probability 2^-A / (c (2^f - 1)).
	 */
	if (info->addr_budget > 0)
		return Min(1.0, 2.0 * (double) info->entries /
				   (((double) cf->fp_range) * (double) info->c * ldexp(1.0, (int) info->addr_budget)));
	if (info->tail_bits > 0)
	{
		double		rounds = filter_growth_rounds(info);

		fpr = Min(1.0, fpr * (rounds + 2.0) * ldexp(1.0, -(int) info->tail_bits));
	}
	return fpr;
}

/* Table doublings since creation: k now against k at initial_buckets. */
int
filter_growth_rounds(const cf_info *info)
{
	uint64		init = info->initial_buckets;
	int			k0 = 0;

	if (!(info->caps & CF_CAP_GROWS) || info->c == 0)
		return 0;
	while (((uint64) info->c << (k0 + 1)) <= init)
		k0++;
	/* a filter compacted below its creation size has no doublings (not < 0) */
	return Max((int) info->k - k0, 0);
}

/* The largest capacity whose filter stays within CF_MAX_BYTES. */
static uint64
max_capacity(uint32 b, uint32 f, bool semisort)
{
	uint64		lo = 1,
				hi = UINT64CONST(1) << 40;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo + 1) / 2;
		uint32		m = cf_buckets_for_capacity(mid, b);

		if (m != 0 && cf_total_bytes(m, b, f, semisort) <= CF_MAX_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The false-positive rate a user asked for: 0 < fpr < 1. */
void
plan_check_fpr(double fpr)
{
	if (isnan(fpr) || fpr <= 0.0 || fpr >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be greater than 0 and less than 1, not %g", fpr)));
}

/*
 * Fingerprint bits for a checked fpr in a table of bucket_size entries filled
 * to load; for_what names the setting in the error when no width suffices.
 */
uint32
plan_fp_bits(double fpr, uint32 bucket_size, double load, const char *for_what)
{
	int			f = cf_fp_bits_for_fpr_at(fpr, bucket_size, load);

	if (f < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpr must be at least %g for %s, not %g",
						cf_expected_fpr(bucket_size, CF_MAX_FP_BITS, load),
						for_what, fpr),
				 errdetail("That is the rate of %d-bit fingerprints, the longest a filter stores.",
						   CF_MAX_FP_BITS)));
	return (uint32) f;
}

/*
 * Parameters of a new filter from the user's arguments, every one checked.
 * fingerprint_bits overrides the size derived from fpr when fp_given.
 */
void
plan_params(int64 capacity, double fpr, int bucket_size,
			int fingerprint_bits, bool fp_given, int max_kicks,
			bool semisort, cf_params *p)
{
	uint32		m;
	uint64		bytes;

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	plan_check_fpr(fpr);
	if (bucket_size != 2 && bucket_size != 4 && bucket_size != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bucket_size must be 2, 4 or 8, not %d", bucket_size)));
	if (fp_given && (fingerprint_bits < CF_MIN_FP_BITS || fingerprint_bits > CF_MAX_FP_BITS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fingerprint_bits must be between %d and %d, not %d",
						CF_MIN_FP_BITS, CF_MAX_FP_BITS, fingerprint_bits)));
	if (max_kicks < 0 || max_kicks > CF_MAX_KICKS_LIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_kicks must be between 0 and %d, not %d",
						CF_MAX_KICKS_LIMIT, max_kicks)));
	if (semisort && bucket_size != 4)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("semisort requires bucket_size 4, not %d", bucket_size)));
	if (!fp_given)
		fingerprint_bits = (int) plan_fp_bits(fpr, (uint32) bucket_size,
											  cf_target_load((uint32) bucket_size),
											  psprintf("bucket_size %d", bucket_size));

	m = cf_buckets_for_capacity((uint64) capacity, (uint32) bucket_size);
	bytes = m ? cf_total_bytes(m, (uint32) bucket_size, (uint32) fingerprint_bits, semisort) : 0;
	if (m == 0 || bytes > CF_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be between 1 and " UINT64_FORMAT " for bucket_size %d and %d-bit fingerprints, not " INT64_FORMAT,
						max_capacity((uint32) bucket_size, (uint32) fingerprint_bits, semisort),
						bucket_size, fingerprint_bits, capacity),
				 errdetail("A filter may take at most %zu bytes, so that its text form fits in 1 GB.",
						   (size_t) CF_MAX_BYTES)));

	p->num_buckets = m;
	p->bucket_size = (uint32) bucket_size;
	p->fp_bits = (uint32) fingerprint_bits;
	p->semisort = semisort;
	p->max_kicks = (uint32) max_kicks;
	p->kind = CF_KIND_ANY;
	p->type_tag = 0;
	p->capacity = (uint64) capacity;
	/* a fixed filter: version 1, byte for byte as 1.0 writes it */
	p->expansion = 0;
	p->tail_bits = 0;
	p->gen_bits = 0;
	p->budget = false;
}

/*
 * The parameters of cuckoo_create(..., expansion): 0 keeps the fixed filter
 * plan_params made; 2 replaces it by a growing one (format version 2, whose
 * shape the core derives from capacity and fpr).  Anything else, or an
 * argument a growing filter cannot honour, is an error.
 */
void
plan_expansion(int expansion, int64 capacity, double fpr, int bucket_size,
			   bool fp_given, bool semisort, int max_kicks, cf_params *p)
{
	char		err[256];

	if (expansion != 0 && expansion != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expansion must be 0 (fixed) or 2 (grows), not %d", expansion)));
	if (expansion == 0)
		return;
	if (bucket_size != 4 || semisort || fp_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a filter with expansion 2 has bucket_size 4, no semisort and fingerprints sized from fpr"),
				 errdetail("It was given%s%s%s.",
						   bucket_size != 4 ? psprintf(" bucket_size %d", bucket_size) : "",
						   semisort ? " semisort" : "",
						   fp_given ? " fingerprint_bits" : "")));
	memset(p, 0, sizeof(*p));
	if (!cf_params_growing((uint64) capacity, fpr, (uint32) max_kicks, p, err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot create a growing filter for capacity " INT64_FORMAT " at fpr %g: %s",
						capacity, fpr, err)));
}

