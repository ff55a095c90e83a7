// The collectives that work in a group's SharedArena (shared_arena.h) instead of
// sending messages. Each splits its data into rounds of at most the arena's buffer
// size; docs/ALGORITHMS.md ("Shared-memory collectives") describes them and the
// thresholds at which the selection table prefers them.
#pragma once

#include <cstdint>

#include "collectives/arena/shared_arena.h"
#include "collectives/collective_spec.h"
#include "collectives/executor.h"

namespace weft::collectives::arena {

// What every member of a call agrees on: compared in every round.
SharedArena::Signature signature(const CollectiveSpec& spec);

using Runner = void (*)(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                        SharedArena::Call& call);

// Every member publishes and waits for all the others.
void barrier(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
             SharedArena::Call& call);
// The root stages, every other member copies out.
void broadcast(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
               SharedArena::Call& call);
// Every member stages its vector and reduces all of them, in member order (so that all
// end with the same bits): one wait per round, n reads per element.
void all_reduce_direct(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                       SharedArena::Call& call);
// Every member stages its vector, reduces its 1/n slice of all of them in place in its
// own buffer, and then copies every slice out: two waits per round, 2 reads per element.
void all_reduce_sliced(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                       SharedArena::Call& call);
// The others stage, the root reduces straight from their buffers into its output.
void reduce_direct(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                   SharedArena::Call& call);
// Every member stages its block, and copies every other block out.
void all_gather(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                SharedArena::Call& call);

}  // namespace weft::collectives::arena
