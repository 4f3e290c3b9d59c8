/*
 * cuckoo_scan.c
 *     The batched probe: a CustomScan ("CuckooProbe") that the planner puts
 *     over a scan whose quals hold cuckoo_contains(filter, key) (or
 *     filter @> key, or cuckoo_store_contains(store, key), or NOT one of
 *     them: then the rows the probe fails pass) with a filter
 *     (store) that stays the same for the whole scan (a constant, a
 *     parameter, an InitPlan's result).  It pulls a batch of rows
 *     from the scan, evaluates and hashes their keys, looks them all up at
 *     once with cf_contains_many (a store: cuckoo_store_contains_many; the
 *     memory accesses of a large filter then overlap instead of waiting one
 *     after the other), and returns the rows
 *     that pass, in the scan's order, after the quals that followed the probe.
 *
 * Planning (set_rel_pathlist_hook): every unparameterised sequential, index
 * or bitmap heap scan path of a base relation with such a clause, partial
 * (parallel) paths included, is replaced by a CustomPath over it with the same
 * costs, rows and sort order, so the plan chosen is the one the unbatched
 * path would get, with the node on top.  PlanCustomPath then cuts the scan's
 * qual list at the probe: the quals before it stay in the scan, those after
 * it move to the node, so each row still meets them in the same order.  The
 * node is not parallel-aware itself: under Gather each process runs it over
 * its share of a parallel scan.
 *
 * Execution: rows are copied out of the scan into a ring of slots (their
 * values must outlive the scan's next row); the filter is evaluated at the
 * first row after each (re)start; hasher, detoasted filter and kind check
 * come from the same per-call-site cache as cuckoo_contains' (cuckoo_arg.c),
 * through a call record of the node's own, so errors are the same.
 *
 * docs/DESIGN.md, "The batched probe", says why and what comes next (filters
 * from a hash join's inner side).
 */
#include "cuckoo_arg.h"
#include "cuckoo_store.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "commands/explain.h"
#if CF_HAVE_EXPLAIN_FORMAT_H
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif

#define PROBE_NAME			"CuckooProbe"
#define PROBE_FIRST_BATCH	16	/* rows in the first batch after a (re)start */

/* the functions the node batches (compared by address): cuckoo_funcs.c's
 * and cuckoo_store_probe.c's (a stored filter, the "filter" then its regclass) */
extern Datum cuckoo_contains(PG_FUNCTION_ARGS);
extern Datum cuckoo_store_contains(PG_FUNCTION_ARGS);

static bool batched_probe = true;
static int	batch_size = 256;
static set_rel_pathlist_hook_type prev_rel_pathlist_hook = NULL;

/* ---------------------------------------------------------------- planning */

/* Is funcid a C function bound to cuckoo_contains or cuckoo_store_contains
 * (of any schema)? */
