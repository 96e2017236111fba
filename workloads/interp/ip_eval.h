/* ip_eval.h - interp's evaluator: walks the resolved syntax tree on the
 * runtime heap, one runtime frame per guest call.
 *
 * Invariants:
 *  - Each guest call pushes a runtime frame whose sgc_func is the guest
 *    function's (so profiles show Proc1, Func2, ... as frames) and whose one
 *    root is the call's Env; temporaries live on the value stack
 *    (ip_value.h).  eval() returns a raw value that is valid until the next
 *    allocation: callers push it or use it before allocating.
 *  - A runtime error prints a guest-level traceback (outermost call first,
 *    each with the line being run) and "error: <file>:<line>:<col>:
 *    <message>" on stderr, then exits with status 1.
 *  - mix(v) folds v into ip_sum, the checksum the workload prints; nothing
 *    else the guest does reaches it.
 */
#ifndef IP_EVAL_H
#define IP_EVAL_H

#include "../wl_common.h"
#include "ip_parse.h"

extern wl_checksum ip_sum;
extern int64_t ip_size; /* what the guest's size() returns: the --size */

/* The guest call depth at which a call is a "recursion too deep" error. */
#define IP_MAX_DEPTH 1000

/* Runs the program's top level in a fresh global Env.  file names the
 * program in tracebacks.  Returns when the top level finishes. */
void ip_run(const char *file, ip_fndef *top);

#endif /* IP_EVAL_H */
