// The runtime headers every emitted library compiles in, as text (embedded at build
// time): emit_model writes them beside the generated wrapper.
#pragma once

namespace tessera::graph {

// model_thread_pool.h: the model's own thread pool behind Halide's halide_do_par_for.
extern const char *const kModelThreadPoolHeader;
// model_block_cache.h: the heap blocks the model keeps between calls (included by the pool).
extern const char *const kModelBlockCacheHeader;

}  // namespace tessera::graph
