/* fastpath_ref.c - reference allocation functions whose machine code the
 * fast-path check inspects: the inline fast path of sgc.h, as a workload
 * compiles it, for a size known only at run time and for a constant size. */
#include "sgc.h"

sgc_obj fastpath_ref(uint32_t tid, size_t payload) { return sgc_alloc(tid, payload); }

sgc_obj fastpath_ref24(uint32_t tid) { return sgc_alloc(tid, 24); }
