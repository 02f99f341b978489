// Gloo's halving-doubling allreduce and reduce-scatter as transfers, read off gloo/allreduce_halving_doubling.h
// and gloo/reduce_scatter.h (the Debian libgloo headers the gloo backend builds against). For a rank count that is
// not a power of two Gloo cuts the ranks into binary blocks (n's set bits, largest first): halving within each
// block, then each smaller block hands its reduced chunk up to the next larger one, and (allreduce) the larger
// block hands the result back down before doubling within the block.
#pragma once

#include <cstddef>
#include <vector>

#include "lib/traffic/transfer.h"

namespace commbench {
namespace traffic {

// AllreduceHalvingDoubling over `count` elements on n ranks: payloads and the per-step notifications.
void GlooHalvingDoublingAllreduce(size_t count, int n, std::vector<Transfer>* transfers);

// ReduceScatterHalvingDoubling over n·count elements, `count` kept per rank: the halving (as above, no doubling),
// then the largest block's distribution to every rank, each piece acknowledged by a notification.
void GlooHalvingDoublingReduceScatter(size_t count, int n, std::vector<Transfer>* transfers);

}  // namespace traffic
}  // namespace commbench