static bool
is_contains_function(Oid funcid)
{
	HeapTuple	tup;
	bool		is_c;
	FmgrInfo	finfo;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return false;
	is_c = ((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId;
	ReleaseSysCache(tup);
	if (!is_c)
		return false;
	fmgr_info(funcid, &finfo);
	return finfo.fn_addr == cuckoo_contains || finfo.fn_addr == cuckoo_store_contains;
}

/*
 * If clause is cuckoo_contains(filter, key), filter @> key or
 * cuckoo_store_contains(store, key), or NOT one of them, that a batch can
 * evaluate, its two arguments (and *negated for the NOT): the filter (store)
 * must be the same for every row of a scan (no Var, no SubPlan, nothing
 * volatile), the key depends on the row and is not volatile (a batch
 * evaluates it ahead of the rows returned).  A NOT passes the rows whose
 * probe gives false; a NULL filter or key fails the probe either way (NOT
 * NULL is NULL).
 */
static bool
probe_clause_args(Expr *clause, Expr **filter, Expr **key, bool *negated)
{
	List	   *args;
	Oid			funcid;

	*negated = is_notclause(clause);
	if (*negated)
		clause = get_notclausearg(clause);
	if (IsA(clause, FuncExpr))
	{
		FuncExpr   *fe = (FuncExpr *) clause;

		args = fe->args;
		funcid = fe->funcid;
		if (fe->funcresulttype != BOOLOID || fe->funcretset)
			return false;
	}
	else if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;

		args = op->args;
		if (op->opresulttype != BOOLOID || op->opretset)
			return false;
		set_opfuncid(op);
		funcid = op->opfuncid;
	}
	else
		return false;
	if (list_length(args) != 2)
		return false;
	*filter = (Expr *) linitial(args);
	*key = (Expr *) lsecond(args);
	if (contain_var_clause((Node *) *filter) ||
		contain_subplans((Node *) *filter) ||
		contain_volatile_functions((Node *) *filter))
		return false;
	if (!contain_var_clause((Node *) *key) ||
		contain_volatile_functions((Node *) *key))
		return false;
	return is_contains_function(funcid);
}

/*
 * The first clause of rel's restrictions the node can batch, or NULL; none
 * when any restriction is volatile (the scan below the node runs up to a
 * batch of rows ahead of what is returned, which a LIMIT above would see).
 */
static Expr *
find_probe_clause(List *restrictinfo)
{
	ListCell   *lc;
	Expr	   *found = NULL;

	foreach(lc, restrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		Expr	   *filter,
				   *key;
		bool		negated;

		if (contain_volatile_functions((Node *) ri->clause))
			return NULL;
		if (found == NULL && !ri->pseudoconstant &&
			probe_clause_args(ri->clause, &filter, &key, &negated))
			found = ri->clause;
	}
	return found;
}

static Plan *probe_plan_path(PlannerInfo *root, RelOptInfo *rel,
							 CustomPath *best_path, List *tlist,
							 List *clauses, List *custom_plans);

static const CustomPathMethods probe_path_methods = {
	.CustomName = PROBE_NAME,
	.PlanCustomPath = probe_plan_path,
};

/* The batched form of path: a CustomPath over it, costed the same. */
static Path *
probe_path(RelOptInfo *rel, Path *child, Expr *clause)
{
	CustomPath *cp = makeNode(CustomPath);

	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = child->pathtarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = child->parallel_safe;
	cp->path.parallel_workers = child->parallel_workers;
	cp->path.rows = child->rows;
	cp->path.startup_cost = child->startup_cost;
	cp->path.total_cost = child->total_cost;
	cp->path.pathkeys = child->pathkeys;
	cp->flags = CF_CUSTOMPATH_FLAGS;
	cp->custom_paths = list_make1(child);
	cp->custom_private = list_make1(clause);
	cp->methods = &probe_path_methods;
	return &cp->path;
}

static bool
path_is_wrappable(Path *path)
{
	if (path->param_info != NULL)
		return false;			/* a scan per outer row: nothing to batch */
	switch (path->pathtype)
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_BitmapHeapScan:
			return true;
		default:
			return false;
	}
}

static void
probe_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
				   RangeTblEntry *rte)
{
	Expr	   *clause;
	ListCell   *lc;

	if (prev_rel_pathlist_hook)
		prev_rel_pathlist_hook(root, rel, rti, rte);
	if (!batched_probe || rte->rtekind != RTE_RELATION ||
		(rel->reloptkind != RELOPT_BASEREL &&
		 rel->reloptkind != RELOPT_OTHER_MEMBER_REL) ||
		rel->baserestrictinfo == NIL)
		return;
	clause = find_probe_clause(rel->baserestrictinfo);
	if (clause == NULL)
		return;
	foreach(lc, rel->pathlist)
	{
		if (path_is_wrappable((Path *) lfirst(lc)))
			lfirst(lc) = probe_path(rel, (Path *) lfirst(lc), clause);
	}
	foreach(lc, rel->partial_pathlist)
	{
		if (path_is_wrappable((Path *) lfirst(lc)))
			lfirst(lc) = probe_path(rel, (Path *) lfirst(lc), clause);
	}
}

