/*
 * cuckoo_module.c
 *     The module: its magic block and _PG_init, which installs the core's
 *     interrupt hook and calls the init of each part that has one.  Nothing
 *     else is here, so no file below calls back into it.
 */
#include "cuckoo.h"

#include "miscadmin.h"
#include "utils/inval.h"

CF_MODULE_MAGIC;

void		_PG_init(void);

/* Lets a query cancel or time out inside the core's long loops. */
static void
core_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * The module's one relcache callback (a backend has ten, and running out
 * is FATAL): each cache of facts about relations that a relcache
 * invalidation may change forgets them.
 */
static void
module_relcache_callback(Datum arg, Oid relid)
{
	track_cache_forget(relid);
	store_direct_forget(relid);
	track_rights_forget(relid);
}

void
_PG_init(void)
{
	cf_interrupt_hook = core_check_interrupts;
	CacheRegisterRelcacheCallback(module_relcache_callback, (Datum) 0);
	scan_init();
	arg_init();
	planner_init();
	growth_init();
	track_init();
	load_init();
}
