/* XLA's kernel contract, decided by the oracle from the IR alone (its own
 * reading of xla/hlo/analysis/hlo_dataflow_analysis.cc and alias_info.cc,
 * sharing nothing with passes/): which output nodes an op forwards, which
 * it must write in place over an operand, which it may. */
#ifndef HLOPLAN_ORACLE_CONTRACT_H
#define HLOPLAN_ORACLE_CONTRACT_H

#include "ir/ir.h"

/* Does output node `node` of `in` (operands shaped as[]) forward a value
 * of an operand rather than define one?  1 with operand *k's node *j;
 * else 0.  Parameters, while, conditional and call are the
 * interpreter's to decide (they move data between computations). */
int contract_forward(const struct instr *in, const struct shape *const *as,
		     int node, int *k, int *j);

/* Does async-update `in` bind late: operands past its chain's, or a
 * shape that is not its operand's (as[0])? */
int contract_binds_late(const struct instr *in,
			const struct shape *const *as);

/* Must output node `node` hold operand *k's node *j before `in` runs,
 * because XLA runs the kernel in place (dynamic-update-slice, scatter,
 * output_to_operand_aliasing, fusions whose root updates a parameter)?
 * 1 with *k, *j; else 0. */
int contract_in_place(const struct module *m, const struct instr *in,
		      const struct shape *const *as, int node, int *k, int *j);

/* May output node `node` lie exactly over operand k's node j, which `in`
 * reads (read before written, element for element)?  An elementwise op,
 * a loop or input fusion elementwise from that parameter to that output
 * (XLA's GPU FusionCanShareBufferHint), an in-place pair. */
int contract_may_share(const struct module *m, const struct instr *in,
		       const struct shape *const *as, int node, int k, int j);

/* Is `in` a done that writes nothing (its arrays are its start's)? */
int contract_is_done(const struct instr *in);

/* Does XLA's contract tie output node `node` to an operand's buffer (an
 * in-place output, or a done's forwarded array)?  Plans
 * that move such a node to a buffer of its own are wrong: the oracle's
 * --mutate-contract does that on purpose. */
int contract_tied(const struct module *m, const struct instr *in,
		  const struct shape *const *as, int node);

#endif
