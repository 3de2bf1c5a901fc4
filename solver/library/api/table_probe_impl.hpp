// What a TableProbe holds: the table's probe and, when it is resident, its levels read directly.
#pragma once

#include <memory>
#include <string>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "engine/rules.hpp"
#include "kalah/kalah.hpp"

namespace kalah::api {

struct TableProbe::Impl {
  Impl(std::shared_ptr<const Store> store, std::shared_ptr<Probe> probe, Rules rules, int levels);

  std::shared_ptr<const Store> store;  // the probe reads it (block cache); kept alive with it
  std::shared_ptr<Probe> probe;
  std::string rules_name;
  int m;
  int max_stones;               // levels 0..max_stones are answered
  const ResidentLevel* levels;  // the probe's levels when resident, else nullptr
  const StorageOrder* order;    // the probe's storage order
  bool game_ends[2][2];         // the rule set's game_ends(mover empty, opponent empty)
};

}  // namespace kalah::api