static const CustomScanMethods probe_scan_methods;

/*
 * May a consumer above stop before the scan's last row?  Not when the planner
 * plans for every row (tuple_fraction 0), nor when the query's only relation
 * feeds an aggregate without groups or a full sort (its path has no prefix of
 * the sort order an incremental sort could use).
 */
static bool
probe_may_stop_early(PlannerInfo *root, Path *path)
{
	Query	   *parse = root->parse;
	int			common;

	if (root->tuple_fraction <= 0)
		return false;
	if (bms_membership(root->all_baserels) != BMS_SINGLETON)
		return true;
	if (parse->hasAggs && parse->groupClause == NIL && parse->groupingSets == NIL &&
		!parse->hasWindowFuncs && !parse->hasTargetSRFs)
		return false;
	if (root->query_pathkeys != NIL && !parse->hasWindowFuncs &&
		parse->distinctClause == NIL && parse->groupClause == NIL &&
		!parse->hasTargetSRFs &&
		!pathkeys_count_contained_in(root->query_pathkeys, path->pathkeys, &common) &&
		common == 0)
		return false;
	return true;
}

/*
 * The CustomScan over the scan's plan.  The scan keeps the quals before the
 * probe and returns every column the node, its quals and its projection need
 * (the columns of rel's target, of the tlist asked for, of the probe and of
 * the quals after it); the node scans that tuple (custom_scan_tlist).
 */
static Plan *
probe_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	Expr	   *clause = (Expr *) linitial(best_path->custom_private);
	Plan	   *child = (Plan *) linitial(custom_plans);
	CustomScan *cscan = makeNode(CustomScan);
	Expr	   *filter,
			   *key;
	bool		negated;
	List	   *pre = NIL,
			   *post = NIL,
			   *flat,
			   *vars;
	ListCell   *lc;
	bool		seen = false;
	int			size = batch_size;

	/*
	 * Pseudoconstant quals gate the scan with a Result; the same Result gates
	 * this node (they are the relation's, and this path's), so the scan's
	 * own is redundant.
	 */
	while (IsA(child, Result) && outerPlan(child) != NULL)
		child = outerPlan(child);

	foreach(lc, child->qual)
	{
		Expr	   *q = (Expr *) lfirst(lc);

		if (!seen && (q == clause || equal(q, clause)))
			seen = true;
		else if (seen)
			post = lappend(post, q);
		else
			pre = lappend(pre, q);
	}
	if (!seen)
	{
		/* not among the scan's quals (implied by an index): nothing to do */
		post = NIL;
		pre = child->qual;
		clause = NULL;
	}
	child->qual = pre;

	vars = pull_var_clause((Node *) rel->reltarget->exprs, PVC_INCLUDE_PLACEHOLDERS);
	vars = list_concat(vars, pull_var_clause((Node *) tlist, PVC_INCLUDE_PLACEHOLDERS));
	vars = list_concat(vars, pull_var_clause((Node *) post, PVC_INCLUDE_PLACEHOLDERS));
	if (clause != NULL)
		vars = list_concat(vars, pull_var_clause((Node *) clause, PVC_INCLUDE_PLACEHOLDERS));
	flat = add_to_flat_tlist(NIL, vars);
	child->targetlist = flat;

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = post;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	/* a cursor can go backward through the node if it can through the scan */
	if (ExecSupportsBackwardScan(child))
		cscan->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	cscan->custom_plans = list_make1(child);
	if (clause != NULL)
	{
		probe_clause_args(clause, &filter, &key, &negated);
		cscan->custom_exprs = list_make3(filter, key, clause);
	}
	/*
	 * A batch evaluates the keys and the scan's quals of rows ahead of those
	 * asked for.  When the rows may not all be asked for (a LIMIT, a cursor,
	 * an EXISTS subquery: tuple_fraction > 0, unless an aggregate or a sort
	 * reads them all) and doing so could raise an
	 * error (a function that is not leakproof takes a column), a batch is one
	 * row: a query that succeeds unbatched must not fail on a row it never
	 * reads.
	 */
	if (clause != NULL && probe_may_stop_early(root, &best_path->path) &&
		(contain_leaked_vars((Node *) key) || contain_leaked_vars((Node *) pre)))
		size = 1;
	cscan->custom_private = list_make1(makeInteger(size));
	/* copyObjectImpl: 19's copyObject needs C23's typeof_unqual, not gnu99 */
	cscan->custom_scan_tlist = (List *) copyObjectImpl(flat);
	cscan->methods = &probe_scan_methods;
	return &cscan->scan.plan;
}

