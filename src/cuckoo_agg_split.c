/*
 * cuckoo_agg_split.c
 *     The partial states of cuckoo_agg(value, capacity, fpr, expansion) where
 *     PostgreSQL splits the aggregate: the set of distinct hashes, expanded
 *     and flat, and whether the aggregates sharing a state let it be a set
 *     (their support functions, looked up in the catalogs).
 */
#include "cuckoo_agg.h"


#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "executor/nodeAgg.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

/*
 * Partial states of cuckoo_agg(value, capacity, fpr, expansion).
 *
 * A growing filter cannot be unioned without loss: an entry that has spent
 * its spare address bits is copied into every bucket of the larger union it
 * cannot tell apart (docs/DESIGN.md, "Union").  So where PostgreSQL splits
 * the aggregate (parallel workers, partitionwise aggregation: the Aggref's
 * aggsplit skips the final function) the transition keeps the exact set of
 * distinct hashes instead of a filter, and the combine function merges the
 * sets; the final function then inserts the merged set, in ascending hash
 * order, into a filter created as cuckoo_create(capacity, fpr, expansion =>
 * expansion): every value once, as a serial build stores it.  The states
 * travel from the workers to the leader as flat values of the state type
 * (GrowPartialFlat, magic "CGP1", which no filter has: a filter starts with
 * "CKOO"); they never leave the plan, and only these functions read them:
 * the transition keeps a set only where cuckoo_agg_grow_combine combines
 * the partial states, and that function returns a filter where no
 * cuckoo_agg_grow_final follows (aggregates users make of these functions,
 * grow_agg_fns_of below).
 *
 * Memory: 8 bytes a distinct value (plus the hash set's spare room, below
 * 2x while its parts fill).  A partial state that passes GP_MAX_HASHES
 * distinct values (64 MB of hashes) becomes the growing filter of its hashes
 * and adds further values to it, as a serial build does: from then on its
 * combination with another filter is the union (lossy, as above); with a set
 * of hashes it is still exact (the hashes are inserted into the filter).
 * The combined state in the leader does the same past GP_MAX_HASHES.  A
 * state of at most GP_FLAT_KEEP hashes stays a flat value, changed by
 * copying (a hashed aggregate over many small groups then pays no memory
 * context per group).
 *
 * Callers that run the transition outside a split Aggref (Citus's
 * worker_partial_agg, the emulation in test/citus_emul) see filters, as
 * before: their states travel as the type's text, which must be a filter.
 */
#define GP_MAGIC		0x31504743u	/* "CGP1" read little-endian */
#ifndef GP_MAX_HASHES			/* (a test build may set it lower) */
#define GP_MAX_HASHES	((int64) 1 << 23)
#endif

static Size
grow_partial_flat_size(ExpandedObjectHeader *eohptr)
{
	GrowPartial *gp = (GrowPartial *) eohptr;

	gp->known = hashset_count(gp->s);
	gp->added = 0;
	return GP_FLAT_HEADER + (Size) gp->known * sizeof(uint64);
}

static void
grow_partial_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	GrowPartial *gp = (GrowPartial *) eohptr;
	GrowPartialFlat *v = (GrowPartialFlat *) result;
	int64		n = (int64) ((allocated_size - GP_FLAT_HEADER) / sizeof(uint64)),
				got = 0,
				k;
	HashSetReader r;

	memset(v, 0, GP_FLAT_HEADER);
	SET_VARSIZE(v, allocated_size);
	v->magic = GP_MAGIC;
	v->kind = gp->args.kind;
	v->type_tag = gp->args.type_tag;
	v->expansion = gp->args.expansion;
	v->capacity = gp->args.capacity;
	v->fpr = gp->args.fpr;
	hashset_reader_open(&r, gp->s);
	while (got < n && (k = hashset_reader_read(&r, v->hashes + got, n - got)) > 0)
		got += k;
	hashset_reader_close(&r);
	if (got != n)
		elog(ERROR, "cuckoo_agg partial state changed while it was flattened");
}

static const ExpandedObjectMethods grow_partial_methods = {
	grow_partial_flat_size,
	grow_partial_flatten
};

