// DbError: a database problem (missing, corrupt, full, table absent), reported in one line.
#pragma once

#include <stdexcept>

namespace kalah {

// Any failure of the database layer. what() is one line naming the path and what is wrong.
struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kalah