/* --------------------------------------------------------------- execution */

typedef struct ProbeState
{
	CustomScanState css;
	PlanState  *child;
	ScanState  *child_scan;		/* child as a scan: its current tuple's TID */
	TupleTableSlot *idle_slot;	/* the node's scan slot when on no row */
	bool		probing;		/* false: no probe found at plan time */
	bool		store;			/* cuckoo_store_contains: filter is a regclass */
	bool		negated;		/* NOT around the probe: rows it fails pass */
	ExprState  *filter_expr;
	ExprState  *key_expr;
	Expr	   *clause;			/* for EXPLAIN (the NOT, if any) */
	ExprContext *key_cxt;		/* a key and its hash, reset per row */
	MemoryContext batch_cxt;	/* the filter's view, reset per batch */
	MemoryContext scan_cxt;		/* the filter's value, reset per (re)scan */
	Size		max_bytes;		/* row values a batch holds (work_mem) */
	int		   *byref_atts;		/* the scan tuple's by-reference columns */
	int			nbyref;
	FmgrInfo	flinfo;			/* the call site of cuckoo_contains' cache */
	Oid			collation;
	int			max_batch;
	int			cur_batch;
	TupleTableSlot **slots;		/* the batch */
	uint64	   *hashes;
	int		   *where;			/* hashes[j] is the key of slots[where[j]] */
	bool	   *found;
	int		   *ready;			/* slots passing the probe, in scan order */
	int			nready;
	int			pos;
	int			nbatch;			/* rows pulled into the batch */
	ScanDirection dir;			/* the direction the batch was pulled in */
	int			ahead;			/* rows pulled past the last row returned */
	bool		child_done;
	bool		filter_ready;	/* filter evaluated since the (re)start */
	bool		filter_null;
	Datum		filter;
} ProbeState;

static Node *probe_create_state(CustomScan *cscan);

static const CustomScanMethods probe_scan_methods = {
	.CustomName = PROBE_NAME,
	.CreateCustomScanState = probe_create_state,
};

