/*
 * cuckoo_planner.c
 *     What the planner knows about cuckoo_contains(f, col) and f @> col: a
 *     selectivity from the filter's item count against the column's number of
 *     distinct values, when the filter is known at plan time (a literal, or a
 *     parameter of a custom plan), and a per-row cost; the same questions
 *     about cuckoo_store_contains(store, col); and what the union of
 *     the partial states of cuckoo_agg(value, capacity, fpr) costs (below).
 */
#include "cuckoo.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/prep.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

/* Default selectivity when the filter is not known at plan time. */
#define DEFAULT_CONTAINS_SEL	0.1

/*
 * Fraction of rows whose value the filter reports: the share of the column's
 * distinct values that can be in the filter, min(1, items / ndistinct), plus
 * false positives among the rest.  Assumes the filter was built from values of
 * this column's domain, the use it is made for.
 */
static Selectivity
contains_selectivity(PlannerInfo *root, Node *filter_arg, Node *value_arg, int varRelid)
{
	Node	   *fexpr = estimate_expression_value(root, filter_arg);
	CuckooFilter *v;
	cf_filter	cf;
	cf_info		info;
	VariableStatData vardata;
	double		nd;
	bool		isdefault;
	double		items,
				fpr,
				in_set;
	Selectivity sel;

	if (!IsA(fexpr, Const) || ((Const *) fexpr)->constisnull)
		return DEFAULT_CONTAINS_SEL;
	v = DatumGetCuckooFilterP(((Const *) fexpr)->constvalue);
	filter_open(&cf, v);
	items = (double) cf_items(&cf);
	cf_get_info(&cf, &info);
	fpr = filter_expected_fpr(&cf, &info);	/* versions 1 and 2 */

	examine_variable(root, value_arg, varRelid, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);

	if (isdefault || nd <= 0)
		in_set = Min(1.0, items / 200.0);	/* DEFAULT_NUM_DISTINCT */
	else
		in_set = Min(1.0, items / nd);
	sel = in_set + (1.0 - in_set) * fpr;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* Support function of cuckoo_contains: selectivity and cost. */
PG_FUNCTION_INFO_V1(cuckoo_contains_support);
Datum
cuckoo_contains_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (req->is_join || list_length(req->args) != 2)
			PG_RETURN_POINTER(NULL);
		req->selectivity = contains_selectivity(req->root, linitial(req->args),
												lsecond(req->args), req->varRelid);
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;

		/* a hash and two bucket reads: about two plain function calls */
		req->startup = 0;
		req->per_tuple = 2 * cpu_operator_cost;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * Support function of cuckoo_store_contains(store, value).  Being called at
 * all is half its use: the planner calls it while it estimates the scan's
 * quals, before it builds the scan's paths, so the library is loaded (and
 * the batched probe's path hook installed, cuckoo_scan.c) from the first
 * such query of a session on.
 *
 * Selectivity: the default of a filter not known at plan time.  The store's
 * item count is the sum over its segments, which the planner would have to
 * read (a scan of the store, at plan time, with the rights of whoever
 * plans); so no estimate is made from it.
 *
 * Cost: per row a hash and a lookup in a segment already read, about twice
 * cuckoo_contains' (store_scan.sh measured 1.3x to 2.3x); once per query the
 * store's pages, which the probe reads once (its segments are cached for the
 * query), when the store is a constant.
 */
PG_FUNCTION_INFO_V1(cuckoo_store_contains_support);
Datum
cuckoo_store_contains_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (req->is_join)
			PG_RETURN_POINTER(NULL);
		req->selectivity = DEFAULT_CONTAINS_SEL;
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;
		double		pages = 0;

		if (req->node != NULL && IsA(req->node, FuncExpr) &&
			list_length(((FuncExpr *) req->node)->args) == 2)
		{
			Node	   *store = linitial(((FuncExpr *) req->node)->args);

			if (IsA(store, Const) && !((Const *) store)->constisnull &&
				((Const *) store)->consttype == REGCLASSOID)
			{
				HeapTuple	tup = SearchSysCache1(RELOID, ((Const *) store)->constvalue);

				if (HeapTupleIsValid(tup))
				{
					pages = Max(((Form_pg_class) GETSTRUCT(tup))->relpages, 1);
					ReleaseSysCache(tup);
				}
			}
		}
		req->startup = pages * seq_page_cost;
		req->per_tuple = 4 * cpu_operator_cost;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/* Restriction estimator of the @> operator (same estimate). */
PG_FUNCTION_INFO_V1(cuckoo_contains_sel);
Datum
cuckoo_contains_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(DEFAULT_CONTAINS_SEL);
	PG_RETURN_FLOAT8(contains_selectivity(root, linitial(args), lsecond(args), varRelid));
}

/*
 * The combine cost of the fixed-shape cuckoo_agg(value, capacity, fpr) in
 * partial (parallel) aggregation.
 *
 * Each partial state is a filter of the full shape, and the leader unions
 * them one after the other (cuckoo_union_trans): every entry of a partial
 * filter is looked up in both filters and inserted, at the table's highest
 * loads, once all the workers are done.  PostgreSQL charges a combine
 * function a few operator costs per partial state, so it chose partial
 * aggregation for a 10M-row build that then ran at 0.5 to 0.86 of the serial
 * plan's speed (docs/BENCHMARKS.md, *Goals of issue 15: final run*): the
 * union cost 120-150 ns an entry, about twice the inserts it replaced.
 *
 * So for a plain aggregation (no GROUP BY, no grouping sets) whose
 * aggregates include that form with a constant capacity, the planner hook
 * adds to each finalize-over-Gather path the union's cost: per partial state
 * after the first, min(rows per state, capacity) entries at
 * cuckoo.fixed_agg_union_cost each (in the planner's cost units; 0 turns
 * this off), and makes sure the serial plan is there to be compared with
 * (the cheaper partial path may have displaced it).  Where many rows go
 * into a small filter, the partial states are small and the parallel plan
 * still wins.
 */