/*
 * Which support functions of an aggregate are this module's.  Anyone may
 * make an aggregate of cuckoo_agg_grow_trans and cuckoo_agg_grow_combine
 * (CREATE AGGREGATE; the extension is trusted) with another combine
 * function or with no final function: a set of hashes must then never
 * reach the other function, nor leave the aggregate as its result.  Looked
 * up in the catalogs once per aggregate, kept until they change.
 */
typedef struct GrowAggFns
{
	Oid			aggfnoid;		/* InvalidOid: nothing kept */
	bool		combine_ours;	/* combines with cuckoo_agg_grow_combine */
	bool		final_ours;		/* ends with cuckoo_agg_grow_final */
} GrowAggFns;

#define GROW_AGG_FNS_KEPT 8		/* aggregates kept (a query may use several) */
static GrowAggFns grow_agg_fns[GROW_AGG_FNS_KEPT];
static int	grow_agg_fns_next;		/* the entry replaced next */
static bool grow_agg_fns_watched;

static void
grow_agg_fns_forget(Datum arg, int cacheid, uint32 hashvalue)
{
	for (int i = 0; i < GROW_AGG_FNS_KEPT; i++)
		grow_agg_fns[i].aggfnoid = InvalidOid;
}

/* The C symbol and library of function fn (palloc'd), or false if it is not in C. */
static bool
grow_fn_c_symbol(Oid fn, char **src, char **bin)
{
	HeapTuple	t;
	bool		isnull,
				found = false;
	Datum		d;

	if (!OidIsValid(fn))
		return false;
	t = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(t))
		return false;
	if (((Form_pg_proc) GETSTRUCT(t))->prolang == ClanguageId)
	{
		d = SysCacheGetAttr(PROCOID, t, Anum_pg_proc_prosrc, &isnull);
		if (!isnull)
		{
			*src = TextDatumGetCString(d);
			d = SysCacheGetAttr(PROCOID, t, Anum_pg_proc_probin, &isnull);
			if (!isnull)
			{
				*bin = TextDatumGetCString(d);
				found = true;
			}
		}
	}
	ReleaseSysCache(t);
	return found;
}

/* Whether fn is the C function symbol of the library that self (a function of this module) is in. */
static bool
grow_fn_is(Oid fn, const char *symbol, Oid self)
{
	char	   *src,
			   *bin,
			   *self_src,
			   *self_bin;

	return grow_fn_c_symbol(fn, &src, &bin) && strcmp(src, symbol) == 0 &&
		grow_fn_c_symbol(self, &self_src, &self_bin) && strcmp(bin, self_bin) == 0;
}

static const GrowAggFns *
grow_agg_fns_of(FunctionCallInfo fcinfo, Oid aggfnoid)
{
	HeapTuple	t;
	Form_pg_aggregate agg;
	GrowAggFns *e;

	for (int i = 0; i < GROW_AGG_FNS_KEPT; i++)
		if (grow_agg_fns[i].aggfnoid == aggfnoid)
			return &grow_agg_fns[i];
	if (!grow_agg_fns_watched)
	{
		CacheRegisterSyscacheCallback(AGGFNOID, grow_agg_fns_forget, (Datum) 0);
		CacheRegisterSyscacheCallback(PROCOID, grow_agg_fns_forget, (Datum) 0);
		grow_agg_fns_watched = true;
	}
	e = &grow_agg_fns[grow_agg_fns_next];
	grow_agg_fns_next = (grow_agg_fns_next + 1) % GROW_AGG_FNS_KEPT;
	e->aggfnoid = InvalidOid;	/* until complete (a lookup may fail) */
	t = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(t))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(t);
	e->combine_ours = grow_fn_is(agg->aggcombinefn, "cuckoo_agg_grow_combine",
								 fcinfo->flinfo->fn_oid);
	e->final_ours = grow_fn_is(agg->aggfinalfn, "cuckoo_agg_grow_final",
							   fcinfo->flinfo->fn_oid);
	ReleaseSysCache(t);
	e->aggfnoid = aggfnoid;
	return e;
}

/*
 * Whether every aggregate whose transition state this call updates has
 * its combine function (want_final false) or its final function (true) in
 * this module.  Aggregates with one transition function and the same
 * arguments share one state (PostgreSQL's executor: AggGetAggref gives only
 * the first of them): a user's aggregate without cuckoo_agg_grow_final may
 * share the state of cuckoo_agg(value, capacity, fpr, expansion).
 */