static void
probe_begin(CustomScanState *node, EState *estate, int eflags)
{
	ProbeState *ps = (ProbeState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	int			n;

	ps->child = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(ps->child);

	/*
	 * WHERE CURRENT OF: execCurrentOf looks for a scan node of the table
	 * (ss_currentRelation) and takes the TID of its current row from its scan
	 * slot, without descending into a CustomScan.  The node answers for the
	 * scan below: the row it returned last is its scan slot, with the TID and
	 * table of the scan tuple it was copied from.
	 */
	switch (nodeTag(ps->child))
	{
		case T_SeqScanState:
		case T_IndexScanState:
		case T_BitmapHeapScanState:
			ps->child_scan = (ScanState *) ps->child;
			node->ss.ss_currentRelation = ps->child_scan->ss_currentRelation;
			break;
		default:
			ps->child_scan = NULL;
			break;
	}
	ps->idle_slot = node->ss.ss_ScanTupleSlot;
	ps->max_batch = n = Max(1, intVal(linitial(cscan->custom_private)));
	ps->probing = cscan->custom_exprs != NIL;
	if (ps->probing)
	{
		Expr	   *probe;

		ps->filter_expr = ExecInitExpr((Expr *) linitial(cscan->custom_exprs), &node->ss.ps);
		ps->key_expr = ExecInitExpr((Expr *) lsecond(cscan->custom_exprs), &node->ss.ps);
		ps->clause = (Expr *) lthird(cscan->custom_exprs);
		ps->negated = is_notclause(ps->clause);
		probe = ps->negated ? get_notclausearg(ps->clause) : ps->clause;
		ps->collation = exprInputCollation((Node *) probe);
		fmgr_info(IsA(probe, FuncExpr) ? ((FuncExpr *) probe)->funcid :
				  ((OpExpr *) probe)->opfuncid, &ps->flinfo);
		fmgr_info_set_expr((Node *) probe, &ps->flinfo);
		ps->store = ps->flinfo.fn_addr == cuckoo_store_contains;
	}
	ps->key_cxt = CreateExprContext(estate);
	ps->batch_cxt = AllocSetContextCreate(estate->es_query_cxt, "cuckoo batched probe batch",
										  ALLOCSET_SMALL_SIZES);
	ps->max_bytes = (Size) work_mem * 1024;
	ps->byref_atts = palloc(sizeof(int) * Max(1, desc->natts));
	ps->nbyref = 0;
	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attbyval)
			ps->byref_atts[ps->nbyref++] = i;
	ps->scan_cxt = AllocSetContextCreate(estate->es_query_cxt, "cuckoo batched probe",
										 ALLOCSET_SMALL_SIZES);
	ps->slots = palloc(sizeof(TupleTableSlot *) * n);
	for (int i = 0; i < n; i++)
		ps->slots[i] = ExecInitExtraTupleSlot(estate, desc, &TTSOpsVirtual);
	ps->hashes = palloc(sizeof(uint64) * n);
	ps->where = palloc(sizeof(int) * n);
	ps->found = palloc(sizeof(bool) * n);
	ps->ready = palloc(sizeof(int) * n);
	ps->cur_batch = Min(PROBE_FIRST_BATCH, n);
	ps->dir = ForwardScanDirection;
}

/* The filter for this scan, evaluated once (at its first row). */
static void
probe_eval_filter(ProbeState *ps, ExprContext *econtext)
{
	MemoryContext old = MemoryContextSwitchTo(ps->scan_cxt);
	bool		isnull;

	ps->filter = ExecEvalExpr(ps->filter_expr, econtext, &isnull);
	MemoryContextSwitchTo(old);
	ps->filter_null = isnull;
	ps->filter_ready = true;
}

/* The bytes of the by-reference values of a row copied into a batch slot. */
static Size
probe_row_bytes(ProbeState *ps, TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Size		bytes = 0;

	for (int i = 0; i < ps->nbyref; i++)
	{
		int			att = ps->byref_atts[i];
		int16		len = TupleDescAttr(desc, att)->attlen;

		if (slot->tts_isnull[att])
			continue;
		if (len > 0)
			bytes += len;
		else if (len == -1)
			bytes += VARSIZE_ANY(DatumGetPointer(slot->tts_values[att]));
		else
			bytes += strlen(DatumGetCString(slot->tts_values[att])) + 1;
	}
	return bytes;
}

/*
 * Fills the batch: pulls up to cur_batch rows from the scan, hashes the keys
 * of those with a non-null key (a null filter or key fails the probe, as the
 * strict cuckoo_contains gives NULL), and looks them up together.  false when
 * the scan has no more rows.  A batch ends early once its rows' values take
 * work_mem (wide rows: a batch of detoasted whole rows would otherwise hold
 * up to the batch size times a row); a key is evaluated and hashed in memory
 * reset at the next row (a key of a megabyte is kept no longer than its row).
 */
