// probe: looks a position up in a kalah database through libkalah, as an engine would.
// Usage: probe DB RULES "POSITION"
#include <kalah/kalah.hpp>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: probe DB RULES \"POSITION\"\n";
    return 2;
  }
  try {
    const kalah::api::Database db(argv[1]);
    // The exact value from the tables alone: what an engine asks at a search leaf.
    if (const auto v = db.value(argv[2], argv[3]))
      std::cout << "value: " << *v << "\n";
    else
      std::cout << "value: not in the database\n";
    // Every move's value, and the best moves (searched when beyond the tables).
    const kalah::api::Answer a = db.query(argv[2], argv[3], /*max_seconds=*/10);
    for (const kalah::api::MoveValue& m : a.moves) {
      std::cout << "pit " << m.pit << ": ";
      if (m.value.exact())
        std::cout << m.value.lower;
      else
        std::cout << m.value.lower << ".." << m.value.upper;
      std::cout << (m.best ? " best" : "") << "\n";
    }
  } catch (const kalah::api::Error& e) {
    std::cerr << "probe: " << e.what() << "\n";
    return e.kind() == kalah::api::Error::Kind::kInput ? 2 : 1;
  }
}