static create_upper_paths_hook_type prev_upper_paths_hook = NULL;
static double fixed_agg_union_cost = 0.05;

typedef struct FixedAggSearch
{
	double		capacity;		/* the largest constant capacity found */
	bool		found;
} FixedAggSearch;

/* Is aggregate aggfnoid's transition function cuckoo_agg_fixed_trans? */
static bool
is_fixed_shape_agg(Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	bool		result = false;

	if (HeapTupleIsValid(tup))
	{
		Oid			transfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtransfn;
		HeapTuple	ptup = SearchSysCache1(PROCOID, ObjectIdGetDatum(transfn));

		if (HeapTupleIsValid(ptup))
		{
			Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(ptup);
			bool		isnull;
			Datum		src;

			if (proc->prolang == ClanguageId)
			{
				src = SysCacheGetAttr(PROCOID, ptup, Anum_pg_proc_prosrc, &isnull);
				result = !isnull &&
					strcmp(TextDatumGetCString(src), "cuckoo_agg_fixed_trans") == 0;
			}
			ReleaseSysCache(ptup);
		}
		ReleaseSysCache(tup);
	}
	return result;
}

static bool
find_fixed_aggs(Node *node, FixedAggSearch *s)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *agg = (Aggref *) node;

		if (list_length(agg->args) >= 2 && is_fixed_shape_agg(agg->aggfnoid))
		{
			Expr	   *cap = ((TargetEntry *) lsecond(agg->args))->expr;

			if (IsA(cap, Const) && !((Const *) cap)->constisnull &&
				((Const *) cap)->consttype == INT8OID)
			{
				s->capacity = Max(s->capacity,
								  (double) DatumGetInt64(((Const *) cap)->constvalue));
				s->found = true;
			}
		}
		return false;			/* no aggregates inside an aggregate's arguments */
	}
	return expression_tree_walker(node, find_fixed_aggs, (void *) s);
}

/* Partial states under a finalize path: its Gather's processes, or 0. */
static int
partial_states(Path *path)
{
	if (!IsA(path, AggPath) || ((AggPath *) path)->aggsplit != AGGSPLIT_FINAL_DESERIAL)
		return 0;
	path = ((AggPath *) path)->subpath;
	if (IsA(path, GatherPath))
		return ((GatherPath *) path)->num_workers + (parallel_leader_participation ? 1 : 0);
	return 0;
}

static void
fixed_agg_upper_paths(PlannerInfo *root, UpperRelationKind stage,
					  RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	Query	   *parse = root->parse;
	FixedAggSearch s = {0, false};
	List	   *partials = NIL;
	bool		have_serial = false;
	double		rows;
	ListCell   *lc;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG || extra == NULL || fixed_agg_union_cost <= 0 ||
		!parse->hasAggs || parse->groupClause != NIL || parse->groupingSets != NIL ||
		input_rel->cheapest_total_path == NULL)
		return;
	(void) find_fixed_aggs((Node *) parse->targetList, &s);
	(void) find_fixed_aggs(parse->havingQual, &s);
	if (!s.found)
		return;

	rows = Max(input_rel->cheapest_total_path->rows, 1.0);
	foreach(lc, output_rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);
		int			states = partial_states(path);

		if (states > 1)
		{
			Cost		add = (states - 1) * Min(rows / states, s.capacity) * fixed_agg_union_cost;

			path->startup_cost += add;
			path->total_cost += add;
			partials = lappend(partials, path);
		}
		else if (IsA(path, AggPath) && ((AggPath *) path)->aggsplit == AGGSPLIT_SIMPLE)
			have_serial = true;
	}
	if (partials == NIL)
		return;
	/* re-added below, so that add_path weighs them at their new cost */
	output_rel->pathlist = list_difference_ptr(output_rel->pathlist, partials);
	if (!have_serial)
	{
		AggClauseCosts costs;

		MemSet(&costs, 0, sizeof(costs));
#if PG_VERSION_NUM >= 140000
		get_agg_clause_costs(root, AGGSPLIT_SIMPLE, &costs);
#else
		/* as grouping_planner did before PostgreSQL 14 */
		get_agg_clause_costs(root, (Node *) root->processed_tlist, AGGSPLIT_SIMPLE, &costs);
		get_agg_clause_costs(root, parse->havingQual, AGGSPLIT_SIMPLE, &costs);
#endif
		add_path(output_rel, (Path *)
				 create_agg_path(root, output_rel, input_rel->cheapest_total_path,
								 output_rel->reltarget, AGG_PLAIN, AGGSPLIT_SIMPLE,
								 NIL, (List *) ((GroupPathExtraData *) extra)->havingQual,
								 &costs, 1));
	}
	foreach(lc, partials)
		add_path(output_rel, (Path *) lfirst(lc));
}

/* From _PG_init: the setting and the hook. */
void
planner_init(void)
{
	DefineCustomRealVariable("cuckoo.fixed_agg_union_cost",
							 "Planner's cost of unioning one entry of a partial cuckoo_agg(value, capacity, fpr) state.",
							 "Charged per entry of each partial filter after the first (at most "
							 "capacity entries), so that partial (parallel) aggregation is chosen only "
							 "when it saves more than the unions cost; 0 charges nothing.",
							 &fixed_agg_union_cost, 0.05, 0.0, 1e6, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = fixed_agg_upper_paths;
}