static bool
probe_fill(ProbeState *ps)
{
	ExprContext *kc = ps->key_cxt;
	ValueHasher *vh = NULL;
	const cf_filter *cf = NULL;
	LOCAL_FCINFO(fcinfo, 2);
	int			n = 0,
				nprobe = 0;
	Size		bytes = 0;

	ps->pos = ps->nready = ps->nbatch = 0;
	if (ps->child_done)
		return false;
	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(ps->batch_cxt);
	while (n < ps->cur_batch && bytes < ps->max_bytes)
	{
		TupleTableSlot *in = ExecProcNode(ps->child);
		TupleTableSlot *slot;
		Datum		key;
		bool		isnull;

		if (TupIsNull(in))
		{
			ps->child_done = true;
			break;
		}
		slot = ExecCopySlot(ps->slots[n], in);
		if (ps->child_scan != NULL)
		{
			slot->tts_tid = ps->child_scan->ss_ScanTupleSlot->tts_tid;
			slot->tts_tableOid = ps->child_scan->ss_ScanTupleSlot->tts_tableOid;
		}
		if (ps->nbyref > 0)
			bytes += probe_row_bytes(ps, slot);
		if (!ps->probing)
		{
			ps->ready[ps->nready++] = n++;
			continue;
		}
		ResetExprContext(kc);
		kc->ecxt_scantuple = slot;
		if (!ps->filter_ready)
			probe_eval_filter(ps, kc);
		key = ExecEvalExprSwitchContext(ps->key_expr, kc, &isnull);
		if (!isnull && !ps->filter_null)
		{
			MemoryContext old;

			if (vh == NULL)
			{
				/*
				 * as cuckoo_contains does at a call: hasher, then view (kept
				 * for the batch: the view of a filter with a short header is
				 * over a copy made in the current context); a store's
				 * segments are read when the batch is answered
				 */
				old = MemoryContextSwitchTo(ps->batch_cxt);

				InitFunctionCallInfoData(*fcinfo, &ps->flinfo, 2, ps->collation, NULL, NULL);
				fcinfo->args[0].value = ps->filter;
				fcinfo->args[0].isnull = false;
				fcinfo->args[1].value = key;
				fcinfo->args[1].isnull = false;
				if (ps->store)
					vh = cuckoo_store_probe_hasher(fcinfo);
				else
				{
					vh = arg_hasher(fcinfo, 1);
					cf = arg_probe_view(fcinfo, 0, vh);
				}
				MemoryContextSwitchTo(old);
			}
			old = MemoryContextSwitchTo(kc->ecxt_per_tuple_memory);
			ps->hashes[nprobe] = value_hash(vh, key);
			ps->where[nprobe++] = n;
			MemoryContextSwitchTo(old);
		}
		n++;
	}
	ps->nbatch = n;
	if (!ps->probing)
		return n > 0;
	if (nprobe > 0 && ps->store)
	{
		/* as nprobe calls of cuckoo_store_contains under this snapshot */
		MemoryContext old = MemoryContextSwitchTo(ps->batch_cxt);

		cuckoo_store_contains_many(fcinfo, DatumGetObjectId(ps->filter), vh,
								   ps->hashes, nprobe, ps->found);
		MemoryContextSwitchTo(old);
	}
	else if (nprobe > 0)
		cf_contains_many(cf, ps->hashes, nprobe, ps->found);
	for (int j = 0; j < nprobe; j++)
		if (ps->found[j] != ps->negated)
			ps->ready[ps->nready++] = ps->where[j];
	if (n - ps->nready > 0)
		InstrCountFiltered2(&ps->css.ss.ps, n - ps->nready);
	if (ps->cur_batch < ps->max_batch)
		ps->cur_batch = Min(ps->cur_batch * 2, ps->max_batch);
	return n > 0;
}

/*
 * A cursor turns (FETCH BACKWARD after forward, or the reverse): the scan
 * below has run ahead of the row the node returned last, so it is moved back
 * onto that row (the new direction is already the executor's), and the
 * batch is dropped.  Every row pulled past the last row returned counts, and
 * so does the end of the scan if it was reached: from past its end, a scan
 * going backward returns its last row first.
 */
static void
probe_turn(ProbeState *ps, ScanDirection dir)
{
	for (int i = 0; i < ps->ahead; i++)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(ps->child);
		if (TupIsNull(slot))
			break;
	}
	ps->ahead = 0;
	ps->pos = ps->nready = ps->nbatch = 0;
	ps->child_done = false;
	ps->dir = dir;
}

