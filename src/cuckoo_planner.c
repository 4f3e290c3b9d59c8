/*
 * cuckoo_planner.c
 *     What the planner knows about cuckoo_contains(f, col) and f @> col: a
 *     selectivity from the filter's item count against the column's number of
 *     distinct values, when the filter is known at plan time (a literal, or a
 *     parameter of a custom plan), and a per-row cost.
 */
#include "cuckoo.h"

#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/selfuncs.h"

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
