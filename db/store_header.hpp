// The database header's version, raised by every write of what an older reader would misread.
#pragma once

#include "db/lmdb_env.hpp"

namespace kalah {

// Raises the header to this format's version, so that a reader of an older one refuses the
// database as newer instead of misreading what this version wrote.
void raise_header(LmdbTxn& txn);

}  // namespace kalah