static TupleTableSlot *
probe_exec(CustomScanState *node)
{
	ProbeState *ps = (ProbeState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;
	ScanDirection dir = node->ss.ps.state->es_direction;

	if (dir != ps->dir && !ScanDirectionIsNoMovement(dir))
		probe_turn(ps, dir);
	for (;;)
	{
		TupleTableSlot *slot;
		int			i;

		while (ps->pos >= ps->nready)
		{
			if (!probe_fill(ps))
			{
				node->ss.ss_ScanTupleSlot = ps->idle_slot;
				ps->ahead = 0;	/* the node is where the scan is: past its end */
				return NULL;
			}
		}
		i = ps->ready[ps->pos++];
		slot = ps->slots[i];
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		if (qual == NULL || ExecQual(qual, econtext))
		{
			node->ss.ss_ScanTupleSlot = slot;	/* the current row */
			ps->ahead = ps->nbatch - 1 - i + (ps->child_done ? 1 : 0);
			return proj ? ExecProject(proj) : slot;
		}
		InstrCountFiltered1(node, 1);
	}
}

static void
probe_end(CustomScanState *node)
{
	ProbeState *ps = (ProbeState *) node;

	ExecEndNode(ps->child);
}

static void
probe_rescan(CustomScanState *node)
{
	ProbeState *ps = (ProbeState *) node;

	ps->pos = ps->nready = ps->nbatch = ps->ahead = 0;
	ps->child_done = false;
	ps->filter_ready = false;
	node->ss.ss_ScanTupleSlot = ps->idle_slot;
	ps->cur_batch = Min(PROBE_FIRST_BATCH, ps->max_batch);
	MemoryContextReset(ps->scan_cxt);
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(ps->child, node->ss.ps.chgParam);
	if (ps->child->chgParam == NULL)
		ExecReScan(ps->child);
}

static void
probe_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ProbeState *ps = (ProbeState *) node;

	if (ps->probing)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);

		/* prefixes as for a scan's Filter line */
		ExplainPropertyText("Cuckoo Probe",
							deparse_expression((Node *) ps->clause, context, es->verbose, false),
							es);
	}
	ExplainPropertyInteger("Batch Size", NULL, ps->max_batch, es);
	if (es->analyze && node->ss.ps.instrument && node->ss.ps.instrument->nloops > 0)
		ExplainPropertyFloat("Rows Removed by Probe", NULL,
							 node->ss.ps.instrument->nfiltered2 /
							 node->ss.ps.instrument->nloops, 0, es);
}

static const CustomExecMethods probe_exec_methods = {
	.CustomName = PROBE_NAME,
	.BeginCustomScan = probe_begin,
	.ExecCustomScan = probe_exec,
	.EndCustomScan = probe_end,
	.ReScanCustomScan = probe_rescan,
	.ExplainCustomScan = probe_explain,
};

static Node *
probe_create_state(CustomScan *cscan)
{
	ProbeState *ps = palloc0(sizeof(ProbeState));

	NodeSetTag(ps, T_CustomScanState);
	ps->css.flags = cscan->flags;
	ps->css.methods = &probe_exec_methods;
	return (Node *) ps;
}

/* From _PG_init: the settings, the node's name for plan copies (parallel
 * workers read plans by it), the planner hook. */
void
scan_init(void)
{
	DefineCustomBoolVariable("cuckoo.batched_probe",
							 "Probes cuckoo filters over a scan in batches.",
							 "Plans made with it on put a CuckooProbe node over a scan "
							 "filtered by cuckoo_contains(filter, key) with a filter that "
							 "is the same for every row: keys are looked up a batch at a "
							 "time, so a large filter's memory accesses overlap.",
							 &batched_probe, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cuckoo.batched_probe_size",
							"Rows per batch of the batched probe.",
							NULL,
							&batch_size, 256, 1, 8192, PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterCustomScanMethods(&probe_scan_methods);
	prev_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = probe_rel_pathlist;
}
