// A level's stored blocks made by every process: each encodes its share, process 0 collects them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/index.hpp"
#include "db/storage_order.hpp"
#include "solver/mpi/mpi_world.hpp"
#include "solver/retrograde/level_tables.hpp"
#include "solver/retrograde/mpi/exchange.hpp"
#include "solver/retrograde/mpi/partition.hpp"

namespace kalah {

// This process's share of level n's stored blocks (block_share; storage order, blocks of
// block_entries values), encoded: blocks [*first_block, *first_block + result.size()). The values
// come from the processes' slices of level n (complete, packed) through `exchange`. Collective.
std::vector<std::string> encode_share(World w, const LevelIndex& index, const StorageOrder& order,
                                      const LevelTables& levels, const Slices& slices, int n,
                                      std::uint32_t block_entries, int zstd_level,
                                      Exchange& exchange, std::uint64_t* first_block);

// The encoded blocks of every process (`mine` from block first_block on), in block order, on
// process 0 (empty elsewhere); adds the bytes this process sent to *bytes. Collective.
std::vector<std::string> collect_blocks(World w, std::vector<std::string> mine,
                                        std::uint64_t first_block, std::uint64_t* bytes);

}  // namespace kalah