static bool
grow_sharers_ours(FunctionCallInfo fcinfo, bool want_final)
{
	AggState   *as;
	int			transno;
	bool		any = false;

	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return false;
	as = (AggState *) fcinfo->context;
	if (as->curpertrans == NULL)
		return false;
	transno = (int) (as->curpertrans - as->pertrans);
	for (int i = 0; i < as->numaggs; i++)
	{
		const GrowAggFns *f;

		if (as->peragg[i].transno != transno)
			continue;
		f = grow_agg_fns_of(fcinfo, as->peragg[i].aggref->aggfnoid);
		if (!(want_final ? f->final_ours : f->combine_ours))
			return false;
		any = true;
	}
	return any;
}

/*
 * Whether the transition keeps a set of hashes: an aggregate whose final
 * step runs elsewhere (aggsplit skips the final function) and whose partial
 * states cuckoo_agg_grow_combine combines (for every aggregate sharing the
 * state).
 */
bool
grow_trans_keeps_set(FunctionCallInfo fcinfo)
{
	Aggref	   *a = AggGetAggref(fcinfo);

	return a != NULL && DO_AGGSPLIT_SKIPFINAL(a->aggsplit) && grow_sharers_ours(fcinfo, false);
}

/*
 * Whether the combine function may return a set of hashes: its result goes
 * to a further combine (aggsplit skips the final function) or to
 * cuckoo_agg_grow_final, for every aggregate sharing the state.  Otherwise
 * it returns a filter: an aggregate without that final function returns
 * its state, which must be a filter.
 */
bool
grow_combine_keeps_set(FunctionCallInfo fcinfo)
{
	Aggref	   *a = AggGetAggref(fcinfo);

	if (a == NULL)
		return false;
	return DO_AGGSPLIT_SKIPFINAL(a->aggsplit) || grow_sharers_ours(fcinfo, true);
}

/* The expanded partial state behind d (read-write only if rw), or NULL. */
GrowPartial *
grow_partial_of(Datum d, bool rw)
{
	Pointer		p = DatumGetPointer(d);

	if (rw ? VARATT_IS_EXTERNAL_EXPANDED_RW(p) : VARATT_IS_EXTERNAL_EXPANDED(p))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &grow_partial_methods)
			return (GrowPartial *) eoh;
	}
	return NULL;
}

/*
 * The flat partial state d (detoasted and checked), or NULL if d is not one
 * (a filter).  Only this file makes such values; the check guards against a
 * damaged datum, and the hashes must be strictly ascending as flattening
 * writes them.
 */
GrowPartialFlat *
grow_partial_flat_of(Datum d)
{
	Pointer		p = DatumGetPointer(d);
	uint32		magic;
	GrowPartialFlat *v;
	int64		n;

	if (VARATT_IS_EXTERNAL_EXPANDED(p) || VARSIZE_ANY_EXHDR(p) < sizeof(magic))
		return NULL;
	memcpy(&magic, VARDATA_ANY(p), sizeof(magic));
	if (magic != GP_MAGIC)
		return NULL;
	v = (GrowPartialFlat *) PG_DETOAST_DATUM(d);
	if (((uintptr_t) v) % sizeof(uint64) != 0)
	{
		/* a value stored unaligned: read an aligned copy */
		GrowPartialFlat *c = palloc(VARSIZE(v));

		memcpy(c, v, VARSIZE(v));
		v = c;
	}
	if (VARSIZE(v) < GP_FLAT_HEADER || (VARSIZE(v) - GP_FLAT_HEADER) % sizeof(uint64) != 0 ||
		v->kind == CF_KIND_ANY || v->kind > CF_KIND_MAX || v->reserved || v->reserved2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted cuckoo_agg partial state")));
	n = GP_NHASHES(v);
	for (int64 i = 1; i < n; i++)
		if (v->hashes[i - 1] >= v->hashes[i])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("corrupted cuckoo_agg partial state: hashes out of order")));
	return v;
}

