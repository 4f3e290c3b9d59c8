/*
 * cuckoo_module.c
 *     The module: its magic block and _PG_init, which installs the core's
 *     interrupt hook and calls the init of each part that has one.  Nothing
 *     else is here, so no file below calls back into it.
 */
#include "cuckoo.h"

#include "miscadmin.h"

CF_MODULE_MAGIC;

void		_PG_init(void);

/* Lets a query cancel or time out inside the core's long loops. */
static void
core_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	cf_interrupt_hook = core_check_interrupts;
	scan_init();
	arg_init();
	planner_init();
	growth_init();
	track_init();
	load_init();
}