/* The creation arguments a flat partial state carries. */
void
grow_args_of_flat(const GrowPartialFlat *v, GrowArgs *a)
{
	a->capacity = v->capacity;
	a->fpr = v->fpr;
	a->expansion = v->expansion;
	a->kind = v->kind;
	a->type_tag = v->type_tag;
}

/* A read-only view of a flat partial state's hashes as a set. */
HashSetState *
grow_flat_view(GrowPartialFlat *v, HashSetState *tmp)
{
	memset(tmp, 0, sizeof(*tmp));
	tmp->nsorted = GP_NHASHES(v);
	tmp->sorted = v->hashes;	/* aligned (grow_partial_flat_of) */
	tmp->sorted_cap = Max(tmp->nsorted, 1);
	tmp->fpr = v->fpr;
	tmp->kind = v->kind;
	tmp->type_tag = v->type_tag;
	tmp->cxt = CurrentMemoryContext;
	return tmp;
}

/* A flat partial state: the ascending a[0 .. na-1] and h merged (h may be there). */
GrowPartialFlat *
grow_flat_merge(const GrowArgs *args, const uint64 *a, int64 na, uint64 h)
{
	GrowPartialFlat *v = palloc(GP_FLAT_HEADER + (Size) (na + 1) * sizeof(uint64));
	int64		i = 0,
				n = 0;

	memset(v, 0, GP_FLAT_HEADER);
	v->magic = GP_MAGIC;
	v->kind = args->kind;
	v->type_tag = args->type_tag;
	v->expansion = args->expansion;
	v->capacity = args->capacity;
	v->fpr = args->fpr;
	while (i < na && a[i] < h)
		v->hashes[n++] = a[i++];
	if (i == na || a[i] != h)
		v->hashes[n++] = h;
	while (i < na)
		v->hashes[n++] = a[i++];
	SET_VARSIZE(v, GP_FLAT_HEADER + (Size) n * sizeof(uint64));
	return v;
}

/* A new, empty expanded partial state in a context of its own under aggcxt. */
GrowPartial *
grow_partial_new(MemoryContext aggcxt, const GrowArgs *args)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "cuckoo_agg growing partial state",
											  ALLOCSET_DEFAULT_SIZES);
	GrowPartial *gp = MemoryContextAlloc(cxt, sizeof(GrowPartial));

	EOH_init_header(&gp->hdr, &grow_partial_methods, cxt);
	gp->args = *args;
	gp->s = hashset_new(cxt, args->fpr, args->kind, args->type_tag);
	gp->known = 0;
	gp->added = 0;
	return gp;
}

/* Two partial states combine only if made with the same arguments. */
void
grow_args_check(const GrowArgs *a, const GrowArgs *b)
{
	if (a->kind != b->kind || a->type_tag != b->type_tag)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cuckoo_agg states of different value types cannot be combined")));
	if (a->capacity != b->capacity || a->fpr != b->fpr || a->expansion != b->expansion)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_agg states of different capacity, fpr or expansion cannot be combined")));
}

/*
 * A partial state has passed GP_MAX_HASHES hashes?  Counted exactly (which
 * sorts) only after enough adds since the last count to pass it, or an
 * eighth of it: at most 1.125 times the bound is kept.
 */
bool
grow_partial_full(GrowPartial *gp)
{
	if (gp->known + gp->added <= GP_MAX_HASHES || gp->added < GP_MAX_HASHES / 8)
		return false;
	gp->known = hashset_count(gp->s);
	gp->added = 0;
	return gp->known > GP_MAX_HASHES;
}

/*
 * The state in argument argno as a set of hashes (read-only), or NULL if it
 * is a filter; *args gets the creation arguments.
 */
HashSetState *
grow_arg_set(FunctionCallInfo fcinfo, int argno, HashSetState *tmp, GrowArgs *args)
{
	GrowPartial *gp = grow_partial_of(PG_GETARG_DATUM(argno), false);
	GrowPartialFlat *gf;

	if (gp != NULL)
	{
		*args = gp->args;
		return gp->s;
	}
	if ((gf = grow_partial_flat_of(PG_GETARG_DATUM(argno))) != NULL)
	{
		grow_args_of_flat(gf, args);
		return grow_flat_view(gf, tmp);
	}
	return NULL;
}
